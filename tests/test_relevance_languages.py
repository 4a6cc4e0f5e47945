"""The relevance policy per question language, and across languages (criss_rag.answering.relevance)."""

import pytest
from claim_fixtures import context
from pydantic import ValidationError

from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy


def test_a_threshold_per_question_language():
    check = RelevanceCheck(RelevancePolicy(min_coverage={"en": 0.9, "ko": 0.2, "ja": 0.2, "zh": 0.2}, analyzer=None))
    korean = check.before("간암 수술 후 회복 기간과 음식은?", context("간암 수술 후 회복에는 몇 주가 걸립니다."))
    assert korean.threshold == 0.2 and korean.relevant, korean
    english = check.before(
        "How long is recovery after liver surgery and what food helps?",
        context("Recovery after liver surgery takes a few weeks."),
    )
    assert english.threshold == 0.9 and not english.relevant, english


def test_a_per_language_mapping_names_every_language():
    with pytest.raises(ValidationError, match="missing: ja, zh"):
        RelevancePolicy(min_coverage={"en": 0.5, "ko": 0.4})
    with pytest.raises(ValidationError, match="between 0 and 1"):
        RelevancePolicy(min_coverage={"en": 1.5, "ko": 0.4, "ja": 0.4, "zh": 0.4})


def test_evidence_in_another_language_is_compared_through_the_lexicon(kiwi_check):
    check = kiwi_check  # Korean read as the default pipeline reads it (무엇인가요 is no content word)
    evidence = context("Signs and symptoms of lung cancer include a cough that does not go away and chest pain.")
    symptoms = check.before("폐암의 증상은 무엇인가요?", evidence)  # lung cancer + symptoms: both named
    assert symptoms.relevant and "across languages" in symptoms.checked, symptoms
    assert symptoms.covered == ["site:lung", "증상은"]  # the cancer, then the point's words
    other_site = check.before("간암의 증상은 무엇인가요?", evidence)  # liver cancer: the evidence is about the lung
    assert not other_site.relevant and "site:liver" in other_site.missing, other_site
    same_language = check.before("면도기를 같이 쓰면 암이 옮나요?", context("간암은 간에 생기는 암입니다."))
    assert not same_language.relevant and same_language.checked == "evidence"


def test_across_languages_a_point_the_lexicon_cannot_read_is_not_shown_covered():
    """Deny by default: words the lexicon does not know cannot be compared with English evidence."""
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    evidence = context("Liver cancer is a disease in which malignant cells form in the tissues of the liver.")
    contagious = check.before("肝癌会传染吗？", evidence)  # is liver cancer contagious?
    assert not contagious.relevant and contagious.focus and contagious.focus_score == 0.0, contagious
    heart = check.before("左胸有时候像有凉水流过一样，是心脏病吗", evidence)  # a heart question names nothing known
    assert not heart.relevant and heart.score == 0.0, heart


def test_the_cancer_name_alone_does_not_make_an_answer_on_topic():
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    evidence = context(
        "Liver cancer starts in the liver. Hepatitis B and C infections raise the risk of liver cancer.",
        "Symptoms of liver cancer include pain in the upper right abdomen and yellow skin.",
    )
    contagious = check.before("Is liver cancer contagious?", evidence)
    assert contagious.score == 0.5 and contagious.focus == ["contagious"] and not contagious.relevant, contagious
    symptoms = check.before("What are the symptoms of liver cancer?", evidence)
    assert symptoms.relevant and symptoms.focus == ["symptoms"], symptoms
    korean = check.before(
        "간암은 전염되나요?", context("간암은 간에서 시작되는 암입니다. B형 간염은 간암의 위험을 높입니다.")
    )
    assert not korean.relevant and korean.focus == ["전염되나요"], korean


def test_each_language_is_read_by_the_question_language_analyzer():
    """With an analyzer per language (`auto`), the question and its evidence are read the way the
    question's language is read: a Chinese question by its Chinese analyzer, whatever script the
    evidence's lines look like."""
    calls: list[str] = []

    class Words:
        def __init__(self, language: str) -> None:
            self.language = language

        def analyze(self, text: str) -> list[str]:
            calls.append(self.language)
            return [w for w in ("肝癌", "传染", "症状") if w in text]

    check = RelevanceCheck(
        RelevancePolicy(min_coverage=0.5, analyzer=None), analyze=lambda text: text.split(), analyzer_for=Words
    )
    verdict = check.before("肝癌的症状是什么？", context("肝癌的症状包括腹痛。"))
    assert verdict.relevant and verdict.covered == ["肝癌", "症状"], verdict
    assert set(calls) == {"zh"}


