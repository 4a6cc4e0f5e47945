"""A question about what its language has no section on: the corpus's gap is read from the chunks'
sections, `cross-lingual-hop` searches once more in English, and `language-match` does not put the
question's language above the page from the section it asks about (`yield_to`)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from criss_rag.engine import Engine
from criss_rag.indexing import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml
from criss_rag.types import Hit, Query
from criss_rag_basic.language_match import LanguageMatch
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.section_gap import CrossLingualHop

# a Chinese overview and treatment page, an English diagnosis page (the example corpus's shape)
CORPUS = [
    {
        "doc_id": "stomach-overview-zh",
        "title": "胃癌：概述",
        "section": "概述",
        "lang": "zh",
        "text": "胃癌是从胃黏膜长出的恶性肿瘤。怀疑胃癌的人常常担心饮食和检查。",
    },
    {
        "doc_id": "stomach-treatment-zh",
        "title": "胃癌：治疗",
        "section": "治疗",
        "lang": "zh",
        "text": "早期胃癌可以用内镜切除，较晚的胃癌需要手术和化疗。",
    },
    {
        "doc_id": "stomach-diagnosis-en",
        "title": "Stomach cancer: diagnosis",
        "section": "Diagnosis",
        "lang": "en",
        "text": "Stomach cancer is diagnosed with an upper endoscopy; a biopsy taken during the endoscopy confirms it.",
    },
]
DIAGNOSIS_QUESTION = "怀疑胃癌要做什么检查？"  # what tests if stomach cancer is suspected? (no Chinese diagnosis page)
TREATMENT_QUESTION = "胃癌要怎么治疗？"  # how is stomach cancer treated? (the Chinese treatment page)


def nodes(records=CORPUS) -> list[SimpleNamespace]:
    return [SimpleNamespace(text=r["text"], metadata={"section": r["section"]}) for r in records]


def hop(**params) -> CrossLingualHop:
    policy = CrossLingualHop(CrossLingualHop.Params(**params), SimpleNamespace(stage="multihop"))
    policy.check_corpus(nodes())
    return policy


def test_the_sections_of_each_language_are_read_with_the_intent_lexicon():
    policy = hop()
    assert policy.sections.by_language == {"zh": {"overview", "treatment"}, "en": {"diagnosis"}}


def test_a_question_about_a_section_only_another_language_has_hops_once_in_english():
    policy = hop()
    assert policy.sections.gap(DIAGNOSIS_QUESTION) == ["diagnosis"]
    assert policy.next_query(Query(DIAGNOSIS_QUESTION), [], 1) == "Stomach (gastric) cancer diagnosis tests"
    assert policy.next_query(Query(DIAGNOSIS_QUESTION), [], 2) is None  # once


def test_a_question_that_describes_its_cancer_by_the_organ_hops_too():
    # "a malignant tumour grown in the stomach: what tests?" names no cancer type, it describes one
    described = Query("胃里长了恶性肿瘤要做什么检查？")
    assert hop().next_query(described, [], 1) == "Stomach (gastric) cancer diagnosis tests"
    assert hop().next_query(Query("胃不舒服要做什么检查？"), [], 1) is None  # an upset stomach: no cancer


def test_a_question_about_two_sections_hops_for_the_one_its_language_lacks():
    # how is it treated, and which tests find it: the Chinese treatment page is there, diagnosis is not
    question = "胃癌要做什么检查？怎么治疗？"
    assert hop().sections.gap(question) == ["diagnosis"]
    assert hop().next_query(Query(question), [], 1) is not None


@pytest.mark.parametrize(
    "question",
    [
        TREATMENT_QUESTION,  # its language has the section
        "胃癌是什么？",  # an overview: no section is missing
        "甲状腺功能减退要做什么检查？",  # no cancer type: nothing to translate
        "How is stomach cancer diagnosed?",  # a language the policy does not serve (the corpus has it anyway)
    ],
)
def test_no_hop_without_a_gap_or_without_a_cancer_type(question):
    assert hop().next_query(Query(question), [], 1) is None


def test_a_corpus_without_sections_never_hops():
    policy = CrossLingualHop(CrossLingualHop.Params(), SimpleNamespace(stage="multihop"))
    policy.check_corpus([SimpleNamespace(text=r["text"], metadata={}) for r in CORPUS])
    assert policy.next_query(Query(DIAGNOSIS_QUESTION), [], 1) is None


def hit(doc: str, score: float, lang: str, intent: float) -> Hit:
    from llama_index.core.schema import NodeWithScore, TextNode

    node = TextNode(id_=doc, text=doc, metadata={"doc_id": doc, "lang": lang})
    # the score as intent-boost leaves it: multiplied by the factor it records
    return Hit(NodeWithScore(node=node, score=score * intent), {"intent-boost": intent})


def rerank(yield_to: list[str], question: str, hits: list[Hit]) -> list[str]:
    matcher = LanguageMatch(LanguageMatch.Params(weight=2.0, yield_to=yield_to), SimpleNamespace(stage="rerankers"))
    return [h.metadata["doc_id"] for h in matcher.rerank(Query(question), hits)]


def test_language_match_yields_to_the_section_the_question_asks_about():
    hits = [hit("overview-zh", 0.08, "zh", 1.0), hit("diagnosis-en", 0.06, "en", 1.5)]
    assert rerank([], DIAGNOSIS_QUESTION, hits)[0] == "overview-zh"  # its language alone: x2
    assert rerank(["intent-boost"], DIAGNOSIS_QUESTION, hits)[0] == "diagnosis-en"


def test_language_match_does_not_yield_when_the_question_s_language_has_the_asked_section():
    # the Chinese treatment page exists: every Chinese page is preferred, as without `yield_to`
    hits = [
        hit("treatment-ja", 0.08, "ja", 1.5),
        hit("treatment-zh", 0.06, "zh", 1.5),
        hit("overview-zh", 0.07, "zh", 1.0),
    ]
    assert rerank(["intent-boost"], TREATMENT_QUESTION, hits) == ["treatment-zh", "overview-zh", "treatment-ja"]


def test_yield_to_must_name_a_signal_the_pipeline_records(tmp_path):
    from criss_rag.errors import ConfigError

    yaml = (
        f"name: t\nindex: {{dir: {tmp_path / 'index'}}}\nloader: {{name: jsonl, path: c.jsonl}}\n"
        "chunker: whole-document\nretrievers: [{name: bm25}]\n"
        "rerankers: [{name: language-match, yield_to: [intent-bost]}]\n"
        "context: numbered\ngenerator: extractive\n"
    )
    with pytest.raises(ConfigError, match="intent-bost"):
        pipeline_from_yaml(yaml, tmp_path, PluginHost(strict=True))


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("有肝硬化的人要多久做一次B超查肝癌？", ["diagnosis"]),  # a test named, no cue: diagnosis
        ("大腸癌第三期跟第四期差在哪裡？", ["stages"]),  # a stage named: stages
        ("タモキシフェンはいつまで飲みますか？", ["treatment"]),  # a drug named: treatment
    ],
)
def test_a_question_naming_a_test_a_stage_or_a_drug_asks_about_its_section(question, expected):
    assert IntentLexicon().detect(question) == expected
    assert IntentLexicon(named_things=False).detect(question) == []


def test_the_default_pipeline_shape_answers_a_gap_question_from_the_other_language_s_section(tmp_path):
    (tmp_path / "c.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in CORPUS), encoding="utf-8"
    )
    base = (
        f"name: gap\nindex: {{dir: {tmp_path / 'index'}}}\nloader: {{name: jsonl, path: c.jsonl}}\n"
        "chunker: whole-document\n"
        "retrievers: [{name: bm25, analyzer: {name: auto, analyzers: {zh: jieba}}, top_k: 3}]\n"
        "query_transforms: [cross-lingual-terms]\n"
        "rerankers:\n"
        "  - {name: intent-boost, field: section, sections: {diagnosis: [Diagnosis], treatment: [治疗]}}\n"
        "  - {name: cancer-type-boost}\n"
        "  - {name: language-match, weight: 2.0, yield_to: [intent-boost]}\n"
        "context: numbered\ngenerator: extractive\n"
    )
    host = PluginHost(strict=True)
    with_hop = pipeline_from_yaml(base + "multihop: {name: cross-lingual-hop, max_hops: 1}\n", tmp_path, host)
    ingest(with_hop)
    first = [h.metadata["doc_id"] for h in Engine.open(with_hop).retrieve(Query(DIAGNOSIS_QUESTION))]
    without = [
        h.metadata["doc_id"]
        for h in Engine.open(pipeline_from_yaml(base, tmp_path, host)).retrieve(Query(DIAGNOSIS_QUESTION))
    ]
    assert first[0] == "stomach-diagnosis-en"
    assert "stomach-diagnosis-en" not in without  # BM25 shares no word with the English page
    treated = [h.metadata["doc_id"] for h in Engine.open(with_hop).retrieve(Query(TREATMENT_QUESTION))]
    assert treated[0] == "stomach-treatment-zh"
