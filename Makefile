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

# plugins/milvus[server]: PyPI's `milvus`, the real Milvus server tests/test_milvus_server.py starts
$(TEST_INSTALLED): $(INSTALLED) $(HEAVY_PLUGINS) tests/plugins/titleboost/pyproject.toml examples/criss-rag-example-plugin/pyproject.toml
	$(PIP) install --quiet -e '.[test,eval]' -e tests/plugins/titleboost -e examples/criss-rag-example-plugin $(addprefix -e ,$(dir $(HEAVY_PLUGINS)))
	$(PIP) install --quiet -e 'plugins/milvus[server]'
	touch $@

demo: $(INSTALLED)
	$(VENV)/bin/criss-rag demo

# The browser test (tests/test_serve_browser.py) drives Debian's headless Chromium and its driver;
# installed only when missing (never a browser download of its own).
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	apt-get install -y chromium chromium-driver || (apt-get update && apt-get install -y chromium chromium-driver)

test: $(TEST_INSTALLED) $(CHROMIUM)
	CRISS_RAG_STRICT_PLUGINS=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 $(PY) -m pytest

clean:
	rm -rf $(VENV) examples/.criss_rag .pytest_cache
