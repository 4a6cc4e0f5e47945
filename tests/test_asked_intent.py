"""What a question asks, read from the sentence that asks it (issue 25, item 5): background told
before the question, a bare "what is" or "why" about something other than a cancer, a comparison
of two kinds, and something that grew named in everyday words. The questions are the team's own,
written apart from the evaluation sets."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from criss_rag_domain.asked import asked_types
from criss_rag_domain.intents import IntentLexicon, asked_part, question_sentences
from criss_rag_domain.lexicon import CancerLexicon

ROOT = Path(__file__).resolve().parents[1]
INTENTS = IntentLexicon()


@pytest.mark.parametrize(("text", "asked"), [
    ("母が胃がんです。手術のあとの食事は？", "手術のあとの食事は？"),
    ("간암이래요. 수술이 되나요? 걱정이에요.", "수술이 되나요?"),             # the sentence that asks, not the last
    ("간암 4기래요. 앞으로 어떤 치료를 받게 될지 궁금합니다.", "앞으로 어떤 치료를 받게 될지 궁금합니다."),
    ("폐암 증상이 뭐예요?", "폐암 증상이 뭐예요?"),                          # one sentence: itself
    ("我爸肝癌。化疗之后吃什么好", "化疗之后吃什么好"),                       # none asks: the last one
])
def test_the_question_sentences_are_those_that_ask(text, asked):
    assert question_sentences(text) == asked


@pytest.mark.parametrize(("question", "intent"), [
    # the test or diagnosis told as background does not decide
    ("초음파 검사에서 유방암이 나왔대요. 유방암에도 여러 종류가 있나요?", "overview"),
    ("CTで膵臓がんと診断されました。膵臓がんにはどんな種類がありますか？", "overview"),
    ("간암 진단을 받았어요. 수술은 언제쯤 하나요?", "treatment"),
    # nor a clause before "but" in the sentence that asks
    ("검사 결과지에 간세포암이라고 적혀 있는데 보통 간암과 같은 건가요?", "overview"),
])
def test_background_before_the_question_does_not_decide(question, intent):
    assert INTENTS.detect(question) == [intent]


@pytest.mark.parametrize("question", ["대장암과 직장암은 뭐가 다른가요?", "胃がんと胃潰瘍の違いを教えて",
                                      "肝癌和肝硬化有什么区别？"])
def test_a_comparison_of_two_kinds_asks_for_the_overview(question):
    assert INTENTS.detect(question) == ["overview"]


@pytest.mark.parametrize(("question", "not_asked"), [
    ("항암 치료를 시작했어요. 부작용은 뭐예요?", "overview"),                  # what the side effects are
    ("폐암을 낫게 하는 방법은 무엇인가요?", "overview"),                        # what the way is
    ("乳がんの手術で腕がむくむことはありますか", "overview"),                   # the とは of ことは
    ("医生说要做射频消融，这个是什么原理？", "overview"),
    ("수술 전에 방사선부터 한다는데 왜 그런 거예요?", "causes"),                # why it is done
])
def test_a_bare_what_is_or_why_about_something_else_is_not_the_overview_or_the_cause(question, not_asked):
    assert not_asked not in INTENTS.detect(question)


@pytest.mark.parametrize("question", ["간암은 왜 생기나요?", "なぜ膵臓がんは見つけにくいのですか", "肺癌是什么？"])
def test_a_bare_what_is_or_why_beside_a_cancer_still_counts(question):
    assert INTENTS.detect(question) in (["causes"], ["overview"])


def test_a_condition_and_a_but_clause_end_the_background():
    assert asked_part("황달이 생겼을 때는 무엇을 해 줄 수 있나요") == "무엇을 해 줄 수 있나요"
    assert asked_part("診断されたんだけど、何が違うの") == "何が違うの"


def test_something_that_grew_in_an_organ_is_its_cancer():
    lexicon = CancerLexicon.builtin()
    assert asked_types(lexicon, "요즘 속이 쓰린데 위에 뭐가 생긴 걸까요?") == ["gastric"]
    assert asked_types(lexicon, "肺に何かできているかもと言われました") == ["lung"]
    assert asked_types(lexicon, "위에 있는 사진 좀 봐 주세요") == []


def test_the_default_pipeline_prefers_the_overview_only_when_it_is_asked():
    config = yaml.safe_load((ROOT / "examples" / "default.yaml").read_text(encoding="utf-8"))
    intent = next(r for r in config["rerankers"] if r.get("label") == "section-intent")
    assert {"개요", "概要", "概述", "Overview"} <= set(intent["sections"]["overview"])
    assert intent["otherwise"] is None  # a question with no cue prefers no section


@pytest.mark.parametrize("question", ["소세포폐암은 제한기와 확장기로 나뉜다던데 둘이 뭐가 달라요?",
                                      "早期の胃がんと進行した胃がんはどこで分けるの？",
                                      "胰腺癌的局部晚期和一般晚期有什么区别？"])
def test_how_far_the_disease_has_gone_asks_about_stages(question):
    # no stage cue (병기, ステージ, 分期) but a state of the disease that a stage names
    assert INTENTS.detect(question) == ["stages"]
