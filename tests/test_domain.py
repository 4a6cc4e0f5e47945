"""The domain plugin: cancer-type lexicon (4 languages, word boundaries, longest synonym,
overlapping corpus foci, file and corpus extension), the hard `cancer-type` filter (exactly
pool -> filter -> top k, with its trace accounting), the soft `cancer-type-boost`, question intent
and `intent-boost`, and the corpus checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.engine import Engine
from criss_rag.errors import ConfigError, DataError
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import fake_plugin, pipeline_from_yaml
from criss_rag.types import FilterOutcome, Hit, Query
from criss_rag_domain.cancer_boost import CancerTypeBoost
from criss_rag_domain.cancer_filter import CancerTypeFilter
from criss_rag_domain.intent_boost import IntentBoost
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.lexicon import CancerLexicon
from criss_rag_domain.matching import PhraseMatcher


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True, extra_plugins={"fake": fake_plugin})


@pytest.fixture(scope="module")
def lexicon() -> CancerLexicon:
    return CancerLexicon.builtin()


class _Ctx:
    """The part of ComponentContext the domain components use, for direct unit tests."""

    stage = "rerankers[0]"

    def __init__(self, base: Path | None = None) -> None:
        self.base = base or Path(".")

    def resolve_path(self, path):
        path = Path(path)
        return path if path.is_absolute() else self.base / path


def hit(node_id: str, score: float, text: str = "", **metadata) -> Hit:
    node = TextNode(id_=node_id, text=text, metadata={"doc_id": node_id, **metadata})
    return Hit(NodeWithScore(node=node, score=score), {"retriever": score})


# -- the lexicon: four languages ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("What are the treatments for stomach cancer?", "gastric"),
        ("위암 수술 후 식사는 어떻게 하나요?", "gastric"),
        ("胃がんの検査について教えてください", "gastric"),
        ("胃癌的早期症状是什么？", "gastric"),
        ("Is hepatocellular carcinoma curable?", "liver"),
        ("간암 환자의 생존율", "liver"),
        ("肝臓がんの治療", "liver"),
        ("肝癌怎么治疗", "liver"),
        ("Could this be bowel cancer?", "colorectal"),
        ("대장암 검진은 몇 살부터?", "colorectal"),
        ("大腸がんの症状", "colorectal"),
        ("结直肠癌的筛查", "colorectal"),
        ("유방암 자가검진", "breast"),
        ("乳がんの治療", "breast"),
        ("乳腺癌的风险", "breast"),
        ("췌장암 증상", "pancreatic"),
        ("膵がんと膵臓がん", "pancreatic"),
        ("胰腺癌", "pancreatic"),
        ("폐암 예방", "lung"),
        ("肺がんのステージ", "lung"),
        ("肺癌的分期", "lung"),
        ("胸腺腫の手術", "thymic"),
        ("a small tumour in the liver", "liver"),  # organ word + noun, with a determiner
        ("cancer of the colon", "colon"),
    ],
)
def test_lexicon_detects_the_six_korean_cancers_and_more_in_four_languages(lexicon, text, expected):
    found = lexicon.detect(text)
    assert found, text
    assert found[0] == expected or lexicon.root(found[0]) == expected


def test_latin_synonyms_respect_word_boundaries(lexicon):
    assert lexicon.detect("I had a colonoscopy last year") == []
    assert lexicon.detect("gallbladder cancer") == ["gallbladder"]  # not also bladder
    assert lexicon.detect("parathyroid cancer") == ["parathyroid"]  # not also thyroid
    assert lexicon.detect("the gist of the leaflet") == []  # acronyms match only in capitals
    assert lexicon.detect("Is GIST a sarcoma?")[0] == "gist"
    assert lexicon.detect("Hodgkin's lymphomas in adults") == ["hodgkin-lymphoma"]  # possessive and plural
    # a bare word in a custom lexicon still needs whole-word matches
    custom = CancerLexicon()
    custom.add("colon", synonyms=["colon"])
    assert custom.detect("colonoscopy and colonic polyps") == []
    assert custom.detect("a polyp in the colon.") == ["colon"]


def test_longer_synonyms_win(lexicon):
    assert lexicon.detect("non-small cell lung cancer") == ["non-small-cell-lung"]  # not also small cell
    assert lexicon.root("non-small-cell-lung") == "lung"
    assert lexicon.detect("male breast cancer") == ["male-breast"]
    assert lexicon.root("male-breast") == "breast"
    assert lexicon.detect("small cell lung cancer") == ["small-cell-lung"]
    assert lexicon.detect("비소세포 폐암") == lexicon.detect("비소세포폐암") == ["non-small-cell-lung"]
    assert lexicon.detect("소세포폐암") == ["small-cell-lung"]
    assert lexicon.detect("非小細胞肺がん") == ["non-small-cell-lung"]
    assert lexicon.detect("结直肠癌") == ["colorectal"]  # not also 直肠癌 (rectal)
    assert lexicon.detect("直肠癌") == ["rectal"]
    assert lexicon.detect("副腎がん") == ["adrenal"]  # not also 腎がん (kidney)
    assert lexicon.detect("non-Hodgkin lymphoma") == ["non-hodgkin-lymphoma"]
    assert lexicon.detect("small bowel cancer") == ["small-intestine"]  # not colorectal "bowel cancer"


def test_cjk_spelling_variants_and_spaces(lexicon):
    assert lexicon.detect("胃ガン") == lexicon.detect("胃癌") == lexicon.detect("胃がん") == ["gastric"]
    assert lexicon.detect("남성유방암") == lexicon.detect("남성 유방암") == ["male-breast"]
    matcher = PhraseMatcher()
    matcher.add("변이", "mutation")
    assert matcher.keys("주변 이상") == []  # an unspaced phrase never spans a space
    assert matcher.keys("유전자 변이") == ["mutation"]


def test_mentions_report_where_each_type_is_named(lexicon):
    mentions = lexicon.mentions("Breast cancer and lung cancer")
    assert [(m.key, m.text) for m in mentions] == [("breast", "Breast cancer"), ("lung", "lung cancer")]


# -- overlapping corpus foci ------------------------------------------------------------------------

MEDQUAD_LIKE_FOCI = [
    "Breast Cancer",
    "Male Breast Cancer",
    "Lung Cancer",
    "Non-Small Cell Lung Cancer",
    "Small Cell Lung Cancer",
    "Adult Primary Liver Cancer",
    "Childhood Liver Cancer",
    "Liver (Hepatocellular) Cancer",
    "Chronic Myelogenous Leukemia",
    "Atypical Chronic Myelogenous Leukemia",
    "Childhood Vascular Tumors",
    "Adult Hodgkin Lymphoma",
    "Adult Non-Hodgkin Lymphoma",
]


def test_corpus_foci_stay_distinguishable():
    lexicon = CancerLexicon.builtin()
    mapping = lexicon.extend_from_values(MEDQUAD_LIKE_FOCI + ["Breast Cancer", None, ""], source="metadata:focus")
    # a focus that is a synonym joins its type; others become their own narrower types
    assert mapping["Breast Cancer"] == "breast"
    assert mapping["Male Breast Cancer"] == "male-breast"
    assert mapping["Small Cell Lung Cancer"] == "small-cell-lung"
    assert mapping["Adult Primary Liver Cancer"] == "Adult Primary Liver Cancer"
    assert lexicon.types["Adult Primary Liver Cancer"].parent == "liver"
    assert lexicon.types["Childhood Liver Cancer"].parent == "liver"
    assert lexicon.types["Atypical Chronic Myelogenous Leukemia"].parent == "chronic-myeloid-leukemia"
    assert lexicon.types["Adult Non-Hodgkin Lymphoma"].parent == "non-hodgkin-lymphoma"
    assert lexicon.types["Childhood Vascular Tumors"].parent is None  # nothing known in it: a new top-level type
    # detection in chunk titles picks the specific focus
    assert lexicon.detect("Male Breast Cancer (treatment PDQ summary): symptoms") == ["male-breast"]
    assert lexicon.detect("Breast Cancer (treatment PDQ summary): symptoms") == ["breast"]
    assert lexicon.detect("What is the outlook for Adult Non-Hodgkin Lymphoma ?") == ["Adult Non-Hodgkin Lymphoma"]
    assert lexicon.detect("Atypical Chronic Myelogenous Leukemia") == ["Atypical Chronic Myelogenous Leukemia"]
    # relations: narrower kinds are "within" the broader type, never the reverse
    assert lexicon.within("Childhood Liver Cancer", "liver")
    assert not lexicon.within("liver", "Childhood Liver Cancer")
    assert lexicon.relation("Adult Primary Liver Cancer", "Childhood Liver Cancer") == "related"
    assert lexicon.relation("breast", "male-breast") == "narrower"
    assert lexicon.relation("male-breast", "breast") == "broader"
    assert lexicon.relation("breast", "lung") == "different"
    assert lexicon.resolve("Childhood liver cancer") == ["Childhood Liver Cancer"]  # request values: id, any case
    assert lexicon.resolve("유방암") == ["breast"]
    # extending twice changes nothing, and another lexicon is untouched (the built-in phrase index is shared)
    assert lexicon.extend_from_values(MEDQUAD_LIKE_FOCI) == mapping | {"Breast Cancer": "breast"}
    assert "Childhood Liver Cancer" not in CancerLexicon.builtin().types


def test_lexicon_from_yaml_and_csv_files(tmp_path):
    yaml_file = tmp_path / "extra.yaml"
    yaml_file.write_text(
        "types:\n"
        "  desmoid:\n    name: Desmoid tumour\n    parent: sarcoma\n    en: [desmoid tumor, aggressive fibromatosis]\n"
        "    ko: [데스모이드 종양]\n    ja: [デスモイド腫瘍]\n    zh: [韧带样瘤]\n"
        "  gastric: [linitis plastica]\n",
        encoding="utf-8",
    )
    lexicon = CancerLexicon.builtin()
    assert lexicon.extend_from_file(yaml_file) == ["desmoid", "gastric"]
    assert lexicon.detect("aggressive fibromatosis") == ["desmoid"]
    assert lexicon.detect("데스모이드종양") == ["desmoid"]
    assert lexicon.root("desmoid") == "sarcoma"
    assert lexicon.detect("linitis plastica") == ["gastric"]  # an existing type gained a synonym
    assert lexicon.detect("위암") == ["gastric"]  # and kept its own
    csv_file = tmp_path / "extra.csv"
    csv_file.write_text(
        "id,synonyms,parent,name\nappendix,appendix cancer|appendiceal cancer|충수암,,Appendix cancer\n"
        "pmp,pseudomyxoma peritonei,appendix,\n",
        encoding="utf-8",
    )
    only = CancerLexicon()
    only.extend_from_file(csv_file)
    assert set(only.types) == {"appendix", "pmp"}
    assert only.detect("충수암") == ["appendix"] and only.name("appendix") == "Appendix cancer"
    assert only.within("pmp", "appendix") and only.detect("stomach cancer") == []
    bad = tmp_path / "bad.yaml"
    bad.write_text("types:\n  x: {parent: nowhere, en: [x tumor]}\n", encoding="utf-8")
    with pytest.raises(DataError, match="names parent 'nowhere'"):
        CancerLexicon().extend_from_file(bad)
    bad.write_text("types:\n  x: {synonym: [x tumor]}\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"unknown key\(s\) \['synonym'\]"):
        CancerLexicon().extend_from_file(bad)
    with pytest.raises(DataError, match="not found"):
        CancerLexicon().extend_from_file(tmp_path / "missing.yaml")


# -- the components in a real pipeline --------------------------------------------------------------

CORPUS = [
    {
        "doc_id": "lung-tx",
        "title": "Lung cancer: treatment",
        "section": "treatment",
        "focus": "Lung Cancer",
        "text": "Lung cancer treatment uses surgery and chemotherapy for patients.",
    },
    {
        "doc_id": "breast-tx",
        "title": "Breast cancer: treatment",
        "section": "treatment",
        "focus": "Breast Cancer",
        "text": "Breast cancer treatment uses surgery and hormone therapy for patients.",
    },
    {
        "doc_id": "side-effects",
        "title": "Side effects",
        "section": "treatment",
        "focus": "Side effects",
        "text": "Cancer treatment can leave patients tired.",
    },
    {
        "doc_id": "nsclc-tx",
        "title": "Non-small cell lung cancer: treatment",
        "section": "treatment",
        "focus": "Non-Small Cell Lung Cancer",
        "text": "Non-small cell lung cancer treatment may use targeted drugs.",
    },
    {
        "doc_id": "lung-sx",
        "title": "Lung cancer: symptoms",
        "section": "symptoms",
        "focus": "Lung Cancer",
        "text": "A lasting cough is a common lung cancer symptom in patients.",
    },
    {
        "doc_id": "liver-tx",
        "title": "Liver cancer: treatment",
        "section": "treatment",
        "focus": "Liver Cancer",
        "text": "Liver cancer treatment includes ablation for some patients.",
    },
    {
        "doc_id": "mixed",
        "title": "Screening",
        "section": "exams and tests",
        "focus": "Screening",
        "text": "Lung cancer screening uses a low-dose scan; treatment follows a positive result.",
    },
]


def pipeline_yaml(tmp_path: Path, *, filters: str = "", rerankers: str = "", top_k: int = 8) -> str:
    corpus = tmp_path / "corpus.jsonl"
    tmp_path.mkdir(parents=True, exist_ok=True)
    if not corpus.exists():
        corpus.write_text("".join(json.dumps(r) + "\n" for r in CORPUS), encoding="utf-8")
    return (
        "name: domain-test\n"
        "loader: {name: jsonl, path: corpus.jsonl}\n"
        "chunker: {name: fake-chunker}\n"
        f"retrievers: [{{name: fake-keyword, top_k: {top_k}}}]\n"
        + (f"filters: {filters}\n" if filters else "")
        + (f"rerankers: {rerankers}\n" if rerankers else "")
        + "context: {name: fake-all}\ngenerator: {name: fake-echo}\n"
    )


def open_engine(yaml_text: str, tmp_path: Path, host: PluginHost) -> Engine:
    pipeline = pipeline_from_yaml(yaml_text, tmp_path, host)
    ingest(pipeline)
    return Engine.open(pipeline)


QUESTION = "What treatment helps lung cancer patients?"


def test_hard_filter_is_pool_then_filter_then_top_k(tmp_path, host):
    pool = open_engine(pipeline_yaml(tmp_path), tmp_path, host).retrieve(Query(QUESTION))
    assert len(pool) >= 6  # the retrievers' top_k is the candidate pool
    engine = open_engine(pipeline_yaml(tmp_path, filters="[{name: cancer-type, top_k: 2}]"), tmp_path, host)
    component = engine.pipeline.many("filters")[0][1]
    naming = [h.doc_id for h in pool if component.names(h, ["lung"])]
    # lung, NSCLC (a narrower type) and the screening chunk whose text names lung cancer; not breast,
    # liver or the chunk that names no cancer
    assert set(naming) == {"lung-tx", "nsclc-tx", "lung-sx", "mixed"}
    answer = engine.ask(QUESTION)
    stage = answer.trace.stage("filter:cancer-type")
    kept = [
        e.hit.doc_id
        for e in engine.pipeline.build(engine.pipeline.config.one("context"))
        .build(Query(QUESTION), engine.retrieve(Query(QUESTION)))
        .evidence
    ]
    assert kept == naming[:2]  # exactly: the first two of the pool that name the cancer, in pool order
    assert stage.n_in == len(pool) and stage.n_out == 2
    assert stage.notes["applied"] is True and stage.notes["kept"] == 2
    assert stage.notes["removed"] == {
        "does_not_name_cancer_type": len(pool) - len(naming),
        "beyond_top_k": len(naming) - 2,
    }
    assert stage.n_in == stage.notes["kept"] + sum(stage.notes["removed"].values())
    assert "Lung cancer (from the question)" in stage.notes["note"]


def test_hard_filter_passes_through_when_the_question_names_no_cancer(tmp_path, host):
    engine = open_engine(pipeline_yaml(tmp_path, filters="[{name: cancer-type, top_k: 2}]"), tmp_path, host)
    answer = engine.ask("What treatment helps patients?")
    stage = answer.trace.stage("filter:cancer-type")
    assert stage.notes["applied"] is False and stage.notes["removed"] == {}
    assert stage.n_out == stage.n_in == stage.notes["kept"] > 2  # everything kept, not even cut to top_k
    assert stage.notes["note"] == "no cancer type of the lexicon in the question: nothing filtered"
    # a request value overrides the question; one the lexicon does not know filters nothing, and says so
    by_request = engine.ask("What treatment helps patients?", filters={"cancer_type": "유방암"})
    notes = by_request.trace.stage("filter:cancer-type").notes
    assert notes["applied"] is True and notes["kept"] == 1 and "from the request" in notes["note"]
    assert [c.doc_id for c in by_request.citations] in ([], ["breast-tx"])
    unknown = engine.ask(QUESTION, filters={"cancer_type": "unobtainium"}).trace.stage("filter:cancer-type").notes
    assert unknown["applied"] is False and "unobtainium names no cancer type" in unknown["note"]


def test_metadata_lexicon_is_read_from_the_corpus(tmp_path, host):
    yaml_text = pipeline_yaml(
        tmp_path, filters="[{name: cancer-type, metadata_field: focus, fields: [focus], top_k: null}]"
    )
    engine = open_engine(yaml_text, tmp_path, host)
    component = engine.pipeline.many("filters")[0][1]
    assert "Non-Small Cell Lung Cancer" in component.lexicon.types["non-small-cell-lung"].synonyms  # a synonym: joins
    assert component.lexicon.types["Side effects"].parent is None  # every focus value is a type
    kept = [h.doc_id for h in engine.retrieve(Query("Which drugs treat non-small cell lung cancer patients?"))]
    assert kept == ["nsclc-tx"]  # by the focus field alone: the specific type, not lung in general


def test_corpus_check_strict_and_lenient(tmp_path, host):
    strict = pipeline_yaml(tmp_path / "a", filters="[{name: cancer-type, fields: [title, cancer_name]}]")
    with pytest.raises(
        ConfigError, match=r"no chunk of the corpus has the metadata field\(s\) 'cancer_name'.*on_missing_field: warn"
    ):
        ingest(pipeline_from_yaml(strict, tmp_path / "a", host))
    strict_source = pipeline_yaml(tmp_path / "b", rerankers="[{name: cancer-type-boost, metadata_field: cancer_id}]")
    with pytest.raises(ConfigError, match="'cancer_id'"):
        ingest(pipeline_from_yaml(strict_source, tmp_path / "b", host))
    with pytest.raises(ConfigError, match="intent-boost': no chunk of the corpus has the metadata field 'menu_name'"):
        ingest(
            pipeline_from_yaml(
                pipeline_yaml(tmp_path / "c", rerankers="[{name: intent-boost, field: menu_name}]"),
                tmp_path / "c",
                host,
            )
        )
    # lenient, one field left: it runs on it, and the trace keeps the warning
    partial = pipeline_yaml(
        tmp_path / "d", filters="[{name: cancer-type, fields: [cancer_name, title], on_missing_field: warn}]"
    )
    stage = open_engine(partial, tmp_path / "d", host).ask(QUESTION).trace.stage("filter:cancer-type")
    assert "'cancer_name'" in stage.notes["corpus_warning"] and "does without them" in stage.notes["corpus_warning"]
    assert stage.notes["applied"] is True
    # lenient, no field left: it records that it did not apply
    none_left = pipeline_yaml(
        tmp_path / "e", filters="[{name: cancer-type, fields: [cancer_name], on_missing_field: warn}]"
    )
    stage = open_engine(none_left, tmp_path / "e", host).ask(QUESTION).trace.stage("filter:cancer-type")
    assert stage.notes["applied"] is False and stage.n_out == stage.n_in
    assert "does not apply" in stage.notes["corpus_warning"] and stage.notes["note"].startswith("not applied")
    lenient_intent = pipeline_yaml(
        tmp_path / "f", rerankers="[{name: intent-boost, field: menu_name, on_missing_field: warn}]"
    )
    engine = open_engine(lenient_intent, tmp_path / "f", host)
    answer = engine.ask(QUESTION)
    assert "boosts nothing" in answer.trace.stage("reranker:intent-boost").notes["corpus_warning"]
    assert all("intent-boost" not in h.signals for h in engine.retrieve(Query(QUESTION)))


def test_unknown_params_are_rejected(tmp_path, host):
    with pytest.raises(ConfigError, match="top_kk"):
        pipeline_from_yaml(pipeline_yaml(tmp_path, filters="[{name: cancer-type, top_kk: 3}]"), tmp_path, host)
    with pytest.raises(ConfigError, match="family_weight"):
        pipeline_from_yaml(
            pipeline_yaml(tmp_path, rerankers="[{name: cancer-type-boost, family_weight: 3}]"), tmp_path, host
        )


# -- the soft boost ---------------------------------------------------------------------------------


def boost(**params) -> CancerTypeBoost:
    return CancerTypeBoost(CancerTypeBoost.Params(**params), _Ctx())


def test_soft_boost_math_and_nothing_removed():
    component = boost(weight=2.0, family_weight=1.5, mismatch_weight=0.5)
    hits = [
        hit("breast", 0.30, "Surgery is common.", title="Breast cancer: treatment"),
        hit("lung", 0.20, "Surgery is common.", title="Lung cancer: treatment"),
        hit("nsclc", 0.18, "Targeted drugs.", title="Non-small cell lung cancer"),
        hit("none", 0.16, "Side effects of treatment.", title="Side effects"),
        hit("negative", -1.0, "", title="Lung cancer"),
    ]
    out = component.rerank(Query("How is lung cancer treated?"), hits)
    scores = {h.node_id: h.score for h in out}
    assert scores == pytest.approx({"lung": 0.40, "nsclc": 0.27, "none": 0.16, "breast": 0.15, "negative": -0.5})
    assert [h.node_id for h in out] == ["lung", "nsclc", "none", "breast", "negative"]
    assert {h.node_id: h.signals["cancer-type-boost"] for h in out} == {
        "lung": 2.0,
        "nsclc": 1.5,
        "none": 1.0,
        "breast": 0.5,
        "negative": 2.0,
    }
    assert all(h.signals["retriever"] == next(x for x in hits if x.node_id == h.node_id).score for h in out)
    # no cancer in the question: untouched, no signal
    same = component.rerank(Query("How is it treated?"), hits)
    assert same is hits and all("cancer-type-boost" not in h.signals for h in same)
    # the request wins over the question
    by_request = component.rerank(Query("How is lung cancer treated?", filters={"cancer_type": "breast"}), hits)
    assert by_request[0].node_id == "breast" and by_request[0].score == pytest.approx(0.6)


def test_soft_boost_reads_the_first_field_that_names_a_type():
    component = boost(weight=2.0, mismatch_weight=0.5, family_weight=1.0)
    titled = hit("a", 1.0, "It may spread to the ovaries; ovarian cancer is different.", title="Breast cancer")
    untitled = hit("b", 1.0, "Breast cancer can spread.", title="Spread")
    out = {
        h.node_id: h.signals["cancer-type-boost"]
        for h in component.rerank(Query("breast cancer spread"), [titled, untitled])
    }
    assert out == {"a": 2.0, "b": 2.0}  # the title decides for a; b's title names none, so its text decides
    with pytest.raises(ValueError, match="weight >= family_weight >= mismatch_weight"):
        CancerTypeBoost.Params(weight=1.1, family_weight=1.2)


# -- question intent --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("How is liver cancer treated?", ["treatment"]),
        ("간암은 어떻게 치료하나요?", ["treatment"]),
        ("肝がんの治療法は？", ["treatment"]),
        ("肝癌怎么治疗？", ["treatment"]),
        ("What are the symptoms of lung cancer?", ["symptoms"]),
        ("폐암의 증상은 무엇인가요?", ["symptoms"]),
        ("肺がんの症状は何ですか", ["symptoms"]),
        ("肺癌有什么症状", ["symptoms"]),
        ("How to diagnose stomach cancer?", ["diagnosis"]),
        ("위암 진단 검사", ["diagnosis"]),
        ("What are the stages of breast cancer?", ["stages"]),
        ("乳がんのステージ", ["stages"]),
        ("Who is at risk for pancreatic cancer?", ["risk"]),
        ("췌장암 위험 요인", ["risk"]),
        ("What is the outlook for colon cancer?", ["outlook"]),
        ("大腸がんの予後", ["outlook"]),
        ("结直肠癌的预后", ["outlook"]),
        ("How to prevent liver cancer?", ["prevention"]),
        ("What causes thyroid cancer?", ["causes"]),
        ("What research (or clinical trials) is being done for lung cancer?", ["research"]),
        ("肺がんの臨床試験", ["research"]),
        ("Is breast cancer inherited?", ["inheritance"]),
        ("乳がんは遺伝しますか", ["inheritance"]),
        ("What are the genetic changes related to colon cancer?", ["genetic-changes"]),
        ("What is (are) liver cancer?", ["overview"]),
        ("간암이란 무엇인가요?", ["overview"]),
        ("肝がんとは", ["overview"]),
        ("什么是肝癌", ["overview"]),
    ],
)
def test_intent_detection_in_four_languages(text, expected):
    assert IntentLexicon().detect(text) == expected


def test_intent_detection_traps():
    intents = IntentLexicon()
    assert intents.detect("How can I reduce the risk of colon cancer?") == ["prevention"]  # longest cue: not also risk
    assert intents.detect("유전자 변이가 있나요") == ["genetic-changes"]  # 유전자 is not also 유전
    assert intents.detect("What is testicular cancer?") == ["overview"]  # "test" is a whole word only
    assert intents.detect("What are the signs and how is it treated?") == ["symptoms", "treatment"]
    assert intents.detect("Tell me a joke") == []
    custom = IntentLexicon({"cost": ["how much", "비용"]}, builtin=False)
    assert custom.intents == ["cost"] and custom.detect("치료 비용은?") == ["cost"]


def intent_hits() -> list[Hit]:
    return [
        hit("info", 0.50, section="information"),
        hit("tx", 0.40, section="treatment"),
        hit("sx", 0.38, section="Symptoms"),
        hit("tests", 0.30, section="exams and tests"),
        hit("none", 0.20),
    ]


def test_intent_boost_boosts_the_matching_sections():
    component = IntentBoost(IntentBoost.Params(), _Ctx())
    out = component.rerank(Query("What are the symptoms of lung cancer?"), intent_hits())
    assert [h.node_id for h in out] == ["sx", "info", "tx", "tests", "none"]
    assert out[0].score == pytest.approx(0.57) and out[0].signals["intent-boost"] == 1.5
    assert all(h.signals["intent-boost"] == 1.0 for h in out[1:])
    overview = component.rerank(Query("What is (are) lung cancer?"), intent_hits())
    assert overview[0].node_id == "info" and overview[0].score == pytest.approx(0.75)
    diagnosis = component.rerank(Query("폐암은 어떻게 진단하나요?"), intent_hits())
    assert [h.node_id for h in diagnosis[:3]] == ["info", "tests", "tx"]  # 0.30 x 1.5 = 0.45 passes tx, not info
    assert diagnosis[1].score == pytest.approx(0.45) and diagnosis[1].signals["intent-boost"] == 1.5
    by_request = component.rerank(
        Query("What is lung cancer?", filters={"intent": ["treatment", "diagnosis"]}), intent_hits()
    )
    assert [h.node_id for h in by_request[:3]] == ["tx", "info", "tests"]  # information is not asked for
    assert {h.node_id: h.signals["intent-boost"] for h in by_request} == {
        "tx": 1.5,
        "info": 1.0,
        "sx": 1.0,
        "tests": 1.5,
        "none": 1.0,
    }
    nothing = IntentBoost(IntentBoost.Params(otherwise=None), _Ctx())
    assert nothing.rerank(Query("Tell me a joke"), intent_hits()) == intent_hits()


def test_intent_boost_with_a_korean_menu_mapping():
    params = IntentBoost.Params(
        field="menu_name",
        match="icontains",
        weight=2.0,
        sections={
            "treatment": ["치료", "Treatment"],
            "risk": ["Prevention and risk factors"],
            "overview": ["개요", "Overview"],
        },
    )
    component = IntentBoost(params, _Ctx())
    hits = [
        hit("a", 1.0, menu_name="개요"),
        hit("b", 0.9, menu_name="치료"),
        hit("c", 0.8, menu_name="Prevention and risk factors"),
    ]
    assert [h.node_id for h in component.rerank(Query("간암 치료 방법"), hits)] == ["b", "a", "c"]
    assert [h.node_id for h in component.rerank(Query("Who is at risk of liver cancer?"), hits)] == ["c", "a", "b"]
    # one reranker for two corpora: a chunk's section is the first of `field` it carries
    both = IntentBoost(
        IntentBoost.Params(field=["section", "menu_name"], sections={"treatment": ["treatment", "치료"]}), _Ctx()
    )
    mixed = [
        hit("m", 1.0, section="information"),
        hit("k", 0.9, menu_name="치료"),
        hit("s", 0.8, section="treatment", menu_name="개요"),
        hit("x", 0.7, section="information", menu_name="치료"),
    ]
    assert [h.node_id for h in both.rerank(Query("치료 방법"), mixed)] == ["k", "s", "m", "x"]
    with pytest.raises(ConfigError, match=r"unknown intent\(s\) \['costs'\]"):
        IntentBoost(IntentBoost.Params(sections={"costs": ["fees"]}), _Ctx())


def test_filter_returns_filter_outcome_directly():
    component = CancerTypeFilter(CancerTypeFilter.Params(top_k=1), _Ctx())
    hits = [
        hit("a", 0.9, "Breast cancer.", title="B"),
        hit("b", 0.8, "Lung cancer.", title="L"),
        hit("c", 0.7, "Lung cancer again.", title="L2"),
    ]
    outcome = component.apply(Query("폐암 치료"), hits)
    assert isinstance(outcome, FilterOutcome)
    assert [h.node_id for h in outcome.hits] == ["b"]
    assert outcome.removed == {"does_not_name_cancer_type": 1, "beyond_top_k": 1} and outcome.applied


def test_remembered_word_forms_are_the_computed_ones_and_bounded():
    """normalise_word remembers the forms it computed (the built-in lexicon repeats a few thousand
    words 100k times), up to a bound; a remembered form is the one it would compute."""
    from criss_rag_domain import matching

    normalise_word = matching.normalise_word
    assert normalise_word.cache_info().maxsize == 100_000  # the bound: at most this many words kept
    normalise_word.cache_clear()
    words = ["Lymphomas", "Hodgkin's", "glass", "virus", "CANCERS", "tumours"]
    first = [normalise_word(w) for w in words]
    assert first == ["lymphoma", "hodgkin", "glass", "virus", "cancer", "tumour"]
    assert normalise_word.cache_info()[:2] == (0, len(words))  # (hits, misses): each computed once
    assert [normalise_word(w) for w in words] == first
    info = normalise_word.cache_info()
    assert (info.hits, info.misses, info.currsize) == (len(words), len(words), len(words))
