# Two commands set everything up on a fresh machine:
#   make demo   create .venv, install criss_rag + the bundled plugins, run the offline demo
#   make test   also install the test dependencies, run the whole test suite
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# milvus (pymilvus + milvus-lite, ~450 MB) and ray (ray[data], ~600 MB) scale past one machine; the
# demo does not need them, so only `make test` installs them
HEAVY_PLUGINS := $(wildcard plugins/milvus/pyproject.toml plugins/ray/pyproject.toml)
PLUGINS := $(filter-out $(HEAVY_PLUGINS),$(sort $(wildcard plugins/*/pyproject.toml)))
INSTALLED := $(VENV)/.installed
TEST_INSTALLED := $(VENV)/.test-installed

.PHONY: demo test clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first, pinned: 2.13.0 is the CPU build on these machines; left to a dependency
# resolver, sentence-transformers would pull a multi-GB CUDA build.
$(INSTALLED): pyproject.toml $(PLUGINS) | $(PY)
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e . $(addprefix -e ,$(dir $(PLUGINS)))
	touch $@

$(TEST_INSTALLED): $(INSTALLED) $(HEAVY_PLUGINS) tests/plugins/titleboost/pyproject.toml examples/criss-rag-example-plugin/pyproject.toml
	$(PIP) install --quiet -e '.[test,eval]' -e tests/plugins/titleboost -e examples/criss-rag-example-plugin $(addprefix -e ,$(dir $(HEAVY_PLUGINS)))
	touch $@

demo: $(INSTALLED)
	$(VENV)/bin/criss-rag demo

# The browser test (tests/test_serve_browser.py) drives Debian's headless Chromium and its driver,
# and checks Korean and Japanese are drawn with a CJK font (Debian's fonts-noto-cjk); installed only
# when missing (never a browser download of its own).
CHROMIUM := /usr/bin/chromium
CJK_FONT := /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
$(CHROMIUM):
	apt-get install -y chromium chromium-driver || (apt-get update && apt-get install -y chromium chromium-driver)
$(CJK_FONT):
	apt-get install -y fonts-noto-cjk || (apt-get update && apt-get install -y fonts-noto-cjk)

test: $(TEST_INSTALLED) $(CHROMIUM) $(CJK_FONT)
	CRISS_RAG_STRICT_PLUGINS=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest

clean:
	rm -rf $(VENV) examples/.criss_rag .pytest_cache
