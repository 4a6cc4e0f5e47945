"""The relevance policy per question language, and across languages (criss_rag.relevance)."""

import pytest
from pydantic import ValidationError

from criss_rag.relevance import RelevanceCheck, RelevancePolicy
from llama_index.core.schema import NodeWithScore

from criss_rag.types import Context, Evidence, Hit, text_node


def context(*texts: str) -> Context:
    return Context(tuple(Evidence(n, Hit(NodeWithScore(node=text_node(f"d{n}", t), score=1.0)), t)
                         for n, t in enumerate(texts, 1)), "")


def test_a_threshold_per_question_language():
    check = RelevanceCheck(RelevancePolicy(min_coverage={"en": 0.9, "ko": 0.2, "ja": 0.2, "zh": 0.2}, analyzer=None))
    korean = check.before("간암 수술 후 회복 기간과 음식은?", context("간암 수술 후 회복에는 몇 주가 걸립니다."))
    assert korean.threshold == 0.2 and korean.relevant, korean
    english = check.before("How long is recovery after liver surgery and what food helps?",
                           context("Recovery after liver surgery takes a few weeks."))
    assert english.threshold == 0.9 and not english.relevant, english


def test_a_per_language_mapping_names_every_language():
    with pytest.raises(ValidationError, match="missing: ja, zh"):
        RelevancePolicy(min_coverage={"en": 0.5, "ko": 0.4})
    with pytest.raises(ValidationError, match="between 0 and 1"):
        RelevancePolicy(min_coverage={"en": 1.5, "ko": 0.4, "ja": 0.4, "zh": 0.4})


def test_evidence_in_another_language_is_not_checked_by_words():
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    verdict = check.before("폐암이면 기침이 오래 가나요?", context("A cough that does not go away can be a sign of lung cancer."))
    assert verdict.relevant and "not checked" in verdict.checked and "ko" in verdict.checked
    same_language = check.before("면도기를 같이 쓰면 암이 옮나요?", context("간암은 간에 생기는 암입니다."))
    assert not same_language.relevant and same_language.checked == "evidence"
