"""Fusion and rerankers: ``weighted`` fusion and the ``metadata-boost`` reranker (basic plugin),
the ``llm`` and ``cross-encoder`` rerankers (rerank plugin)."""

from __future__ import annotations

import logging
import math
import os
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from llama_index.core.schema import NodeWithScore
from pydantic import ValidationError

from criss_rag import hookimpl
from criss_rag.engine import Engine
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import FakeLLM, fake_plugin, pipeline_from_yaml, replaced
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag.types import Hit, Query, text_node
from criss_rag_basic.analyzers import EnglishAnalyzer, StandardAnalyzer
from criss_rag_basic.fusion import WeightedFusion, normalise_scores
from criss_rag_basic.rerankers import MetadataBoost
from criss_rag_rerank.cross_encoder import CrossEncoderReranker
from criss_rag_rerank.llm_rerank import LLMReranker, parse_order

# -- helpers ---------------------------------------------------------------------------------------


def hit(node_id: str, score: float = 1.0, text: str = "", signals: dict[str, float] | None = None, **metadata) -> Hit:
    return Hit(NodeWithScore(node=text_node(node_id, text or f"text of {node_id}", **metadata), score=score),
               dict(signals or {}))


def ranked_list(label: str, scores: dict[str, float]) -> list[Hit]:
    """A retriever's list as the engine hands it to fusion: the raw score as the ranking score and signal."""
    return [hit(node_id, score, signals={label: score}) for node_id, score in scores.items()]


def stand_in_ctx(base_dir: Path = Path("."), llm=None) -> SimpleNamespace:
    """The parts of a ComponentContext these components use."""
    return SimpleNamespace(
        stage="rerankers[0]",
        base_dir=base_dir,
        resolve_path=lambda p: Path(p) if Path(p).is_absolute() else base_dir / p,
        analyzer=lambda name: StandardAnalyzer() if name == "standard" else EnglishAnalyzer(),
        llm=lambda key: llm,
    )


def ids(hits: list[Hit]) -> list[str]:
    return [h.node_id for h in hits]


@pytest.fixture(scope="module")
def strict_host() -> PluginHost:
    """Installed entry-point plugins (basic, rerank, ...) plus the fakes, strict."""
    return PluginHost(strict=True, extra_plugins={"fake": fake_plugin})


# -- weighted fusion --------------------------------------------------------------------------------


def fusion_input() -> dict[str, list[Hit]]:
    return {
        "bm25": ranked_list("bm25", {"a": 10.0, "b": 6.0, "c": 2.0}),
        "faiss": ranked_list("faiss", {"b": 0.9, "d": 0.8, "a": 0.1}),
    }


def fuse(ranked, **params) -> list[Hit]:
    return WeightedFusion(WeightedFusion.Params(**params), stand_in_ctx()).fuse(Query("q"), ranked)


def test_weighted_minmax_exact_scores_and_missing_floor():
    fused = fuse(fusion_input(), weights={"faiss": 2.0})
    # bm25 minmax: a 1, b 0.5, c 0 (d missing: floor 0); faiss: b 1, d 0.875, a 0 (c missing: floor 0)
    expected = {"b": 0.5 + 2 * 1.0, "d": 0.0 + 2 * 0.875, "a": 1.0 + 0.0, "c": 0.0 + 0.0}
    assert ids(fused) == ["b", "d", "a", "c"]
    for h in fused:
        assert h.score == pytest.approx(expected[h.node_id])
        assert h.signals["weighted"] == pytest.approx(expected[h.node_id])


def test_weighted_default_weights_are_one_and_ties_keep_first_seen_order():
    ranked = {"x": ranked_list("x", {"a": 2.0, "b": 1.0}), "y": ranked_list("y", {"b": 2.0, "a": 1.0})}
    fused = fuse(ranked)
    assert [h.score for h in fused] == [1.0, 1.0]
    assert ids(fused) == ["a", "b"]  # a tie: a was seen first


