"""A count said per period is a rate whose unit names the period: "12 times a year" is not the
passage's "12 times a month" (also 하루에 두 번, 週3回, 每天两次)."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.lexicon.claims import read
from criss_rag.lexicon.quantities import Quantity

EN_DOSE = "The tablets are usually taken 3 times a day with food."


def test_a_count_per_period_is_a_rate():
    assert read("taken 3 times a day", "en").quantities == [Quantity("=", "3", "x/d")]
    assert read("at least 12 times a month", "en").quantities == [Quantity(">=", "12", "x/mo")]
    assert read("하루에 두 번 복용합니다", "ko").quantities == [Quantity("=", "2", "x/d")]
    assert read("週3回運動します", "ja").quantities == [Quantity("=", "3", "x/wk")]
    assert read("每周三次", "zh").quantities == [Quantity("=", "3", "x/wk")]
    assert read("3 times", "en").quantities == [Quantity("=", "3", "x")]


def test_a_rate_with_another_period_is_a_changed_number():
    assert not judge("The tablets are usually taken 3 times a week with food.", EN_DOSE).supported
    assert judge("The tablets are usually taken three times a day with food.", EN_DOSE).supported
