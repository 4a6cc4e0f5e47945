"""criss_rag.language.text: sentence splitting and script-based language detection."""

from __future__ import annotations

import pytest

from criss_rag.language.text import detect_language, split_sentences

# -- split_sentences: English --------------------------------------------------------------------


def test_english_sentences_split_at_terminal_punctuation():
    text = "Is surgery possible? Yes! Most early tumours can be removed."
    assert split_sentences(text) == ["Is surgery possible?", "Yes!", "Most early tumours can be removed."]


def test_abbreviation_eg_does_not_end_a_sentence():
    text = "Some drugs, e.g. cisplatin, damage the DNA of cancer cells. Others block their blood supply."
    assert split_sentences(text) == [
        "Some drugs, e.g. cisplatin, damage the DNA of cancer cells.",
        "Others block their blood supply.",
    ]


@pytest.mark.parametrize("abbreviation", ["Dr.", "Mr.", "Mrs.", "Ms.", "i.e.", "vs.", "Fig."])
def test_common_abbreviations_do_not_end_a_sentence(abbreviation):
    text = f"The report cites {abbreviation} Lee about chemotherapy. A second opinion followed."
    assert split_sentences(text) == [
        f"The report cites {abbreviation} Lee about chemotherapy.",
        "A second opinion followed.",
    ]


def test_title_at_sentence_start():
    text = "Dr. Park reviewed the biopsy. The result was benign."
    assert split_sentences(text) == ["Dr. Park reviewed the biopsy.", "The result was benign."]


def test_decimals_are_not_boundaries():
    text = "The tumour measured 2.5 cm across. A PSA level above 4.0 ng/mL needs follow-up."
    assert split_sentences(text) == [
        "The tumour measured 2.5 cm across.",
        "A PSA level above 4.0 ng/mL needs follow-up.",
    ]


def test_single_capital_before_a_period_ends_the_sentence():
    # medical text ends sentences with "hepatitis B." far more often than it uses initials
    text = "The main cause is hepatitis B. Vaccination prevents it. Vitamin D. Sunlight helps."
    assert split_sentences(text) == [
        "The main cause is hepatitis B.",
        "Vaccination prevents it.",
        "Vitamin D.",
        "Sunlight helps.",
    ]


def test_et_al_is_not_a_boundary():
    text = "Kim et al. reported fewer relapses after radiotherapy. The effect was small."
    assert split_sentences(text) == [
        "Kim et al. reported fewer relapses after radiotherapy.",
        "The effect was small.",
    ]


def test_abbreviation_at_the_very_end_closes_the_sentence():
    assert split_sentences("Ask about scans, blood tests, etc.") == ["Ask about scans, blood tests, etc."]


def test_closing_quote_and_bracket_stay_with_their_sentence():
    text = 'The nurse said "rest well." (Drink plenty of water.) Then the visit ended.'
    assert split_sentences(text) == [
        'The nurse said "rest well."',
        "(Drink plenty of water.)",
        "Then the visit ended.",
    ]


def test_bullets_and_numbered_items_are_sentences():
    text = "Common side effects include:\n- nausea\n* hair loss\n• tiredness\n1. Rest often.\n2) Drink water"
    assert split_sentences(text) == [
        "Common side effects include:",
        "nausea",
        "hair loss",
        "tiredness",
        "Rest often.",
        "Drink water",
    ]


def test_blank_line_ends_a_sentence_without_punctuation():
    text = "Treatment options\n\nSurgery removes the tumour and some healthy tissue around it"
    assert split_sentences(text) == [
        "Treatment options",
        "Surgery removes the tumour and some healthy tissue around it",
    ]


def test_single_line_break_does_not_end_a_sentence_and_whitespace_is_normalised():
    text = "Radiotherapy uses high-energy\n   rays to destroy cancer cells.   It is painless."
    assert split_sentences(text) == ["Radiotherapy uses high-energy rays to destroy cancer cells.", "It is painless."]


def test_period_without_following_space_is_not_a_boundary():
    assert split_sentences("See www.cancer.example for help.") == ["See www.cancer.example for help."]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\n", " \n \n "])
def test_empty_input_gives_no_sentences(text):
    assert split_sentences(text) == []


def test_no_sentence_is_lost_or_altered():
    text = "Screening saves lives. Mammography finds small tumours! Are you due for one? Ask Dr. Choi."
    sentences = split_sentences(text)
    assert " ".join(sentences) == text
    assert len(sentences) == 4


# -- split_sentences: Korean, Japanese, Chinese ----------------------------------------------------


def test_korean_sentences():
    text = "위암은 위의 점막에서 시작됩니다. 치료 방법은 무엇인가요? 초기에는 수술이 가장 흔합니다."
    assert split_sentences(text) == [
        "위암은 위의 점막에서 시작됩니다.",
        "치료 방법은 무엇인가요?",
        "초기에는 수술이 가장 흔합니다.",
    ]


def test_korean_question_and_exclamation_endings():
    text = "검진은 언제 받아야 하나요? 매년 받는 것이 좋아요! 의사와 상의하세요."
    assert split_sentences(text) == ["검진은 언제 받아야 하나요?", "매년 받는 것이 좋아요!", "의사와 상의하세요."]


def test_japanese_sentences_split_without_spaces():
    text = "胃がんは胃の粘膜から発生します。早期なら治ることが多いです！検診を受けましたか？"
    assert split_sentences(text) == [
        "胃がんは胃の粘膜から発生します。",
        "早期なら治ることが多いです！",
        "検診を受けましたか？",
    ]


def test_japanese_closing_bracket_stays_with_its_sentence():
    text = "医師は「早期発見が大切です。」と言いました。「検査を受けてください。」次に予約をしました。"
    sentences = split_sentences(text)
    assert "「検査を受けてください。」" in sentences
    assert sentences[-1] == "次に予約をしました。"
    assert not any(s.startswith("」") for s in sentences)
    assert "".join(sentences) == text


