"""The Japanese guideline chatbot preset (examples/jlcs.yaml) and the components it brings: the
``tfidf`` retriever, the ``concatenate`` context, the ``keywords`` / ``llm-keywords`` query
transforms and the ``missing-terms`` / ``llm-judge`` hop policies."""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import scipy.sparse as sp
from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from sklearn.feature_extraction.text import TfidfVectorizer

from criss_rag.engine import Engine
from criss_rag.errors import DataError, IndexStoreError
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.testing import FakeLLM, fake_plugin
from criss_rag.types import Hit, Query, text_node
from criss_rag_basic.analyzers import StandardAnalyzer
from criss_rag_basic.concatenate import ConcatenateContext, cl100k, collapse
from criss_rag_basic.keywords import KeywordsTransform, LlmKeywordsTransform
from criss_rag_basic.multihop import LlmJudgeHop, MissingTermsHop, parse_verdict
from criss_rag_basic.readable_keywords import parse_keyword_reply, surface_keywords
from criss_rag_tfidf.retriever import MATRIX_FILE, STATE_FILE, TfIdf

ROOT = Path(__file__).resolve().parents[1]
PRESET = ROOT / "examples" / "jlcs.yaml"
CORPUS = ROOT / "examples" / "corpus" / "ja_guideline.jsonl"
OUT_OF_SCOPE = "小児の神経膠腫の治療について教えてください"  # paediatric glioma: not in a thymic-tumour guideline
NO_REFERENCES = "参考文献なし"

# -- helpers ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def host() -> PluginHost:
    """The installed plugins the preset needs (basic, tfidf, ja) plus the fakes (fake-llm), strict;
    other installed plugins are left out, so the preset's tests do not depend on them."""
    return PluginHost(strict=True, only={"basic", "tfidf", "ja", "fake"}, extra_plugins={"fake": fake_plugin})


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("jlcs-index")


def open_preset(host: PluginHost, index_dir: Path, *overrides: str) -> Engine:
    """The preset (with ``--set`` overrides), its index built under ``index_dir`` if missing."""
    pipeline = Pipeline.from_file(PRESET, host, [f"index.dir={index_dir}", *overrides])
    return Engine.open(pipeline, build_if_missing=True)


@pytest.fixture(scope="module")
def engine(host, index_dir) -> Engine:
    return open_preset(host, index_dir)


def stage(answer, name):
    found = answer.trace.stage(name)
    assert found is not None, f"no stage {name!r} in {[s.stage for s in answer.trace.stages]}"
    return found


def corpus_records() -> list[dict]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def stand_in_ctx(reply: str = "") -> SimpleNamespace:
    """What the basic components read from a ComponentContext: analyzers and LLMs."""
    llm = FakeLLM(reply=reply, prompts=[])
    return SimpleNamespace(analyzer=lambda spec: StandardAnalyzer(), llm=lambda key: llm, stage="test")


def hit(node_id: str, text: str, score: float = 1.0, **metadata) -> Hit:
    return Hit(NodeWithScore(node=text_node(node_id, text, **metadata), score=score), {"tfidf": score})


# -- the corpus and the preset ---------------------------------------------------------------------


def test_corpus_is_a_thymic_tumour_guideline_plus_site_pages():
    records = corpus_records()
    assert 10 <= len(records) <= 14
    assert len({r["doc_id"] for r in records}) == len(records)
    medical = [r for r in records if r["category"] == "medical"]
    site = [r for r in records if r["category"] == "site"]
    assert 8 <= len(medical) <= 12 and 1 <= len(site) <= 2
    for record in records:
        assert record["url"].startswith("https://example.org/") and record["title"] and len(record["text"]) > 150
    titles = " ".join(r["title"] for r in medical)
    for topic in ["概要", "症状", "診断", "病期", "手術", "放射線治療", "薬物療法", "経過観察"]:
        assert topic in titles, topic
    assert all("胸腺" in r["text"] for r in medical)


