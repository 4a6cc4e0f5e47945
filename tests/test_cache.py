"""The `cache:` stage: the engine looks up before retrieval and stores after answering, only within
the same scope (config hash, corpus version, request filters, language); the bundled `semantic`
cache matches paraphrases by embedding similarity (MiniLM here), persists in SQLite and evicts the
least recently used; evaluation runs drop the cache unless the experiment asks for it."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path

import pytest

from criss_rag.component_helpers.model_loading import loading
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import AnswerEvent, ChatTurn, TokenEvent

CORPUS = [
    {
        "doc_id": "liver",
        "title": "Liver cancer",
        "cancer_type": "liver",
        "text": "Hepatitis B infection raises the risk of liver cancer. Heavy drinking also raises the risk of liver "
                "cancer.",
    },
    {
        "doc_id": "liver-2",
        "title": "Liver cancer prevention",
        "cancer_type": "liver",
        "text": "Vaccination against hepatitis B lowers the risk of liver cancer.",
    },
    {
        "doc_id": "breast",
        "title": "Breast cancer",
        "cancer_type": "breast",
        "text": "Obesity after menopause raises the risk of breast cancer. Mammography finds breast cancer early.",
    },
    {
        "doc_id": "lung",
        "title": "Lung cancer",
        "cancer_type": "lung",
        "text": "Smoking raises the risk of lung cancer. A persistent cough can be a sign of lung cancer.",
    },
]
SEMANTIC_YAML = """\
name: cache-test
index: {dir: index}
loader: {name: jsonl, path: corpus.jsonl}
chunker: whole-document
embedding: minilm
retrievers: [{name: bm25, analyzer: standard}]
filters: [{name: metadata, field: cancer_type}]
context: numbered
generator: extractive
cache: {name: semantic, path: cache/answers.sqlite, max_entries: MAX}
"""
RISK = "What raises the risk of liver cancer?"


def write_corpus(root: Path, docs: list[dict]) -> None:
    (root / "corpus.jsonl").write_text(
        "\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n", encoding="utf-8"
    )


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


def semantic_engine(root: Path, host: PluginHost, max_entries: int = 100, threshold: float | None = None) -> Engine:
    yaml = replaced(SEMANTIC_YAML, "MAX", str(max_entries))
    if threshold is not None:
        yaml = replaced(yaml, "max_entries:", f"threshold: {threshold}, max_entries:")
    pipeline = pipeline_from_yaml(yaml, root, host)
    return Engine.open(pipeline, build_if_missing=True)


@pytest.fixture
def root(tmp_path) -> Path:
    write_corpus(tmp_path, CORPUS)
    return tmp_path


# -- the bundled semantic cache ---------------------------------------------------------------------------


def test_a_paraphrase_hits_and_the_hit_is_marked_in_answer_and_trace(root, host):
    engine = semantic_engine(root, host)
    first = engine.ask(RISK)
    assert not first.refused and first.citations and first.cached is None
    assert first.trace.stage("cache").notes["hit"] is False and "store_ms" in first.trace.stage("cache").notes

    again = engine.ask("What increases the risk of getting liver cancer?")
    assert again.cached is not None and again.cached.original_question == RISK
    assert again.cached.similarity >= 0.95 and again.cached.cache == "semantic"
    assert again.question == "What increases the risk of getting liver cancer?"
    assert (again.text, again.citations, again.sentences) == (first.text, first.citations, first.sentences)
    stages = [s.stage for s in again.trace.stages]
    assert stages == ["cache"], stages  # nothing else ran: no retrieval, no generation
    assert again.trace.stage("cache").notes["hit"] is True
    assert again.trace.stage("cache").notes["original_question"] == RISK


def test_a_question_that_only_sounds_alike_misses(root, host):
    engine = semantic_engine(root, host)
    engine.ask(RISK)
    # MiniLM puts "raises" and "lowers" at 0.91, over the default threshold: the words decide
    assert engine.ask("What lowers the risk of liver cancer?").cached is None
    assert engine.ask("What raises the risk of lung cancer?").cached is None  # another cancer: the topic guard
    assert engine.ask("What raised the risk of liver cancer in 2015?").cached is None  # a number: the number guard


def test_similarity_is_never_the_decision_an_unmatched_word_blocks_and_is_named(root, host):
    # with a threshold so low that similarity lets every stored question through, the words decide
    engine = semantic_engine(root, host, threshold=0.5)
    stored = "What raises the risk of right-sided liver cancer?"
    assert not engine.ask(stored).refused
    other = engine.ask("What raises the risk of left-sided liver cancer?")
    assert other.cached is None
    notes = other.trace.stage("cache").notes
    assert notes["hit"] is False and notes["compared_with"] == stored
    assert notes["unmatched"] == ["right-sided", "left-sided"]
    unseen = engine.ask("What zorvatex raises the risk of right-sided liver cancer?")  # a word no list knows
    assert unseen.cached is None and "zorvatex" in unseen.trace.stage("cache").notes["unmatched"]
    paraphrase = engine.ask("What increases the risk of getting right-sided liver cancer?")
    assert paraphrase.cached is not None and paraphrase.cached.original_question == stored


def test_another_cancer_filter_or_diagnosis_year_misses(root, host):
    engine = semantic_engine(root, host)
    liver = engine.ask(RISK, filters={"cancer_type": "liver"})
    assert not liver.refused
    assert engine.ask(RISK, filters={"cancer_type": "liver"}).cached is not None
    assert engine.ask(RISK, filters={"cancer_type": "breast"}).cached is None
    assert engine.ask(RISK).cached is None  # no filter is another scope too

    engine.ask(RISK, filters={"diagnosis_year": 2018})
    assert engine.ask(RISK, filters={"diagnosis_year": 2018}).cached is not None
    assert engine.ask(RISK, filters={"diagnosis_year": 2021}).cached is None


def test_a_reingested_changed_corpus_invalidates(root, host):
    engine = semantic_engine(root, host)
    engine.ask(RISK)
    assert engine.ask(RISK).cached is not None
    changed = [dict(d) for d in CORPUS]
    changed[0]["text"] = "Cirrhosis raises the risk of liver cancer. Aflatoxin in food raises the risk of liver cancer."
    write_corpus(root, changed)
    reopened = semantic_engine(root, host)  # the same index, updated: a new corpus version and fingerprint
    assert reopened.manifest.key == engine.manifest.key and reopened.corpus_version == engine.corpus_version + 1
    assert reopened.manifest.corpus_fingerprint != engine.manifest.corpus_fingerprint
    fresh = reopened.ask(RISK)
    assert fresh.cached is None and "Cirrhosis" in fresh.text


def test_the_cache_persists_across_restarts(root, host):
    semantic_engine(root, host).ask(RISK)
    restarted = semantic_engine(root, PluginHost(strict=True))  # a new process's worth of objects
    assert restarted.ask(RISK).cached is not None
    db = sqlite3.connect(root / "cache" / "answers.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == 1


def test_the_size_is_bounded_and_the_least_recently_used_goes_first(root, host):
    engine = semantic_engine(root, host, max_entries=2)
    cache = engine.cache.cache
    questions = [RISK, "What raises the risk of breast cancer?", "What raises the risk of lung cancer?"]
    engine.ask(questions[0])
    engine.ask(questions[1])
    assert engine.ask(questions[0]).cached is not None  # used again: now the most recent
    engine.ask(questions[2])  # a third entry evicts the least recently used, questions[1]
    assert cache.file.count() == 2
    assert set(cache.file.questions()) == {questions[0], questions[2]}
    assert engine.ask(questions[1]).cached is None


def test_refusals_are_not_stored(root, host):
    engine = semantic_engine(root, host)
    refused = engine.ask(RISK, filters={"cancer_type": "pancreatic"})  # the filter leaves no evidence
    assert refused.refused and refused.refusal_reason == "no_evidence"
    assert engine.cache.cache.file.count() == 0


def test_a_damaged_cache_file_is_a_clear_error(root, host):
    (root / "cache").mkdir()
    (root / "cache" / "answers.sqlite").write_bytes(b"this is not sqlite" * 100)
    from criss_rag.errors import CrissRagError

    with pytest.raises(CrissRagError, match="not a readable semantic-cache file.*delete it"):
        semantic_engine(root, host)


# -- the engine's side, with the in-memory fake cache -----------------------------------------------------


@pytest.fixture
def fake_engine(tmp_path) -> Engine:
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML + "cache: fake-cache\n", tmp_path, plugin_host())
    ingest(pipeline)
    return Engine.open(pipeline)


def test_a_hit_calls_no_generator_and_streams_its_text_once(fake_engine):
    generator = fake_engine.pipeline.one("generator")
    question = "Which test finds stomach cancer?"
    first = fake_engine.ask(question)
    assert generator.calls == 1 and first.cached is None
    events = list(fake_engine.ask_stream("which test finds  STOMACH cancer?"))
    assert generator.calls == 1  # answered from the cache
    assert [type(e) for e in events] == [TokenEvent, AnswerEvent]
    assert events[0].text == first.text and events[1].answer.cached.original_question == question


def test_chat_turns_with_history_skip_the_cache(fake_engine):
    question = "Which test finds stomach cancer?"
    fake_engine.ask(question)
    answer = fake_engine.ask(question, history=(ChatTurn("user", "hello"), ChatTurn("assistant", "hi")))
    assert answer.cached is None
    assert "history" in answer.trace.stage("cache").notes["skipped"]


def test_a_model_the_cache_loads_is_a_load_stage_of_its_own_before_the_cache_stage(fake_engine, monkeypatch):
    cache = fake_engine.cache.cache
    lookup = cache.lookup

    def loading_lookup(query, scope):
        with loading("fake-cache-model"):
            time.sleep(0.05)
        return lookup(query, scope)

    monkeypatch.setattr(cache, "lookup", loading_lookup)
    stages = fake_engine.ask("Which test finds stomach cancer?").trace.stages
    names = [s.stage for s in stages]
    load = names.index("load:fake-cache-model")
    assert names[load + 1] == "cache" and stages[load].notes["needed_by"] == "cache"
    assert stages[load].ms >= 50 and stages[load + 1].ms < stages[load].ms  # the load's time is not the cache's


def test_no_cache_stage_without_a_cache_in_the_config(tmp_path):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path, plugin_host())
    ingest(pipeline)
    engine = Engine.open(pipeline)
    assert engine.cache is None
    engine.ask("Which test finds stomach cancer?")
    assert engine.ask("Which test finds stomach cancer?").trace.stage("cache") is None


def test_the_cache_stage_does_not_change_the_config_hash(tmp_path):
    plain = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path, plugin_host()).config
    cached = pipeline_from_yaml(FAKE_PIPELINE_YAML + "cache: fake-cache\n", tmp_path, plugin_host()).config
    assert plain.config_hash() == cached.config_hash()
    assert cached.plan()["cache"] == {"name": "fake-cache"}


def test_evaluation_runs_drop_the_cache_unless_the_experiment_keeps_it(tmp_path):
    from criss_rag.evaluation.experiment import load_experiment

    host = plugin_host()
    (tmp_path / "pipeline.yaml").write_text(FAKE_PIPELINE_YAML + "cache: fake-cache\n", encoding="utf-8")
    (tmp_path / "q.jsonl").write_text(
        '{"qid": "1", "question": "Which test finds stomach cancer?"}\n', encoding="utf-8"
    )
    spec = "name: e\npipeline: pipeline.yaml\nvariants: [{name: base}]\nquestions: [{path: q.jsonl}]\n"
    (tmp_path / "off.yaml").write_text(spec, encoding="utf-8")
    (tmp_path / "on.yaml").write_text(spec + "cache: true\n", encoding="utf-8")
    assert load_experiment(tmp_path / "off.yaml", host.registry).variants[0].config.one("cache") is None
    assert load_experiment(tmp_path / "on.yaml", host.registry).variants[0].config.one("cache").name == "fake-cache"


def test_korean_and_japanese_questions_are_cached_within_their_language(root, host):
    ko_docs = [*CORPUS,
               {"doc_id": "liver-ko", "title": "간암", "cancer_type": "liver",
                "text": "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다. 과음도 간암 위험을 높입니다."},
               {"doc_id": "lung-ko", "title": "폐암", "cancer_type": "lung",
                "text": "흡연은 폐암 위험을 높입니다. 오래 지속되는 기침은 폐암의 증상일 수 있습니다."},
               {"doc_id": "lung-ja", "title": "肺がん", "cancer_type": "lung",
                "text": "喫煙は肺がんのリスクを高めます。長引くせきは肺がんの症状のことがあります。"}]
    write_corpus(root, ko_docs)
    engine = semantic_engine(root, host)
    korean = "간암 위험을 높이는 것은 무엇인가요?"
    assert not engine.ask(korean).refused
    again = engine.ask(korean)
    assert again.cached is not None and again.cached.original_question == korean
    assert engine.ask("폐암 위험을 높이는 것은 무엇인가요?").cached is None  # another cancer (폐암 vs 간암)
    japanese = "肺がんのリスクを高めるものは何ですか？"
    assert not engine.ask(japanese).refused and engine.ask(japanese).cached is not None
    scopes = {
        row[0] for row in sqlite3.connect(root / "cache" / "answers.sqlite").execute("SELECT language FROM entries")
    }
    assert scopes == {"ko", "ja"}


def test_the_cache_can_compare_questions_with_a_named_embedding(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "cache: {name: semantic, embedding: fake-hash, path: c.sqlite}\n"
    pipeline = pipeline_from_yaml(yaml_text, tmp_path, plugin_host(entry_points=True))
    ingest(pipeline)
    engine = Engine.open(pipeline)
    assert engine.cache.cache.model == "HashEmbedding:fake-hash"  # the fake pipeline names no embedding at all
    engine.ask("Which test finds stomach cancer?")
    assert engine.ask("Stomach cancer: which test finds it?").cached is not None  # same words, another order


def test_eval_answers_never_answers_from_the_cache(tmp_path):
    from click.testing import CliRunner

    from criss_rag.cli.main import build_cli

    host = plugin_host()
    (tmp_path / "pipeline.yaml").write_text(FAKE_PIPELINE_YAML + "cache: fake-cache\n", encoding="utf-8")
    question = '{"qid": "%s", "question": "Which test finds stomach cancer?"}'
    (tmp_path / "q.jsonl").write_text("\n".join(question % n for n in "ab") + "\n", encoding="utf-8")
    result = CliRunner().invoke(build_cli(host), ["eval", "answers", str(tmp_path / "pipeline.yaml"), "--questions",
                                                  str(tmp_path / "q.jsonl"), "--out", str(tmp_path / "out.jsonl")],
                                obj={"host": host})
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 2 and all(not row["refused"] for row in rows)
    assert all(stage["stage"] != "cache" for row in rows for stage in row["trace"]["stages"])


def test_the_cache_and_the_dense_retriever_embed_each_question_once(root, monkeypatch):
    from criss_rag.testing import HashEmbedding

    embedded: list[str] = []
    original = HashEmbedding._get_query_embedding
    monkeypatch.setattr(HashEmbedding, "_get_query_embedding",
                        lambda self, query: embedded.append(query) or original(self, query))
    yaml_text = replaced(
        SEMANTIC_YAML,
        "MAX",
        "100",
        "embedding: minilm",
        "embedding: fake-hash",
        "[{name: bm25, analyzer: standard}]",
        "[{name: faiss}]",
    )
    engine = Engine.open(pipeline_from_yaml(yaml_text, root, plugin_host(entry_points=True)), build_if_missing=True)
    first = engine.ask(RISK)  # a miss: the cache looks up, faiss retrieves, the cache stores
    assert first.cached is None and first.citations
    assert embedded == [RISK]
    assert engine.ask(RISK).cached is not None and embedded == [RISK]  # the hit reuses the remembered vector
    engine.ask("Which test finds breast cancer early?")
    assert embedded == [RISK, "Which test finds breast cancer early?"]


# -- near misses that embed alike must not share an answer (issue 14) --------------------------------------

NEAR_MISSES = [  # (stored, asked): each pair scores at or above the 0.95 threshold with MiniLM or close to it
    ("How is small cell lung cancer treated?", "How is non-small cell lung cancer treated?"),
    ("What is the treatment for stage IIIA lung cancer?", "What is the treatment for stage IIIB lung cancer?"),
    ("Should a 2 cm stage I breast tumor be removed?", "Should a 4 cm stage I breast tumor be removed?"),
    ("Should women over 50 get mammograms every year?", "Should women under 50 get mammograms every year?"),
    (
        "Is chemotherapy recommended for early prostate cancer?",
        "Is chemotherapy not recommended for early prostate cancer?",
    ),
    ("How is HER2-positive breast cancer treated?", "How is HER2-negative breast cancer treated?"),
    ("How is leukemia treated in children?", "How is leukemia treated in adults?"),
]
LUNG_CORPUS = [*CORPUS,
               {"doc_id": "lung-tx", "title": "Lung cancer treatment", "cancer_type": "lung",
                "text": "Lung cancer is treated with surgery, chemotherapy and radiation. Breast cancer is treated "
                        "with surgery. Prostate cancer and leukemia are treated with chemotherapy. Mammograms "
                        "find breast cancer; a breast tumor may be removed."}]


def test_near_misses_that_embed_alike_miss_and_the_trace_shows_the_facets(root, host):
    write_corpus(root, LUNG_CORPUS)
    engine = semantic_engine(root, host)
    cache = engine.cache.cache
    close = 0
    for stored, asked in NEAR_MISSES:
        first = engine.ask(stored)
        assert not first.refused, stored
        similarity = float(cache._vector(stored) @ cache._vector(asked))  # noqa: SLF001 - the raw similarity
        close += similarity >= cache.params.threshold
        answer = engine.ask(asked)
        assert answer.cached is None, (stored, asked, similarity)
        assert answer.trace.stage("cache").notes["facets"] != first.trace.stage("cache").notes["facets"]
    assert close >= 3  # similarity alone would have served several of them the other question's answer
    shown = engine.ask("How is small cell lung cancer treated?")  # stored above: a hit, facets in the trace
    assert shown.cached is not None
    assert shown.trace.stage("cache").notes["facets"] == {"cancer": ["lung cancer"], "subtype": ["small-cell"],
                                                          "site": ["lung"], "aspect": ["treatment"]}
