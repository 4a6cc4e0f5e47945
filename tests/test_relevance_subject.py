"""What a question is about must be what its evidence is about (criss_rag.answering.subjects):
the cancer it names, where that cancer spread, the species, money, who gives care and one person's
time left, and another condition asked about for itself. Each of these shares words with cancer
pages that are about something else."""

from __future__ import annotations

import pytest
from llama_index.core.schema import NodeWithScore

from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy
from criss_rag.answering.subjects import cancer_subjects, conditions
from criss_rag.plugins import PluginHost
from criss_rag.testing import fake_plugin, pipeline_from_yaml
from criss_rag.types import Context, Evidence, Hit, text_node

MINIMAL_YAML = """\
name: relevance-subject
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


def pages(*pages: tuple[str, str]) -> Context:
    """``(title, text)`` pages as numbered evidence."""
    return Context(tuple(Evidence(n, Hit(NodeWithScore(node=text_node(f"d{n}", text, title=title), score=1.0)), text)
                         for n, (title, text) in enumerate(pages, 1)), "")


@pytest.fixture(scope="module")
def check(tmp_path_factory) -> RelevanceCheck:
    """The default pipeline's relevance check: Korean read by kiwi, Chinese by jieba."""
    pipe = pipeline_from_yaml(MINIMAL_YAML, tmp_path_factory.mktemp("subject"),
                              PluginHost(strict=True, extra_plugins={"fake": fake_plugin}))
    analyzer = pipe.analyzer({"name": "auto", "analyzers": {"ko": "kiwi", "zh": "jieba"}}, requested_by="test")
    return RelevanceCheck(RelevancePolicy(min_coverage=0.5, analyzer=None), analyzer.analyze, analyzer.analyzer_for)


STOMACH = ("Stomach cancer: symptoms", "Stomach cancer can cause pain, and chemotherapy for it can cause mouth sores "
                                       "and ulcers that take weeks to heal.")


def test_the_cancer_asked_about_must_be_the_evidence_s_cancer_not_a_word_of_its_name(check):
    mouth = check.before("Ulcer on my tongue that has not healed for weeks: could it be mouth cancer?", pages(STOMACH))
    assert not mouth.relevant and "mouth" in mouth.missing, mouth  # "mouth" is said (mouth sores), not mouth cancer
    stomach = check.before("Can stomach cancer cause mouth sores and ulcers?", pages(STOMACH))
    assert stomach.relevant, stomach


def test_a_korean_cancer_name_with_an_ending_stays_the_question_s_subject(check):
    """방광암일 alone reads 방광 + 암 + 일, in its sentence 방광암: the word used to be dropped, and a
    bladder question was answered from colorectal pages that speak of blood."""
    colon = pages(("대장암 - 증상", "변에 피가 섞여 나오는 것은 대장암의 흔한 증상입니다."))
    bladder = check.before("소변에 피가 섞여 나오는데 방광암일 수도 있나요?", colon)
    assert not bladder.relevant and "방광암일" in bladder.missing, bladder
    colorectal = check.before("변에 피가 섞여 나오는데 대장암일 수도 있나요?", colon)
    assert colorectal.relevant, colorectal


def test_where_the_cancer_spread_is_asked_about_too(check):
    liver = pages(("肝癌：概述", "肝上长的癌是原发性肝癌；"
                                 "肠癌等其他器官的癌症转移到肝上的，是继发性肝癌，不是一回事。"))
    spread = check.before("肠癌转移到肝上的，和肝上长的癌是一回事吗？", liver)
    assert spread.relevant, spread  # colon cancer that spread to the liver: the liver page answers
    assert cancer_subjects("大肠癌有什么症状？") == {"site:colon"}
    colon_only = check.before("大肠癌有什么症状？", liver)
    assert not colon_only.relevant, colon_only


def test_traditional_and_simplified_names_place_the_same_cancer():
    assert cancer_subjects("會是胰臟癌嗎？") == cancer_subjects("会是胰脏癌吗？") == {"site:pancreas"}
    assert cancer_subjects("乳癌的症狀有哪些？") == cancer_subjects("乳腺癌有什么症状？") == {"site:breast"}


def test_the_rectum_is_part_of_the_large_bowel_a_colorectal_page_covers(check):
    colorectal = pages(("대장암 - 치료", "항문에 가까운 직장암은 수술 후에 장루(인공항문)가 필요할 수 있습니다."))
    rectal = check.before("직장암 수술 후에 인공항문이 필요한가요?", colorectal)
    assert rectal.relevant, rectal


