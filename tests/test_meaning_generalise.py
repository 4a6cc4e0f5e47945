"""The sentence check's mechanisms for claims in forms no word list names: numbers in any notation,
items bound to their clause, swaps, context carried over from the rest of a passage, two-sentence
restatements, and the words compared apart (negation, frequency) left out of the alignment."""

from __future__ import annotations

import pytest
from claim_fixtures import judge

from criss_rag.lexicon.claims import read
from criss_rag.lexicon.edits import single_change, swapped
from criss_rag.lexicon.quantities import Quantity, same_quantity
from criss_rag.lexicon.terms import content_terms


def values(text: str, language: str) -> list[str]:
    return [str(q) for q in read(text, language).quantities]


# -- numbers in any notation ------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "language", "expected"), [
    ("대략 10명 중 약 4명이 재발합니다", "ko", ["about 40%"]),          # a share with counters and 약
    ("患者の4分の1が再発します", "ja", ["25%"]),                       # a fraction, whole first
    ("三分之二的患者会复发", "zh", ["67%"]),
    ("about a quarter of patients relapse", "en", ["about 25%"]),
    ("a fifth of patients relapse", "en", ["20%"]),
    ("1/5 of patients relapse", "en", ["20%"]),
    ("5人に1人が再発します", "ja", ["20%"]),
    ("每5人中有1人复发", "zh", ["20%"]),
    ("roughly half of patients relapse", "en", ["about 50%"]),      # half
    ("환자의 절반이 재발합니다", "ko", ["50%"]),
    ("半年ごとに検査します", "ja", ["6 months"]),                     # half a year
    ("服用期间为3〜6年", "zh", ["3-6 years"]),                       # the wave dash of ranges
    ("3년에서 6년 동안 복용합니다", "ko", ["3-6 years"]),              # a range with the unit written twice
    ("3年から6年服用します", "ja", ["3-6 years"]),
    ("it is most common between the ages of twenty and forty", "en", ["20-40 years"]),
    ("women aged 20 to 40", "en", ["20-40 years"]),                 # an age
    ("cases rose over the past 20 years", "en", ["20 years"]),      # a span, not "more than 20 years"
    ("疗程不少于五年", "zh", ["at least 5 years"]),                   # a negated comparison is its converse
    ("每天不超过2杯", "zh", ["at most 2 drink"]),
    ("体温达到或超过38度", "zh", ["at least 38"]),
])
def test_numbers_are_read_in_any_notation(text, language, expected):
    assert values(text, language) == expected


def test_values_compare_across_units_of_time():
    assert same_quantity(Quantity("range", "14-28", "d"), Quantity("range", "2-4", "wk"))
    assert same_quantity(Quantity("=", "6", "mo"), Quantity("=", "0.5", "y"))
    assert not same_quantity(Quantity("=", "6", "mo"), Quantity("=", "1", "y"))
    assert not same_quantity(Quantity("=", "30", "%"), Quantity("=", "31", "%"))  # no tolerance in one unit
    assert same_quantity(Quantity("<", "5", "mm"), Quantity("<", "0.5", "cm"))
    assert not same_quantity(Quantity("<", "5", "mm"), Quantity("<", "5", "cm"))


def test_a_share_in_other_words_is_supported_and_another_share_is_not():
    passage = "매년 검사를 받는 사람 10명 중 약 3명이 추가 검사를 받습니다."
    assert judge("매년 검사를 받는 사람의 약 30%가 추가 검사를 받습니다.", passage).supported
    changed = judge("매년 검사를 받는 사람의 약 60%가 추가 검사를 받습니다.", passage)
    assert not changed.supported and changed.problems[0].kind == "number"


def test_a_range_said_with_the_unit_once_matches_one_said_with_it_twice():
    passage = "이 호르몬 약은 수술 후 3년에서 6년 동안 복용합니다."
    assert judge("이 호르몬 약은 수술 후 3~6년간 복용합니다.", passage).supported
    assert not judge("이 호르몬 약은 수술 후 3~8년간 복용합니다.", passage).supported


# -- items bound to their clause ----------------------------------------------------------------

def test_an_entity_moved_to_another_clause_of_the_passage_is_a_problem():
    passage = ("Bone scans find spread to the bones, and MRI finds spread to the brain. "
               "Both tests are done before treatment starts.")
    verdict = judge("Bone scans find spread to the brain, and MRI finds spread to the bones.", passage)
    assert not verdict.supported


def test_a_population_bound_to_another_clause_is_a_problem():
    passage = "이 백신은 소아에게는 두 번, 성인에게는 세 번 맞습니다."
    assert judge("이 백신은 소아에게는 두 번 맞습니다.", passage).supported
    verdict = judge("이 백신은 성인에게는 두 번 맞습니다.", passage)
    assert not verdict.supported


