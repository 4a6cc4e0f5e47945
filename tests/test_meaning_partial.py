"""A negated universal ("not always", "not necessarily", 必ずしも...ない, 반드시 ...은 아니다, 不一定)
is a hedge: it neither flips the polarity of what it says nor claims anything universal. The plain
universal ("always", 一定) is still a stronger claim than a passage that hedges."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.lexicon.negation import negation_count, without_partial

EN_LUMP = ("A breast lump can be caused by cancer. Cysts and fibroadenomas can also cause lumps. "
           "Most breast lumps are not cancer.")
JA_COUGH = "長引く咳は肺がんの症状のことがありますが、気管支炎などの良性の病気でも起こります。"
KO_COUGH = "오래가는 기침은 폐암의 증상일 수 있지만 기관지염 같은 양성 질환으로도 생깁니다."
ZH_COUGH = "长期咳嗽可能是肺癌的症状，但支气管炎等良性疾病也会引起咳嗽，不一定是肺癌。"


def test_a_negated_universal_negates_nothing():
    assert negation_count("a lump does not always mean cancer", "en") == 0
    assert negation_count("必ずしも肺がんとは限りません", "ja") == 0
    assert negation_count("기침이 반드시 폐암인 것은 아니다", "ko") == 0
    assert negation_count("不一定是肺癌", "zh") == 0
    assert negation_count("a lump does not mean cancer", "en") == 1
    assert "always" not in without_partial("it is not always cancer", "en")


def test_a_hedged_claim_is_supported_by_a_passage_that_says_it_may_be():
    for claim, passage in [
        ("A breast lump does not always mean cancer, because cysts can also cause lumps.", EN_LUMP),
        ("長引く咳は、必ずしも肺がんの症状とは限りません。", JA_COUGH),
        ("오래가는 기침이 반드시 폐암인 것은 아니며 기관지염 때문일 수도 있습니다.", KO_COUGH),
    ]:
        verdict = judge(claim, passage)
        assert verdict.supported, (claim, verdict.why)


def test_the_plain_universal_is_still_a_stronger_claim():
    assert not judge("A breast lump always means cancer.", EN_LUMP).supported
    assert not judge("长期咳嗽一定是肺癌的症状。", ZH_COUGH).supported
