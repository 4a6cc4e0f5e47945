""""Not only X" negates "only X" unless an additive clause follows ("not only X but also Y" negates
nothing); the Korean negative copula negates in every inflected form (아닙니다, 아닐, 아님), whose
final consonant is written into the syllable of its stem."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.lexicon.negation import negation_count

EN_FOLLOW_PLAIN = "Follow-up care is not only for people who had surgery."
ZH_FOLLOW = "随访并不只针对做过手术的患者。"
KO_FOLLOW = "추적 검사는 수술을 받은 환자만 받는 것이 아닙니다."


def test_not_only_without_an_additive_clause_negates():
    assert negation_count("follow-up care is not only for people who had surgery.", "en") == 1
    assert negation_count("follow-up care is not only for people who had surgery but also for others.", "en") == 0
    assert negation_count("随访并不只针对做过手术的患者。", "zh") == 1
    assert negation_count("随访不只针对做过手术的患者，也针对其他患者。", "zh") == 0


def test_the_korean_negative_copula_negates_in_its_inflected_forms():
    for form in ("암이 아닙니다", "암이 아닐 수 있다", "암이 아님", "암이 아니다"):
        assert negation_count(form, "ko") == 1, form


def test_only_where_the_passage_says_not_only_is_unsupported():
    assert not judge("Follow-up care is only for people who had surgery.", EN_FOLLOW_PLAIN).supported
    assert not judge("随访只针对做过手术的患者。", ZH_FOLLOW).supported
    assert not judge("추적 검사는 수술을 받은 환자만 받는 것입니다.", KO_FOLLOW).supported
    assert judge("Follow-up care is not only for people who had surgery.", EN_FOLLOW_PLAIN).supported
    assert judge("추적 검사는 수술을 받은 환자만 받는 것이 아닙니다.", KO_FOLLOW).supported