@pytest.mark.parametrize("question", [
    "My dog was diagnosed with liver cancer. What treatment can she get?",
    "우리집 고양이가 간에 종양이 있대요. 사람처럼 수술해 줄 수 있나요?",
    "うちの猫が肝臓がんと言われました。手術はできますか？",
    "我家的貓被驗出肝腫瘤，可以像人一樣做手術嗎？",
])
def test_a_question_about_an_animal_needs_evidence_about_animals(check, question):
    liver = pages(("Liver cancer: treatment", "Surgery to remove part of the liver treats early liver cancer."),
                  ("간암 - 치료", "간암의 치료는 수술로 종양을 제거하는 것입니다."),
                  ("肝臓がん：治療", "肝臓がんの手術では、がんのある部分の肝臓を切除します。"),
                  ("肝癌：治療", "早期肝癌可以通過手術切除腫瘤。"))
    verdict = check.before(question, liver)
    assert not verdict.relevant, verdict
    vet = pages(("Liver cancer in pets: treatment", "A dog or cat diagnosed with liver cancer is treated by a vet with "
                                                   "surgery that removes the tumour."))
    assert check.before("My dog was diagnosed with liver cancer. What treatment can she get?", vet).relevant


def test_a_pet_scan_is_a_test_not_an_animal(check):
    lung = pages(("Lung cancer: diagnosis", "A PET scan shows whether lung cancer has spread."))
    assert check.before("Do I need a PET scan for lung cancer?", lung).relevant


def test_an_inflammatory_disease_asked_about_for_itself_needs_a_page_about_it(check):
    liver = pages(("간암 - 개요", "B형 간염과 C형 간염은 간암의 가장 중요한 원인입니다. "
                                  "항바이러스제 치료가 간암 위험을 낮춥니다."))
    hepatitis = check.before("B형 간염 보균자인데 항바이러스제는 언제부터 먹어야 하나요?", liver)
    assert not hepatitis.relevant and "간염" in hepatitis.missing, hepatitis
    risk = check.before("B형 간염이 있으면 간암에 더 잘 걸리나요?", liver)  # names the cancer: about the cancer
    assert risk.relevant, risk
    page = pages(("B형 간염 - 치료", "B형 간염 보균자는 간 수치가 오르면 항바이러스제를 먹기 시작합니다."))
    assert check.before("B형 간염 보균자인데 항바이러스제는 언제부터 먹어야 하나요?", page).relevant


def test_conditions_are_read_by_the_form_of_their_name():
    assert conditions("I have gastritis and hepatitis C") == ["gastritis", "hepatitis"]
    assert conditions("위염이랑 역류성 식도염이 있고 폐렴으로 입원했어요") == ["위염", "식도염", "폐렴"]
    assert conditions("慢性胃炎能根治吗") == ["慢性胃炎"]
    # a disorder, a syndrome, a growth that is not cancer, a stone
    assert conditions("cirrhosis, colon polyps and a thyroid nodule") == ["cirrhosis", "polyps", "nodule"]
    assert conditions("과민성 대장 증후군이랑 골다공증, 담낭 용종") == ["과민성 대장 증후군", "골다공증", "담낭 용종"]
    assert [c[-2:] for c in conditions("乳腺增生要吃药吗？胃镜发现胃息肉")] == ["增生", "息肉"]
    assert conditions("乳腺症と言われました。大腸ポリープも") == ["乳腺症", "大腸ポリープ"]
    # infection, contagion, salt, inflammation itself, pain, a complication, symptoms, a hospital,
    # the pathology, the stage (病期), cancer (癌症) and caring for the ill name no condition
    assert conditions("HPV 감염이 전염되나요? 염분이 많은 음식, 염증, 炎症, 통증이, 합병증은, 병원에, 간병을") == []
    assert conditions("癌症的症状，病理报告，病人，病期分類，合併症，病気，这是什么病") == []


def test_money_who_gives_care_and_one_person_s_time_left_need_evidence_that_speaks_of_them(check):
    """Cost, insurance, which hospital or doctor, and how long one patient has left are read in
    every language; a page on the treatment asked about says nothing of what it costs, who does it
    best or how long a given patient lives, however many of the question's other words it covers."""
    surgery = pages(("肺癌：治疗", "早期非小细胞肺癌以手术切除为主，不适合手术的患者可以接受放射治疗。"))
    cost = check.before("肺癌手术费用大概多少钱？", surgery)
    assert not cost.relevant and "费用" in cost.missing, cost
    assert check.before("肺癌手术后要注意什么？", surgery).relevant  # the same words without the money
    stomach = pages(("위암 - 진단", "위내시경은 위암을 진단하는 가장 중요한 검사이며, 조직검사로 확진합니다."))
    claim = check.before("위암 진단 받으면 암보험 진단금은 얼마나 나오나요?", stomach)
    assert not claim.relevant and any("보험" in m or "진단금" in m for m in claim.missing), claim
    hospital = check.before("서울에서 위암 수술 잘하는 병원 추천해 주세요", stomach)  # who does it best
    assert not hospital.relevant and any("병원" in m for m in hospital.missing), hospital
    colon = pages(("大肠癌：治疗", "大肠癌以手术切除为主。"))
    assert not check.before("台北哪家醫院做大腸癌手術最好？", colon).relevant
    liver = pages(("간암 - 치료", "간암이 진행되면 복수가 찰 수 있으며, 치료는 간 기능과 병기에 따라 정합니다."))
    # one person's time left
    time_left = check.before("아버지 간암 말기에 복수까지 찼는데 남은 시간이 얼마나 될까요", liver)
    assert not time_left.relevant and any("남은" in m for m in time_left.missing), time_left
    assert check.before("간암 말기에 복수가 차면 어떻게 치료하나요?", liver).relevant
    # 라돈이 is radon, not money (돈이)
    radon = pages(("폐암 - 원인", "라돈은 흡연 다음으로 중요한 폐암의 원인입니다."))
    assert check.before("집에 라돈이 많이 나온대요. 라돈 때문에도 폐암이 생기나요?", radon).relevant
    priced = pages(("Lung cancer: paying for care",
                    "The cost of surgery depends on the hospital and on what insurance covers."))
    assert check.before("How much does lung cancer surgery cost?", priced).relevant
    # a fee named with the treatment it pays for (수술비, 手術代): read before the treatment is
    assert not check.before("위암 수술비는 보통 얼마 정도예요?", stomach).relevant
    japanese = pages(("大腸がん - 治療", "大腸がんの治療は手術が中心で、進み具合によって抗がん剤を使います。"))
    assert not check.before("大腸がんの手術代はいくらくらいかかりますか", japanese).relevant
    assert not check.before("大腸がんの手術はどの病院で受けるのがいいですか", japanese).relevant


