"""The language analyzers: ``mecab`` (plugin ja), ``kiwi`` (ko), ``jieba`` (zh) and ``auto``
(basic), on their own and inside BM25 pipelines over the team-written Japanese and Korean pages.

Every analyzer keeps its own script for its morphological analyzer and sends Latin runs to the
English analysis and other CJK scripts to character bigrams; the tests check each route."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path

import pytest

import criss_rag_ko.kiwi as kiwi_module
import criss_rag_zh.jieba_analyzer as jieba_module
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.testing import fake_plugin, pipeline_from_yaml
from criss_rag.types import Query
from criss_rag_basic.auto_analyzer import AutoAnalyzer
from criss_rag_ja.mecab import MecabAnalyzer
from criss_rag_ko.kiwi import KiwiAnalyzer
from criss_rag_zh.jieba_analyzer import JiebaAnalyzer

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
JA_PAGES = FIXTURES / "ja_guideline.jsonl"
KO_PAGES = FIXTURES / "ko_cancer.jsonl"

# The analyzers are not a YAML stage; any valid pipeline gives access to them.
MINIMAL_YAML = """\
name: analyzers
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


@pytest.fixture(scope="module")
def host() -> PluginHost:
    """Every installed plugin (basic, bm25, ja, ko, zh, ...) plus the fakes, strict."""
    return PluginHost(strict=True, extra_plugins={"fake": fake_plugin})


@pytest.fixture(scope="module")
def pipe(host, tmp_path_factory) -> Pipeline:
    return pipeline_from_yaml(MINIMAL_YAML, tmp_path_factory.mktemp("analyzers"), host)


def analyze(pipe: Pipeline, spec: str | dict, text: str) -> list[str]:
    return pipe.analyzer(spec, requested_by="test").analyze(text)


def test_plugins_register_their_analyzers(host):
    expected = {"mecab": (MecabAnalyzer, "ja"), "kiwi": (KiwiAnalyzer, "ko"),
                "jieba": (JiebaAnalyzer, "zh"), "auto": (AutoAnalyzer, "basic")}
    for name, (factory, plugin) in expected.items():
        spec = host.registry.get("analyzer", name)
        assert spec.factory is factory and spec.plugin == plugin, name
    for plugin in ("ja", "ko", "zh"):
        assert host.plugins[plugin].distribution == f"criss-rag-{plugin}"


# -- mecab -----------------------------------------------------------------------------------------


def test_mecab_keeps_nouns(pipe):
    terms = analyze(pipe, "mecab", "胸腺腫瘍の診断方法にはどのようなものがありますか")
    assert terms == ["胸腺", "腫瘍", "診断", "方法"]
    # UniDic splits 放射線 into 放射 + the noun suffix 線; noun suffixes count as nouns
    assert analyze(pipe, "mecab", "手術後に放射線治療を行う") == ["手術", "後", "放射", "線", "治療"]
    # prefixes stay glued to their word (副作用 is not 作用); honorific ご is dropped
    terms = analyze(pipe, "mecab", "抗がん剤の副作用と非小細胞肺がん")
    assert terms == ["抗がん", "剤", "副作用", "非小細胞", "肺がん"]
    assert analyze(pipe, "mecab", "ご家族") == ["家族"]


def test_mecab_stopwords_switch(pipe):
    text = "胸腺腫瘍の診断方法にはどのようなものがありますか"
    assert "もの" not in analyze(pipe, "mecab", text)
    assert analyze(pipe, {"name": "mecab", "stopwords": False}, text) == ["胸腺", "腫瘍", "診断", "方法", "もの"]