def test_preset_names_the_japanese_systems_components(engine):
    config = engine.pipeline.config
    (retriever,) = config.many("retrievers")
    assert (retriever.name, retriever.params.min_score, retriever.params.analyzer) == (
        "tfidf", 0.2, {"name": "mecab", "drop_non_japanese": True})
    assert retriever.options["top_k"] >= 100  # every page above the threshold, not a top-k cut
    assert config.one("chunker").name == "whole-document"
    (transform,) = config.many("query_transforms")
    assert (transform.name, transform.params.max_keywords) == ("keywords", 2)
    context = config.one("context")
    assert (context.name, context.params.max_chars, context.params.unit) == ("concatenate", 4096, "chars")
    refusal = config.one("refusal").params
    assert refusal.no_evidence_message == {"ja": NO_REFERENCES, "en": "No references"}
    assert refusal.message == {
        "ja": "本文に十分な情報がありません",
        "en": "There is insufficient information in the text",
    }
    assert config.one("generator").name == "extractive"


# -- in scope: the right page, cited -----------------------------------------------------------------

IN_SCOPE = [
    ("胸腺腫の手術について教えてください", "ja-shujutsu"),
    ("胸腺がんの薬物療法はどのようなものですか", "ja-yakubutsu"),
    ("胸腺腫の症状は何ですか", "ja-shojo"),
    ("胸腺腫の放射線治療の副作用は？", "ja-hoshasen"),
    ("治療後の経過観察はどのくらい続けますか", "ja-keika"),
    ("胸腺腫の病期分類について", "ja-byoki"),
    ("胸腺腫の診断にはどんな検査をしますか", "ja-shindan"),
    ("胸腺腫の組織型の分類", "ja-soshiki"),
]


@pytest.mark.parametrize(("question", "page"), IN_SCOPE)
def test_in_scope_question_retrieves_the_right_page_and_is_answered_with_citations(engine, question, page):
    answer = engine.ask(question)
    assert not answer.refused, answer.refusal_detail
    retrieved = stage(answer, "retrieve:tfidf")
    assert retrieved.n_out >= 1 and retrieved.top_scores[0] >= 0.2
    hits = engine.retrieve(Query(text=question))
    assert hits[0].doc_id == page
    assert answer.citations and answer.citations[0].doc_id == page
    assert answer.citations[0].location.startswith("https://example.org/")
    assert "[1]" in answer.text
    # the keywords, not the question, were searched for: at most two of them
    keywords = stage(answer, "transform:keywords").notes["retrieval_text"]
    assert keywords != question and 1 <= len(keywords.split()) <= 2


def test_keywords_transform_gives_the_two_keywords_an_llm_would(engine):
    answer = engine.ask("胸腺腫の手術について教えてください")
    assert stage(answer, "transform:keywords").notes["retrieval_text"] == "胸腺腫 手術"


# -- out of scope: refused with "No references" -------------------------------------------------------


def test_out_of_scope_question_is_refused_with_no_references(engine):
    answer = engine.ask(OUT_OF_SCOPE)
    assert answer.refused and answer.text == NO_REFERENCES
    assert answer.refusal_reason == "no_evidence" and not answer.citations
    assert stage(answer, "retrieve:tfidf").n_out == 0
    assert answer.trace.stage("generate") is None  # no generator was called
    # nothing passed 0.2, although some page shares a term with the question
    tfidf = engine.retrievers[0][1]
    keywords = stage(answer, "transform:keywords").notes["retrieval_text"]
    cosines = tfidf.cosines(keywords)
    assert cosines.max() > 0 and cosines.max() < 0.2


def test_out_of_scope_english_question_gets_the_english_message(engine):
    answer = engine.ask("How is paediatric glioma treated?")
    assert answer.refused and answer.text == "No references"


# -- the 0.2 threshold ------------------------------------------------------------------------------


def test_pages_below_the_threshold_are_dropped(host, engine, tmp_path):
    question = "胸腺腫の診断にはどんな検査をしますか"
    kept = {h.doc_id: h.score for h in engine.retrieve(Query(text=question))}
    everything = open_preset(host, tmp_path, "retrievers.tfidf.min_score=0")
    scored = {h.doc_id: h.score for h in everything.retrieve(Query(text=question))}
    below = {doc for doc, score in scored.items() if 0 < score < 0.2}
    assert below, "the test needs a page that matches but scores below 0.2"
    assert not below & set(kept)
    assert kept == {doc: score for doc, score in scored.items() if score >= 0.2}
    assert all(score >= 0.2 for score in kept.values())


