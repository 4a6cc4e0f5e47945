"""The generator stage's answer policies (``citations``, ``unsupported``) and thinking kept apart.

The adversary is a small local model as it really behaves: it writes no ``[n]`` markers, adds a
fluent sentence no passage supports, answers in Korean or Japanese, or thinks aloud in
``<think>`` blocks. Every LLM is a real LlamaIndex client talking to a loopback stub server.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.answering.thinking import ThinkSplitter, split_thinking
from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError
from criss_rag.plugins import PluginHost
from criss_rag.testing import MULTILINGUAL_CORPUS, pipeline_from_yaml, replaced, write_jsonl
from criss_rag.testing.servers import OllamaStubServer, OpenAIStubServer
from criss_rag.types import AnswerEvent, ProgressEvent, ThinkingEvent, TokenEvent

LIVER_Q = "What raises the risk of liver cancer?"
SUPPORTED = "Hepatitis B infection raises the risk of liver cancer."
INVENTED = "Drinking green tea every morning cures it completely."


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("grounding")
    write_jsonl(root / "corpus.jsonl", MULTILINGUAL_CORPUS)
    return root


def config(workdir: Path, server: OpenAIStubServer, policy: str = "", extra: str = "") -> str:
    llm = f'{{name: openai-compatible, model: small-local, api_base: "{server.base_url}", max_retries: 0}}'
    return (f"name: grounding-test\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\nllms:\n  gen: {llm}\n"
            f"generator: {{name: llm, llm: gen{', ' + policy if policy else ''}}}\n{extra}")


def ask(workdir: Path, host: PluginHost, reply: str, question: str = LIVER_Q, policy: str = "", **server_kw):
    with OpenAIStubServer(reply=reply, **server_kw) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server, policy), workdir, host), build_if_missing=True)
        answer = engine.ask(question)
        assert len(server.requests_to("/v1/chat/completions")) == 1
    return answer


# -- citations: require | attribute -------------------------------------------------------------------


def test_a_model_that_writes_no_markers_is_withheld_under_require(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED} Liver cancer starts in liver cells.", policy="citations: require")
    assert answer.refused and answer.refusal_reason == "uncited_answer"


def test_attribute_adds_the_marker_of_the_passage_that_supports_each_sentence(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED} Liver cancer starts in liver cells.", policy="citations: attribute")
    assert not answer.refused, answer.refusal_detail
    assert answer.text == f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [1]."
    assert [c.doc_id for c in answer.citations] == ["liver"]
    assert [(s.cited, s.attributed, s.supported) for s in answer.sentences] == [([1], True, True), ([1], True, True)]
    cite = answer.trace.stage("cite").notes
    assert cite["policy"] == {"citations": "attribute", "unsupported": "drop"}
    assert cite["attributed"] == 2 and cite["dropped"] == []


def test_attribute_leaves_valid_markers_alone_and_replaces_invalid_ones(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [7].",
                 policy="citations: attribute")
    assert answer.text == f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [1]."
    assert [(s.attributed, s.invalid_citations) for s in answer.sentences] == [(False, []), (True, [7])]


# -- unsupported: drop | mark | withhold ------------------------------------------------------------------


def test_drop_removes_an_invented_sentence_and_keeps_it_with_its_score(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED} {INVENTED}", policy="citations: attribute, unsupported: drop")
    assert not answer.refused
    assert answer.text == f"{SUPPORTED[:-1]} [1]." and "green tea" not in answer.text
    assert all(s.supported for s in answer.sentences)
    assert [d.text for d in answer.dropped] == [INVENTED] and answer.dropped[0].score < 0.5
    assert answer.trace.stage("cite").notes["dropped"] == [{"text": INVENTED, "score": answer.dropped[0].score,
                                                            "why": answer.dropped[0].why}]
    assert answer.dropped[0].problems and answer.dropped[0].why.startswith(answer.dropped[0].problems[0].kind)
    assert "green tea" not in json.dumps([c.model_dump() for c in answer.citations])


def test_drop_is_the_default(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED[:-1]} [1]. {INVENTED[:-1]} [1].")
    assert answer.text == f"{SUPPORTED[:-1]} [1]." and [d.text for d in answer.dropped] == [INVENTED]


def test_mark_keeps_the_sentence_flagged(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED[:-1]} [1]. {INVENTED[:-1]} [1].", policy="unsupported: mark")
    assert not answer.refused and INVENTED[:-1] in answer.text
    assert [s.supported for s in answer.sentences] == [True, False] and answer.dropped == []


def test_withhold_refuses_the_whole_answer(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED} {INVENTED}", policy="citations: attribute, unsupported: withhold")
    assert answer.refused and answer.refusal_reason == "unsupported_sentence"
    assert "1 of 2 sentence(s)" in answer.refusal_detail and "green tea" not in answer.text


@pytest.mark.parametrize("policy", ["unsupported: drop", "unsupported: mark", "citations: attribute"])
def test_an_answer_with_no_supported_sentence_is_refused_with_a_reason(workdir, host, policy):
    answer = ask(workdir, host, f"{INVENTED} Coffee enemas shrink tumours overnight [1].", policy=policy)
    assert answer.refused and answer.refusal_reason == "unsupported_answer"
    assert "none of the 2 sentence(s)" in answer.refusal_detail and "Coffee" not in answer.text
    # the verdicts stay with the refusal, whatever the policy, and the refusal says what was found
    assert len(answer.dropped) == 2 and all(d.problems for d in answer.dropped)
    assert "sentence 1: " in answer.refusal_detail and answer.dropped[0].problems[0].message in answer.refusal_detail
    assert "could not be checked" not in answer.text and "checked against the sources" in answer.text


@pytest.mark.parametrize(("question", "good", "invented", "marked"), [
    ("간암의 위험 요인은 무엇인가요?", "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다.",
     "매일 녹차를 마시면 간암이 완치됩니다.", "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다[{n}]."),
    ("肺がんの症状は何ですか？", "長引くせきは肺がんの症状のことがあります。",
     "毎日コーヒーを飲むと肺がんは必ず治ります。", "長引くせきは肺がんの症状のことがあります[{n}]。"),
    ("什么会增加肝癌的风险？", "乙型肝炎病毒感染会增加肝癌的风险。",
     "每天喝绿茶可以彻底治愈晚期胰腺病。", "乙型肝炎病毒感染会增加肝癌的风险[{n}]。"),
])
def test_korean_japanese_and_chinese_sentences_are_split_attributed_and_dropped(workdir, host, question, good,
                                                                                invented, marked):
    answer = ask(workdir, host, good + invented, question=question, policy="citations: attribute, unsupported: drop")
    assert not answer.refused, answer.refusal_detail
    (sentence,) = answer.sentences
    assert sentence.attributed and sentence.supported and sentence.text == good
    assert answer.text == marked.format(n=sentence.cited[0])
    assert answer.citations[0].doc_id in {"liver-ko", "lung-ja", "liver-zh"}
    assert [d.text for d in answer.dropped] == [invented]


def test_the_policies_are_in_the_plan_and_bad_values_name_the_key(workdir, host):
    with OpenAIStubServer(reply=SUPPORTED) as server:
        plan = pipeline_from_yaml(config(workdir, server, "citations: attribute"), workdir, host).config.plan()
        assert plan["generator"]["citations"] == "attribute" and plan["generator"]["unsupported"] == "drop"
        assert plan["generator"]["relevance"] is None
        with pytest.raises(ConfigError, match=r"engine key 'citations'.*'require' or 'attribute'.*got 'always'"):
            pipeline_from_yaml(config(workdir, server, "citations: always"), workdir, host)
        with pytest.raises(ConfigError, match=r"engine key 'relevance.min_coverag'.*keys: min_coverage"):
            pipeline_from_yaml(config(workdir, server, "relevance: {min_coverag: 0.5}"), workdir, host)


def test_cli_ask_shows_added_markers_and_the_removed_sentences_apart(workdir, host):
    path = workdir / "cli.yaml"
    with OpenAIStubServer(reply=f"{SUPPORTED} {INVENTED}") as server:
        path.write_text(config(workdir, server, "citations: attribute"), encoding="utf-8")
        result = CliRunner().invoke(build_cli(host), ["ask", str(path), LIVER_Q], obj={"host": host})
        as_json = CliRunner().invoke(build_cli(host), ["ask", str(path), LIVER_Q, "--json"], obj={"host": host})
    assert result.exit_code == 0, result.output
    answer_part, rest = result.output.split("\nSources:\n", 1)
    assert "green tea" not in answer_part and SUPPORTED[:-1] + " [1]." in answer_part
    assert "(marker added: the model cited nothing here)" in rest
    assert (
        "Removed from the answer (1 sentence(s) no evidence supports):\n  DROPPED       " in rest and INVENTED in rest
    )
    data = json.loads(as_json.output)
    assert data["dropped"][0]["text"] == INVENTED and data["sentences"][0]["attributed"] is True


# -- thinking and progress -------------------------------------------------------------------------------------


def test_think_splitter_handles_tags_cut_across_pieces():
    splitter = ThinkSplitter()
    parts = []
    for piece in ["<thi", "nk>The user asks", " about risk.</th", "ink>", "Hepatitis B", " raises it [1].<", "b>"]:
        parts += splitter.feed(piece)
    parts += splitter.finish()
    thinking = "".join(t for kind, t in parts if kind == "thinking")
    answer = "".join(t for kind, t in parts if kind == "answer")
    assert thinking == "The user asks about risk." and answer == "Hepatitis B raises it [1].<b>"
    assert split_thinking("<think>a\nb</think>\nAnswer [1].") == ("a\nb", "Answer [1].")
    assert split_thinking("opened by the template</think>Answer.") == ("opened by the template", "Answer.")
    assert split_thinking("<think>cut off while thinking") == ("cut off while thinking", "")


THINK = "The evidence is insufficient for cures, but passage 1 names hepatitis B. Green tea is not mentioned."


def test_streamed_thinking_and_progress_are_their_own_events_never_the_answer(workdir, host):
    with OpenAIStubServer(reply=f"{SUPPORTED[:-1]} [1].", think=THINK) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server, extra="refusal: {name: evidence-threshold}\n"),
                                                workdir, host), build_if_missing=True)
        events = list(engine.ask_stream(LIVER_Q, progress=True))
        plain = list(engine.ask_stream(LIVER_Q))
    assert not any(isinstance(e, ProgressEvent) for e in plain)  # progress only when asked for
    assert any(isinstance(e, ThinkingEvent) for e in plain)
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingEvent))
    tokens = "".join(e.text for e in events if isinstance(e, TokenEvent))
    assert thinking.strip() == THINK
    assert "think>" not in tokens and "Green tea" not in tokens and tokens.strip() == f"{SUPPORTED[:-1]} [1]."
    steps = [e.step for e in events if isinstance(e, ProgressEvent)]
    assert steps == ["retrieving", "refusal_check", "generating", "checking"]
    first_token = next(i for i, e in enumerate(events) if isinstance(e, TokenEvent))
    assert (
        events.index(next(e for e in events if isinstance(e, ProgressEvent) and e.step == "generating")) < first_token
    )
    answer = events[-1].answer
    assert isinstance(events[-1], AnswerEvent) and not answer.refused  # "insufficient" in the thinking declines nothing
    assert answer.text == f"{SUPPORTED[:-1]} [1]." and len(answer.sentences) == 1
    assert answer.trace.stage("generate").notes["thinking_chars"] == len(THINK)


@pytest.mark.parametrize("backend", ["openai-compatible", "ollama"])
def test_thinking_a_server_sends_apart_is_streamed_as_thinking_never_as_the_answer(workdir, host, backend):
    """vLLM / llama.cpp's server send a reasoning model's thinking in `reasoning_content`; Ollama, asked
    to think (`thinking: true`), in `message.thinking`. Neither reaches the answer or its check."""
    reply = f"{SUPPORTED[:-1]} [1]."
    if backend == "ollama":
        server = OllamaStubServer(reply=reply, think=THINK)
    else:
        server = OpenAIStubServer(reply=reply, think=THINK, think_apart=True)
    with server:
        yaml_text = config(workdir, server)
        if backend == "ollama":
            yaml_text = re.sub(
                r"(?m)^  gen: .*$",
                f'  gen: {{name: ollama, model: qwen3, base_url: "{server.base_url}", max_retries: 0, thinking: true}}',
                yaml_text,
            )
        engine = Engine.open(pipeline_from_yaml(yaml_text, workdir, host), build_if_missing=True)
        events = list(engine.ask_stream(LIVER_Q))
        request = server.requests[-1]
        plain = engine.ask(LIVER_Q)  # not streamed: the thinking block is left out of the text too
    assert plain.text == reply
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingEvent))
    tokens = "".join(e.text for e in events if isinstance(e, TokenEvent))
    assert thinking == THINK and tokens == reply  # the stub sends no inline <think>: this is the separate field
    assert events[-1].answer.text == reply and "Green tea" not in events[-1].answer.text
    if backend == "ollama":
        assert request.body["think"] is True


def test_thinking_is_left_out_of_a_plain_answer_too(workdir, host):
    answer = ask(workdir, host, f"{SUPPORTED[:-1]} [1].", think=THINK)
    assert answer.text == f"{SUPPORTED[:-1]} [1]." and [s.text for s in answer.sentences] == [SUPPORTED]
    assert answer.dropped == []


# -- the stream never shows what the policy removes ---------------------------------------------------------


def stream_of(workdir, host, reply: str, policy: str, **server_kw):
    with OpenAIStubServer(reply=reply, **server_kw) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server, policy), workdir, host), build_if_missing=True)
        events = list(engine.ask_stream(LIVER_Q))
        asked = len(server.requests_to("/v1/chat/completions"))
    assert asked == 1
    return "".join(e.text for e in events if isinstance(e, TokenEvent)), events[-1].answer


def test_a_dropped_sentence_is_never_streamed(workdir, host):
    shown, answer = stream_of(workdir, host, f"{INVENTED} {SUPPORTED[:-1]} [1]. {INVENTED}", "unsupported: drop")
    assert "green tea" not in shown.lower() and shown.strip() == f"{SUPPORTED[:-1]} [1]." == answer.text
    assert [d.text for d in answer.dropped] == [INVENTED, INVENTED]


def test_attributed_markers_stream_with_their_sentence(workdir, host):
    shown, answer = stream_of(workdir, host, f"{SUPPORTED} Liver cancer starts in liver cells. {INVENTED}",
                              "citations: attribute")
    assert shown.strip() == answer.text == f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [1]."


def test_withhold_stops_the_stream_at_the_first_unsupported_sentence(workdir, host):
    shown, answer = stream_of(workdir, host, f"{SUPPORTED[:-1]} [1]. {INVENTED[:-1]} [1]. Liver cancer starts in "
                                             "liver cells [1].", "unsupported: withhold")
    assert shown.strip() == f"{SUPPORTED[:-1]} [1]." and "green tea" not in shown.lower()
    assert answer.refused and answer.refusal_reason == "unsupported_sentence"


def test_the_gated_stream_asks_the_verifier_once_per_sentence(workdir, host):
    # llm-check asks the judge LLM about every sentence: the stream's verdicts are reused by the final check
    reply = f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [1]."
    with OpenAIStubServer(reply=reply) as gen, OpenAIStubServer(reply="YES") as judge:
        judge_llm = f'{{name: openai-compatible, model: judge, api_base: "{judge.base_url}", max_retries: 0}}'
        text = replaced(
            config(workdir, gen, extra="verifier: {name: llm-check, llm: judge, check: all}\n"),
            "llms:\n",
            f"llms:\n  judge: {judge_llm}\n",
        )
        engine = Engine.open(pipeline_from_yaml(text, workdir, host), build_if_missing=True)
        events = list(engine.ask_stream(LIVER_Q))
        assert len(judge.requests_to("/v1/chat/completions")) == 2
    answer = events[-1].answer
    assert not answer.refused and [s.method for s in answer.sentences] == ["llm", "llm"]


def test_progress_names_every_hop_filter_and_reranker_in_order(tmp_path):
    from criss_rag.indexing.ingestion import ingest
    from criss_rag.testing import FAKE_PIPELINE_YAML

    yaml_text = replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_score: 0") + (
        "multihop: {name: fake-hops, queries: [smoking cough, hepatitis], max_hops: 3}\n"
        "filters: [{name: fake-drop-doc, doc_id: lung}]\nrerankers: [fake-reverse]\n")
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    ingest(pipeline)
    events = list(Engine.open(pipeline).ask_stream("stomach endoscopy", progress=True))
    steps = [(e.step, e.detail) for e in events if isinstance(e, ProgressEvent)]
    assert steps == [("retrieving", "fake-keyword"), ("hop", "1: smoking cough"), ("hop", "2: hepatitis"),
                     ("filtering", "fake-drop-doc"), ("reranking", "fake-reverse"), ("refusal_check", "fake-min-score"),
                     ("generating", "fake-echo"), ("checking", "sentence support")]
    assert isinstance(events[-1], AnswerEvent) and not events[-1].answer.refused


def test_a_looping_model_says_each_sentence_once(workdir, host):
    loop = f"{SUPPORTED} {SUPPORTED} {SUPPORTED} Liver cancer starts in liver cells. {SUPPORTED}"
    answer = ask(workdir, host, loop, policy="citations: attribute")
    assert answer.text == f"{SUPPORTED[:-1]} [1]. Liver cancer starts in liver cells [1]."
    assert len(answer.sentences) == 2 and answer.trace.stage("cite").notes["repeated"] == 3
    shown, streamed = stream_of(workdir, host, loop, "citations: attribute")
    assert shown.strip() == streamed.text == answer.text


def test_cli_ask_says_when_the_model_cited_only_numbers_no_passage_has(workdir, host):
    path = workdir / "cli-invalid.yaml"
    with OpenAIStubServer(reply=f"{SUPPORTED[:-1]} [7].") as server:
        path.write_text(config(workdir, server, "citations: attribute"), encoding="utf-8")
        result = CliRunner().invoke(build_cli(host), ["ask", str(path), LIVER_Q], obj={"host": host})
    assert result.exit_code == 0, result.output
    rest = result.output.split("\nSources:\n", 1)[1]
    assert "(cites [7]: no such evidence) (marker added: none of the model's markers named a passage)" in rest
    assert "the model cited nothing here" not in rest