def test_mecab_pos_content_adds_verbs_adjectives_adverbs_in_base_form(pipe):
    text = "早く見つけることが大切です。化学療法を行いました。"
    assert analyze(pipe, "mecab", text) == ["化学", "療法"]
    content = {"name": "mecab", "pos": "content"}
    assert analyze(pipe, content, text) == ["早い", "見つける", "大切", "化学", "療法", "行う"]
    # light verbs (ある, する) are stopwords; without stopwords they are kept in base form
    assert analyze(pipe, content, "副作用があります") == ["副作用"]
    assert analyze(pipe, {**content, "stopwords": False}, "副作用があります") == ["副作用", "ある"]


def test_mecab_form_lemma_unifies_spellings(pipe):
    assert analyze(pipe, "mecab", "乳がんと乳癌") == ["乳がん", "乳癌"]
    assert analyze(pipe, {"name": "mecab", "form": "lemma"}, "乳がんと乳癌") == ["乳癌", "乳癌"]
    assert analyze(pipe, {"name": "mecab", "form": "lemma"}, "ステージ") == ["ステージ"]  # not ステージ-stage


def test_mecab_normalises_nfkc(pipe):
    # full-width Latin and digits, half-width katakana
    assert analyze(pipe, "mecab", "ＨＥＲ２陽性") == analyze(pipe, "mecab", "HER2陽性") == ["her2", "陽性"]
    assert analyze(pipe, "mecab", "ｽﾃｰｼﾞ") == ["ステージ"]


def test_mecab_sends_latin_runs_to_the_english_analysis(pipe):
    assert analyze(pipe, "mecab", "HER2 陽性の乳がん") == ["her2", "陽性", "乳がん"]
    # stemmed and stopwords removed, as the english analyzer does; MeCab alone gives HER + 2
    assert analyze(pipe, "mecab", "乳がんのtreatments of the breast") == ["乳がん", "treatment", "breast"]


def test_mecab_sends_hangul_to_bigrams_not_to_mecab(pipe):
    standard = pipe.analyzer("standard", requested_by="test")
    # MeCab alone tags 위암환자 as one symbol; here it becomes standard's bigrams
    terms = analyze(pipe, "mecab", "위암환자の治療")
    assert terms == [*standard.analyze("위암환자"), "治療"] == ["위암", "암환", "환자", "治療"]
    assert analyze(pipe, "mecab", "간암의 병기") == standard.analyze("간암의 병기") == ["간암", "병기"]


def test_mecab_drop_non_japanese(pipe):
    text = "HER2 陽性の乳がん 간암 2023年"
    assert analyze(pipe, "mecab", text) == ["her2", "陽性", "乳がん", "간암", "2023", "年"]
    assert analyze(pipe, {"name": "mecab", "drop_non_japanese": True}, text) == ["陽性", "乳がん", "年"]


def test_mecab_helper_analyzers_are_params(pipe):
    spec = {"name": "mecab", "latin_analyzer": {"name": "english", "stem": False}}
    assert analyze(pipe, spec, "乳がんのtreatments") == ["乳がん", "treatments"]
    with pytest.raises(ConfigError, match=r"analyzer 'mecab' needs the analyzer 'no-such' for `latin_analyzer`"):
        pipe.analyzer({"name": "mecab", "latin_analyzer": "no-such"}, requested_by="test")


def test_missing_english_analyzer_names_the_basic_plugin(tmp_path):
    host = PluginHost(strict=True, only=["ja", "fake"], extra_plugins={"fake": fake_plugin})
    pipe = pipeline_from_yaml(MINIMAL_YAML, tmp_path, host)
    with pytest.raises(ConfigError, match=r"pip install -e plugins/basic \(criss-rag-basic\)"):
        pipe.analyzer("mecab", requested_by="test")


# -- kiwi ------------------------------------------------------------------------------------------


def test_kiwi_keeps_nouns(pipe):
    assert analyze(pipe, "kiwi", "간암의 병기는 어떻게 결정되나요?") == ["간암", "병기", "결정"]
    # numbers (SN) stay with their counters; dependent-noun stopwords (수) go
    assert analyze(pipe, "kiwi", "위암 2기 환자는 수술을 받을 수 있습니다") == ["위암", "2", "기", "환자", "수술"]


