"""A clause that restates a condition and its outcome together, where the passage cuts them into two
clauses, is compared on direction with the passage sentence it aligns with."""

from __future__ import annotations

from claim_fixtures import judge

JA_DOSE = "この薬は痛みを和らげます。決められた量を守って飲めば、胃が荒れることはまれです。"


def test_a_direction_is_compared_with_the_sentence_when_no_clause_of_it_aligns():
    assert not judge("量を守って飲んでも胃が荒れることが多い薬です。", JA_DOSE).supported
    assert judge("量を守って飲めば胃が荒れることはまれな薬です。", JA_DOSE).supported