# -- paraphrases: concepts of the shared lexicon, and Chinese words a segmenter splits -----------------


def default_pipeline_check(analyzer: str) -> RelevanceCheck:
    """The relevance check reading text with ``analyzer``, as the default pipeline does."""
    from pathlib import Path

    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    pipeline = Pipeline.from_file(
        Path(__file__).resolve().parents[1] / "examples" / "default.yaml", PluginHost(strict=True)
    )
    return RelevanceCheck(RelevancePolicy(min_coverage=0.5),
                          pipeline.analyzer({"name": analyzer}, requested_by="generator").analyze)


@pytest.fixture(scope="module")
def jieba_check():
    """Chinese read with jieba."""
    return default_pipeline_check("jieba")


@pytest.fixture(scope="module")
def kiwi_check():
    """Korean read with kiwi."""
    return default_pipeline_check("kiwi")


def test_a_word_is_covered_by_a_lexicon_concept_the_evidence_names_in_other_words(jieba_check):
    """Mixed evidence (a Chinese page and an English one): 第三期 is covered by "Stage III", 钼靶 by
    "mammography"; a point no concept reads (传染, contagious) still is not."""
    check = jieba_check
    evidence = context(
        "大肠癌是从大肠黏膜长出的恶性肿瘤。",
        "Stage III colorectal cancer has spread to nearby lymph nodes; stage IV has spread to the liver or lungs.",
    )
    staged = check.before("大肠癌第三期和第四期差在哪里？", evidence)
    assert staged.relevant and {"第三期", "第四期"} <= set(staged.covered), staged
    screened = check.before(
        "乳腺癌筛查做钼靶够吗？",
        context("乳腺癌是乳房的恶性肿瘤。", "Mammography is the main screening test for breast cancer."),
    )
    assert any("钼" in w for w in screened.covered), screened
    contagious = check.before("大肠癌会传染吗？", evidence)
    assert not contagious.relevant and "传染" in contagious.missing, contagious


def test_without_the_lexicon_concepts_those_words_stay_uncovered(monkeypatch, jieba_check):
    import criss_rag.answering.relevance as relevance

    monkeypatch.setattr(relevance, "word_concepts", lambda question, words: {})
    check = jieba_check
    evidence = context(
        "大肠癌是从大肠黏膜长出的恶性肿瘤。",
        "Stage III colorectal cancer has spread to nearby lymph nodes; stage IV has spread to the liver or lungs.",
    )
    assert not check.before("大肠癌第三期和第四期差在哪里？", evidence).relevant


def test_a_run_of_one_character_chinese_terms_is_one_word():
    from criss_rag.answering.relevance import _chinese_words

    assert _chinese_words([("直肠癌手术后要挂粪袋吗", ["直肠癌", "手术", "挂", "粪", "袋"]),
                           ("造口怎么护理", ["造", "口", "护理"])]) == [
        ("直肠癌", {"直肠癌"}),
        ("手术", {"手术"}),
        ("挂粪袋", {"挂", "粪", "袋"}),
        ("造口", {"造", "口"}),
        ("护理", {"护理"}),
    ]
    assert _chinese_words([("肝癌会传染吗", ["肝癌", "传染"]), ("肝癌", ["肝癌"])]) == [
        ("肝癌", {"肝癌"}), ("传染", {"传染"})]  # each word once


def test_characters_with_a_dropped_word_between_them_are_two_words():
    from criss_rag.answering.relevance import _chinese_words

    # 了个 (dropped as function words) stands between 长 and 瘤: "grows a tumour", not one word 胰尾长瘤
    assert _chinese_words([("胰尾长了个瘤", ["胰尾", "长", "瘤"])]) == [
        ("胰尾", {"胰尾"}), ("长", {"长"}), ("瘤", {"瘤"})]
    assert _chinese_words([("瘦了快十公斤", ["瘦", "快", "公斤"])]) == [
        ("瘦", {"瘦"}), ("快", {"快"}), ("公斤", {"公斤"})]