def test_kiwi_pos_content_adds_stems_and_adverbs(pipe):
    text = "항암치료를 빠르게 시작해야 합니다"
    assert analyze(pipe, "kiwi", text) == ["항암", "치료", "시작"]
    assert analyze(pipe, {"name": "kiwi", "pos": "content"}, text) == ["항암", "치료", "빠르다", "시작"]
    assert analyze(pipe, {"name": "kiwi", "pos": "content"}, "통증이 자주 생긴다") == ["통증", "자주", "생기다"]
    all_content = {"name": "kiwi", "pos": "content", "stopwords": False}
    assert analyze(pipe, all_content, "치료할 수 있다") == ["치료", "수", "있다"]


def test_kiwi_sends_latin_runs_to_the_english_analysis(pipe):
    # Kiwi alone gives HER/SL + 2/SN
    assert analyze(pipe, "kiwi", "유방암 HER2 양성 환자") == ["유방암", "her2", "양성", "환자"]
    assert analyze(pipe, "kiwi", "폐암 screening tests") == ["폐암", "screen", "test"]


def test_kiwi_sends_kana_to_bigrams_and_keeps_hanja(pipe):
    standard = pipe.analyzer("standard", requested_by="test")
    terms = analyze(pipe, "kiwi", "위암 がん検診を受ける")
    assert terms == ["위암", *standard.analyze("がん検診を受ける")] == ["위암", "検診", "受"]
    assert analyze(pipe, "kiwi", "肝癌 간암") == ["肝癌", "간암"]  # hanja: Kiwi's SH


def test_kiwi_model_is_loaded_lazily_once_per_process(pipe, monkeypatch):
    import kiwipiepy

    made = []

    class CountingKiwi(kiwipiepy.Kiwi):
        def __init__(self, *args, **kwargs):
            made.append(self)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(kiwipiepy, "Kiwi", CountingKiwi)
    monkeypatch.setattr(kiwi_module, "_kiwi", None)
    nouns = KiwiAnalyzer(KiwiAnalyzer.Params(), pipe_ctx(pipe))
    content = KiwiAnalyzer(KiwiAnalyzer.Params(pos="content"), pipe_ctx(pipe))
    assert made == []  # constructing costs nothing
    assert nouns.analyze("간암의 병기") == ["간암", "병기"]
    assert content.analyze("간암의 병기") == ["간암", "병기"]
    assert len(made) == 1 and kiwi_module.shared_kiwi() is made[0]


def pipe_ctx(pipe: Pipeline):
    from criss_rag.context import ComponentContext

    return ComponentContext(pipe, "test")


# -- jieba -----------------------------------------------------------------------------------------


def test_jieba_words_without_punctuation_and_stopwords(pipe):
    assert analyze(pipe, "jieba", "肝癌的分期是如何确定的？") == ["肝癌", "分期", "确定"]
    assert analyze(pipe, {"name": "jieba", "stopwords": False}, "肝癌的分期是如何确定的？") == [
        "肝癌", "的", "分期", "是", "如何", "确定", "的"]
    terms = analyze(pipe, "jieba", "化疗后需要定期随访，5年生存率较高。")
    assert terms == ["化疗", "定期", "随访", "5", "年", "生存率", "较", "高"]


@pytest.mark.parametrize("question", [
    "化療有甚麼副作用？應該怎樣處理？", "化疗有什么副作用？应该怎样处理？",  # the same question in both scripts
])
def test_jieba_reads_both_scripts_alike_and_drops_question_words(pipe, question):
    assert analyze(pipe, "jieba", question) == ["化疗", "副作用", "处理"]