def test_chinese_sentences():
    text = "肝癌是常见的癌症。早期发现非常重要！你需要定期检查吗？"
    assert split_sentences(text) == ["肝癌是常见的癌症。", "早期发现非常重要！", "你需要定期检查吗？"]


def test_cjk_full_stop_followed_by_space():
    text = "肺がんは喫煙と関係があります。 禁煙が予防になります。"
    assert split_sentences(text) == ["肺がんは喫煙と関係があります。", "禁煙が予防になります。"]


def test_mixed_language_text():
    text = (
        "Liver cancer (HCC) is common in East Asia. 간암은 한국에서 흔합니다. 肝臓がんは日本でも多いです。肝癌很常见。"
    )
    assert split_sentences(text) == [
        "Liver cancer (HCC) is common in East Asia.",
        "간암은 한국에서 흔합니다.",
        "肝臓がんは日本でも多いです。",
        "肝癌很常见。",
    ]


def test_english_decimal_inside_korean_sentence():
    text = "종양의 크기는 2.5 cm였습니다. 전이는 없었습니다."
    assert split_sentences(text) == ["종양의 크기는 2.5 cm였습니다.", "전이는 없었습니다."]


# -- detect_language ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("위암의 치료 방법은 무엇인가요?", "ko"),
        ("간암은 어떻게 진단하나요?", "ko"),
        ("胃がんの治療法は何ですか？", "ja"),
        ("抗がん剤の副作用について教えてください", "ja"),
        ("カテーテル", "ja"),  # katakana only
        ("胃癌的治疗方法是什么？", "zh"),
        ("肝癌", "zh"),
        ("What is the treatment for stomach cancer?", "en"),
        ("Qu'est-ce que le cancer?", "en"),  # any other Latin text falls back to en
        ("", "en"),
        ("   ", "en"),
        ("12345 !?", "en"),
    ],
)
def test_detect_language(text, language):
    assert detect_language(text) == language


def test_detect_language_mixed_korean_with_latin_and_han():
    # Hangul outnumbering Han makes it Korean, whatever Latin words appear
    assert detect_language("HER2 양성 유방암 (乳房癌) 치료는 어떻게 하나요?") == "ko"
    assert detect_language("MRI 검사") == "ko"


def test_detect_language_kana_wins_over_kanji_and_latin():
    assert detect_language("MRI検査の前に食事をしてもいいですか") == "ja"
    assert detect_language("胃癌はがんの一種") == "ja"  # mostly kanji, but kana present


def test_detect_language_han_versus_latin():
    # a few Han characters in a long English sentence stay English; Han-heavy text is Chinese
    assert detect_language("The word 肝癌 means liver cancer in written Chinese") == "en"
    assert detect_language("肝癌 HCC 治疗") == "zh"


def test_answer_pieces_cut_the_text_for_display_and_point_at_the_sentence_verdicts():
    from criss_rag.answering.sentence_check import answer_pieces, answer_sentences

    text = (
        "Here is what the sources say:\n간암은 간세포에서 시작됩니다. [1] Hepatitis B raises the risk [2].\n[3]\n"
        "## Notes\n肺がんは喫煙と関係します。[1]"
    )
    pieces = answer_pieces(text)
    claims = answer_sentences(text)
    assert [p for p, i in pieces if i is None and p.strip()] == ["Here is what the sources say:", "## Notes\n"]
    by_claim = {}
    for piece, claim in pieces:
        if claim is not None:
            by_claim.setdefault(claim, []).append(piece)
    assert len(by_claim) == len(claims) == 3
    assert by_claim[0] == ["간암은 간세포에서 시작됩니다 [1]."]  # the marker moved in front of the stop
    assert by_claim[1] == ["Hepatitis B raises the risk [2].", "[3]"]  # a lone marker belongs to the sentence before
    assert claims[1] == ("Hepatitis B raises the risk.", [2, 3])
    assert by_claim[2] == ["肺がんは喫煙と関係します [1]。"]
    assert "".join(p for p, _ in pieces).count("\n") == text.count("\n")


def test_list_items_are_sentences_of_their_own_in_four_languages():
    """Bullets and numbers as each language writes them; an item ends at its line unless the next
    line is indented (a wrapped item); the text after the list is not glued to the last item."""
    from criss_rag.language.text import split_sentences

    assert split_sentences("Symptoms:\n- pain in the abdomen\n- a lump under the ribs\nSee a doctor soon.") == [
        "Symptoms:", "pain in the abdomen", "a lump under the ribs", "See a doctor soon."]
    assert split_sentences("증상:\n• 오른쪽 윗배의 통증\n· 황달\n가. 체중 감소\n병원에 가세요.") == [
        "증상:", "오른쪽 윗배의 통증", "황달", "체중 감소", "병원에 가세요."]
    assert split_sentences("症状：\n・腹痛\n・黄疸\n① 体重減少\n受診してください。") == [
        "症状：", "腹痛", "黄疸", "体重減少", "受診してください。"]
    assert split_sentences("症状包括：\n1、腹痛\n2、黄疸\n（3）体重下降\n请尽早就医。") == [
        "症状包括：", "腹痛", "黄疸", "体重下降", "请尽早就医。"]
    assert split_sentences("Steps:\n1. Surgery removes\n   the tumour.\n2) Ablation heats it.\nDone.") == [
        "Steps:", "Surgery removes the tumour.", "Ablation heats it.", "Done."]
    # not items: a minus sign, a line that merely goes on
    assert split_sentences("It fell to -5 degrees. The next line\ngoes on here.") == [
        "It fell to -5 degrees.", "The next line goes on here."]
