"""criss_rag.lexicon.normalize: one writing for things that are compared (team-written examples)."""

from __future__ import annotations

import pytest

from criss_rag.lexicon.normalize import normalize, normalize_numbers


@pytest.mark.parametrize(("a", "b"), [
    ("Isnʼt it curable?", "Isn't it curable?"),          # modifier letter apostrophe
    ("Isn’t it curable?", "Isn't it curable?"),          # right single quotation mark
    ("non–small cell", "non-small cell"),                # en dash
    ("non—small cell", "non-small cell"),                # em dash
    ("ＨＥＲ２陽性", "HER2陽性"),                          # full-width letters and digits
])
def test_normalize_writes_one_form(a: str, b: str) -> None:
    assert normalize(a) == normalize(b)


@pytest.mark.parametrize(("a", "b"), [
    ("stage three", "stage 3"),
    ("Stage II-A", "Stage IIA"),
    ("stage IV–b", "stage IVB"),
    ("age ≧ 65", "age ≥ 65"),
    ("age >= 65", "age ≥ 65"),
    ("size ≦ 2 cm", "size ≤ 2 cm"),
    ("twenty-five percent", "25%"),
    ("one hundred and five patients", "105 patients"),
    ("seventy per cent", "70%"),
    ("患者の7割", "患者の70%"),
    ("七成患者", "70%患者"),
    ("二十五歳以上", "25歳以上"),
    ("第二期", "第2期"),
    ("三期肝癌", "3期肝癌"),
    ("두 번 검사", "2 번 검사"),
    ("ステージⅢ", "ステージIII"),
])
def test_numbers_compare_by_value(a: str, b: str) -> None:
    assert normalize_numbers(a) == normalize_numbers(b)


@pytest.mark.parametrize(("a", "b"), [
    ("stage three", "stage four"),
    ("II-A", "II-B"),
    ("age ≧ 65", "age ≦ 65"),
    ("患者の7割", "患者の3割"),
    ("三期", "四期"),
])
def test_different_values_stay_different(a: str, b: str) -> None:
    assert normalize_numbers(a) != normalize_numbers(b)


@pytest.mark.parametrize("word", ["一般的に", "十分です", "一緒に", "统一", "세포", "열이 나요"])
def test_words_that_contain_numerals_stay_words(word: str) -> None:
    assert normalize_numbers(word) == normalize(word)