def test_jieba_function_words_are_not_content_words(pipe):
    for text in ("可以", "有沒有", "有没有", "甚麼", "什么", "怎樣", "怎样", "應該", "应该", "請問", "是不是"):
        assert analyze(pipe, "jieba", text) == [], text
    assert analyze(pipe, "jieba", "大腸癌可以開刀切除嗎？") == analyze(pipe, "jieba", "大肠癌可以开刀切除吗？")


def test_jieba_reads_regional_medical_words_as_one(pipe):
    assert analyze(pipe, "jieba", "胰臟癌") == analyze(pipe, "jieba", "胰腺癌") == ["胰腺癌"]
    assert analyze(pipe, "jieba", "乳癌的標靶治療") == analyze(pipe, "jieba", "乳腺癌的靶向治疗")


def test_jieba_as_written_keeps_the_script(pipe):
    terms = analyze(pipe, {"name": "jieba", "script": "as-written"}, "化療有甚麼副作用？應該怎樣處理？")
    assert "副作用" in terms and "甚麼" not in terms and "應該" not in terms and "化疗" not in terms


def test_jieba_sends_latin_and_other_scripts_elsewhere(pipe):
    assert analyze(pipe, "jieba", "HER2阳性乳腺癌的靶向治疗") == ["her2", "阳性", "乳腺癌", "靶向", "治疗"]
    assert analyze(pipe, "jieba", "肺癌 screening") == ["肺癌", "screen"]
    standard = pipe.analyzer("standard", requested_by="test")
    terms = analyze(pipe, "jieba", "肝癌 간암의 병기")
    assert terms == ["肝癌", *standard.analyze("간암의 병기")] == ["肝癌", "간암", "병기"]
    terms = analyze(pipe, "jieba", "肝癌 がんの治療")
    assert terms == ["肝癌", *standard.analyze("がんの")] + ["治疗"]  # a Han run is read as Chinese (Simplified)


def test_jieba_cache_dir_is_a_param_and_logging_is_silent(tmp_path, host, capfd):
    pipe = pipeline_from_yaml(MINIMAL_YAML, tmp_path, host)
    assert analyze(pipe, {"name": "jieba", "cache_dir": "jieba-cache"}, "胃癌的治疗") == ["胃癌", "治疗"]
    assert (tmp_path / "jieba-cache" / "jieba.cache").is_file()  # relative to the config folder
    assert "Building prefix dict" not in capfd.readouterr().err
    assert logging.getLogger("jieba").level >= logging.WARNING
    assert jieba_module.shared_tokenizer(tmp_path / "jieba-cache").tmp_dir == str(tmp_path / "jieba-cache")


# -- auto ------------------------------------------------------------------------------------------


def test_auto_picks_the_analyzer_per_text_by_script(pipe):
    auto = pipe.analyzer("auto", requested_by="test")
    texts = {
        "mecab": "胸腺腫瘍の診断方法にはどのようなものがありますか",
        "kiwi": "간암의 병기는 어떻게 결정되나요?",
        "jieba": "肝癌的分期是如何确定的？",
        "english": "How is liver cancer staged?",
    }
    for name, text in texts.items():
        assert auto.analyze(text) == analyze(pipe, name, text), name
    assert auto.analyze(texts["mecab"]) == ["胸腺", "腫瘍", "診断", "方法"]
    assert auto.analyze(texts["kiwi"]) == ["간암", "병기", "결정"]
    assert auto.analyze(texts["jieba"]) == ["肝癌", "分期", "确定"]
    assert auto.analyze(texts["english"]) == ["liver", "cancer", "stage"]
    assert auto.analyzer_for("ja") is pipe.analyzer("mecab", requested_by="test")  # shared, not rebuilt