def test_weighted_zscore_exact_scores():
    fused = {h.node_id: h.score for h in fuse(fusion_input(), normalize="zscore", weights={"faiss": 2.0})}
    # bm25 (10, 6, 2): mean 6, std sqrt(32/3); faiss (0.9, 0.8, 0.1): mean 0.6, std sqrt(0.38/3)
    bm25_std, faiss_std = math.sqrt(32 / 3), math.sqrt(0.38 / 3)
    bm25 = {"a": 4 / bm25_std, "b": 0.0, "c": -4 / bm25_std}
    faiss = {"b": 0.3 / faiss_std, "d": 0.2 / faiss_std, "a": -0.5 / faiss_std}
    bm25_floor, faiss_floor = -4 / bm25_std, -0.5 / faiss_std  # each list's lowest z-score
    assert fused["a"] == pytest.approx(bm25["a"] + 2 * faiss["a"])
    assert fused["b"] == pytest.approx(bm25["b"] + 2 * faiss["b"])
    assert fused["c"] == pytest.approx(bm25["c"] + 2 * faiss_floor)
    assert fused["d"] == pytest.approx(bm25_floor + 2 * faiss["d"])


def test_weighted_none_uses_raw_scores_and_the_lists_lowest_raw_score_as_floor():
    fused = {h.node_id: h.score for h in fuse(fusion_input(), normalize="none")}
    assert fused == pytest.approx({"a": 10.1, "b": 6.9, "c": 2.0 + 0.1, "d": 2.0 + 0.8})
    # unnormalised, BM25's large scale dominates: the reason to normalise
    assert ids(fuse(fusion_input(), normalize="none")) == ["a", "b", "d", "c"]


def test_weighted_normalisation_of_degenerate_lists():
    assert normalise_scores([3.0], "minmax") == ([1.0], 0.0)  # a lone candidate beats the missing ones
    assert normalise_scores([2.0, 2.0], "zscore") == ([0.0, 0.0], 0.0)
    assert normalise_scores([], "minmax") == ([], 0.0)
    assert normalise_scores([4.0, 1.0], "none") == ([4.0, 1.0], 1.0)


def test_weighted_keeps_every_signal_and_adds_weighted():
    fused = {h.node_id: h for h in fuse(fusion_input())}
    assert fused["a"].signals["bm25"] == 10.0 and fused["a"].signals["faiss"] == 0.1
    assert set(fused["a"].signals) == {"bm25", "faiss", "weighted"}
    assert set(fused["c"].signals) == {"bm25", "weighted"}


def test_weighted_top_k_zero_weight_and_empty_lists():
    assert ids(fuse(fusion_input(), top_k=2, weights={"faiss": 2.0})) == ["b", "d"]
    only_bm25 = fuse(fusion_input(), weights={"faiss": 0.0})
    assert ids(only_bm25)[:2] == ["a", "b"] and only_bm25[0].score == pytest.approx(1.0)
    assert fuse({}) == []
    assert ids(fuse({"bm25": [], "faiss": ranked_list("faiss", {"x": 0.5})})) == ["x"]


def test_weighted_rejects_negative_weights_and_unknown_modes():
    with pytest.raises(ValidationError, match="faiss"):
        WeightedFusion.Params(weights={"faiss": -1.0})
    with pytest.raises(ValidationError):
        WeightedFusion.Params(normalize="softmax")


