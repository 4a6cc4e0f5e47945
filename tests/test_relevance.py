"""Relevance, not just overlap: the extractive generator's sentence selection and the relevance
verdict of the generator stage's `relevance` policy (before generation and of the answer).

The corpus (tests/fixtures/screening_corpus.jsonl, ten passages written for this test) has the
shape that misled the extractive generator: several screening and risk passages share words
("screening", "lower the risk") across different cancers.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy
from criss_rag.engine import Engine
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag.types import Context, Evidence, Hit, SentenceSupport, text_node

FIXTURE = Path(__file__).parent / "fixtures" / "screening_corpus.jsonl"


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("relevance")
    shutil.copy(FIXTURE, root / "corpus.jsonl")
    return root


def pipeline(workdir: Path, host: PluginHost, generator: str = "{name: extractive, max_sentences: 3}"):
    text = (
        f"name: relevance-test\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
        "chunker: whole-document\nretrievers: [{name: bm25, top_k: 10}]\ncontext: {name: numbered, max_evidence: 5}\n"
        f"generator: {generator}\n"
    )
    return Engine.open(pipeline_from_yaml(text, workdir, host), build_if_missing=True)


# -- the extractive generator weighs relevance and rank ----------------------------------------------


def test_screening_question_quotes_the_top_ranked_screening_passage_not_another_cancer(workdir, host):
    answer = pipeline(workdir, host).ask("How is cervical cancer screened?")
    assert answer.trace.stage("context") is not None
    cited = [c.doc_id for c in answer.citations]
    assert cited[0] == "cervical-screening"  # the best-ranked passage, which the old selection skipped
    assert "colorectal-screening" not in cited and "colorectal" not in answer.text.lower()
    assert "A Pap test collects cells from the cervix" in answer.text


def test_risk_question_quotes_no_sentence_about_another_cancer(workdir, host):
    answer = pipeline(workdir, host).ask("How can I lower my risk of melanoma?")
    assert [c.doc_id for c in answer.citations] == ["melanoma-prevention"]
    assert "colorectal" not in answer.text.lower() and "colon" not in answer.text.lower()


def test_several_relevant_sentences_are_still_quoted(workdir, host):
    answer = pipeline(workdir, host).ask("How is melanoma treated?")
    assert "Surgery removes the melanoma" in answer.text and "Immunotherapy helps" in answer.text


# -- the relevance verdict --------------------------------------------------------------------------------


def test_supported_but_off_topic_is_visible_and_refused_before_generation(workdir, host):
    plain = pipeline(workdir, host).ask("Can I catch cancer from sharing a razor?")
    assert not plain.refused and all(s.supported for s in plain.sentences)  # quoted, so "supported"
    checked = pipeline(workdir, host, "{name: extractive, relevance: {min_coverage: 0.5}}")
    answer = checked.ask("Can I catch cancer from sharing a razor?")
    assert answer.refused and answer.refusal_reason == "off_topic_evidence"
    assert "not covered: catch, sharing, razor" in answer.refusal_detail
    stage = answer.trace.stage("relevance:evidence")
    assert stage.notes["relevant"] is False and stage.notes["score"] == 0.0
    assert answer.trace.stage("generate") is None  # the generator never ran


def test_the_answer_verdict_can_mark_instead_of_refusing(workdir, host):
    engine = pipeline(workdir, host, "{name: extractive, relevance: {min_coverage: 0.5, before_generation: false, "
                                     "on_fail: mark}}")
    off = engine.ask("Can I catch cancer from sharing a razor?")
    assert not off.refused and off.relevance is not None
    assert off.relevance.relevant is False and off.relevance.checked == "answer" and off.relevance.missing
    on = engine.ask("How is cervical cancer screened?")
    assert on.relevance.relevant and on.relevance.score == 1.0


def test_the_answer_verdict_refuses_by_default(workdir, host):
    engine = pipeline(workdir, host, "{name: extractive, relevance: {min_coverage: 0.5, before_generation: false}}")
    answer = engine.ask("Can I catch cancer from sharing a razor?")
    assert answer.refused and answer.refusal_reason == "off_topic_answer" and answer.relevance is not None


def test_a_model_repeating_the_question_words_does_not_cover_them(workdir, host):
    # the razor clause is in no passage: the sentence check finds it unsupported, so it is kept
    # (marked) for the relevance check to read rather than dropped before it
    reply = "Lung cancer is linked to smoking [1]. It is not linked to sharing a razor [1]."
    with OpenAIStubServer(reply=reply) as server:
        llm = f'{{name: openai-compatible, model: m, api_base: "{server.base_url}", max_retries: 0}}'
        text = (
            f"name: relevance-llm\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            f"chunker: whole-document\nretrievers: [{{name: bm25, top_k: 10}}]\ncontext: numbered\nllms: "
            f"{{gen: {llm}}}\n"
            "generator: {name: llm, llm: gen, unsupported: mark, relevance: {min_coverage: 0.5, before_generation: "
            "false}}\n"
        )
        answer = Engine.open(pipeline_from_yaml(text, workdir, host), build_if_missing=True).ask(
            "Can I catch cancer from sharing a razor?")
    assert answer.refused and answer.refusal_reason == "off_topic_answer"
    assert "razor" in answer.relevance.missing  # said by the sentence, but in no evidence


@pytest.mark.parametrize("analyzer", ["standard", None])
def test_korean_and_japanese_questions_get_a_verdict(host, workdir, analyzer):
    engine = pipeline(workdir, host, f"{{name: extractive, relevance: {{analyzer: {analyzer or 'null'}}}}}")
    check = engine.relevance
    assert isinstance(check, RelevanceCheck) and check.policy == RelevancePolicy(analyzer=analyzer)
    context = Context(
        (
            Evidence(
                1,
                Hit(_node("ko", "간암", "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다.")),
                "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다.",
            ),
            Evidence(
                2,
                Hit(_node("ja", "肺がん", "長引くせきは肺がんの症状のことがあります。")),
                "長引くせきは肺がんの症状のことがあります。",
            ),
        ),
        "",
    )
    assert check.before("간염 바이러스가 간암 위험을 높이나요?", context).relevant
    assert not check.before("면도기를 같이 쓰면 옮나요?", context).relevant
    assert check.before("肺がんの症状は何ですか", context).relevant
    off = check.before("温泉に入ってもいいですか", context)
    assert not off.relevant and off.missing
    said = SentenceSupport(text="長引くせきは肺がんの症状のことがあります。", cited=[2], supported=True, evidence=2)
    assert check.after("肺がんの症状は何ですか", [said], context).relevant


def _node(doc_id: str, title: str, text: str):
    from llama_index.core.schema import NodeWithScore

    return NodeWithScore(node=text_node(doc_id, text, title=title), score=1.0)
