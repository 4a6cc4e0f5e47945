"""Paraphrases written by others (issue 25, items 1 and 5): a cancer named in everyday words, an
organ taken out or screened, a tumour kind named with its organ, symptoms asked as what is treated;
the relevance check reading a question's point (dependent nouns, Japanese verb stems, family and
place words, a compound built on a word) and refusing a cancer it cannot place when the evidence
is on an organ the question's language names. The questions are the team's own, written apart
from the evaluation sets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from claim_fixtures import context

from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy
from criss_rag_domain.asked import asked_types
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.lexicon import CancerLexicon

LEXICON = CancerLexicon.builtin()
ROOT = Path(__file__).resolve().parents[1]


# -- the cancer asked ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("question", "expected"), [
    ("젖꼭지에서 피가 나와요 혹시 나쁜 병일까요?", "breast"),                # a bad illness: a cancer
    ("허파에 안 좋은 덩어리가 있다는데 어떡하죠", "lung"),
    ("肝臓に悪いできものがあると言われました", "liver"),
    ("肺上长了不好的东西怎么办", "lung"),
    ("대장 검진은 몇 살부터 받나요?", "colorectal"),                          # screening an organ: its cancer
    ("肺の検診はどのくらいの間隔で受けますか", "lung"),
    ("乳房にしこりがあります", "breast"),                                      # a lump, as 혹 is
    ("수술할 때 가슴을 전부 잘라 내야 하나요?", "breast"),                    # taken out: the organ, not the chest
    ("胸を全部とる手術しかないですか", "breast"),
    ("위 뒤쪽에 있는 장기에 암이 생기면 어떻게 되나요?", "pancreatic"),       # behind the stomach: the pancreas
    ("胃の後ろにある臓器のがんの治療法", "pancreatic"),
])
def test_a_cancer_in_everyday_words_is_read(question, expected):
    assert asked_types(LEXICON, question) == [expected]


@pytest.mark.parametrize("question", ["가슴이 답답하고 숨이 차요", "胸が痛いです", "오늘 기분이 나쁜 이유"])
def test_the_chest_and_a_bad_mood_are_not_a_cancer(question):
    assert asked_types(LEXICON, question) == []


def test_a_tumour_kind_named_with_its_organ_asks_about_the_organ_cancer_too():
    assert "pancreatic" in asked_types(LEXICON, "위 뒤에 있는 장기에 생긴 신경내분비종양은 무엇인가요?")
    assert "pancreatic" in asked_types(LEXICON, "すい臓の神経内分泌腫瘍の治療")
    # a subtype of the organ's own cancer adds nothing: non-small cell lung cancer is lung cancer
    assert "lung" not in asked_types(LEXICON, "Which drugs treat non-small cell lung cancer?")


# -- the intent asked -------------------------------------------------------------------------------------


@pytest.mark.parametrize("question", [
    "췌장암인데 통증은 어떻게 잡아 주나요?",          # symptoms as what is treated
    "しこりだけ切ることはできますか",
    "乳房を切ったあと再建はできますか",
    "가슴을 도려내는 수술 말고는 없나요?",
])
def test_cutting_out_rebuilding_and_relieving_ask_about_treatment(question):
    assert IntentLexicon().detect(question) == ["treatment"]


def test_symptoms_listed_with_treatment_are_both_asked():
    assert IntentLexicon().detect("간암의 증상과 치료는?") == ["symptoms", "treatment"]
    assert IntentLexicon().detect("膵臓がんの症状と治療") == ["symptoms", "treatment"]


def test_the_korean_and_japanese_overviews_answer_who_gets_it_in_the_default_pipeline():
    config = yaml.safe_load((ROOT / "examples" / "default.yaml").read_text(encoding="utf-8"))
    sections = next(r for r in config["rerankers"] if r.get("label") == "section-intent")["sections"]
    assert {"개요", "概要"} <= set(sections["risk"]) and {"개요", "概要"} <= set(sections["causes"])
    assert "概述" not in sections["risk"]  # the Chinese sets judge the English risk page the answer


# -- relevance: the question's point ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def kiwi_check():
    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost(strict=True))
    analyzer = pipeline.analyzer({"name": "kiwi"}, requested_by="generator")
    return RelevanceCheck(RelevancePolicy(min_coverage=0.5), analyzer.analyze)


def test_dependent_nouns_and_loose_jamo_are_not_content_words(kiwi_check):
    words = [w for w, _ in kiwi_check.question_words("폐암은 어떻게 생기는 거예요? 수술 몇 주 뒤에 그래요ㅠㅠ")]
    assert "거예요" not in words and not any("ㅠ" in w for w in words), words  # 거: a formal dependent noun
    assert "주" in words, words  # a unit (몇 주 뒤, weeks after) may be what is asked
    assert "폐암은" in words, words


def test_family_and_place_words_need_no_covering(kiwi_check):
    words = [w for w, _ in kiwi_check.question_words("아버지가 오른쪽 옆구리가 아프대요 간암 증상인가요?")]
    assert "아버지가" not in words and "오른쪽" not in words, words


def test_a_word_is_covered_by_a_compound_built_on_it(kiwi_check):
    verdict = kiwi_check.before("당뇨가 갑자기 생기면 췌장 검사를 받아야 하나요?",
                                context("췌장 검사는 당뇨병이 새로 생긴 사람에게 권합니다."))
    assert "당뇨가" in verdict.covered, verdict


def test_hearsay_and_comparison_need_no_covering_but_a_person_and_an_activity_do():
    terms = ("肝臓", "手術", "聞", "違", "人", "温泉", "入", "日", "車")
    # a word's terms: itself when it is one (an ignore word such as 有人 is not read as 人 here)
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5), analyze=lambda text: [
        t for t in terms if t in text] if len(text) > 2 or text in terms else [])
    words = [w for w, _ in check.question_words("肝臓の手術は違うと聞いた")]
    assert words == ["肝臓", "手術"], words
    words = [w for w, _ in check.question_words("肝臓がんは人にうつりますか、温泉に入ってもいいですか")]
    assert {"人", "温泉", "入"} <= set(words), words
    # the day (a time word, as 時 is) frames the question; the car is its point
    assert [w for w, _ in check.question_words("手術の日に車で帰れますか")] == ["手術", "車"]


def test_a_cancer_the_lexicon_cannot_place_is_refused_across_languages():
    """Across languages, deny by default: a Chinese question about a cancer the lexicon cannot place
    cannot be shown to be about the English evidence's cancer, whatever organ or tissue the evidence
    is on (the price: a rare cancer asked in words the lexicon lacks is refused over its own page)."""
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    question = "听说广东人容易得鼻咽癌，要查什么抗体？"
    pancreas = check.before(question, context("Smoking is the main risk factor for pancreatic cancer."))
    assert not pancreas.relevant and "across languages" in pancreas.checked, pancreas
    # whatever else it asks: a test the evidence names too does not make it about the cervix
    tested = check.before("宫颈癌要做什么检查？CT有用吗",
                          context("A CT scan checks whether colorectal cancer has spread."))
    assert not tested.relevant and "宫颈癌" in tested.missing, tested
    skin = check.before("默克尔细胞癌会遗传吗？", context("Merkel cell carcinoma is a rare cancer of the skin."))
    assert not skin.relevant, skin


def test_likely_to_arise_asks_who_gets_it():
    assert IntentLexicon().detect("담배를 안 피워도 폐암이 잘 생기나요?") == ["risk"]
    assert IntentLexicon().detect("どんな人が胃がんになりやすい？") == ["risk"]


def test_a_chinese_count_and_its_unit_are_not_content_words():
    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost(strict=True))
    terms = pipeline.analyzer({"name": "jieba"}, requested_by="generator").analyze(
        "咳嗽超过三个礼拜了，抽烟抽了三十年，肺癌第三期，五年生存率")
    assert not {"三个", "礼拜", "三十年", "五年"} & set(terms), terms
    assert {"咳嗽", "抽烟", "第三期", "生存率"} <= set(terms), terms


def test_a_second_cancer_named_by_its_organ_is_asked_too_but_not_where_a_cancer_began():
    # the colon's cancer, and one that arose in the liver
    assert asked_types(LEXICON, "腸のがんが肝臓に飛んだものと、肝臓にできたがんは違いますか") == ["colorectal", "liver"]
    # where a cancer began, when it spread to the liver: the liver cancer is asked, not also the colon's
    assert asked_types(LEXICON, "대장에서 생긴 암이 간으로 옮겨 가도 간암인가요?") == ["liver"]


@pytest.mark.parametrize("question", ["용종이 암으로 바뀌나요?", "胃のポリープはがんになるの？",
                                      "Can a polyp turn into cancer?"])
def test_turning_into_cancer_asks_how_it_arises(question):
    assert IntentLexicon().detect(question) == ["causes"]