HYBRID_YAML = """\
name: weighted-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers:
  - {name: fake-keyword, label: words, top_k: 5}
  - {name: fake-keyword, label: dense, dense: true, top_k: 5}
fusion: {name: weighted, normalize: zscore, weights: {dense: 2}, top_k: 4}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_weighted_fusion_in_a_pipeline(tmp_path, strict_host):
    pipeline = pipeline_from_yaml(HYBRID_YAML, tmp_path, strict_host)
    ingest(pipeline)
    answer = Engine.open(pipeline).ask("What raises the risk of liver cancer?")
    fusion = answer.trace.stage("fusion")
    assert fusion.component == "weighted"
    assert 0 < fusion.n_out <= 4
    hits = Engine.open(pipeline).retrieve(Query("What raises the risk of liver cancer?"))
    assert hits[0].doc_id == "liver"
    assert {"words", "dense", "weighted"} <= set(hits[0].signals)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


# -- metadata-boost ---------------------------------------------------------------------------------

SECTION_CUES = {
    "treatment": ["treat", "treatment", "therapy", "치료", "治療", "治疗"],
    "symptoms": ["symptom", "sign", "증상", "症状"],
}


def boost(**params) -> MetadataBoost:
    return MetadataBoost(MetadataBoost.Params(**params), stand_in_ctx())


def section_hits() -> list[Hit]:
    return [
        hit("overview", 0.9, section="Overview"),
        hit("symptoms", 0.8, section="Signs and Symptoms"),
        hit("treatment", 0.7, section="Treatment Options"),
        hit("untagged", 0.6),
    ]


def test_boost_from_request_filter():
    hits = [hit("lung1", 0.5, cancer_type="lung"), hit("liver1", 0.9, cancer_type="liver"),
            hit("lung2", 0.4, cancer_type="lung")]
    reranker = boost(field="cancer_type", from_filter="cancer_type", match="exact", weight=2.0)
    out = reranker.rerank(Query("q", filters={"cancer_type": "lung"}), hits)
    assert ids(out) == ["lung1", "liver1", "lung2"]  # 1.0, 0.9, 0.8
    assert [h.score for h in out] == pytest.approx([1.0, 0.9, 0.8])
    assert [h.signals["metadata-boost"] for h in out] == [2.0, 1.0, 2.0]  # the boost applied (1 = none)
    listed = reranker.rerank(Query("q", filters={"cancer_type": ["liver", "lung"]}), hits)
    assert all(h.signals["metadata-boost"] == 2.0 for h in listed)


def test_boost_keeps_earlier_signals_and_can_name_its_signal():
    hits = [hit("a", 0.5, signals={"bm25": 3.0, "rrf": 0.5}, cancer_type="lung")]
    out = boost(field="cancer_type", from_filter="cancer_type", signal="cancer-boost").rerank(
        Query("q", filters={"cancer_type": "lung"}), hits)
    assert out[0].signals == {"bm25": 3.0, "rrf": 0.5, "cancer-boost": 1.5}
    assert hits[0].score == 0.5 and "cancer-boost" not in hits[0].signals  # inputs untouched


def test_boost_leaves_candidates_alone_when_nothing_is_wanted():
    hits = section_hits()
    reranker = boost(field="section", from_filter="section", cues=SECTION_CUES)
    assert reranker.rerank(Query("What is liver cancer?"), hits) is hits
    assert reranker.rerank(Query("What is liver cancer?", filters={"lang": "en"}), hits) is hits


def test_boost_otherwise_value_when_no_cue_matches():
    reranker = boost(field="section", cues=SECTION_CUES, otherwise="overview", weight=2.0)
    assert reranker.wanted_values(Query("What is liver cancer?")) == ["overview"]
    assert reranker.wanted_values(Query("How is liver cancer treated?")) == ["treatment"]  # a cue wins
    out = reranker.rerank(Query("What is liver cancer?"), section_hits())
    assert [h.signals["metadata-boost"] for h in out] == [2.0, 1.0, 1.0, 1.0]


@pytest.mark.parametrize(("question", "wanted"), [
    ("How is liver cancer treated?", "treatment"),
    ("What are the signs of lung cancer?", "symptoms"),
    ("간암은 어떻게 치료하나요?", "treatment"),
    ("폐암의 증상은 무엇인가요?", "symptoms"),
    ("肝臓がんの治療法は？", "treatment"),
    ("肺がんの症状を教えてください", "symptoms"),
    ("肝癌怎么治疗？", "treatment"),
])
def test_boost_cues_in_english_korean_japanese_and_chinese(question, wanted):
    reranker = boost(field="section", cues=SECTION_CUES, weight=2.0)
    assert reranker.wanted_values(Query(question)) == [wanted]
    out = reranker.rerank(Query(question), section_hits())
    assert out[0].node_id == wanted  # 0.7 or 0.8, doubled, overtakes the overview's 0.9
    assert out[0].signals["metadata-boost"] == 2.0
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)


def test_boost_cjk_cues_also_match_as_substrings_but_english_cues_do_not():
    # hiragana-only cues analyse to nothing: only the raw substring can match them
    reranker = boost(field="topic", cues={"cancer": ["がん"], "signs": ["sign"]})
    assert reranker.wanted_values(Query("肝臓がんとは")) == ["cancer"]
    assert reranker.wanted_values(Query("The design of the trial")) == []  # "sign" is inside "design"
    assert reranker.wanted_values(Query("Which signs matter?")) == ["signs"]


def test_boost_multiword_cues_need_every_word():
    reranker = boost(field="section", cues={"side effects": ["side effect"]})
    assert reranker.wanted_values(Query("What side effects does chemotherapy have?")) == ["side effects"]
    assert reranker.wanted_values(Query("Which side of the liver?")) == []


def test_boost_request_values_and_cues_combine():
    reranker = boost(field="section", from_filter="section", cues=SECTION_CUES)
    query = Query("How is it treated?", filters={"section": "Overview"})
    assert reranker.wanted_values(query) == ["Overview", "treatment"]
    out = reranker.rerank(query, section_hits())
    assert {h.node_id for h in out if h.signals["metadata-boost"] == 1.5} == {"overview", "treatment"}


def test_boost_match_modes():
    hits = [hit("exact", 0.5, section="treatment"), hit("upper", 0.5, section="Treatment"),
            hit("longer", 0.5, section="Treatment Options"), hit("listed", 0.5, section=["Staging", "treatment"])]
    query = Query("q", filters={"section": "treatment"})

    def boosted(match):
        out = boost(field="section", from_filter="section", match=match).rerank(query, hits)
        return {h.node_id for h in out if h.signals["metadata-boost"] != 1.0}

    assert boosted("exact") == {"exact", "listed"}
    assert boosted("iexact") == {"exact", "upper", "listed"}
    assert boosted("icontains") == {"exact", "upper", "longer", "listed"}
    assert MetadataBoost.Params(field="section", from_filter="section").match == "icontains"


def test_boost_add_mode_and_demotion():
    hits = section_hits()
    added = boost(field="section", cues=SECTION_CUES, mode="add", weight=0.25).rerank(Query("therapy?"), hits)
    assert ids(added)[0] == "treatment" and added[0].score == pytest.approx(0.95)
    assert added[0].signals["metadata-boost"] == 0.25 and added[1].signals["metadata-boost"] == 0.0
    demoted = boost(field="section", cues={"Overview": ["overview"]}, weight=0.5).rerank(Query("overview"), hits)
    assert ids(demoted) == ["symptoms", "treatment", "untagged", "overview"]  # 0.9 x 0.5 = 0.45 last


def test_boost_params_are_checked():
    with pytest.raises(ValidationError, match="from_filter"):
        MetadataBoost.Params(field="section")
    with pytest.raises(ValidationError, match="greater than 0"):
        MetadataBoost.Params(field="section", from_filter="section", weight=0)
    with pytest.raises(ValidationError, match="no cue word"):
        MetadataBoost.Params(field="section", cues={"treatment": [" "]})
    with pytest.raises(ValidationError):
        MetadataBoost.Params(field="section", from_filter="section", match="regex")
    assert MetadataBoost.Params(field="s", from_filter="s", mode="add", weight=-0.1).weight == -0.1


BOOST_YAML = """\
name: boost-test
loader:
  name: fake-loader
  documents:
    - {doc_id: lung-about, title: Lung cancer, text: Lung cancer is a cancer of the lung. Lung cancer is common.}
    - {doc_id: lung-treat, title: Treating lung cancer, text: Surgery treats early lung cancer.}
