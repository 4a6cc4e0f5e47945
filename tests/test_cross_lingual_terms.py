"""`cross-lingual-terms` (domain plugin): a Korean, Japanese or Chinese question over a corpus that
is not in its language also searches for the English names of what it asks about."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml
from criss_rag.types import Query
from criss_rag_domain.cross_lingual import CrossLingualTerms


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


def transform(**params) -> CrossLingualTerms:
    return CrossLingualTerms(CrossLingualTerms.Params(**params), SimpleNamespace(stage="query_transforms"))


def english_corpus(component: CrossLingualTerms) -> CrossLingualTerms:
    component.check_corpus([SimpleNamespace(text=d["text"]) for d in TINY_CORPUS])
    return component


@pytest.mark.parametrize(("question", "expected"), [
    ("소아 호지킨 림프종은 어떻게 치료하나요?", ["childhood", "Hodgkin lymphoma", "treatment"]),
    ("유방암의 증상은 무엇인가요?", ["Breast cancer", "symptoms signs"]),
    ("成人の肝臓がんの予後はどうですか？", ["adult", "Liver cancer", "outlook prognosis"]),
    ("肺癌有哪些症状？", ["Lung cancer", "symptoms signs"]),
])
def test_the_english_terms_name_the_population_the_cancer_type_and_the_intent(question, expected):
    terms = english_corpus(transform()).terms(question)
    assert [t.lower() for t in terms] == [e.lower() for e in expected]


def test_a_question_over_an_english_corpus_searches_for_its_question_and_the_terms():
    query = english_corpus(transform()).transform(Query("위암은 어떻게 치료하나요?"))
    assert query.text == "위암은 어떻게 치료하나요?"  # the question itself is unchanged
    assert query.search_text == "위암은 어떻게 치료하나요? Stomach (gastric) cancer treatment"


@pytest.mark.parametrize("question", [
    "갑상선 기능 저하증은 어떤 증상이 있나요?",  # no cancer type: an intent alone adds nothing
    "What is the outlook for liver cancer?",   # an English question over an English corpus
])
def test_nothing_is_added_without_a_cancer_type_or_for_a_question_in_the_corpus_language(question):
    query = english_corpus(transform()).transform(Query(question))
    assert query.retrieval_text == ""


def test_nothing_is_added_when_the_corpus_has_passages_in_the_question_s_language():
    component = transform()
    component.check_corpus(
        [
            SimpleNamespace(text="간암은 간세포에서 시작됩니다."),
            SimpleNamespace(text="Liver cancer starts in liver cells."),
        ]
    )
    assert component.corpus_shares == {"ko": 0.5, "en": 0.5}
    assert component.transform(Query("간암은 어떻게 치료하나요?")).retrieval_text == ""
    lenient = transform(max_corpus_share=0.6)  # half the corpus Korean is "too little" for this one
    lenient.check_corpus(
        [
            SimpleNamespace(text="간암은 간세포에서 시작됩니다."),
            SimpleNamespace(text="Liver cancer starts in liver cells."),
        ]
    )
    assert "Liver cancer" in lenient.transform(Query("간암은 어떻게 치료하나요?")).search_text


def test_a_korean_question_finds_the_english_passage_end_to_end(tmp_path, host):
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in TINY_CORPUS) + "\n", encoding="utf-8")
    base = (f"name: xling\nindex: {{dir: {tmp_path / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            "chunker: whole-document\nretrievers: [{name: bm25, top_k: 3}]\ncontext: numbered\ngenerator: extractive\n")
    with_terms = pipeline_from_yaml(base + "query_transforms: [cross-lingual-terms]\n", tmp_path, host)
    ingest(with_terms)
    question = "유방암 검진은 어떻게 받나요?"  # how is breast cancer screened? (no English word in it)
    hits = Engine.open(with_terms).retrieve(Query(question))
    without = Engine.open(pipeline_from_yaml(base, tmp_path, host)).retrieve(Query(question))
    assert hits and hits[0].node.node.ref_doc_id == "breast"
    assert not without  # BM25 has no word in common with the English corpus