# -- swaps, replaced spans, context carried over ----------------------------------------------------

def test_two_spans_exchanged_are_a_swap():
    passage = "가족성 용종증에는 대장 절제술을, 린치 증후군에는 정기 내시경을 권합니다."
    assert swapped("가족성 용종증에는 정기 내시경을, 린치 증후군에는 대장 절제술을 권합니다.", passage, "ko")
    assert swapped(passage, passage, "ko") is None


def test_two_populations_in_the_other_order_are_a_swap_but_a_reordered_pair_is_not():
    passage = "The rash is common in adults but is seldom seen in children."
    assert not judge("The rash is common in children but is seldom seen in adults.", passage).supported
    listed = "Vaccination is offered to adults and children with weak immunity."
    assert judge("Vaccination is offered to children and adults with weak immunity.", listed).supported


def test_an_item_named_elsewhere_in_the_passage_may_replace_it():
    passage = "Imatinib treats chronic myeloid leukaemia. It is taken by mouth once a day."
    assert single_change("Imatinib is taken by mouth once a day.", "It is taken by mouth once a day.", "en",
                         context="Imatinib treats chronic myeloid leukaemia.") is None
    assert judge("Imatinib is taken by mouth once a day.", passage).supported
    assert not judge("Sorafenib is taken by mouth once a day.", passage).supported


def test_a_decisive_item_in_place_of_a_longer_japanese_span_is_a_change():
    passage = "早期の場合、化学療法は行いません。再発予防のために内分泌療法を5年間続けます。"
    assert judge("再発予防のために内分泌療法を5年間続けます。", passage).supported
    verdict = judge("再発予防のために化学療法を5年間続けます。", passage)
    assert not verdict.supported


# -- alignment --------------------------------------------------------------------------------------

def test_a_clause_restating_another_sentence_of_the_passage_is_aligned_with_it():
    passage = ("この薬は閉経前の女性のホルモン受容体陽性乳がんの再発リスクと対側乳がんの発症リスクを下げます。"
               "通常5年間服用します。")
    claim = ("この薬は閉経前の女性のホルモン受容体陽性乳がんの再発リスクと対側乳がんの発症リスクを下げ、"
             "{}年間服用されます。")
    assert judge(claim.format(5), passage).supported
    assert not judge(claim.format(8), passage).supported


def test_negation_cues_and_frequency_words_are_compared_apart_not_as_terms():
    assert content_terms("一般没有疼痛", "zh") == {"疼痛"} <= content_terms("通常不伴有疼痛", "zh")
    assert "보통" not in content_terms("보통 통증이 없습니다", "ko")
    assert judge("该检查一般没有疼痛。", "该检查通常不伴有疼痛，可以在门诊完成。").supported


def test_coordinated_grades_name_each_grade():
    assert read("Grades 1 and 2 tumours grow slowly.", "en").stages == {"grade:I", "grade:II"}
    assert read("stages II, III or IV", "en").stages == {"stage:II", "stage:III", "stage:IV"}


def test_a_lone_korean_particle_is_no_change():
    passage = "검사받은 사람 약 5%는 추가 검사가 필요합니다."
    assert judge("검사받은 사람 약 5%은 추가 검사가 필요합니다.", passage).supported


def test_a_name_written_without_spaces_matches_by_its_end():
    passage = "奥沙利铂可能引起手脚麻木。"
    assert judge("使用奥沙利铂可能引起手脚麻木。", passage).supported  # read as the drug 用奥沙利铂


def test_traditional_characters_fold_with_opencc_s_table():
    # 瀉 was missing from the sentence check's own short table; OpenCC's character table has it
    assert judge("放療可能引起腹瀉。", "放疗可能引起腹泻。").supported


@pytest.mark.parametrize(
    "sentence",
    [
        "Trials are open to patients with stage II bladder cancer, stage III bladder cancer, stage IV bladder cancer, "
        "and recurrent bladder cancer.",
        "Childhood acute lymphoblastic leukaemia (also called acute lymphocytic leukaemia) is a cancer of the blood.",
    ],
)
def test_a_quoted_sentence_is_bound_as_in_its_passage(sentence):
    assert judge(sentence, f"{sentence} Ask your doctor which trial fits.").supported


def test_negation_scope_runs_over_and_or():
    passage = "There are no signs or symptoms of this bone tumour at first, so it is found late."
    assert judge("There are no signs or symptoms of this bone tumour at first.", passage).supported
    verdict = judge("There are clear signs or symptoms of this bone tumour at first.", passage)
    assert not verdict.supported and verdict.problems[0].kind == "negation"
