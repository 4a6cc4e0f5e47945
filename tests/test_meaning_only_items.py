"""A clause that restricts to items of a group ("only girls", 여성만, 女性だけ, 只有女孩) where the
passage clause it restates names more items of that group ("girls and boys") leaves out what the
passage includes."""

from __future__ import annotations

from claim_fixtures import judge

EN_VACCINE = "The vaccine is offered at school. Girls and boys are both offered the vaccine."
ZH_VACCINE = "疫苗在学校接种。女性和男性都可以接种这种疫苗。"


def test_only_one_item_of_a_group_the_passage_names_more_of_is_unsupported():
    verdict = judge("Only girls are offered the vaccine.", EN_VACCINE)
    assert not verdict.supported
    assert verdict.problems[0].kind == "population"
    assert not judge("只有女性可以接种这种疫苗。", ZH_VACCINE).supported


def test_a_restriction_the_passage_shares_or_without_one_is_supported():
    assert judge("Girls are offered the vaccine.", EN_VACCINE).supported
    assert judge("Girls and boys are both offered the vaccine.", EN_VACCINE).supported
    assert judge("The vaccine is offered only at school.", EN_VACCINE).supported
