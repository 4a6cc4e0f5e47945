"""The semantic cache's facets: what is medically decisive in a question (cancer and subtype,
stage, numbers with units and comparison words, negation, population, line of therapy,
treatments, drugs, biomarkers, disease state) must be equal for two questions to share an answer.

The table (tests/fixtures/cache_pairs.jsonl, also read by benchmarks/cache_facets.py) holds
near-miss pairs in English, Korean, Japanese and Chinese that must never share an answer, and
paraphrase pairs whose facets are equal (so that the embedding may make them a hit).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from criss_rag.language.text import detect_language
from criss_rag.lexicon.facets import Facets, extract

PAIRS = [json.loads(line) for line in
         (Path(__file__).parent / "fixtures" / "cache_pairs.jsonl").read_text(encoding="utf-8").splitlines()]
NEAR = [p for p in PAIRS if p["kind"] == "near-miss"]
PARA = [p for p in PAIRS if p["kind"] == "paraphrase"]


def test_the_table_is_large_and_covers_every_language_and_facet():
    assert len(NEAR) >= 100 and len(PARA) >= 50
    by_language = Counter(p["lang"] for p in NEAR)
    assert all(by_language[lang] >= 25 for lang in ("en", "ko", "ja", "zh")), by_language
    facets = {p["facet"] for p in NEAR}
    assert {"cancer", "subtype", "stage", "quantity", "negation", "population", "line", "treatment", "drug",
            "biomarker", "disease"} <= facets
    for pair in PAIRS:  # each question is read in the language it is filed under
        assert detect_language(pair["a"]) == pair["lang"] == detect_language(pair["b"]), pair


@pytest.mark.parametrize("pair", NEAR, ids=[f"{p['lang']}-{p['facet']}-{i}" for i, p in enumerate(NEAR)])
def test_near_miss_pairs_differ_in_their_facets(pair):
    a, b = extract(pair["a"]), extract(pair["b"])
    assert a != b, (pair, a.as_dict())
    # the facet the pair is about is one that differs
    fields = {"treatment": ("treatment", "test"), "cancer": ("cancer", "site")}.get(pair["facet"], (pair["facet"],))
    assert any(getattr(a, f) != getattr(b, f) for f in fields), (pair, a.as_dict(), b.as_dict())


@pytest.mark.parametrize("pair", PARA, ids=[f"{p['lang']}-{i}" for i, p in enumerate(PARA)])
def test_paraphrase_pairs_have_equal_facets(pair):
    assert extract(pair["a"]) == extract(pair["b"]), (pair, extract(pair["a"]).as_dict(), extract(pair["b"]).as_dict())


def test_facets_bind_numbers_to_units_and_comparison_words():
    assert extract("Should women over 65 be screened?").quantity == ("> 65",)
    assert extract("Can patients aged 65 or older get surgery?").quantity == (">= 65",)
    assert extract("Is a 2 cm tumour at stage T2N0M0 operable?").quantity == ("= 2 cm",)
    assert extract("Is a 2 cm tumour at stage T2N0M0 operable?").stage == ("M0", "N0", "T2")
    assert extract("65세 이상 여성").quantity == (">= 65 y",)
    assert extract("65歳未満の女性").quantity == ("< 65 y",)
    assert extract("超过50岁的男性").quantity == ("> 50 y",)
    assert extract("stage 3a lung cancer").stage == extract("stage IIIA lung cancer").stage == ("stage:IIIA",)


def test_subtype_words_are_not_read_twice():
    nsclc = extract("How is non-small cell lung cancer treated?")
    assert nsclc.subtype == ("non-small-cell",) and nsclc.negation == 0 and nsclc.cancer == ("lung cancer",)
    assert extract("非小细胞肺癌怎么治疗？").negation == 0  # 非 of 非小细胞 is the subtype, not a negation
    assert extract("비소세포폐암").subtype == ("non-small-cell",)


def test_the_facets_as_shown_in_the_trace_leave_out_empty_ones():
    shown = extract("How is HER2-positive breast cancer treated in women over 50?").as_dict()
    assert shown == {"cancer": ["breast cancer"], "site": ["breast"], "quantity": ["> 50"], "population": ["female"],
                     "biomarker": ["HER2:positive"], "aspect": ["treatment"]}
    assert Facets().as_dict() == {}