def test_a_malignant_tumour_names_cancer_in_general():
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    words = [w for w, _ in check.question_words("膵臓にできた悪性腫瘍の治療は？")]
    assert "悪性腫瘍" not in words and any("治療" in w for w in words), words


def test_a_word_read_as_single_chinese_characters_needs_every_character():
    from criss_rag.answering.relevance import _terms_covered

    assert _terms_covered({"造", "口"}, {"造", "口", "手术"})  # 造口: a word jieba does not know
    assert not _terms_covered({"猫", "吃"}, {"吃", "饭"})  # half of 猫吃 is 吃, which any text about eating has
    assert _terms_covered({"大肠", "肠癌"}, {"大肠"})  # bigrams: half is enough


def test_the_cancer_a_question_names_must_be_the_evidence_s_cancer():
    """Deny by default: evidence about the symptoms of other cancers does not answer a question about
    the symptoms of a cancer it never names, in the question's language or across languages."""
    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    symptoms = context("Early pancreatic cancer usually causes no symptoms.", "Early lung cancer has no symptoms.")
    assert not check.before("What are the early symptoms of ovarian cancer?", symptoms).relevant
    assert check.before("What are the early symptoms of pancreatic cancer?", symptoms).relevant
    korean = context("췌장암은 초기에 증상이 거의 없습니다.", "폐암도 초기 증상이 뚜렷하지 않습니다.")
    other = check.before("난소암은 초기에 어떤 증상이 나타나나요?", korean)
    assert not other.relevant and "난소암은" in other.missing, other
    assert check.before("췌장암은 초기에 어떤 증상이 나타나나요?", korean).relevant
    chinese = context("胰腺癌早期通常没有症状。", "早期肺癌通常没有症状。")
    assert not check.before("鼻咽癌早期有什么症状？", chinese).relevant
    assert check.before("胰腺癌早期有什么症状？", chinese).relevant
    # across languages, a cancer the lexicon cannot place cannot be shown to be the evidence's
    unplaced = check.before("鼻咽癌早期有什么症状？", symptoms)
    assert not unplaced.relevant and "across languages" in unplaced.checked, unplaced


def test_across_languages_words_the_lexicon_cannot_read_are_part_of_the_point(kiwi_check):
    """Deny by default: English evidence on prostate surgery does not answer what robotic surgery
    costs; the cost is a word the lexicon cannot read, so it is never shown covered."""
    evidence = context("Radical prostatectomy is surgery to remove the prostate and the tissue around it.")
    how = kiwi_check.before("전립선암 수술은 어떻게 하나요?", evidence)
    assert how.relevant and "across languages" in how.checked, how
    cost = kiwi_check.before("전립선암 수술 비용은 얼마인가요?", evidence)
    assert not cost.relevant and "비용은" in cost.missing and "비용은" in cost.focus, cost
    # one word counts once, whatever it names (수술: surgery, and treatment)
    assert cost.covered == ["site:prostate", "수술"], cost


def test_a_cancer_named_by_its_tissue_is_placed_in_every_language(kiwi_check):
    """Leukaemias, lymphomas, sarcomas, myelomas, melanomas, mesotheliomas and gliomas arise in a
    tissue, not an organ: the lexicon names each family alike in every language, so a question about
    one can be shown to be about English evidence on it, and not about evidence on another cancer."""
    from criss_rag.lexicon.facets import extract

    for text in ("hairy cell leukaemia", "털세포 백혈병", "ヘアリーセル白血病", "毛细胞白血病"):
        assert "leukemia" in extract(text).subtype, text
    for text in ("rhabdomyosarcoma", "횡문근육종", "横紋筋肉腫とは", "横纹肌肉瘤"):
        assert "sarcoma" in extract(text).subtype, text
    check = kiwi_check  # Korean read as the default pipeline reads it (어떤가요 is no content word)
    leukemia = context("The prognosis of hairy cell leukemia depends on the blood counts and the spleen.")
    placed = check.before("털세포 백혈병의 예후는 어떤가요?", leukemia)
    assert placed.relevant and "subtype:leukemia" in placed.covered, placed
    liver = context("The prognosis of liver cancer depends on the stage and how well the liver works.")
    other = check.before("털세포 백혈병의 예후는 어떤가요?", liver)
    assert not other.relevant and "subtype:leukemia" in other.missing, other