chunker: {name: whole-document}
retrievers: [{name: fake-keyword, top_k: 5}]
rerankers:
  - {name: metadata-boost, field: title, cues: {treat: [treat, therapy, 치료]}, weight: 10}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_boost_in_a_pipeline_uses_the_configured_analyzer(tmp_path, strict_host):
    pipeline = pipeline_from_yaml(BOOST_YAML, tmp_path, strict_host)
    ingest(pipeline)
    engine = Engine.open(pipeline)
    plain = engine.retrieve(Query("What is lung cancer?"))
    assert ids(plain)[0] == "lung-about"  # more shared words
    boosted = engine.retrieve(Query("How is lung cancer treated?"))
    assert ids(boosted)[0] == "lung-treat"
    assert boosted[0].signals["metadata-boost"] == 10.0 and boosted[0].signals["fake-keyword"] > 0
    answer = engine.ask("How is lung cancer treated?")
    assert answer.trace.stage("reranker:metadata-boost").n_out == 2


# -- llm reranker: parsing ----------------------------------------------------------------------------


@pytest.mark.parametrize(("reply", "n", "expected"), [
    ("3, 1, 5", 5, [3, 1, 5]),
    ("[2] > [4]", 5, [2, 4]),
    ("Passages 2 and 4 (2019 data) help; 2 most.", 5, [2, 4]),  # 2019 is not a passage
    ("1. [3]\n2. [1]", 3, [3, 1]),  # list markers are not passages
    ("Passage 1 is off topic; [3, 2] help", 3, [3, 2]),  # a bracketed list wins over bare numbers
    ("1) 2\n2) 3", 3, [2, 3]),
    ("<think>maybe 1, 2 or 3</think>3, 2", 3, [3, 2]),
    ("2, 2, 9, 0, 1", 3, [2, 1]),
    ("none", 4, []),
    ("None.", 4, []),
    ("없음", 4, []),
    ("なし", 4, []),
    ("I cannot tell which passages help.", 4, None),
    ("", 4, None),
    ("7, 8", 4, None),
])
def test_parse_order(reply, n, expected):
    assert parse_order(reply, n) == expected


