"""The meaning-aware sentence check (criss_rag.answering.meaning_check), rule by rule, in English, Korean, Japanese
and Chinese. Every passage and claim here is written for these tests: a faithful or reworded
sentence must be supported; a sentence with one decisive thing changed must not be, and its
problem must name what changed."""

from __future__ import annotations

import pytest
from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.answering.meaning_check import MeaningSupport
from criss_rag.types import Context, Evidence, Hit, Query, SentenceSupport

CHECK = MeaningSupport()


def judge(claim: str, *passages: str) -> SentenceSupport:
    evidence = tuple(Evidence(i, Hit(NodeWithScore(node=TextNode(id_=f"p{i}", text=text), score=1.0)), text)
                     for i, text in enumerate(passages, 1))
    sentence = SentenceSupport(text=claim, cited=list(range(1, len(passages) + 1)))
    (verdict,) = CHECK.verify(Query(text=""), [sentence], Context(evidence=evidence, text=""))
    return verdict


def supported(claim: str, *passages: str) -> None:
    verdict = judge(claim, *passages)
    assert verdict.supported, verdict.why


def rejected(kinds: set[str], claim: str, *passages: str) -> None:
    verdict = judge(claim, *passages)
    assert not verdict.supported, f"accepted: {claim}"
    found = {p.kind for p in verdict.problems}
    assert found & kinds, f"{verdict.why} (expected one of {kinds})"


# -- negation and its scope -------------------------------------------------------------------------

BONE = "Chemotherapy is not usually given to older patients with this bone tumour."
NEGATED = [
    ("en", BONE, "Chemotherapy is usually given to older patients with this bone tumour."),
    ("en", "Most thyroid nodules are harmless and need only regular check-ups.",
     "Most thyroid nodules are not harmless and need only regular check-ups."),
    ("ko", "이 검사는 금식이 필요하지 않습니다.", "이 검사는 금식이 필요합니다."),
    ("ko", "수술 후에는 무거운 물건을 들면 안 됩니다.", "수술 후에는 무거운 물건을 들어도 됩니다."),
    ("ja", "この検査の前に食事を控える必要はありません。", "この検査の前に食事を控える必要があります。"),
    ("ja", "放射線治療は痛みを伴いません。", "放射線治療は痛みを伴います。"),
    ("zh", "这种检查不需要空腹。", "这种检查需要空腹。"),
    ("zh", "放疗本身不会让病人带有放射性。", "放疗本身会让病人带有放射性。"),
]


@pytest.mark.parametrize(("language", "passage", "claim"), NEGATED)
def test_a_negation_added_or_removed_is_rejected(language, passage, claim):
    rejected({"negation", "changed"}, claim, passage)
    supported(passage, passage)  # the passage's own sentence stays supported


@pytest.mark.parametrize(("passage", "claim"), [
    ("Smoking raises the risk not only of lung cancer but also of bladder cancer.",
     "Smoking raises the risk not only of lung cancer but also of bladder cancer."),
    ("흡연은 폐암뿐만 아니라 방광암의 위험도 높입니다.", "흡연은 폐암뿐만 아니라 방광암의 위험도 높입니다."),
    ("喫煙は肺がんだけでなく膀胱がんのリスクも高めます。", "喫煙は肺がんだけでなく膀胱がんのリスクも高めます。"),
    ("吸烟不仅增加肺癌风险，也增加膀胱癌风险。", "吸烟不仅增加肺癌风险，也增加膀胱癌风险。"),
])
def test_not_only_but_also_negates_nothing(passage, claim):
    supported(claim, passage)
    assert not judge(claim, passage).problems


def test_a_double_negative_is_not_a_negation():
    passage = "It is not true that this cancer never spreads to the bones."
    supported("This cancer can spread to the bones, it is not true that it never does.", passage)


def test_a_negation_kept_in_other_words_is_supported():
    supported("Liver cancer frequently causes no symptoms in its early stages.",
              "Liver cancer often causes no symptoms in its early stages.")


# -- numbers with what they measure ------------------------------------------------------------------

@pytest.mark.parametrize(("passage", "claim"), [
    ("About 60% of people with this lymphoma are alive ten years after treatment.",
     "About 40% of people with this lymphoma are alive ten years after treatment."),
    ("Screening is advised every 2 years from age 50.", "Screening is advised every 3 years from age 50."),
    ("Tumours larger than 4 cm are usually removed.", "Tumours smaller than 4 cm are usually removed."),
    ("만 40세 이상 여성은 2년마다 유방 촬영을 받습니다.", "만 40세 미만 여성은 2년마다 유방 촬영을 받습니다."),
    ("腫瘍の大きさが2cm以下であれば部分切除が検討されます。", "腫瘍の大きさが2cm以上であれば部分切除が検討されます。"),
    ("直径超过3厘米的结节需要进一步检查。", "直径不到3厘米的结节需要进一步检查。"),
])
def test_a_changed_number_or_comparison_word_is_rejected(passage, claim):
    rejected({"number"}, claim, passage)