def test_a_score_exactly_at_min_score_is_kept(tmp_path):
    retriever, docstore = built_tfidf(tmp_path, min_score=0.0)
    cosines = retriever.cosines("胸腺腫 手術")
    threshold = float(sorted(c for c in cosines if c > 0)[1])  # the second-lowest positive cosine
    exact, _ = built_tfidf(tmp_path / "exact", min_score=threshold)
    found = exact.retrieve(Query(text="胸腺腫 手術"), top_k=100)
    assert min(n.score for n in found) == pytest.approx(threshold)
    assert len(found) == sum(1 for c in cosines if c >= threshold)


# -- the concatenated context ---------------------------------------------------------------------


def build_context(engine: Engine, question: str):
    query = Query(text=question)
    query = engine.pipeline.many("query_transforms")[0][1].transform(query)
    hits = engine.retrieve(Query(text=question))
    return hits, engine.pipeline.one("context").build(query, hits)


def test_context_is_the_pages_in_score_order_collapsed_and_at_most_4096_chars(engine):
    hits, context = build_context(engine, "胸腺腫の手術について教えてください")
    assert len(hits) >= 3
    assert [e.hit.node_id for e in context.evidence] == [h.node_id for h in hits]  # every page fitted
    scores = [e.hit.score for e in context.evidence]
    assert scores == sorted(scores, reverse=True)
    assert len(context.text) <= 4096
    assert "\n" not in context.text and "  " not in context.text
    assert context.text == " ".join(collapse(h.text) for h in hits)  # plain text, no [n] markers
    assert [e.number for e in context.evidence] == list(range(1, len(hits) + 1))


def test_context_is_cut_at_max_chars_and_only_contributing_pages_are_evidence(host, index_dir):
    engine = open_preset(host, index_dir, "context.max_chars=500")
    hits, context = build_context(engine, "胸腺腫の手術について教えてください")
    assert len(context.text) <= 500 and len(context.text) >= 490
    assert 1 <= len(context.evidence) < len(hits)
    *whole, last = context.evidence
    assert all(e.text == collapse(e.hit.text) for e in whole)
    assert collapse(last.hit.text).startswith(last.text) and last.text != collapse(last.hit.text)
    answer = engine.ask("胸腺腫の手術について教えてください")
    assert stage(answer, "context").n_out == len(context.evidence)


def long_hits() -> list[Hit]:
    return [hit(f"p{i}", ("胸腺腫の説明です。\n\n  " * 200) + f"ページ{i}の終わり", score=1 - i / 10, title=f"T{i}")
            for i in range(3)]


def test_concatenate_truncates_to_the_limit_and_numbers_what_contributed():
    context = ConcatenateContext(ConcatenateContext.Params(), None).build(Query(text="q"), long_hits())
    assert 4090 <= len(context.text) <= 4096
    assert [e.number for e in context.evidence] == [1, 2, 3]
    assert context.text.startswith("[1] 胸腺腫の説明です。 胸腺腫")
    assert " [2] " in context.text and " [3] " in context.text
    assert context.evidence[2].text != collapse(long_hits()[2].text)  # the third page was cut


def test_concatenate_without_numbers_and_with_titles():
    params = ConcatenateContext.Params(max_chars=3000, number=False, include_title=True)
    context = ConcatenateContext(params, None).build(Query(text="q"), long_hits())
    assert "[1]" not in context.text and context.text.startswith("T0 胸腺腫")
    assert " T1 胸腺腫" in context.text
    assert len(context.text) <= 3000 and len(context.evidence) == 2


def test_concatenate_counts_cl100k_tokens():
    params = ConcatenateContext.Params(max_chars=300, unit="tokens")
    context = ConcatenateContext(params, None).build(Query(text="q"), long_hits())
    tokens = len(cl100k().encode(context.text))
    assert 290 <= tokens <= 300
    assert len(context.text) < 4096 and len(context.evidence) == 1
    assert "\ufffd" not in context.text  # no multi-byte character cut in half


def test_concatenate_skips_empty_passages_and_handles_no_hits():
    builder = ConcatenateContext(ConcatenateContext.Params(), None)
    context = builder.build(Query(text="q"), [hit("a", "  \n "), hit("b", "本文")])
    assert [(e.number, e.hit.node_id) for e in context.evidence] == [(1, "b")]
    assert builder.build(Query(text="q"), []).evidence == ()


# -- keyword transforms ---------------------------------------------------------------------------


