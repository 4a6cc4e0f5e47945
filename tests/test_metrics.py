"""The metrics plugin on small hand-made cases: traceability counts, retrieval, ROUGE with language
analyzers (Korean and Japanese included), containment, BERTScore and cosine with the local MiniLM,
and the caution-behaviour classifier."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from criss_rag.context import ComponentContext
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host
from criss_rag.types import Answer, Citation, StageTrace, Trace
from criss_rag_metrics.caution import CautionBehaviour
from criss_rag_metrics.overlap import Containment, Rouge
from criss_rag_metrics.retrieval import RetrievalMetrics, year_range
from criss_rag_metrics.semantic import BertScore, EmbeddingCosine
from criss_rag_metrics.traceability import Traceability


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    host = plugin_host(entry_points=True)
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path_factory.mktemp("metrics"), host)
    return ComponentContext(pipeline, "metrics[0]")


def make(cls, ctx, **params):
    return cls(cls.Params(**params), ctx)


def answer(text: str, *, cited: tuple[int, ...] = (), refused: bool = False, stages=()) -> Answer:
    citations = [Citation(number=n, doc_id=f"d{n}", node_id=f"d{n}#0", score=1.0, text="") for n in cited]
    return Answer(
        question="q",
        text=text,
        citations=citations,
        refused=refused,
        refusal_reason="weak_evidence" if refused else None,
        trace=Trace(config_hash="x", stages=list(stages)),
    )


EVIDENCE = [
    {"number": 1, "doc_id": "liver", "title": "Liver cancer", "verified": True,
     "text": "Liver cancer starts in liver cells. Hepatitis B infection raises the risk of liver cancer."},
    {"number": 2, "doc_id": "lung", "title": "Lung cancer", "verified": True,
     "text": "Lung cancer is linked to smoking."},
    {"number": 3, "doc_id": "ghost", "title": "Notes", "verified": False, "text": "Unrelated notes about gardening."},
]


# -- traceability -------------------------------------------------------------------------------------


def test_traceability_five_counts(ctx):
    metric = make(Traceability, ctx, analyzer="english")
    text = ("Extracted from the sources:\n\nHepatitis B infection raises the risk of liver cancer [1]. "
            "Liver cancer starts in liver cells [1]. Regular chocolate tastings prevent all disease.")
    values = metric.compute({"focus": "Liver Cancer", "_evidence": EVIDENCE}, answer(text, cited=(1,)))
    assert values == {"retrieved_evidence": 3.0, "verified_evidence": 2.0, "cancer_matched_evidence": 1.0,
                      "answer_sentences": 3.0, "evidence_aligned_sentences": 2.0, "aligned_share": pytest.approx(2 / 3)}


def test_answer_basics_and_traceability_count_the_same_sentences(ctx):
    """The extractive notice and a heading are lead-ins, not sentences, for both metrics."""
    from criss_rag_basic.metrics import AnswerBasics

    text = ("Extracted from the sources (quoted evidence, not a generated answer):\n"
            "Liver cancer starts in liver cells. [1] Hepatitis B raises the risk of liver cancer. [1]\n"
            "## Treatment\n- Surgery removes the tumour. [1]\n")
    given = answer(text, cited=(1,))
    basics = AnswerBasics(None, ctx).compute({}, given)["answer_sentences"]
    traced = make(Traceability, ctx, analyzer="english").compute({"_evidence": EVIDENCE}, given)["answer_sentences"]
    assert basics == traced == 3.0


def test_metrics_about_refusals_are_declared():
    from criss_rag_basic.metrics import AnswerBasics

    assert AnswerBasics.about_refusals == ("refused",)
    assert set(CautionBehaviour.about_refusals) == set(CautionBehaviour.outputs) and len(CautionBehaviour.outputs) == 5
    assert not getattr(Traceability, "about_refusals", ()) and not getattr(RetrievalMetrics, "about_refusals", ())


def test_traceability_refused_no_focus_and_corpus_verification(ctx, tmp_path):
    metric = make(Traceability, ctx, analyzer="english")
    values = metric.compute({"_evidence": EVIDENCE}, answer("Insufficient evidence.", refused=True))
    assert "cancer_matched_evidence" not in values and "aligned_share" not in values  # not applicable: missing
    assert values["answer_sentences"] == 0.0 and values["evidence_aligned_sentences"] == 0.0
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("\n".join(json.dumps({"doc_id": d, "text": "x"}) for d in ("liver", "ghost")), encoding="utf-8")
    by_corpus = make(Traceability, ctx, analyzer="english", corpus=str(corpus))
    assert by_corpus.compute({"_evidence": EVIDENCE}, answer("x"))["verified_evidence"] == 2.0  # liver, ghost


def test_traceability_matches_cancer_types_in_korean_and_japanese(ctx):
    metric = make(Traceability, ctx, analyzer="auto", synonyms={"간암": ["간세포암"]})
    evidence = [
        {"number": 1, "doc_id": "k1", "title": "간암 검진", "text": "간암은 간에서 생기는 암입니다.", "verified": True},
        {"number": 2, "doc_id": "k2", "title": "위암", "text": "위암은 위에서 생깁니다.", "verified": True},
        {"number": 3, "doc_id": "k3", "title": "치료", "text": "간세포암의 치료는 수술입니다.", "verified": True},
    ]
    ko = metric.compute(
        {"focus": "간암", "_evidence": evidence}, answer("간암은 간에서 생기는 암입니다 [1]. 김치는 맛있습니다.")
    )
    assert (
        ko["cancer_matched_evidence"] == 2.0
        and ko["answer_sentences"] == 2.0
        and ko["evidence_aligned_sentences"] == 1.0
    )
    ja_evidence = [
        {
            "number": 1,
            "doc_id": "j1",
            "title": "胸腺腫の手術",
            "text": "胸腺腫の治療の中心は手術です。",
            "verified": True,
        }
    ]
    ja = metric.compute(
        {"focus": "胸腺腫", "_evidence": ja_evidence}, answer("胸腺腫の治療の中心は手術です[1]。天気が良いです。")
    )
    assert (
        ja["cancer_matched_evidence"] == 1.0
        and ja["answer_sentences"] == 2.0
        and ja["evidence_aligned_sentences"] == 1.0
    )


# -- retrieval ------------------------------------------------------------------------------------------


def test_retrieval_metrics_against_gold_and_telemetry(ctx):
    metric = make(RetrievalMetrics, ctx, k=3)
    retrieved = [{"doc_id": d} for d in ("a", "a", "b", "gold", "c")]  # a document counts once
    hop = StageTrace(stage="hop:1", component="h", n_in=1, n_out=2, ms=1, notes={"query": "more"})
    stop = StageTrace(stage="hop:2", component="h", n_in=2, n_out=2, ms=1, notes={"stopped": "done"})
    evidence = [
        {"number": 1, "doc_id": "gold", "text": "abcd", "metadata": {"applicable_years": {"from": 2018, "to": 2022}}},
        {"number": 2, "doc_id": "b", "text": "xy", "metadata": {"applicable_years": "2023+"}},
    ]
    values = metric.compute({"_gold": ["gold"], "_retrieved": retrieved, "_evidence": evidence, "diagnosis_year": 2020},
                            answer("x [1] [2]", cited=(1, 2), stages=[hop, stop]))
    assert values["recall@3"] == 1.0 and values["mrr"] == pytest.approx(1 / 3)
    assert values["ndcg@3"] == pytest.approx(0.5)  # 1/log2(4) over an ideal 1/log2(2)
    assert values["hops"] == 1.0 and values["context_chars"] == 6.0 and values["evidence_documents"] == 2.0
    assert values["cited_sources"] == 2.0 and values["cited_year_min"] == 2018.0 and values["cited_year_max"] == 2022.0
    assert values["cited_year_match"] == 0.5  # 2020 is in 2018-2022, not in 2023+
    no_gold = metric.compute({"_retrieved": retrieved}, answer("x"))
    assert "recall@3" not in no_gold and "mrr" not in no_gold and "cited_year_min" not in no_gold


def test_year_ranges_in_every_shape():
    assert year_range({"applicable_years": "2018-2024"}, "applicable_years") == (2018, 2024)
    assert year_range({"applicable_years": "2025+"}, "applicable_years") == (2025, None)
    assert year_range({"applicable_years_from": 2004, "applicable_years_to": None}, "applicable_years") == (2004, None)
    assert year_range({}, "applicable_years") is None


# -- ROUGE and containment --------------------------------------------------------------------------------


def test_rouge_scores_korean_and_japanese_with_an_analyzer(ctx):
    from rouge_score import rouge_scorer

    korean = "간암의 치료에는 수술과 간이식이 있습니다."
    japanese = "胸腺腫の治療の中心は手術で、取りきれない場合は放射線治療を行います。"
    default = rouge_scorer.RougeScorer(["rouge1"])
    assert default.score(korean, korean)["rouge1"].fmeasure == 0.0  # the trap (GUIDE §3): Hangul is dropped
    metric = make(Rouge, ctx)
    for text, unrelated in (
        (korean, "위암 검진은 내시경으로 합니다."),
        (japanese, "大腸がんの検診では便潜血検査を受けます。"),
    ):
        same = metric.compute({"reference_answer": text}, answer(text + " [1]"))
        assert same == {"rouge1": pytest.approx(1.0), "rouge2": pytest.approx(1.0), "rougeL": pytest.approx(1.0)}
        other = metric.compute({"reference_answer": text}, answer(unrelated))
        assert other["rouge1"] < 0.2 and other["rougeL"] < 0.2
    english = metric.compute(
        {"reference_answer": "Surgery removes the tumour."}, answer("The tumour is removed by surgery.")
    )
    assert english["rouge1"] == pytest.approx(1.0) and english["rouge2"] < 1.0  # stemmed words, another order
    assert metric.compute({}, answer("no reference")) == {}
    assert "auto" in metric.describe()
    detailed = make(Rouge, ctx, types=["rougeL"], measures=["precision", "recall"], skip_refused=True)
    assert set(detailed.compute({"reference": "a b"}, answer("x"))) == {"rougeL_precision", "rougeL_recall"}
    assert detailed.compute({"reference": "a b"}, answer("no", refused=True)) == {}


def test_containment_is_the_share_of_reference_terms_in_the_answer(ctx):
    metric = make(Containment, ctx, analyzer="english")
    values = metric.compute({"reference_answer": "Endoscopy finds stomach cancer early."},
                            answer("Stomach cancer is found by endoscopy [1]."))
    assert values["containment"] == pytest.approx(3 / 5)  # endoscopi, stomach, cancer; not find (found), earli
    assert (
        metric.compute({"reference_answer": "간암"}, answer("간암")) == {}
    )  # english drops Hangul: no terms, no value


# -- BERTScore and cosine (the local all-MiniLM-L6-v2) --------------------------------------------------


def test_bertscore_names_its_model_and_ranks_a_paraphrase_above_an_unrelated_text(ctx):
    metric = make(BertScore, ctx)
    assert "all-MiniLM-L6-v2" in metric.describe() and "num_layers=6" in metric.describe()
    question = {"reference_answer": "Smoking is the main cause of lung cancer."}
    close = metric.compute(question, answer("Lung cancer is mostly caused by smoking [1]."))
    far = metric.compute(question, answer("The recipe needs two cups of flour."))
    assert set(close) == {"bertscore_p", "bertscore_r", "bertscore_f1"}
    assert 0 < far["bertscore_f1"] < close["bertscore_f1"] <= 1


def test_embedding_cosine(ctx):
    metric = make(EmbeddingCosine, ctx)
    assert "all-MiniLM-L6-v2" in metric.describe()
    question = {"reference_answer": "Smoking is the main cause of lung cancer."}
    same = metric.compute(question, answer("Smoking is the main cause of lung cancer."))
    far = metric.compute(question, answer("The recipe needs two cups of flour."))
    assert same["cosine"] == pytest.approx(1.0, abs=1e-4) and far["cosine"] < 0.5


# -- caution behaviour ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "label"), [
    ("Liver cancer starts in liver cells [1].", "answered"),
    ("Insufficient evidence: the sources do not answer this.", "explicit_refusal"),
    ("정보가 부족하여 답변할 수 없습니다.", "explicit_refusal"),
    ("本文に十分な情報がありません。回答できません。", "explicit_refusal"),
    ("信息不足，无法回答。", "explicit_refusal"),
    ("Could you tell me the year of diagnosis? The rule depends on it.", "request_for_information"),
    ("진단 연도를 알려주시면 정확히 답변드리겠습니다.", "request_for_information"),
    ("診断された年を教えてください。", "request_for_information"),
    ("请提供诊断年份。", "request_for_information"),
    ("It depends on the stage; the sources are unclear.", "acknowledged_ambiguity"),
    ("병기에 따라 다릅니다.", "acknowledged_ambiguity"),
    ("一概には言えません。", "acknowledged_ambiguity"),
    ("If the tumour is small, surgery is used [1].", "conditional_answer"),
    ("종양이 작다면 수술을 합니다.", "conditional_answer"),
    ("腫瘍が小さい場合は手術を行います。", "conditional_answer"),
    ("如果肿瘤较小，可以手术。", "conditional_answer"),
])
def test_caution_labels_in_four_languages(ctx, text, label):
    metric = make(CautionBehaviour, ctx)
    values = metric.compute({}, answer(text))
    assert values[f"caution_{label}"] == 1.0 and sum(values.values()) == 1.0


def test_caution_refusals_extra_cues_and_bad_labels(ctx):
    metric = make(CautionBehaviour, ctx, extra_cues={"acknowledged_ambiguity": ["hard to say"]})
    assert metric.label(answer("It is hard to say.")) == "acknowledged_ambiguity"
    assert metric.label(answer("Liver cancer starts in liver cells.", refused=True)) == "explicit_refusal"
    assert metric.label(answer("The significance is low.")) == "answered"  # "if" only as a whole word
    with pytest.raises(ValueError, match="unknown label"):
        make(CautionBehaviour, ctx, extra_cues={"maybe": ["x"]})


def test_the_metrics_plugin_registers_every_metric():
    host = plugin_host(entry_points=True)
    names = set(host.registry.names("metric"))
    assert {"traceability", "retrieval", "rouge", "containment", "bertscore", "embedding-cosine", "caution"} <= names
    assert host.registry.get("metric", "rouge").plugin == "metrics"
    assert Path(host.registry.get("metric", "bertscore").factory.__module__.replace(".", "/")).name == "semantic"
