"""One organ table for every reader (criss_rag.lexicon.organs): the shared facets read everyday and
anatomical organ names as sites, the relevance check covers such a word by evidence naming the organ
otherwise, and the domain plugin reads which cancer is asked, leaving out an organ named only as a
landmark. The questions are the team's own, written apart from the evaluation sets."""

from __future__ import annotations

import pytest
from claim_fixtures import context

from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy, word_concepts
from criss_rag.lexicon.facets import extract, named_spans
from criss_rag_domain.asked import asked_types
from criss_rag_domain.intents import IntentLexicon, asked_part
from criss_rag_domain.lexicon import CancerLexicon

LEXICON = CancerLexicon.builtin()


@pytest.mark.parametrize(("text", "site"), [
    ("허파에 물이 찼어요", "lung"),
    ("큰창자 검사", "colon"),
    ("곧창자 출혈", "rectum"),
    ("밥통이 쓰려요", "stomach"),
    ("젖가슴 통증", "breast"),
    ("すい臓の検査", "pancreas"),
    ("腸の検査", "colon"),
    ("肺臓の病気", "lung"),
    ("腸子不舒服", "colon"),          # Traditional characters are read in their Simplified form
    ("pain in the large intestine", "colon"),
])
def test_everyday_and_anatomical_organ_names_are_sites(text, site):
    assert site in extract(text).site


def test_an_ambiguous_organ_word_is_the_organ_only_next_to_a_cancer_or_organ_word():
    assert "pancreas" in extract("이자에 생긴 암은 어떤가요").site
    assert "pancreas" in extract("이자라는 장기는 어디에 있나요").site
    assert "pancreas" not in extract("대출 이자가 얼마나 붙나요").site       # interest on a loan
    assert "stomach" in extract("위에 생긴 종양").site
    assert "stomach" not in extract("위 뒤쪽이 결려요").site                  # "above"/"behind the stomach"
    assert "breast" not in extract("胸が苦しいです").site                    # the chest
    assert "breast" in extract("胸にしこりがあります").site


def test_named_spans_say_which_words_name_what():
    spans = named_spans("이자에 생긴 암")
    assert (0, 2, "site:pancreas") in spans
    assert not named_spans("이자가 붙는 대출")


def test_removing_it_in_everyday_words_is_surgery():
    assert "surgery" in extract("간암은 어떻게 떼어낼 수 있나요").treatment
    assert "surgery" in extract("肝臓の腫瘍は取り除けますか").treatment
    assert "surgery" in extract("肝癌能切掉吗").treatment


# -- relevance -------------------------------------------------------------------------------------------


def test_an_everyday_organ_name_is_covered_by_evidence_naming_the_organ():
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    verdict = check.before("허파에 생긴 암은 어떤 종류로 나뉘나요?",
                           context("폐암은 비소세포폐암과 소세포폐암으로 나뉩니다."))
    assert "허파에" in verdict.covered, verdict
    assert word_concepts("허파에 생긴 암", [("허파에", {"허파"})])["허파에"] == {"site:lung"}


def test_a_word_is_read_in_its_sentence_for_what_it_names():
    words = [("이자", {"이자"}), ("대출", {"대출"})]
    assert word_concepts("이자 대출", words)["이자"] == set()
    assert word_concepts("이자에 생긴 암", [("이자에", {"이자"})])["이자에"] == {"site:pancreas"}


def test_a_japanese_compound_verb_is_one_word_covered_by_surgery():
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    words = [w for w, _ in check.question_words("肝臓の悪性腫瘍は、どうやって取り除くことができますか？")]
    assert "取り除" in words and "取" not in words, words
    verdict = check.before("肝臓の悪性腫瘍は、どうやって取り除くことができますか？",
                           context("肝がんの治療には手術、ラジオ波焼灼療法、肝動脈化学塞栓療法があります。"))
    assert verdict.relevant and "取り除" in verdict.covered, verdict


def test_words_that_place_or_frame_the_topic_need_no_covering():
    from pathlib import Path

    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    pipeline = Pipeline.from_file(
        Path(__file__).resolve().parents[1] / "examples" / "default.yaml", PluginHost(strict=True)
    )
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5),
                           pipeline.analyzer({"name": "kiwi"}, requested_by="generator").analyze)
    words = [w for w, _ in check.question_words("간 안에 생긴 암 때문에 어떤 종류의 치료를 받나요?")]
    assert not {"안에", "때문에", "종류의"} & set(words) and {"간", "치료를"} <= set(words), words
    words = [w for w, _ in check.question_words("간에 생긴 혹을 잘라 낼 수도 있나요?")]
    assert "수도" not in words, words  # 수 (may) + 도, read in its sentence; alone, 수도 is a capital city