def test_surface_keywords_rejoin_compounds_and_keep_order():
    analyzer = StandardAnalyzer()
    question = "CT検査で胸腺腫はわかりますか"
    assert surface_keywords(question, analyzer.analyze(question)) == ["CT検査", "胸腺腫"]
    assert surface_keywords("胸腺腫の手術の方法", ["胸腺", "腫", "手術", "方法"], stopwords=["方法"]) == [
        "胸腺腫",
        "手術",
    ]
    assert surface_keywords("lung cancer symptoms", ["lung", "cancer", "symptom"]) == ["lung", "cancer", "symptom"]
    assert surface_keywords("胸腺腫", ["胸腺", "腫"], merge_adjacent=False) == ["胸腺", "腫"]


def test_keywords_transform_keeps_max_keywords_and_leaves_the_question():
    transform = KeywordsTransform(KeywordsTransform.Params(max_keywords=1), stand_in_ctx())
    query = transform.transform(Query(text="胸腺がんの放射線治療の副作用"))
    assert query.retrieval_text == "胸腺" and query.text == "胸腺がんの放射線治療の副作用"
    nothing = KeywordsTransform(KeywordsTransform.Params(stopwords=["方法"]), stand_in_ctx())
    assert nothing.transform(Query(text="方法は？")).retrieval_text == ""  # no keyword: the question is searched


@pytest.mark.parametrize("reply", [
    "胸腺腫、手術", "胸腺腫,手術", "胸腺腫，手術。", "胸腺腫\n手術", "1. 胸腺腫\n2. 手術", "1) 胸腺腫 2) 手術",
    "①胸腺腫②手術", "「胸腺腫」、「手術」", "キーワード：胸腺腫、手術", "以下がキーワードです：\n- 胸腺腫\n- 手術",
    '"胸腺腫", "手術"', "胸腺腫；手術；経過観察",
])
def test_keyword_replies_are_parsed_whatever_the_separator(reply):
    assert parse_keyword_reply(reply, max_chars=40)[:2] == ["胸腺腫", "手術"]


@pytest.mark.parametrize("reply", ["", "申し訳ありませんが、この質問からキーワードを抽出することはできません。",
                                   "I cannot extract keywords from this question because it is unclear."])
def test_replies_without_keywords_parse_to_nothing(reply):
    assert parse_keyword_reply(reply, max_chars=40) == []


def test_llm_keywords_through_the_preset_sets_retrieval_text(host, index_dir):
    engine = open_preset(host, index_dir, "llms.kw={name: fake-llm, reply: '胸腺腫、手術'}",
                         "query_transforms=[{name: llm-keywords, llm: kw}]")
    answer = engine.ask("胸腺腫の手術後はどうなりますか")
    assert stage(answer, "transform:llm-keywords").notes["retrieval_text"] == "胸腺腫 手術"
    assert answer.citations[0].doc_id == "ja-shujutsu"
    llm = engine.pipeline.llm("kw", requested_by="test")
    assert llm.prompts == [
        "次の質問から検索用のキーワードを2個、読点区切りで出力してください。質問: 胸腺腫の手術後はどうなりますか"
    ]


def test_llm_keywords_keeps_max_keywords_and_other_separators():
    ctx = stand_in_ctx(reply="1. 胸腺がん\n2. 放射線治療\n3. 副作用")
    transform = LlmKeywordsTransform(LlmKeywordsTransform.Params(llm="kw"), ctx)
    assert transform.transform(Query(text="質問")).retrieval_text == "胸腺がん 放射線治療"
    assert transform.last_source == "llm"


def test_llm_keywords_falls_back_to_analyzer_keywords_and_says_so(caplog):
    ctx = stand_in_ctx(reply="申し訳ありません。キーワードを抽出できませんでした。")
    transform = LlmKeywordsTransform(LlmKeywordsTransform.Params(llm="kw"), ctx)
    with caplog.at_level(logging.WARNING, logger="criss_rag_basic.keywords"):
        query = transform.transform(Query(text="胸腺腫の手術にはどんな方法がありますか"))
    assert query.retrieval_text == "胸腺腫 手術"
    assert transform.last_source == "fallback"
    assert "no keyword in the LLM 'kw' reply" in caplog.text