# -- llm reranker: behaviour --------------------------------------------------------------------------


def llm_reranker(reply: str, **params) -> tuple[LLMReranker, FakeLLM]:
    llm = FakeLLM(reply=reply, prompts=[])
    return LLMReranker(LLMReranker.Params(llm="mock", **params), stand_in_ctx(llm=llm)), llm


def passages() -> list[Hit]:
    return [hit(name, score, text=f"Passage about {name}.", signals={"rrf": score}, title=f"{name.title()} cancer")
            for name, score in (("liver", 0.9), ("lung", 0.8), ("breast", 0.7), ("gastric", 0.6))]


def test_llm_orders_named_passages_first_and_keeps_the_rest_in_order():
    reranker, _ = llm_reranker("3, 1")
    out = reranker.rerank(Query("q"), passages())
    assert ids(out) == ["breast", "liver", "lung", "gastric"]
    assert [h.signals["llm-rank"] for h in out] == [1.0, 2.0, 0.0, 0.0]
    assert [h.score for h in out] == pytest.approx([1.0, 1 / 2, 1 / 3, 1 / 4])
    assert out[0].signals["rrf"] == 0.7  # earlier signals kept


def test_llm_drops_unmentioned_passages_when_asked():
    reranker, _ = llm_reranker("Passage 4 is best, then 2.", drop_unmentioned=True)
    out = reranker.rerank(Query("q"), passages())
    assert ids(out) == ["gastric", "lung"]
    none, _ = llm_reranker("none", drop_unmentioned=True)
    assert none.rerank(Query("q"), passages()) == []


def test_llm_keeps_order_and_scores_on_an_unparseable_reply(caplog):
    reranker, _ = llm_reranker("Sorry, I can't help with that.", drop_unmentioned=True)
    original = passages()
    with caplog.at_level(logging.WARNING, logger="criss_rag_rerank.llm_rerank"):
        out = reranker.rerank(Query("q"), original)
    assert ids(out) == ids(original)  # nothing dropped, even with drop_unmentioned
    assert [h.score for h in out] == [h.score for h in original]  # no invented scores
    assert all(h.signals["llm-rank"] == -1.0 for h in out)
    assert "could not find passage numbers" in caplog.text and "Sorry" in caplog.text


def test_llm_reads_only_the_top_candidates():
    reranker, llm = llm_reranker("2, 1", candidates=2)
    original = passages()
    out = reranker.rerank(Query("q"), original)
    assert ids(out) == ["lung", "liver", "breast", "gastric"]
    assert "llm-rank" not in out[2].signals and out[2].score == 0.7  # not read: unchanged
    assert "[2] Lung cancer" in llm.prompts[0] and "[3]" not in llm.prompts[0]