def test_auto_mapping_and_fallback_are_params(pipe):
    spec = {"name": "auto", "analyzers": {"ja": {"name": "mecab", "pos": "content"}}}
    auto = pipe.analyzer(spec, requested_by="test")
    assert auto.analyze("早く見つけることが大切です") == ["早い", "見つける", "大切"]
    # languages the mapping leaves out use the fallback (standard: bigrams)
    assert auto.analyze("간암의 병기") == ["간암", "병기"]
    assert auto.analyze("肝癌的分期") == ["肝癌", "癌的", "的分", "分期"]
    with pytest.raises(ConfigError, match="fr"):
        pipe.analyzer({"name": "auto", "analyzers": {"fr": "english"}}, requested_by="test")


def test_auto_names_an_unregistered_analyzer_when_its_language_comes(pipe):
    auto = pipe.analyzer({"name": "auto", "analyzers": {"ko": "no-such-analyzer"}}, requested_by="test")
    assert auto.analyze("How is liver cancer staged?") == ["liver", "cancer", "stage"]  # resolved lazily
    with pytest.raises(ConfigError) as raised:
        auto.analyze("간암의 병기")
    message = str(raised.value)
    assert "Korean text (ko) goes to the analyzer 'no-such-analyzer', which is not installed" in message
    assert "install the plugin that registers it" in message and "Registered analyzers:" in message


def test_auto_names_the_plugin_distribution_to_install(tmp_path):
    host = PluginHost(strict=True, only=["basic", "fake"], extra_plugins={"fake": fake_plugin})
    auto = pipeline_from_yaml(MINIMAL_YAML, tmp_path, host).analyzer("auto", requested_by="test")
    assert auto.analyze("Liver cancer") == ["liver", "cancer"]  # English needs no language plugin
    expected = {"胸腺腫瘍の診断": "pip install -e plugins/ja (criss-rag-ja)",
                "간암의 병기": "pip install -e plugins/ko (criss-rag-ko)",
                "肝癌的分期": "pip install -e plugins/zh (criss-rag-zh)"}
    for text, fix in expected.items():
        with pytest.raises(ConfigError, match=re.escape(fix)):
            auto.analyze(text)


# -- retrieval over the team-written pages ---------------------------------------------------------

JA_QUESTIONS = [
    ("胸腺腫瘍の診断方法にはどのようなものがありますか", "ja-thymus-diagnosis"),
    ("胸腺腫の手術ではどこまで切除しますか", "ja-thymus-surgery"),
    ("放射線治療の副作用を教えてください", "ja-thymus-radiotherapy"),
    ("胸腺がんの化学療法ではどんな抗がん剤を使いますか", "ja-thymus-chemotherapy"),
    ("病期はどのように分類されますか", "ja-thymus-staging"),
    ("治療が終わった後の経過観察はいつまで必要ですか", "ja-thymus-followup"),
    ("重症筋無力症ではどんな症状が出ますか", "ja-thymus-myasthenia"),
]
KO_QUESTIONS = [
    ("간암의 병기는 어떻게 결정되나요?", "ko-liver-staging"),
    ("간암 치료에 간이식도 하나요?", "ko-liver-treatment"),
    ("위암 초기에는 어떤 증상이 있나요?", "ko-stomach-symptoms"),
    ("위내시경 검진은 몇 년마다 받아야 하나요?", "ko-stomach-screening"),
    ("HER2 양성 유방암 치료에는 무엇을 쓰나요?", "ko-breast-treatment"),
    ("담배를 피우면 폐암 위험이 커지나요?", "ko-lung-risk"),
    ("대장암은 어떻게 진단하나요?", "ko-colorectal-diagnosis"),
    ("췌장암의 황달은 왜 생기나요?", "ko-pancreas-symptoms"),
]


def bm25_yaml(corpus: Path, *retrievers: str, generator_analyzer: str = "standard") -> str:
    fusion = "fusion: {name: rrf}\n" if len(retrievers) > 1 else ""
    items = "\n".join(f"  - {r}" for r in retrievers)
    return f"""\
name: cjk-bm25
loader: {{name: jsonl, path: "{corpus}"}}
chunker: whole-document
retrievers:
{items}
{fusion}context: numbered
generator: {{name: extractive, analyzer: {generator_analyzer}}}
"""


