"""`pivot-language`: a question about a page its language has no version of gets the pivot-language
page first; one its language has a page on keeps the ranking it had."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from llama_index.core.schema import TextNode

from criss_rag.errors import ConfigError
from criss_rag.types import Hit, Query
from criss_rag_basic.pivot_language import PivotLanguage

# one cancer (topic 1): an overview in English and Korean, a staging page in English only; a second
# cancer (topic 2) with an English staging page that must never compete for topic 1's questions
PAGES = [
    ("1", "overview", "en", "Liver cancer overview: the liver filters blood."),
    ("1", "overview", "ko", "간암 개요: 간은 피를 거릅니다."),
    ("1", "staging", "en", "Liver cancer staging: stages I to IV by tumour size and spread."),
    ("2", "staging", "en", "Lung cancer staging: limited and extensive stage."),
]
# the embedding's view of each text and of two questions: a Korean staging question is close to the
# English staging page; a Korean overview question is closest to the overview
VECTORS = {
    PAGES[0][3]: [1.0, 0.0, 0.0],
    PAGES[1][3]: [1.0, 0.05, 0.0],
    PAGES[2][3]: [0.0, 1.0, 0.0],
    PAGES[3][3]: [0.0, 1.0, 0.2],
    "간암은 몇 기까지 있나요?": [0.3, 0.95, 0.0],
    "간은 무슨 일을 하나요?": [0.95, 0.3, 0.0],
}


def node(cancer: str, menu: str, lang: str, text: str) -> TextNode:
    return TextNode(id_=f"{cancer}-{menu}-{lang}#s0", text=text,
                    metadata={"cancer_id": cancer, "menu_id": menu, "lang": lang, "doc_id": f"{cancer}-{menu}-{lang}"})


NODES = [node(*page) for page in PAGES]


def unit(text: str) -> np.ndarray:
    vector = np.asarray(VECTORS[text], dtype="float32")
    return vector / np.linalg.norm(vector)


class FakeContext:
    stage = "rerankers[0]"

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_query(self, text: str, spec=None) -> np.ndarray:
        return unit(text)

    def embed_documents(self, texts, spec=None) -> np.ndarray:
        self.embedded.extend(texts)
        return np.stack([unit(t.split("\n\n")[-1]) for t in texts])


def reranker(**params) -> tuple[PivotLanguage, FakeContext]:
    ctx = FakeContext()
    options = {"pivot": "en", "group_by": ["cancer_id", "menu_id"], "topic_by": ["cancer_id"],
               "score_signal": "faiss", **params}
    component = PivotLanguage(PivotLanguage.Params(**options), ctx)  # type: ignore[arg-type]
    component.check_corpus(NODES)
    return component, ctx


def korean_overview_first() -> list[Hit]:
    """What a multilingual embedding ranks for a Korean question: the Korean page first, whatever it asks."""
    return [Hit.of(NODES[1], 0.9, {"faiss": 0.88, "intent-boost": 1.0}), Hit.of(NODES[0], 0.5, {"faiss": 0.8})]


def test_a_question_about_a_page_only_the_pivot_language_has_gets_that_page_first():
    component, _ = reranker()
    hits = component.rerank(Query(text="간암은 몇 기까지 있나요?"), korean_overview_first())
    assert hits[0].doc_id == "1-staging-en"
    assert hits[0].signals == {"faiss": pytest.approx(float(unit(PAGES[2][3]) @ unit("간암은 몇 기까지 있나요?"))),
                               "pivot-language": 1.0}
    assert hits[0].score > hits[1].score
    assert [h.doc_id for h in hits[1:]] == ["1-overview-ko", "1-overview-en"]  # nothing is removed
    assert "2-staging-en" not in {h.doc_id for h in hits}  # another topic's page does not compete


def test_a_question_its_language_has_a_page_on_keeps_its_ranking():
    component, _ = reranker()
    before = korean_overview_first()
    assert component.rerank(Query(text="간은 무슨 일을 하나요?"), before) == before


def test_the_margin_and_the_pivot_language_question_leave_the_ranking():
    component, _ = reranker(margin=0.9)
    before = korean_overview_first()
    assert component.rerank(Query(text="간암은 몇 기까지 있나요?"), before) == before
    component, ctx = reranker()
    english = [Hit.of(NODES[0], 0.9, {})]
    assert component.rerank(Query(text="What are the stages of liver cancer?"), english) == english
    assert ctx.embedded == []  # an English question embeds nothing


def test_a_first_passage_an_earlier_reranker_boosted_stays_first():
    component, _ = reranker(yield_to=["intent-boost"])
    boosted = [Hit.of(NODES[1], 0.9, {"intent-boost": 1.5})]
    assert component.rerank(Query(text="간암은 몇 기까지 있나요?"), boosted) == boosted


def test_without_a_score_signal_only_candidates_already_found_move():
    component, _ = reranker(score_signal=None)
    before = korean_overview_first()
    assert component.rerank(Query(text="간암은 몇 기까지 있나요?"), before) == before  # staging page not found
    found = before + [Hit.of(NODES[2], 0.1, {"faiss": 0.7})]
    after = component.rerank(Query(text="간암은 몇 기까지 있나요?"), found)
    assert after[0].doc_id == "1-staging-en" and after[0].signals["faiss"] == 0.7


def test_the_pivot_pages_are_embedded_once():
    component, ctx = reranker()
    for _ in range(3):
        component.rerank(Query(text="간암은 몇 기까지 있나요?"), korean_overview_first())
    assert len(ctx.embedded) == 2  # topic 1's two English passages, once


def test_a_corpus_without_the_group_keys_is_an_error_that_names_them_or_a_warning():
    bare = [TextNode(text="간암 개요", metadata={"lang": "ko"})]
    with pytest.raises(ConfigError, match="cancer_id, menu_id.*group_by"):
        PivotLanguage(PivotLanguage.Params(pivot="en", group_by=["cancer_id", "menu_id"]),
                      SimpleNamespace(stage="rerankers[3]")).check_corpus(bare)  # type: ignore[arg-type]
    lenient = PivotLanguage(PivotLanguage.Params(pivot="en", group_by=["cancer_id"], on_missing_field="warn"),
                            SimpleNamespace(stage="rerankers[3]"))  # type: ignore[arg-type]
    assert "moves nothing" in (lenient.check_corpus(bare) or "")
    before = [Hit.of(bare[0], 1.0, {})]
    assert lenient.rerank(Query(text="간암은 몇 기까지 있나요?"), before) == before


def test_a_question_no_candidate_passes_the_refusal_threshold_for_is_left_to_the_refusal_policy():
    """The English page would be judged by a lower cross-lingual threshold: it must not lift a question
    whose own-language candidates score below the threshold the refusal policy applies to them."""
    component, _ = reranker(min_best_signal=0.9)  # the Korean candidates' best faiss cosine is 0.88
    before = korean_overview_first()
    assert component.rerank(Query(text="간암은 몇 기까지 있나요?"), before) == before
    component, _ = reranker(min_best_signal=0.85)
    assert component.rerank(Query(text="간암은 몇 기까지 있나요?"), before)[0].doc_id == "1-staging-en"
    with pytest.raises(ValueError, match="set `score_signal`"):
        PivotLanguage.Params(pivot="en", group_by=["cancer_id"], min_best_signal=0.9)