def test_llm_prompt_lists_the_numbered_passages_and_the_question():
    reranker, llm = llm_reranker("1", max_chars_per_passage=60)
    hits = passages() + [hit("long", 0.1, text="word " * 100, title="Long")]
    reranker.rerank(Query("Which cancer is linked to smoking?"), hits)
    prompt = llm.prompts[0]
    assert "Question: Which cancer is linked to smoking?" in prompt
    assert "[1] Liver cancer: Passage about liver." in prompt
    assert "[4] Gastric cancer: Passage about gastric." in prompt
    long_line = next(line for line in prompt.splitlines() if line.startswith("[5]"))
    assert long_line.endswith("…") and len(long_line) == len("[5] Long: ") + 60
    assert "3, 1, 5" in prompt  # the answer format it asks for


def test_llm_custom_prompt_and_no_call_without_candidates():
    reranker, llm = llm_reranker("1", prompt="Q={question} {curly} P={passages}")
    assert reranker.rerank(Query("q"), []) == [] and llm.prompts == []
    reranker.rerank(Query("why {x}?"), passages()[:1])
    assert llm.prompts == ["Q=why {x}? {curly} P=[1] Liver cancer: Passage about liver."]
    with pytest.raises(ValidationError, match="passages"):
        LLMReranker.Params(llm="mock", prompt="only {question}")


LLM_YAML = """\
name: llm-rerank-test
loader: {name: fake-loader}
chunker: {name: whole-document}
llms:
  mock: {name: fake-llm, reply: "2"}
retrievers: [{name: fake-keyword, top_k: 5}]
rerankers: [{name: llm, llm: mock, candidates: 3, drop_unmentioned: true}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_llm_reranker_in_a_pipeline_gets_its_llm_from_the_llms_section(tmp_path, strict_host):
    pipeline = pipeline_from_yaml(LLM_YAML, tmp_path, strict_host)
    ingest(pipeline)
    engine = Engine.open(pipeline)
    hits = engine.retrieve(Query("Which cancer is found early?"))
    assert len(hits) == 3  # 5 retrieved: of the 3 read, the 2 not named are dropped
    assert hits[0].signals["llm-rank"] == 1.0 and hits[0].score == 1.0
    assert "llm-rank" not in hits[1].signals and "llm-rank" not in hits[2].signals  # not read
    llm = pipeline.build(pipeline.config.llms["mock"])
    assert "Which cancer is found early?" in llm.prompts[-1] and "[2]" in llm.prompts[-1]
    second_listed = llm.prompts[-1].split("[2] ", 1)[1].split(":", 1)[0]
    assert hits[0].metadata["title"] == second_listed


def test_llm_reranker_with_an_unknown_llm_key_says_what_to_add(tmp_path, strict_host):
    with pytest.raises(ConfigError, match="'local' names no llm of this config.*Valid: mock"):  # as the config is read
        pipeline_from_yaml(replaced(LLM_YAML, "llm: mock", "llm: local"), tmp_path, strict_host)


# -- llm reranker against a real OpenAI-compatible client ----------------------------------------------


def openai_like_host(server: OpenAIStubServer) -> PluginHost:
    """A host whose LLM backend ``test-chat`` is LlamaIndex's OpenAILike pointed at ``server``."""
    from llama_index.llms.openai_like import OpenAILike

    def test_chat(params, ctx):
        """OpenAILike against the loopback stub server."""
        return OpenAILike(model="tiny-chat", api_base=server.base_url, api_key="not-a-key",
                          is_chat_model=True, context_window=4096, max_retries=0, timeout=10)

    def register_llms(register):
        register("test-chat", test_chat)

    plugin = SimpleNamespace(register_llms=hookimpl(register_llms))
    return PluginHost(strict=True, extra_plugins={"fake": fake_plugin, "chat": plugin})


OPENAI_LIKE_YAML = replaced(
    LLM_YAML, '{name: fake-llm, reply: "2"}', "{name: test-chat}", "drop_unmentioned: true", "drop_unmentioned: false"
)


def test_llm_reranker_with_openai_like_over_http(tmp_path):
    with OpenAIStubServer(reply="Most relevant: [3], then [1].") as server:
        pipeline = pipeline_from_yaml(OPENAI_LIKE_YAML, tmp_path, openai_like_host(server))
        [(_, reranker)] = pipeline.many("rerankers")
        out = reranker.rerank(Query("Which cancer is found early?"), passages())
        requests = server.requests
    assert ids(out) == ["breast", "liver", "lung", "gastric"]  # 3, 1, then 2, then the unread 4th
    assert [h.signals.get("llm-rank") for h in out] == [1.0, 2.0, 0.0, None]
    [request] = requests
    assert request.path == "/v1/chat/completions" and request.model == "tiny-chat"
    assert "Which cancer is found early?" in request.prompt
    assert "[3] Breast cancer: Passage about breast." in request.prompt and "[4]" not in request.prompt