def open_engine(yaml_text: str, base_dir: Path) -> Engine:
    pipeline = pipeline_from_yaml(yaml_text, base_dir, PluginHost(strict=True))
    report = ingest(pipeline)
    assert report.built and report.documents == 8
    return Engine.open(pipeline)


@pytest.fixture(scope="module")
def ja_engine(tmp_path_factory) -> Engine:
    return open_engine(bm25_yaml(JA_PAGES, "{name: bm25, analyzer: mecab, top_k: 5}", generator_analyzer="mecab"),
                       tmp_path_factory.mktemp("ja"))


@pytest.fixture(scope="module")
def ko_engine(tmp_path_factory) -> Engine:
    return open_engine(bm25_yaml(KO_PAGES, "{name: bm25, analyzer: kiwi, top_k: 5}", generator_analyzer="kiwi"),
                       tmp_path_factory.mktemp("ko"))


@pytest.mark.parametrize(("question", "doc_id"), JA_QUESTIONS)
def test_bm25_over_mecab_finds_the_japanese_page(ja_engine, question, doc_id):
    hits = ja_engine.retrieve(Query(text=question))
    assert hits and hits[0].doc_id == doc_id, [(h.doc_id, round(h.score, 2)) for h in hits]


@pytest.mark.parametrize(("question", "doc_id"), KO_QUESTIONS)
def test_bm25_over_kiwi_finds_the_korean_page(ko_engine, question, doc_id):
    hits = ko_engine.retrieve(Query(text=question))
    assert hits and hits[0].doc_id == doc_id, [(h.doc_id, round(h.score, 2)) for h in hits]


def test_japanese_answer_quotes_and_cites_the_right_page(ja_engine):
    answer = ja_engine.ask("胸腺腫瘍の診断方法にはどのようなものがありますか")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "ja-thymus-diagnosis"
    assert "CT検査" in answer.text and "[1]" in answer.text


def test_korean_answer_quotes_and_cites_the_right_page(ko_engine):
    answer = ko_engine.ask("간암의 병기는 어떻게 결정되나요?")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "ko-liver-staging"
    assert "병기" in answer.text and "[1]" in answer.text


@pytest.mark.parametrize(("corpus", "question"), [(JA_PAGES, JA_QUESTIONS[0][0]), (KO_PAGES, KO_QUESTIONS[0][0])])
def test_bm25_with_the_english_analyzer_finds_nothing(tmp_path, corpus, question):
    """Why the language analyzers matter: English analysis drops every kana, kanji and Hangul
    character, so the question has no terms and nothing is retrieved."""
    engine = open_engine(bm25_yaml(corpus, "{name: bm25, analyzer: english, top_k: 5}"), tmp_path)
    assert engine.retrieve(Query(text=question)) == []
    answer = engine.ask(question)
    assert answer.refused and answer.refusal_reason == "no_evidence"


@pytest.mark.parametrize(
    ("corpus", "analyzer", "questions"),
    [(JA_PAGES, "mecab", JA_QUESTIONS), (KO_PAGES, "kiwi", KO_QUESTIONS)],
    ids=["ja", "ko"],
)
def test_rrf_fusion_of_two_bm25_analyzers(tmp_path, corpus, analyzer, questions):
    engine = open_engine(
        bm25_yaml(corpus, f"{{name: bm25, label: words, analyzer: {analyzer}, top_k: 5}}",
                  "{name: bm25, label: bigrams, analyzer: standard, top_k: 5}"),
        tmp_path,
    )
    for question, doc_id in questions:
        hits = engine.retrieve(Query(text=question))
        assert hits[0].doc_id == doc_id, (question, [h.doc_id for h in hits])
        assert {"words", "bigrams", "rrf"} <= set(hits[0].signals)
        trace_stages = {s.stage for s in engine.ask(question).trace.stages}
        assert {"retrieve:words", "retrieve:bigrams", "fusion"} <= trace_stages


