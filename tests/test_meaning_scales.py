"""Directions said with words of different dimensions that place one thing on one scale contradict
each other: "common" and "less often" (how often), "grows larger" and "falls" (how much)."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.lexicon.directions import contradicted, directions

EN_DRUG = "Tiredness is common with this drug. Few patients have hair loss with this drug."
KO_RISK = "운동을 꾸준히 하면 대장암 위험이 줄어듭니다. 비만은 대장암 위험을 높입니다."


def test_how_often_and_how_common_are_one_scale():
    assert contradicted({"commonness:+"}, {"amount:-"})
    assert contradicted({"frequency:-"}, {"commonness:+"})
    assert not contradicted({"commonness:+"}, {"amount:+"})


def test_size_and_change_are_one_scale():
    assert contradicted({"size:+"}, {"change:-"})
    assert not contradicted({"size:+"}, {"level:+"})


def test_a_direction_reworded_on_another_dimension_is_caught():
    assert not judge("Hair loss is common in patients on this drug.", EN_DRUG).supported
    assert judge("Hair loss is rare in patients on this drug.", EN_DRUG).supported
    assert not judge("운동을 꾸준히 하면 대장암 위험이 커집니다.", KO_RISK).supported


def test_a_graded_direction_is_one_direction():
    assert directions("it happens less often in women", "en") == {"frequency:-"}
    assert directions("it is least common in children", "en") == {"commonness:-"}
    assert contradicted(directions("it is more common in men", "en"), directions("it is less common in men", "en"))
    en = "Side effects are less common with the lower dose."
    assert not judge("Side effects are more common with the lower dose.", en).supported


def test_later_and_earlier_are_a_time_direction_in_korean_and_chinese():
    assert directions("폐경이 늦어집니다", "ko") == {"time:+"}
    assert directions("폐경이 일찍 옵니다", "ko") == {"time:-"}
    assert contradicted(directions("月经推迟", "zh"), directions("月经提前", "zh"))
    ko = "난소를 제거하면 폐경이 일찍 옵니다."
    assert not judge("난소를 제거하면 폐경이 늦어집니다.", ko).supported