def test_llm_reranker_reports_a_failing_server_instead_of_guessing(tmp_path):
    with OpenAIStubServer(reply="1") as server:
        pipeline = pipeline_from_yaml(OPENAI_LIKE_YAML, tmp_path, openai_like_host(server))
        ingest(pipeline)
        engine = Engine.open(pipeline)
        server.fail(500)
        with pytest.raises(ComponentError, match=r"stage rerankers\[0\]: component 'llm' failed"):
            engine.retrieve(Query("Which cancer is found early?"))
        assert engine.retrieve(Query("Which cancer is found early?"))[0].signals["llm-rank"] == 1.0


# -- cross-encoder ---------------------------------------------------------------------------------


def cross_encoder(model_path, base_dir: Path = Path("."), **params) -> CrossEncoderReranker:
    return CrossEncoderReranker(CrossEncoderReranker.Params(model_path=str(model_path), **params),
                                stand_in_ctx(base_dir))


def test_cross_encoder_missing_folder_says_how_to_get_a_model(tmp_path):
    with pytest.raises(ConfigError) as info:
        cross_encoder("models/ms-marco", base_dir=tmp_path)
    message = str(info.value)
    assert str(tmp_path / "models" / "ms-marco") in message  # resolved against the config's folder
    assert "does not exist" in message and "never downloads" in message
    assert "config.json" in message and "model.safetensors" in message and "model_path" in message


def test_cross_encoder_incomplete_folders(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConfigError, match="is a file, not a model folder"):
        cross_encoder(tmp_path / "file")
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="has no config.json and no model.safetensors"):
        cross_encoder(tmp_path / "empty")
    (tmp_path / "no-weights").mkdir()
    (tmp_path / "no-weights" / "config.json").write_text("{}")
    with pytest.raises(ConfigError, match=r"has no model.safetensors \(or pytorch_model.bin\)\."):
        cross_encoder(tmp_path / "no-weights")


def test_cross_encoder_without_sentence_transformers_names_the_package(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"")
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # makes the import fail
    with pytest.raises(ConfigError, match="needs the package sentence-transformers") as info:
        cross_encoder(folder)
    assert "criss-rag-rerank[cross-encoder]" in str(info.value) and "torch" in str(info.value)


def test_cross_encoder_lazy_import_failure_names_the_package(tmp_path, monkeypatch):
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"")
    reranker = cross_encoder(folder)  # nothing heavy is imported or loaded yet
    assert reranker._model is None
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)
    with pytest.raises(ConfigError, match="needs the package sentence-transformers"):
        reranker.rerank(Query("q"), passages())