def test_bm25_over_auto_serves_a_mixed_language_corpus(tmp_path):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text(JA_PAGES.read_text(encoding="utf-8") + KO_PAGES.read_text(encoding="utf-8"), encoding="utf-8")
    pipeline = pipeline_from_yaml(bm25_yaml(mixed, "{name: bm25, analyzer: auto, top_k: 5}"), tmp_path,
                                  PluginHost(strict=True))
    assert ingest(pipeline).documents == 16
    engine = Engine.open(pipeline)
    for question, doc_id in JA_QUESTIONS + KO_QUESTIONS:
        hits = engine.retrieve(Query(text=question))
        assert hits[0].doc_id == doc_id, (question, [h.doc_id for h in hits])
        # a question in one script is not tokenized as another: no cross-language candidates
        assert {h.doc_id[:2] for h in hits} == {doc_id[:2]}


def test_fixture_pages_are_well_formed():
    for path, lang in ((JA_PAGES, "ja"), (KO_PAGES, "ko")):
        pages = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        assert 6 <= len(pages) <= 10
        assert len({p["doc_id"] for p in pages}) == len(pages)
        assert all(p["title"] and p["text"] and p["lang"] == lang for p in pages)


def test_reloaded_bm25_keeps_one_character_terms(tmp_path):
    """A reloaded BM25 index must search the analyzer's terms as they are: the single kanji 肺
    (lung) is a whole term, and it must still match after the index is read back from disk."""
    from criss_rag.engine import Engine
    from criss_rag.indexing.ingestion import ingest
    from criss_rag.plugins import PluginHost
    from criss_rag.testing import pipeline_from_yaml

    docs = "[{doc_id: lung, title: 肺, text: 肺の病気です。}, {doc_id: stomach, title: 胃, text: 胃の病気です。}]"
    yaml_text = f"""\
name: one-char
loader: {{name: fake-loader, documents: {docs}}}
chunker: whole-document
retrievers: [{{name: bm25, analyzer: standard}}]
context: numbered
generator: extractive
"""
    from criss_rag.testing import fake_plugin

    host = PluginHost(strict=True, extra_plugins={"fake": fake_plugin})
    pipeline = pipeline_from_yaml(yaml_text, tmp_path, host)
    ingest(pipeline)
    hits = Engine.open(pipeline_from_yaml(yaml_text, tmp_path, host)).retrieve(
        __import__("criss_rag.types", fromlist=["Query"]).Query("肺")
    )
    assert [h.doc_id for h in hits] == ["lung"]


def test_jieba_drops_cantonese_function_words(pipe):
    """Written Cantonese (Hong Kong questions) has its own particles, negation, pronouns and
    question forms: 嘅 咗 唔 佢 係咪 使唔使 點解 are no more content words than 的 了 不 他 是不是."""
    assert analyze(pipe, "jieba", "阿媽嘅大腸癌已經散咗去肝，仲有冇機會做手術切走佢？") == [
        "阿妈", "大肠癌", "散", "肝", "机会", "做手术", "切", "走"]
    assert analyze(pipe, "jieba", "係咪大腸癌？使唔使去睇醫生？點解要咁做？") == analyze(
        pipe, "jieba", "是不是大肠癌？要不要去看医生？为什么要这样做？")


def test_jieba_drops_counts_of_time_weight_and_steps(pipe):
    """How long, how much or how far (一个多月, 十公斤, 几步, 半年前) is not what is asked; a stage is."""
    terms = analyze(pipe, "jieba", "咳了一个多月，两个月瘦了快十公斤，走几步就喘，半年前开始的")
    assert terms == ["咳", "瘦", "快", "走", "喘", "开始"], terms
    assert "第三期" in analyze(pipe, "jieba", "大肠癌第三期")
