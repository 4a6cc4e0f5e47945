"""Structured output (criss_rag.component_helpers.structured_output): components ask for a JSON
schema through the backend and fall back to the lenient parsers on backends that cannot constrain;
every component counts failures.

The fakes here record what they were asked; tests/test_llamacpp.py runs the same paths with the
real model, tests/test_judges.py checks the schema on the wire of an OpenAI-compatible server.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from llama_index.core.schema import NodeWithScore

from criss_rag.component_helpers.structured_output import ParseStats, can_constrain, complete_json
from criss_rag.types import Hit, Query, text_node
from criss_rag_basic.analyzers import StandardAnalyzer
from criss_rag_basic.keywords import LlmKeywordsTransform, json_keywords, keywords_schema
from criss_rag_rerank.llm_rerank import LLMReranker, json_order, order_schema


class PlainLLM:
    def __init__(self, reply: str) -> None:
        self.reply, self.prompts = reply, []

    def complete(self, prompt: str):
        self.prompts.append(prompt)
        return SimpleNamespace(text=self.reply)


class ConstrainingLLM(PlainLLM):
    supports_constrained = True

    def __init__(self, reply: str) -> None:
        super().__init__(reply)
        self.schemas: list[dict] = []

    def complete_constrained(self, prompt: str, *, json_schema=None, grammar=None):
        self.prompts.append(prompt)
        self.schemas.append(json_schema)
        return SimpleNamespace(text=self.reply)


class SwitchedOff(ConstrainingLLM):
    supports_constrained = False  # e.g. openai-compatible with structured_output: off


def ctx(llm) -> SimpleNamespace:
    return SimpleNamespace(stage="test", base_dir=Path("."), llm=lambda key: llm,
                           analyzer=lambda name: StandardAnalyzer())


def test_complete_json_constrains_only_where_the_backend_can():
    schema = {"type": "object"}
    constraining, plain, off = ConstrainingLLM("{}"), PlainLLM("{}"), SwitchedOff("{}")
    assert complete_json(constraining, "p", schema).constrained and constraining.schemas == [schema]
    assert not complete_json(plain, "p", schema).constrained and plain.prompts == ["p"]
    assert not complete_json(off, "p", schema).constrained and off.schemas == []
    assert can_constrain(constraining) and not can_constrain(plain) and not can_constrain(off)


def test_llm_keywords_asks_for_json_and_checks_its_items():
    llm = ConstrainingLLM(json.dumps({"keywords": ["胸腺腫", "手術"]}, ensure_ascii=False))
    transform = LlmKeywordsTransform(LlmKeywordsTransform.Params(llm="kw"), ctx(llm))
    assert transform.transform(Query(text="胸腺腫の手術について")).retrieval_text == "胸腺腫 手術"
    assert llm.schemas == [keywords_schema(2, 40)] and llm.prompts[0].endswith("質問: 胸腺腫の手術について")
    # a JSON item that is a sentence is dropped like in a plain reply; nothing left: the fallback
    llm.reply = json.dumps({"keywords": ["申し訳ありませんが、できません。"]}, ensure_ascii=False)
    assert transform.transform(Query(text="胸腺腫の手術について")).retrieval_text
    assert transform.last_source == "fallback"
    assert transform.stats.as_dict() == {"calls": 2, "constrained": 2, "parse_failures": 1}
    assert json_keywords("胸腺腫、手術") is None and json_keywords('{"keywords": "x"}') is None


def test_llm_keywords_reads_free_text_from_a_backend_that_cannot_constrain():
    llm = PlainLLM("胸腺腫、手術")
    transform = LlmKeywordsTransform(LlmKeywordsTransform.Params(llm="kw"), ctx(llm))
    assert transform.transform(Query(text="q")).retrieval_text == "胸腺腫 手術"
    assert transform.stats.as_dict() == {"calls": 1, "constrained": 0, "parse_failures": 0}


def hits(n: int) -> list[Hit]:
    return [Hit(NodeWithScore(node=text_node(f"d{i}", f"passage {i}", title=f"t{i}"), score=1.0 / i), {"bm25": 1.0 / i})
            for i in range(1, n + 1)]


def test_llm_reranker_orders_by_the_json_reply_and_counts_failures():
    llm = ConstrainingLLM(json.dumps({"relevant": [3, 1, 3, 9]}))
    reranker = LLMReranker(LLMReranker.Params(llm="r", drop_unmentioned=True), ctx(llm))
    ranked = reranker.rerank(Query(text="q"), hits(3))
    assert [h.node_id for h in ranked] == ["d3", "d1"]  # repeats and numbers outside 1..3 ignored
    assert llm.schemas == [order_schema(3)]
    llm.reply = "I cannot tell"
    kept = reranker.rerank(Query(text="q"), hits(3))
    assert [h.node_id for h in kept] == ["d1", "d2", "d3"] and kept[0].signals["llm-rank"] == -1.0
    assert reranker.stats.as_dict() == {"calls": 2, "constrained": 2, "parse_failures": 1}
    assert json_order('{"relevant": []}', 3) == [] and json_order('{"relevant": [true]}', 3) is None
    assert order_schema(2)["properties"]["relevant"]["items"]["enum"] == [1, 2]


def test_parse_stats_add_up():
    stats = ParseStats()
    for constrained, parsed in [(True, True), (True, False), (False, True)]:
        stats.record(constrained=constrained, parsed=parsed)
    assert stats.as_dict() == {"calls": 3, "constrained": 2, "parse_failures": 1}


def test_llm_keywords_from_question_offers_the_question_words_and_drops_invented_ones():
    llm = ConstrainingLLM(json.dumps({"keywords": ["liver", "cancer"]}))
    params = LlmKeywordsTransform.Params(llm="kw", from_question=True)
    transform = LlmKeywordsTransform(params, ctx(llm))
    assert transform.transform(Query(text="How is liver cancer treated?")).retrieval_text == "liver cancer"
    assert llm.schemas[0]["properties"]["keywords"]["items"]["enum"] == ["liver", "cancer", "treat"]
    plain = PlainLLM("hepatology, liver")  # not constrained: the invented word is dropped
    transform = LlmKeywordsTransform(params, ctx(plain))
    assert transform.transform(Query(text="How is liver cancer treated?")).retrieval_text == "liver"
    plain.reply = "oncology, hepatology"  # nothing from the question: the analyzer fallback
    assert transform.transform(Query(text="How is liver cancer treated?")).retrieval_text == "liver cancer"
    assert transform.last_source == "fallback"