def test_cross_encoder_broken_model_folder_is_a_config_error(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.json").write_text("{not json")
    (folder / "model.safetensors").write_bytes(b"garbage")
    reranker = cross_encoder(folder)
    with pytest.raises(ConfigError, match="could not load a cross-encoder from .*broken.*model_path"):
        reranker.rerank(Query("q"), passages())
    assert os.environ["HF_HUB_OFFLINE"] == "1"  # set before loading: nothing is ever fetched


VOCAB = ("[PAD] [UNK] [CLS] [SEP] [MASK] what which is are how the a of to by cancer liver lung breast "
         "smoking risk treated surgery screening early found cough sign passage about").split()


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory) -> Path:
    """A randomly initialised one-layer BERT cross-encoder with a word-level vocab, saved offline."""
    import torch
    from transformers import AutoModelForSequenceClassification, BertConfig, BertTokenizerFast
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    folder = tmp_path_factory.mktemp("tiny-cross-encoder")
    tokenizer = BertTokenizerFast(vocab={word: i for i, word in enumerate(VOCAB)}, do_lower_case=True)
    assert tokenizer.tokenize("Lung cancer.") == ["lung", "cancer", "[UNK]"]  # the vocab really is in use
    torch.manual_seed(7)
    config = BertConfig(vocab_size=len(VOCAB), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=64, num_labels=1, initializer_range=0.5)
    AutoModelForSequenceClassification.from_config(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def reference_scores(folder: Path, question: str, texts: list[str]) -> list[float]:
    """The model's own scores for (question, text) pairs, computed with transformers directly."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        batch = tokenizer([question] * len(texts), texts, padding=True, truncation=True, max_length=64,
                          return_tensors="pt")
        return torch.sigmoid(model(**batch).logits[:, 0]).tolist()


def ce_passages() -> list[Hit]:
    texts = ["Smoking is the main risk of lung cancer.", "Surgery treated liver cancer early.",
             "Screening found breast cancer early.", "A cough can be a sign of lung cancer.",
             "Passage about the liver."]
    return [hit(f"p{i}", 1.0 - i / 10, text=t, signals={"rrf": 1.0 - i / 10}) for i, t in enumerate(texts)]


def test_cross_encoder_scores_with_the_model_and_reorders(tiny_cross_encoder):
    reranker = cross_encoder(tiny_cross_encoder, batch_size=2, max_length=64, with_title=False)
    question = "What is the risk of lung cancer?"
    hits = ce_passages()
    out = reranker.rerank(Query(question), hits)
    expected = dict(zip(ids(hits), reference_scores(tiny_cross_encoder, question, [h.text for h in hits]),
                        strict=True))
    assert ids(out) == sorted(expected, key=lambda i: -expected[i])  # follows the model's scores
    assert ids(out) != ids(hits)  # and the model did change the order
    for h in out:
        assert h.score == pytest.approx(expected[h.node_id], abs=1e-5)
        assert h.signals["cross-encoder"] == pytest.approx(expected[h.node_id], abs=1e-5)
        assert "rrf" in h.signals
    assert len(set(round(s, 4) for s in expected.values())) == len(expected)  # distinct scores: a real test


def test_cross_encoder_rescores_only_the_top_candidates_and_can_prefix_titles(tiny_cross_encoder):
    reranker = cross_encoder(tiny_cross_encoder, candidates=3, with_title=True)
    hits = ce_passages()
    hits[0].node.node.metadata["title"] = "Lung cancer"
    out = reranker.rerank(Query("What is the risk of lung cancer?"), hits)
    assert set(ids(out[:3])) == {"p0", "p1", "p2"} and ids(out[3:]) == ["p3", "p4"]
    assert "cross-encoder" not in out[3].signals and out[3].score == hits[3].score
    assert reranker.passage(hits[0]) == "Lung cancer\nSmoking is the main risk of lung cancer."
    titled = {h.node_id: h.score for h in out}["p0"]
    untitled = reference_scores(tiny_cross_encoder, "What is the risk of lung cancer?", [hits[0].text])[0]
    assert titled != pytest.approx(untitled, abs=1e-6)  # the title went into the pair
    assert reranker.rerank(Query("q"), []) == []


def test_cross_encoder_rejects_a_multi_label_model(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    (folder / "model.safetensors").write_bytes(b"")
    reranker = cross_encoder(folder)
    import numpy as np

    reranker._model = SimpleNamespace(predict=lambda pairs, **kw: np.zeros((len(pairs), 3)))
    with pytest.raises(ConfigError, match="gives 3 scores per pair"):
        reranker.rerank(Query("q"), passages())


def test_cross_encoder_from_yaml(tmp_path, strict_host, tiny_cross_encoder):
    yaml_text = replaced(
        LLM_YAML,
        "rerankers: [{name: llm, llm: mock, candidates: 3, drop_unmentioned: true}]",
        f"rerankers: [{{name: cross-encoder, model_path: '{tiny_cross_encoder}', candidates: 4, batch_size: 4}}]",
    )
    pipeline = pipeline_from_yaml(yaml_text, tmp_path, strict_host)
    [(cc, reranker)] = pipeline.many("rerankers")
    assert isinstance(reranker, CrossEncoderReranker) and reranker.params.candidates == 4
    out = reranker.rerank(Query("Which cancer is linked to smoking?"), passages())
    assert all("cross-encoder" in h.signals for h in out)
    assert [h.score for h in out] == sorted((h.score for h in out), reverse=True)