def test_an_answer_quoted_from_another_language_only_is_checked_across_languages():
    """A mixed context (an English staging page first, a Korean overview after): the answer quoted
    from the English page alone is checked through the lexicon, not by Korean words it cannot share."""
    from criss_rag.types import SentenceSupport

    check = RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None))
    mixed = context("Stomach cancer is diagnosed with an upper endoscopy and a biopsy.", "위암은 위에 생기는 암입니다.")
    english = SentenceSupport(text="Stomach cancer is diagnosed with an upper endoscopy and a biopsy.", cited=[1],
                              supported=True, evidence=1)
    diagnosis = check.after("위암 진단은 어떻게 하나요?", [english], mixed)
    assert diagnosis.relevant and "across languages" in diagnosis.checked, diagnosis
    # deny by default: a point the lexicon cannot read is not covered by an English quote
    contagious = check.after("위암은 옮나요?", [english], mixed)
    assert not contagious.relevant and "across languages" in contagious.checked, contagious
    korean = SentenceSupport(text="위암은 위에 생기는 암입니다.", cited=[2], supported=True, evidence=2)
    assert check.after("위암 진단은 어떻게 하나요?", [korean], mixed).checked == "answer"  # compared by words


def test_a_topic_word_is_covered_by_the_title_of_a_page_in_another_language(jieba_check):
    """分期 (staging) is what the English page "Stomach cancer: staging" is about, though its text
    never writes the word; a word naming a thing as well as a topic (陽子線治療: proton therapy) is
    not covered by the topic its page is filed under, nor is a topic no page is titled with."""
    from llama_index.core.schema import NodeWithScore

    from criss_rag.types import Context, Evidence, Hit, text_node

    def titled(*pages: tuple[str, str]) -> Context:
        return Context(tuple(Evidence(n, Hit(NodeWithScore(node=text_node(f"d{n}", text, title=title), score=1.0)),
                                      text) for n, (title, text) in enumerate(pages, 1)), "")

    evidence = titled(("胃癌：概述", "胃癌是由胃黏膜细胞发生的恶性肿瘤。"),
                      ("Stomach cancer: staging", "Early gastric cancer is limited to the inner layers of the wall."))
    staged = jieba_check.before("胃癌分期主要看啥？", evidence)
    assert staged.relevant and "分期" in staged.covered, staged
    prevented = jieba_check.before("胃癌怎么预防？", evidence)
    assert not prevented.relevant and "预防" in prevented.missing, prevented



def test_counts_are_not_what_a_korean_or_japanese_question_asks():
    """A number and the unit counted with it (두 달, 5kg, 30대, 28歳) say how long or how much, not
    what is asked; a stage number is kept, and so is a count the question asks for (몇 개월)."""
    from criss_rag.answering.relevance import _without_counts

    assert _without_counts("30대 후반인데 두 달 새 살이 5kg 빠졌어요") == ["후반인데", "새", "살이", "빠졌어요"]
    assert _without_counts("ここ数週間、体重が減りました（28歳）") == ["体重", "減"]
    assert _without_counts("폐암 4기 뇌전이") == ["폐암", "4", "기", "뇌전이"]
    assert "개월" in _without_counts("췌장암 4기인데 앞으로 몇 개월 남았을까요?")
    assert "열" in _without_counts("항암 치료 중에 열 나면 어떻게 해요?")  # a fever, not the number ten
    assert _without_counts("what is the 5 year survival rate") == ["what", "is", "the", "5", "year", "survival", "rate"]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("抗がん剤治療中に熱が出たら", {"timing:during"}),  # 中 as a suffix: during
        ("国立がん研究センター中央病院", set()),  # an institution's name: no research, no "during" in 中央
        ("治療中止", set()),  # stopping treatment is no time
        ("研究中心的医生", set()),
        ("연구소", set()),
        ("臨床研究に参加できますか", {"aspect:research"}),
    ],
)
def test_an_institutions_name_and_a_compound_are_not_read_as_research_or_a_time(text, named):
    from criss_rag.lexicon.concepts import concepts_named

    assert {c for c in concepts_named(text) if c.startswith(("timing:", "aspect:research"))} == named
