"""criss_rag.lexicon.stopwords and cancer_names: the shared vocabularies and the modules that read them."""

from __future__ import annotations

from criss_rag.answering.chat import find_topic
from criss_rag.lexicon.stopwords import ALIGNMENT, ALIGNMENT_EXTRA, ALIGNMENT_KEPT, ENGLISH
from criss_rag_basic.analyzers import EnglishAnalyzer, StandardAnalyzer


def test_the_analyzers_drop_every_english_stopword_and_keep_content() -> None:
    text = " ".join(sorted(ENGLISH)) + " chemotherapy"
    assert EnglishAnalyzer(EnglishAnalyzer.Params(stem=False)).analyze(text) == ["chemotherapy"]
    assert StandardAnalyzer(StandardAnalyzer.Params(stem=False)).analyze(text) == ["chemotherapy"]


def test_alignment_list_is_the_english_list_with_named_differences() -> None:
    assert ALIGNMENT_KEPT <= ENGLISH, sorted(ALIGNMENT_KEPT - ENGLISH)  # a kept word the list does not hold
    assert not ALIGNMENT_EXTRA & ENGLISH, sorted(ALIGNMENT_EXTRA & ENGLISH)  # an extra word it already holds
    # what the sentence check compares stays content: negation, order in time, modals
    assert not {"no", "not", "nor", "before", "after", "during", "must", "should"} & ALIGNMENT
    assert {"the", "which", "usually", "including"} <= ALIGNMENT


def test_topic_finder_reads_every_shared_cancer_head() -> None:
    assert find_topic("피부 흑색종은 어떻게 치료하나요?") == "흑색종"
    assert find_topic("다발성 골수종의 증상은?") == "골수종"
    assert find_topic("皮肤黑色素瘤怎么治疗？") == "皮肤黑色素瘤"
    assert find_topic("多发性骨髓瘤有哪些症状？") == "多发性骨髓瘤"
    assert find_topic("What are the symptoms of meningioma?") == "meningioma"


def test_facets_read_english_cancer_names_from_the_shared_heads() -> None:
    from criss_rag.lexicon import facets

    # single-word names whose suffix is a head: the facets' own copy of the heads missed these two
    assert facets.extract("What is meningioma?").cancer == ("meningioma",)
    assert facets.extract("How is ependymoma treated?").cancer == ("ependymoma",)
    assert facets.extract("Is a lipoma dangerous?").cancer == ()
