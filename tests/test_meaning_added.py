"""The sentence check on an answer sentence that restates a passage sentence and adds a clause of
its own, and the readings that keep faithful restatements from being taken for edits: a short piece
cut off at "or" belongs to its clause, a range said without "about" is the passage's "about" range,
有無 ("whether or not") negates nothing, ほど after a counted number is "about", and hedge words
are not content."""

from __future__ import annotations

from claim_fixtures import judge

from criss_rag.answering.meaning_check import clauses
from criss_rag.lexicon.directions import stronger
from criss_rag.lexicon.negation import negation_count
from criss_rag.lexicon.quantities import Quantity, same_quantity
from criss_rag.lexicon.terms import content_terms

HORMONE = "Hormone therapy is usually taken for five years after surgery. Hot flushes are a common side effect."
KO_FATIGUE = "방사선 치료를 받는 동안 피로감이 흔하다. 피로는 대개 치료가 끝나고 몇 주 안에 회복된다."
ZH_SCAN = "肺癌高危人群建议每年做一次低剂量螺旋CT检查。吸烟者的风险更高。"


def test_a_clause_added_to_a_restated_sentence_is_not_in_evidence():
    added = judge("Hormone therapy is usually taken for five years after surgery, and it halves the chance of "
                  "dying from breast tumours.", HORMONE)
    assert not added.supported
    assert any("added to what it restates" in p.what for p in added.problems)
    ko = judge("방사선 치료를 받는 동안 피로감이 흔하며, 철분제를 먹으면 금방 낫는다.", KO_FATIGUE)
    assert not ko.supported
    zh = judge("肺癌高危人群建议每年做一次低剂量螺旋CT检查，查出结节后须立即手术切除。", ZH_SCAN)
    assert not zh.supported


def test_two_restated_sentences_are_no_added_clause():
    both = judge("Hormone therapy is usually taken for five years after surgery, and hot flushes are a common "
                 "side effect.", HORMONE)
    assert both.supported, both.why
    ko = judge("방사선 치료를 받는 동안 피로감이 흔하고, 피로는 대개 치료가 끝나고 몇 주 안에 회복된다.", KO_FATIGUE)
    assert ko.supported, ko.why


def test_a_short_piece_cut_off_at_or_belongs_to_its_clause():
    assert clauses("It is offered to boys and girls at 11 or 12 years old.", "en") == [
        "It is offered to boys and girls at 11 or 12 years old."
    ]
    assert clauses("Surgery is an option, or radiotherapy alone when surgery is not possible.", "en") == [
        "Surgery is an option", "radiotherapy alone when surgery is not possible."
    ]


def test_a_range_said_without_about_is_the_passages_about_range():
    assert same_quantity(Quantity("range", "15-20", "%"), Quantity("~", "15-20", "%"))
    assert not same_quantity(Quantity(">", "15", "%"), Quantity("<", "15", "%"))


def test_whether_or_not_negates_nothing_in_japanese():
    assert negation_count("手術の前にリンパ節転移の有無を調べます", "ja") == 0
    assert negation_count("リンパ節転移は無いことが多い", "ja") == 1


def test_hodo_after_a_counted_number_is_about_not_a_correlation():
    assert stronger("治療開始から3週間ほどで皮膚が赤くなります", "ja") == []
    assert stronger("年齢が上がるほど危険が高くなります", "ja") != []


def test_hedge_words_are_not_content():
    terms = content_terms("somewhere between 10 and 20 percent of patients relapse, whatever their age", "en")
    assert not terms & {"somewher", "between", "whatever"}


def test_only_said_with_a_negative_verb_negates_nothing():
    # 밖에 ... 않다 / しか ... ない say "only", as "not only" says "also"
    assert negation_count("치료할 수 있는 환자는 4명 중 1명밖에 되지 않는다", "ko") == 0
    assert negation_count("치료할 수 있는 환자는 25%밖에 안 된다", "ko") == 0
    assert negation_count("手術できるのは4人に1人しかいません", "ja") == 0
    assert negation_count("이 환자는 수술할 수 없다", "ko") == 1


def test_shares_in_every_form():
    from criss_rag.lexicon.claims import read

    assert [str(q) for q in read("about 3 in every 10 patients relapse", "en").quantities] == ["about 30%"]
    assert [str(q) for q in read("네 명 중 한 명이 재발합니다", "ko").quantities] == ["25%"]
    assert [str(q) for q in read("约两成五的患者会复发", "zh").quantities] == ["about 25%"]
    assert stronger("3 in every 10 patients relapse", "en") == []


# -- what a passage implies without naming it ------------------------------------------------------

def test_a_population_said_as_a_clause_is_that_population():
    passage = "Lung adenocarcinoma with an EGFR change is found more often in people who have never smoked."
    assert judge("EGFR-changed lung adenocarcinoma is found more often in never-smokers.", passage).supported
    assert not judge("EGFR-changed lung adenocarcinoma is found more often in smokers.", passage).supported
    assert not judge("Lung adenocarcinoma with an EGFR change is found more often in people who still smoke.",
                     passage).supported
    ja = "喫煙者が膀胱がんになる危険は、たばこを吸わない人の約3倍です。"
    assert judge("喫煙者が膀胱がんになる危険は、吸わない人の約3倍です。", ja).supported
    assert not judge("喫煙者が膀胱がんになる危険は、たばこを吸う人の約3倍です。", ja).supported


