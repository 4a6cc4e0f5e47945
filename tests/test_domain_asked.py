"""Which cancer and which intent a Korean, Japanese, Chinese or English question asks about when
it names the organ in everyday, anatomical or described words, names the cancer as "a malignant
tumour", asks how it can be removed, or names a second organ as where the cancer spread. The
questions are the team's own, written apart from the evaluation sets."""

from __future__ import annotations

import pytest

from criss_rag_domain.asked import asked_types, is_location
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.lexicon import CancerLexicon

LEXICON = CancerLexicon.builtin()
INTENTS = IntentLexicon({})


@pytest.mark.parametrize(("question", "expected"), [
    ("허파에 생긴 종양은 수술할 수 있나요?", "lung"),                   # everyday organ word
    ("곧창자 쪽 악성 종양이 의심될 때는요?", "colorectal"),
    ("이자 꼬리 부분에 생긴 암은 예후가 어떤가요?", "pancreatic"),
    ("젖가슴 한쪽에 생긴 암 때문에 걱정이에요", "breast"),
    ("인슐린을 만드는 장기에 암이 생기면 당뇨가 오나요?", "pancreatic"),  # described organ
    ("すい臓にできた腫瘍は手術で取り除けますか", "pancreatic"),
    ("はらわたの悪性腫瘍と言われました", "colorectal"),
    ("呼吸をつかさどる臓器の悪性腫瘍について知りたい", "lung"),
    ("胰臟的腫瘤可以切除嗎？", "pancreatic"),                            # Traditional Chinese
    ("肠子里长了恶性肿瘤怎么办", "colorectal"),
    ("What is a malignant tumour of the pancreas?", "pancreatic"),
])
def test_an_organ_with_a_cancer_word_names_its_cancer(question, expected):
    assert asked_types(LEXICON, question) == [expected]


@pytest.mark.parametrize(("question", "expected"), [
    ("큰창자에서 생긴 암이 허파로 번졌는데 수술이 되나요?", "colorectal"),
    ("허파 암이 간까지 퍼졌다고 합니다", "lung"),
    ("肺に転移した乳房のがんの治療は？", "breast"),
    ("乳腺癌转移到肺部还能治吗", "breast"),
    ("Breast cancer that spread to the lungs: what now?", "breast"),
    ("pancreatic tumour that has spread to the liver", "pancreatic"),
])
def test_a_second_organ_named_as_where_it_spread_is_not_the_cancer_asked(question, expected):
    assert asked_types(LEXICON, question) == [expected]


def test_no_cancer_word_or_a_word_that_only_looks_like_an_organ_names_nothing():
    assert asked_types(LEXICON, "간단한 검사로 시간이 얼마나 걸리나요?") == []   # 간 inside other words
    assert asked_types(LEXICON, "밥통이 자주 아파요") == []                        # an organ, no cancer word
    assert asked_types(LEXICON, "위암 혹은 대장암 검사") == ["gastric", "colorectal"]  # 혹은 is "or"


def test_spread_markers():
    text = "큰창자 암이 간으로 번졌는데"
    assert is_location(text, text.index("간"), text.index("간") + 1)
    assert not is_location(text, 0, 3)


@pytest.mark.parametrize(("question", "intent"), [
    ("이자에 생긴 혹은 어떻게 떼어내나요?", "treatment"),
    ("간에 생긴 종양을 없앨 방법이 있나요?", "treatment"),
    ("乳房の腫瘍はどうやって取り除きますか", "treatment"),
    ("早期の胃がんで何ができますか", "treatment"),
    ("肠癌能不能直接切掉？", "treatment"),
    ("가슴에 멍울이 만져지면 암인가요?", "symptoms"),
    ("すい臓がんだと背中に痛みが出ますか", "symptoms"),
])
def test_intent_verbs(question, intent):
    assert intent in INTENTS.detect(question)


def test_cancer_name_terms_names_a_described_cancer_in_the_questions_language():
    from criss_rag.types import Query
    from criss_rag_domain.cancer_names import CancerNameTerms

    transform = CancerNameTerms(CancerNameTerms.Params(), None)
    assert transform.terms("이자에 암이 생기면 등까지 아플 수 있나요?") == ["췌장암"]
    assert transform.terms("すい臓にできた悪性腫瘍は取り除けますか") == ["膵臓がん"]
    assert transform.terms("胰臟的腫瘤可以切除嗎？") == ["胰腺癌"]
    assert transform.terms("췌장암 증상") == [] and transform.terms("밥통이 아파요") == []
    query = transform.transform(Query("허파에 생긴 종양은 수술할 수 있나요?"))
    assert query.text == "허파에 생긴 종양은 수술할 수 있나요?" and query.search_text.endswith(" 폐암")