@pytest.mark.parametrize("question", [
    "유방암 수술하고 나서 언제쯤 복직할 수 있을까요?",                    # work
    "抗がん剤治療中だけど仕事は続けられますか",
    "乳腺癌化疗期间还能上班吗",
    "Can I go back to work during chemotherapy for breast cancer?",
    "유방암 치료가 끝나면 임신해도 되나요?",                              # having a child
    "乳がんのホルモン療法中に妊娠しても大丈夫ですか",
    "乳腺癌治疗后还能生孩子吗？",
    "유방암 항암 중에 부부관계 해도 되나요?",                              # sex
    "乳癌化療期間可以有性生活嗎？",
    "유방암 수술 후 비행기 타고 여행 가도 되나요?",                        # travel
    "乳がんの手術のあと、海外旅行はいつから行けますか",
])
def test_work_a_child_sex_and_travel_need_evidence_that_speaks_of_them(check, question):
    """The life beside the illness: a page on the treatment covers the cancer and the treatment a
    question names, and says nothing of when one may work, have a child, have sex or travel."""
    breast = pages(("Breast cancer: treatment",
                    "유방암 수술 항암 치료 乳がん 手術 抗がん剤 治療 ホルモン療法 乳腺癌 化疗 治疗 乳癌 化療 "
                    "Breast cancer is treated with surgery, chemotherapy, radiotherapy and hormone therapy."))
    verdict = check.before(question, breast)
    assert not verdict.relevant, verdict


def test_a_page_that_speaks_of_the_life_beside_the_illness_answers_it(check):
    fertility = pages(("Breast cancer: treatment", "Chemotherapy can affect fertility; women who want to become "
                                                   "pregnant later can talk to their team before treatment."))
    assert check.before("Can I get pregnant after chemotherapy for breast cancer?", fertility).relevant
    assert check.before("Does chemotherapy work for breast cancer?", fertility).relevant  # "work": not a job
    liver = pages(("肝がん - 概要", "肝臓は栄養をたくわえ、体に入った有害なものを分解する臓器です。"))
    assert check.before("肝臓はどんな仕事をしている臓器ですか", liver).relevant  # what the liver does


@pytest.mark.parametrize("question", [
    "乳腺增生需要吃药治疗吗？",  # hyperplasia of the breast
    "胃镜发现有个胃息肉，要不要切？",  # a stomach polyp
    "乳腺症って、ほうっておいても大丈夫なものですか",  # mastopathy
    "과민성 대장 증후군은 어떻게 치료해요?",  # irritable bowel syndrome
    "胆石が見つかったけど手術したほうがいいですか？",  # gallstones, and surgery: not a cancer treatment
    "위염약 오래 먹어도 괜찮은가요?",  # a gastritis medicine
])
def test_a_condition_other_than_cancer_asked_about_for_itself_needs_a_page_about_it(check, question):
    organ = pages(("Breast, stomach, bowel and gallbladder",
                   "乳腺 乳房 胃 胃镜 息肉 切除 手术 吃药 治疗 大腸 ポリープ 治療 手術 대장 치료 증후군 乳腺症 胆石"))
    verdict = check.before(question, organ)
    assert not verdict.relevant, verdict


def test_a_condition_related_to_another_organ_is_a_question_about_that_organ(check):
    """New diabetes with weight loss, and the pancreas? asks about the pancreas (a warning sign of
    its cancer), not about diabetes."""
    pancreas = pages(("胰腺癌：症状", "胰腺癌可能引起体重减轻、背痛，以及突然出现的糖尿病。"))
    assert check.before("突然得了糖尿病，体重一直掉，会不会跟胰腺有关？", pancreas).relevant
    assert not check.before("糖尿病要怎么控制血糖？", pancreas).relevant