def test_an_age_of_eighteen_or_more_implies_adults():
    passage = "Women are offered mammography every two years from age 50."
    assert judge("Adult women are offered mammography every two years from age 50.", passage).supported
    assert not judge("Adults are offered the vaccine at age 12.", "The vaccine is offered at age 12.").supported


def test_serum_names_a_blood_test():
    passage = "간경변 환자는 6개월마다 혈청 AFP 검사를 받는다."
    assert judge("간경변 환자는 6개월마다 AFP 혈액검사를 받는다.", passage).supported


def test_a_tumour_surgery_removes_is_resectable():
    removed = "About a quarter of patients have a tumour that can be removed with surgery."
    assert judge("About a quarter of patients have an operable tumour.", removed).supported
    not_removed = "In most patients the tumour cannot be removed with surgery."
    assert not judge("In most patients the tumour is operable.", not_removed).supported


def test_a_result_that_comes_back_is_no_recurrence():
    from criss_rag.lexicon.claims import read

    assert read("If the biopsy comes back negative, no treatment is needed.", "en").disease == set()
    assert read("If the cancer comes back, more treatment is needed.", "en").disease == {"recurrent"}


# -- how often, hedges, correlations, a clause's own sentence ----------------------------------------

def test_how_often_is_read_in_one_form():
    from criss_rag.lexicon.claims import read

    def said(text: str, language: str) -> list[str]:
        return [str(q) for q in read(text, language).quantities]

    assert said("便潜血検査は年1回受けます", "ja") == said("便潜血検査は1年に1度受けます", "ja") == ["1 years"]
    assert said("隔年で受けます", "ja") == said("2年に1回受けます", "ja") == ["2 years"]
    assert said("격년으로 받습니다", "ko") == said("2년에 한 번 받습니다", "ko") == said("2년마다 받습니다", "ko")
    assert said("每年一次", "zh") == said("一年一次", "zh") == said("每年", "zh") == ["1 years"]
    assert said("screened once a year", "en") == said("screened every year", "en") == ["1 years"]
    passage = "40歳以上の人は、年1回の便潜血検査を受けます。"
    assert judge("40歳以上の人は、便潜血検査を1年に1度受けます。", passage).supported
    assert not judge("40歳以上の人は、便潜血検査を3年に1度受けます。", passage).supported


def test_chinese_hedges_are_not_content():
    assert not content_terms("化疗后一周左右白细胞降到最低", "zh") & {"左右", "周左", "右白"}
    assert content_terms("大约两成患者能手术", "zh") == content_terms("两成患者能手术", "zh")


def test_a_correlation_may_restate_a_gradual_change():
    passage = "禁煙すると、年数がたつにつれて肺がんのリスクは下がっていきます。"
    assert judge("禁煙すると、年数がたつほど肺がんのリスクは下がっていきます。", passage).supported
    flat = "禁煙すると、肺がんのリスクは下がります。"
    assert not judge("禁煙すると、年数がたつほど肺がんのリスクは下がっていきます。", flat).supported
    over_time = "After people quit smoking, their risk of lung cancer falls over time."
    assert judge("The longer people have quit smoking, the lower their risk of lung cancer.", over_time).supported
    assert not judge("The longer people have quit smoking, the lower their risk of lung cancer.",
                     "After people quit smoking, their risk of lung cancer falls.").supported


def test_a_clause_is_aligned_with_the_sentence_that_holds_it_best():
    passages = ("肺癌中约85%为非小细胞肺癌，其余为小细胞肺癌。", "第一期非小细胞肺癌通常以手术切除为主要治疗。")
    assert judge("非小细胞肺癌占肺癌的85%，其中第一期通常以手术切除为主要治疗。", *passages).supported


# -- a negating suffix, one scale for change and level, non-...-invasive -------------------------------

def test_a_negating_suffix_is_a_negation_about_its_word():
    passage = "Early kidney cancer is usually painless and is often found by chance on a scan."
    assert not judge("Early kidney cancer is usually painful and is often found by chance on a scan.",
                     passage).supported
    assert judge("Early kidney cancer, usually without pain, is often found by chance on a scan.", passage).supported
    assert negation_count("regardless of age, unless it has spread", "en") == 0


def test_a_change_and_a_level_are_one_scale():
    passage = "People who exercise regularly have a lower risk of colon cancer."
    assert not judge("In people who exercise regularly, the risk of colon cancer rises.", passage).supported
    assert judge("In people who exercise regularly, the risk of colon cancer is lower.", passage).supported


def test_non_something_invasive_is_not_invasive():
    from criss_rag.lexicon.claims import read

    assert read("Non-muscle-invasive bladder tumours are removed through the urethra.", "en").disease == {
        "non-invasive"}
    passage = "Non-muscle-invasive bladder tumours are removed through the urethra."
    assert not judge("Muscle-invasive bladder tumours are removed through the urethra.", passage).supported


def test_a_chinese_word_reworded_keeps_a_character_of_the_passages_word():
    passage = "长期吸烟和饮酒会增加口腔癌的风险。"
    assert judge("长年抽烟喝酒，口腔癌的危险会增加。", passage).supported
    assert judge("放疗引起的红肿多为暂时性的。", "放射治疗引起的皮肤发红和肿胀大多是暂时的。").supported
    assert not judge("长期吸烟和饮酒会增加口腔癌的风险，每天喝绿茶可以治好口腔癌。", passage).supported
    assert not judge("长期吸烟和饮酒会降低口腔癌的风险。", passage).supported