@pytest.mark.parametrize(("passage", "claim"), [
    ("About 60% of people with this lymphoma are alive ten years after treatment.",
     "About sixty percent of people with this lymphoma are alive 10 years after treatment."),
    ("この治療を受けた患者の約6割が5年後も生存しています。", "この治療を受けた患者の約60%が5年後も生存しています。"),
    ("这种治疗的五年生存率约为六成。", "这种治疗的5年生存率约为60%。"),
    ("The spleen is about 0.12 m long.", "The spleen is about 12 cm long."),
])
def test_a_number_written_another_way_is_supported(passage, claim):
    supported(claim, passage)


def test_a_number_bound_to_another_thing_in_the_passage_is_rejected():
    passage = "Stage A tumours are under 2 cm across, and stage B tumours are 2 to 5 cm across."
    rejected({"number", "stage", "changed"}, "Stage B tumours are under 2 cm across.", passage)


# -- stage, grade, disease state ---------------------------------------------------------------------

@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Surgery alone cures most patients with stage I disease.",
            "Surgery alone cures most patients with stage III disease.",
        ),
        ("Stage IIA tumours have not reached the lymph nodes.", "Stage IIB tumours have not reached the lymph nodes."),
        ("T1 tumours are confined to the inner lining.", "T3 tumours are confined to the inner lining."),
        (
            "Early prostate cancer is often watched rather than treated.",
            "Advanced prostate cancer is often watched rather than treated.",
        ),
        ("3기 위암은 수술 후 항암 치료를 받습니다.", "1기 위암은 수술 후 항암 치료를 받습니다."),
        ("早期の食道がんは内視鏡で切除できることがあります。", "進行した食道がんは内視鏡で切除できることがあります。"),
        ("第二期肝癌可以考虑手术治疗。", "第四期肝癌可以考虑手术治疗。"),
    ],
)
def test_a_changed_stage_is_rejected(passage, claim):
    rejected({"stage", "changed"}, claim, passage)


def test_a_stage_bound_to_another_description_in_one_passage_sentence_is_rejected():
    passage = "腫瘍が臓器の中にとどまるものをI期、周りの組織に広がったものをII期とします。"
    rejected({"stage"}, "腫瘍が臓器の中にとどまるものをII期とします。", passage)
    supported("腫瘍が臓器の中にとどまるものをI期とします。", passage)


# -- entities: types, sites, treatments, drugs, tests, biomarkers -------------------------------------

@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Tamoxifen lowers the chance that hormone-sensitive breast cancer comes back.",
            "Letrozole lowers the chance that hormone-sensitive breast cancer comes back.",
        ),
        (
            "A colonoscopy can find polyps before they turn into cancer.",
            "A mammography can find polyps before they turn into cancer.",
        ),
        (
            "HER2-positive breast cancer is treated with targeted drugs.",
            "HER2-negative breast cancer is treated with targeted drugs.",
        ),
        (
            "Tumours in the left lung are reached through the chest wall.",
            "Tumours in the right lung are reached through the chest wall.",
        ),
        ("The tumour presses on the splenic vein.", "The tumour presses on the splenic artery."),
        (
            "Infection with the bacterium is treated with antibiotics for two weeks.",
            "Infection with the bacterium is treated with antifungals for two weeks.",
        ),
        ("B형 간염 바이러스는 간암의 가장 흔한 원인입니다.", "D형 간염 바이러스는 간암의 가장 흔한 원인입니다."),
        ("膵頭部のがんは胆管をふさいで黄疸を起こします。", "膵尾部のがんは胆管をふさいで黄疸を起こします。"),
        ("幽门螺杆菌感染是胃癌的重要危险因素。", "幽门螺杆菌感染是肝癌的重要危险因素。"),
    ],
)
def test_a_changed_entity_is_rejected(passage, claim):
    rejected({"entity", "changed", "direction"}, claim, passage)


# -- populations --------------------------------------------------------------------------------------

@pytest.mark.parametrize(("passage", "claim"), [
    ("This leukaemia is most common in children.", "This leukaemia is most common in adults."),
    ("Screening is offered to women over 50.", "Screening is offered to men over 50."),
    ("이 백신은 12세 여아에게 무료로 접종합니다.", "이 백신은 12세 남아에게 무료로 접종합니다."),
    ("高齢の患者では薬の量を減らすことがあります。", "小児の患者では薬の量を減らすことがあります。"),
    ("孕妇不应接受这种检查。", "儿童不应接受这种检查。"),
])
def test_a_changed_population_is_rejected(passage, claim):
    rejected({"population", "changed"}, claim, passage)