def test_llm_keywords_rejects_a_prompt_with_unknown_placeholders():
    with pytest.raises(ValueError, match="only {n} and {question}"):
        LlmKeywordsTransform.Params(llm="kw", prompt="{topic}: {question}")
    with pytest.raises(ValueError, match="must contain {question}"):
        LlmKeywordsTransform.Params(llm="kw", prompt="keywords please")


# -- hop policies through the preset ----------------------------------------------------------------

HOP_QUESTION = "胸腺腫の手術と正岡分類について"  # keywords 胸腺腫 手術 miss 正岡分類 (on the staging page)


def test_missing_terms_hops_for_the_missing_terms(host, index_dir):
    engine = open_preset(host, index_dir, "multihop={name: missing-terms, analyzer: mecab, max_hops: 2}")
    answer = engine.ask(HOP_QUESTION)
    first = engine.retrievers[0][1].retrieve(Query(text=HOP_QUESTION, retrieval_text="胸腺腫 手術"), 1000)
    assert "ja-byoki" not in {n.node.metadata["doc_id"] for n in first}  # the keywords alone miss it
    hop1, hop2 = stage(answer, "hop:1"), stage(answer, "hop:2")
    assert hop1.notes == {"query": "正岡分類", "added": ["ja-byoki"]}
    assert hop1.n_out == hop1.n_in + 1
    assert "stopped" in hop2.notes  # the added page covers the rest
    assert stage(answer, "retrieve:tfidf@hop1").n_out >= 1
    assert "ja-byoki" in {c.doc_id for c in answer.citations}


def test_missing_terms_does_not_hop_when_the_evidence_covers_the_question(host, index_dir):
    engine = open_preset(host, index_dir, "multihop={name: missing-terms, analyzer: mecab, max_hops: 2}")
    answer = engine.ask("胸腺腫の手術について教えてください")
    assert "stopped" in stage(answer, "hop:1").notes and answer.trace.stage("hop:2") is None


def judge_engine(host, index_dir, reply: str) -> Engine:
    return open_preset(host, index_dir, f"llms.judge={{name: fake-llm, reply: '{reply}'}}",
                       "multihop={name: llm-judge, llm: judge, analyzer: mecab, max_hops: 2}")


def test_llm_judge_follows_the_llms_missing_query_once(host, index_dir):
    engine = judge_engine(host, index_dir, "MISSING: 正岡分類")
    answer = engine.ask(HOP_QUESTION)
    assert stage(answer, "hop:1").notes == {"query": "正岡分類", "added": ["ja-byoki"]}
    assert "stopped" in stage(answer, "hop:2").notes  # the same follow-up again: not repeated
    prompt = engine.pipeline.llm("judge", requested_by="test").prompts[0]
    assert HOP_QUESTION in prompt and "[1] 手術" in prompt and "MISSING: <" in prompt


def test_llm_judge_covered_stops(host, index_dir):
    answer = judge_engine(host, index_dir, "COVERED").ask(HOP_QUESTION)
    assert "stopped" in stage(answer, "hop:1").notes and answer.trace.stage("hop:2") is None


def test_llm_judge_parse_failure_falls_back_to_missing_terms_visibly(host, index_dir, caplog):
    engine = judge_engine(host, index_dir, "The evidence looks mostly fine to me.")
    with caplog.at_level(logging.WARNING, logger="criss_rag_basic.multihop"):
        answer = engine.ask(HOP_QUESTION)
    assert stage(answer, "hop:1").notes == {"query": "正岡分類", "added": ["ja-byoki"]}  # not taken for COVERED
    assert "could not read the LLM 'judge' verdict" in caplog.text and "falling back to missing-terms" in caplog.text
    policy = engine.pipeline.build(engine.pipeline.config.one("multihop"))
    assert policy.last_verdict == "unparsed"


@pytest.mark.parametrize(("reply", "verdict"), [
    ("COVERED", ("covered", "")), ("**Covered.**", ("covered", "")), ("\n  covered\nbecause ...", ("covered", "")),
    ("MISSING: 正岡分類", ("missing", "正岡分類")), ("missing：「胸腺がん 再発」", ("missing", "胸腺がん 再発")),
    ("MISSING", ("missing", "")), ("Missingness is unclear", ("unparsed", "")),
    ("The evidence is fine", ("unparsed", "")), ("", ("unparsed", "")),
])
def test_judge_verdicts_are_parsed_strictly(reply, verdict):
    assert parse_verdict(reply) == verdict