# -- the cancer asked -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "expected"), [
    ("위 뒤에 있으면서 인슐린을 만드는 장기에 생긴 암은 어떤가요?", "pancreatic"),
    ("胃の裏にあってインスリンをつくる臓器のがんについて", "pancreatic"),
    ("インスリンをつくる、胃の裏にある臓器のがんについて", "pancreatic"),
    ("胃后面分泌胰岛素的器官长了肿瘤怎么办", "pancreatic"),
    ("a tumour of the organ behind the stomach that makes insulin", "pancreatic"),
    ("침묵의 장기라는 곳에 생긴 암은 왜 늦게 발견되나요?", "liver"),              # described by what it is called
    ("血糖を調節する臓器のがんはどう治療しますか", "pancreatic"),
])
def test_an_organ_named_only_as_a_landmark_is_not_the_cancer_asked(question, expected):
    assert asked_types(LEXICON, question) == [expected]


def test_a_landmark_organ_was_read_as_the_cancer_without_the_rule(monkeypatch):
    import criss_rag_domain.asked as asked

    monkeypatch.setattr(asked, "is_landmark", lambda text, start, end: False)
    question = "インスリンをつくる、胃の横にある臓器のがんについて"  # 胃の裏 is the pancreas's own description now
    assert asked_types(LEXICON, question) == ["gastric"]  # the organ nearest the cancer word


# -- the intent asked -----------------------------------------------------------------------------------


def test_a_cue_inside_a_condition_is_not_what_is_asked():
    intents = IntentLexicon({})
    assert intents.detect("간암 때문에 눈이 노래졌을 때는 무엇을 해 줄 수 있나요?") == ["treatment"]
    assert intents.detect("肝がんで黄疸が出たとき、何をしてもらえますか？") == ["treatment"]
    assert intents.detect("간암의 증상과 치료는?") == ["symptoms", "treatment"]  # no condition: both asked
    assert asked_part("간암의 증상은?") == "간암의 증상은?"


def test_what_can_be_done_for_the_patient_asks_about_treatment_what_the_organ_does_does_not():
    intents = IntentLexicon({})
    assert intents.detect("폐암이 뇌로 번지지 않게 할 수 있는 게 있나요?") == ["treatment"]
    assert intents.detect("膵臓がんで何をしてもらえますか") == ["treatment"]
    assert "treatment" not in intents.detect("すい臓はどこにあって何をしているのですか？")


def test_stages_and_biomarkers_split_into_several_words_are_named_by_their_span():
    """A segmenter cuts 0期 into 0 / 期 and PD-L1 into pd / l1; each piece names what the whole
    does, so English evidence saying "Stage 0" or "PD-L1" covers them."""
    spans = named_spans("乳腺癌0期和4期分别代表什么？")
    assert (3, 5, "stage:stage:0") in spans and (6, 8, "stage:stage:IV") in spans
    assert "biomarker:PDL1" in {c for _, _, c in named_spans("为什么要验EGFR和PD-L1？")}
    concepts = word_concepts("乳腺癌0期和4期分别代表什么？", [("0", {"0"}), ("期", {"期"})])
    assert concepts["0"] == {"stage:stage:0"} and "stage:stage:0" in concepts["期"]
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    evidence = context("Stage 0 breast cancer is carcinoma in situ. Stage IV has spread to distant organs.")
    assert check.before("What do the stages 0 and IV of breast cancer mean?", evidence).relevant


def test_limited_and_extensive_stage_are_read_in_every_language():
    for text in ("limited-stage small cell lung cancer", "소세포폐암 제한병기", "小細胞肺がんの限局型",
                 "小细胞肺癌局限期"):
        assert "limited-stage" in extract(text).disease, text
    for text in ("extensive stage", "확장병기", "小細胞肺がんの進展型", "廣泛期"):
        assert "extensive-stage" in extract(text).disease, text


def test_a_phrase_names_a_word_only_when_it_holds_most_of_the_word():
    """手術 (surgery) inside 手術費用 (surgery cost) does not make the cost covered by a surgery page;
    허파 names 허파에서, 三期 names the term 第三期."""
    assert word_concepts("肝がんの手術費用は？", [("手術費用", {"手術", "術費", "費用"})])["手術費用"] == set()
    assert word_concepts("肝がんの手術は？", [("手術", {"手術"})])["手術"] == {"treatment:surgery"}
    assert word_concepts("허파에서 생긴 암", [("허파에서", {"허파"})])["허파에서"] == {"site:lung"}
    assert "stage:stage:III" in word_concepts("大肠癌第三期", [("第三期", {"第三期"})])["第三期"]