# -- direction and comparison -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        ("Regular exercise lowers the risk of colon cancer.", "Regular exercise raises the risk of colon cancer."),
        (
            "Hair loss usually starts two weeks after the first dose.",
            "Hair loss usually starts two weeks before the first dose.",
        ),
        ("This type is rare in young people.", "This type is common in young people."),
        ("The risk is higher in women than in men.", "The risk is higher in men than in women."),
        ("위암은 50대 이후에 많이 발생합니다.", "위암은 50대 이전에 많이 발생합니다."),
        ("여성이 남성보다 갑상선암에 더 많이 걸립니다.", "남성이 여성보다 갑상선암에 더 많이 걸립니다."),
        ("この薬は食後に飲みます。", "この薬は食前に飲みます。"),
        ("このタイプのがんは見つけにくいことがあります。", "このタイプのがんは見つけやすいことがあります。"),
        ("男性肝癌的发病率比女性高。", "女性肝癌的发病率比男性高。"),
        ("治疗结束后皮肤反应会逐渐减轻。", "治疗结束后皮肤反应会逐渐加重。"),
    ],
)
def test_a_changed_direction_or_comparison_order_is_rejected(passage, claim):
    rejected({"direction", "number", "changed", "population"}, claim, passage)


def test_a_comparison_kept_in_its_order_is_supported():
    supported("The risk is higher in women than in men.", "The risk is higher in women than in men.")
    supported("男性肝癌的发病率比女性高。", "男性肝癌的发病率比女性高。")


# -- content the passage does not contain ------------------------------------------------------------

@pytest.mark.parametrize(
    ("passage", "claim"),
    [
        (
            "Hepatitis B infection raises the risk of liver cancer.",
            "Hepatitis B infection raises the risk of liver cancer, and green tea cures it within a year.",
        ),
        (
            "대장 내시경으로 용종을 찾을 수 있습니다.",
            "대장 내시경으로 용종을 찾을 수 있으며, 매일 마늘을 먹으면 용종이 사라집니다.",
        ),
        (
            "便潜血検査で大腸がんを早く見つけられます。",
            "便潜血検査で大腸がんを早く見つけられ、コーヒーを毎日飲むと予防できます。",
        ),
        ("戒烟可以降低肺癌风险。", "戒烟可以降低肺癌风险，而且每天喝绿茶能治愈肺癌。"),
    ],
)
def test_an_appended_clause_the_passage_lacks_is_rejected(passage, claim):
    rejected({"not_in_evidence"}, claim, passage)


# -- paraphrase, two passages, scripts -------------------------------------------------------------------

@pytest.mark.parametrize(("claim", "passages"), [
    ("Stomach cancer usually develops slowly, over many years.",
     ("Gastric cancer generally grows slowly over many years.",)),
    ("Smoking causes most lung cancers, and radon exposure is the second leading cause.",
     ("Smoking causes most lung cancers.", "Exposure to radon gas is the second leading cause of lung cancer.")),
    ("간암은 간세포에서 시작되는 암이다.", ("간암은 간세포에서 시작되는 암입니다.",)),
    ("肺がんは喫煙と強く関係している。", ("肺がんは喫煙と強く関係しています。",)),
    ("乙型肝炎病毒感染会增加肝癌的风险。", ("乙型肝炎病毒感染會增加肝癌的風險。",)),
])
def test_faithful_rewordings_are_supported(claim, passages):
    supported(claim, *passages)


# -- verdicts say why ----------------------------------------------------------------------------------

def test_a_rejected_sentence_names_what_failed_and_what_the_evidence_says():
    verdict = judge("About 30% of patients are alive five years after diagnosis.",
                    "About 70% of patients are alive five years after diagnosis.")
    (problem,) = verdict.problems
    assert (problem.kind, problem.evidence) == ("number", 1) and "30%" in problem.what and "70%" in problem.says
    assert verdict.why == "number: about 30% — evidence [1] says about 70%"
    assert verdict.method == "meaning" and verdict.evidence is None


@pytest.mark.parametrize(("passage", "claim"), [
    ("Surgery can cure early kidney cancer.", "Surgery can always cure early kidney cancer."),
    ("이 치료는 초기 신장암을 치료할 수 있습니다.", "이 치료는 모든 초기 신장암을 반드시 치료할 수 있습니다."),
    ("手術で早期の腎がんを治せることがあります。", "手術で早期の腎がんを必ず治せます。"),
    ("手术可以治愈部分早期肾癌。", "手术一定可以治愈所有早期肾癌。"),
    ("This treatment often has strong side effects, and it often works well.",
     "The stronger the side effects of this treatment, the better it works."),
])
def test_a_claim_stronger_than_its_passage_is_rejected(passage, claim):
    rejected({"not_in_evidence", "changed"}, claim, passage)


def test_a_word_swapped_for_another_word_of_the_same_passage_is_rejected():
    passage = ("Most tumours of this gland start in the exocrine cells, which make digestive juices. "
               "A few start in the endocrine cells, which make hormones.")
    rejected(
        {"changed", "entity"},
        "Most tumours of this gland start in the endocrine cells, which make digestive juices.",
        passage,
    )
    supported("Most tumours of this gland start in the exocrine cells, which make digestive juices.", passage)