def test_llm_judge_missing_without_a_query_searches_every_missing_term(caplog):
    policy = LlmJudgeHop(LlmJudgeHop.Params(llm="j", max_missing_share=0.9), stand_in_ctx(reply="MISSING"))
    hits = [hit("a", "胸腺腫の手術について", title="手術")]
    with caplog.at_level(logging.WARNING, logger="criss_rag_basic.multihop"):
        follow_up = policy.next_query(Query(text="胸腺腫の手術と再発"), hits, 1)
    assert follow_up == "再発" and policy.last_verdict == "missing-without-query"
    assert "said MISSING without a query" in caplog.text


# -- missing-terms, unit level ------------------------------------------------------------------------


def test_missing_terms_reads_the_top_candidates_plus_what_hops_added():
    policy = MissingTermsHop(MissingTermsHop.Params(top_n=2, max_missing_share=0.2), stand_in_ctx())
    query = Query(text="胸腺腫の手術と再発と放射線")  # standard terms: 胸腺 腺腫 手術 再発 放射 射線
    hits = [hit("a", "胸腺腫の手術"), hit("b", "胸腺腫の手術"), hit("c", "再発について")]
    assert policy.next_query(query, hits, 1) == "再発 放射線"  # c is below top_n: not read
    assert policy.next_query(query, hits + [hit("d", "再発の治療")], 2) == "放射線"  # d (added by hop 1) is read
    assert policy.next_query(query, hits + [hit("d", "再発の治療"), hit("e", "放射線")], 3) is None
    assert policy.next_query(query, hits, 1) == "再発 放射線"  # a new question starts afresh
    assert policy.next_query(query, hits, 2) is None  # the same follow-up is never asked twice


def test_missing_terms_share_threshold():
    query = Query(text="胸腺腫の手術と再発")  # standard terms: 胸腺 腺腫 手術 再発
    hits = [hit("a", "胸腺腫の手術")]
    strict = MissingTermsHop(MissingTermsHop.Params(max_missing_share=0.25), stand_in_ctx())
    lenient = MissingTermsHop(MissingTermsHop.Params(max_missing_share=0.5), stand_in_ctx())
    assert strict.next_query(query, hits, 1) is None  # 1 of 4 missing is not more than 0.25
    assert lenient.next_query(query, hits, 1) is None
    eager = MissingTermsHop(MissingTermsHop.Params(max_missing_share=0.2), stand_in_ctx())
    assert eager.next_query(query, hits, 1) == "再発"


# -- tfidf: scikit-learn defaults and persistence ------------------------------------------------------


def built_tfidf(directory: Path, **params) -> tuple[TfIdf, SimpleDocumentStore]:
    """A tfidf retriever over the Japanese corpus (standard analyzer), built into and loaded from ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    nodes = [text_node(r["doc_id"], r["text"], title=r["title"]) for r in corpus_records()]
    docstore = SimpleDocumentStore()
    docstore.add_documents(nodes)
    retriever = TfIdf(TfIdf.Params(**params), stand_in_ctx())
    retriever.build(nodes, directory)
    retriever.load(directory, docstore)
    return retriever, docstore


QUERIES = ["胸腺腫 手術", "胸腺がん 薬物療法", "重症筋無力症", "経過観察 CT", "小児 神経膠腫"]


def analysed_corpus(retriever: TfIdf) -> list[list[str]]:
    return [retriever.terms(text_node(r["doc_id"], r["text"], title=r["title"]).get_content(MetadataMode.EMBED))
            for r in corpus_records()]


def test_tfidf_scores_equal_a_direct_default_tfidfvectorizer(tmp_path):
    retriever, _ = built_tfidf(tmp_path)
    texts = analysed_corpus(retriever)
    direct = TfidfVectorizer(analyzer=lambda terms: terms)  # scikit-learn defaults otherwise
    matrix = direct.fit_transform(texts)
    for query in QUERIES:
        expected = (matrix @ direct.transform([retriever.terms(query)]).T).toarray().ravel()
        np.testing.assert_allclose(retriever.cosines(query), expected, rtol=0, atol=1e-12)


def test_tfidf_weighting_is_raw_tf_smoothed_idf_and_l2_norm(tmp_path):
    retriever, _ = built_tfidf(tmp_path)
    texts = analysed_corpus(retriever)
    n = len(texts)
    df = Counter(term for terms in texts for term in set(terms))
    idf = {t: math.log((1 + n) / (1 + d)) + 1 for t, d in df.items()}

    def vector(terms):
        weights = {t: c * idf[t] for t, c in Counter(terms).items() if t in idf}
        norm = math.sqrt(sum(w * w for w in weights.values())) or 1.0
        return {t: w / norm for t, w in weights.items()}

    docs = [vector(terms) for terms in texts]
    for query in QUERIES:
        q = vector(retriever.terms(query))
        expected = [sum(w * d.get(t, 0.0) for t, w in q.items()) for d in docs]
        np.testing.assert_allclose(retriever.cosines(query), expected, rtol=0, atol=1e-12)


def test_tfidf_sklearn_default_mode_is_the_literal_default_vectorizer(tmp_path):
    retriever, _ = built_tfidf(tmp_path, term_mode="sklearn-default", min_score=0.0)
    texts = [" ".join(terms) for terms in analysed_corpus(retriever)]
    direct = TfidfVectorizer()  # every parameter at its default
    matrix = direct.fit_transform(texts)
    for query in QUERIES:
        expected = (matrix @ direct.transform([" ".join(retriever.terms(query))]).T).toarray().ravel()
        np.testing.assert_allclose(retriever.cosines(query), expected, rtol=0, atol=1e-12)
    whole, _ = built_tfidf(tmp_path / "whole")
    single = {t for t in whole.vectorizer.vocabulary_ if len(t) == 1}
    assert single and not single & set(retriever.vectorizer.vocabulary_)  # one-character terms dropped


def test_tfidf_persists_without_pickle_and_reloads_identically(tmp_path):
    retriever, docstore = built_tfidf(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([MATRIX_FILE, STATE_FILE])
    state = json.loads((tmp_path / STATE_FILE).read_text(encoding="utf-8"))
    assert set(state) >= {"vocabulary", "idf", "node_ids"} and len(state["idf"]) == len(state["vocabulary"])
    with np.load(tmp_path / MATRIX_FILE, allow_pickle=False) as data:  # a plain scipy sparse .npz
        assert "indices" in data.files
    assert sp.load_npz(tmp_path / MATRIX_FILE).shape == (len(state["node_ids"]), len(state["vocabulary"]))
    reloaded = TfIdf(TfIdf.Params(), stand_in_ctx())
    reloaded.load(tmp_path, docstore)
    for query in QUERIES:
        np.testing.assert_array_equal(reloaded.cosines(query), retriever.cosines(query))
        first = [(n.node.node_id, n.score) for n in retriever.retrieve(Query(text=query), 50)]
        assert [(n.node.node_id, n.score) for n in reloaded.retrieve(Query(text=query), 50)] == first


def test_tfidf_retrieve_sorts_keeps_above_min_score_and_caps_at_top_k(tmp_path):
    retriever, _ = built_tfidf(tmp_path, min_score=0.05)
    found = retriever.retrieve(Query(text="胸腺腫 手術"), top_k=100)
    scores = [n.score for n in found]
    assert scores == sorted(scores, reverse=True) and min(scores) >= 0.05
    assert len(found) == sum(1 for c in retriever.cosines("胸腺腫 手術") if c >= 0.05)
    assert [n.score for n in retriever.retrieve(Query(text="胸腺腫 手術"), top_k=2)] == scores[:2]
    assert retriever.retrieve(Query(text="???"), top_k=5) == []  # no terms: no candidates


def test_tfidf_unreadable_index_says_to_reingest(tmp_path):
    retriever, docstore = built_tfidf(tmp_path)
    (tmp_path / MATRIX_FILE).write_bytes(b"not an npz")
    with pytest.raises(IndexStoreError, match="ingest CONFIG --force"):
        TfIdf(TfIdf.Params(), stand_in_ctx()).load(tmp_path, docstore)


def test_tfidf_corpus_without_terms_is_a_data_error(tmp_path):
    retriever = TfIdf(TfIdf.Params(), stand_in_ctx())
    with pytest.raises(DataError, match="found no terms"):
        retriever.build([TextNode(id_="a", text="の が は"), TextNode(id_="b", text="？！")], tmp_path)
