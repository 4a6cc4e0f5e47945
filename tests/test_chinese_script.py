"""Traditional and Simplified Chinese: the reader's script is told apart by the characters whose
forms differ, and every built-in message (refusals, the extractive notice, the note on evidence in
another language, the LLM prompt's language and refusal, the chat's condensed question) answers a
Traditional reader in Traditional characters and a Simplified reader in Simplified ones."""

from __future__ import annotations

import pytest

from criss_rag.answering.chat import condense_offline
from criss_rag.answering.grounding_policy import off_topic
from criss_rag.language.chinese_script import (
    SIMPLIFIED_OF,
    SIMPLIFIED_ONLY,
    TRADITIONAL_ONLY,
    chinese_script,
    message_for,
    simplified_chars,
)
from criss_rag.types import RelevanceVerdict
from criss_rag_basic.answering import DEFAULT_REFUSALS
from criss_rag_basic.extractive import NOTICES
from criss_rag_basic.languages import evidence_language_note

TRADITIONAL = "化療有甚麼副作用？應該怎樣處理？"
SIMPLIFIED = "化疗有什么副作用？应该怎样处理？"


def test_script_is_told_by_the_characters_whose_forms_differ():
    assert chinese_script(TRADITIONAL) == "zh-Hant" and chinese_script(SIMPLIFIED) == "zh-Hans"
    assert chinese_script("肺癌") is None and chinese_script("What is cancer?") is None  # nothing tells
    assert chinese_script("乳癌手術後還需要做放射治療嗎") == "zh-Hant"
    assert len(TRADITIONAL_ONLY) == len(SIMPLIFIED_OF) > 3000 and len(SIMPLIFIED_ONLY) > 2000
    assert not set(TRADITIONAL_ONLY) & set(SIMPLIFIED_ONLY)


def test_simplified_chars_converts_character_by_character():
    assert simplified_chars(TRADITIONAL) == "化疗有甚么副作用？应该怎样处理？"
    assert simplified_chars("대장암 大腸がん") == "대장암 大肠がん"  # other scripts unchanged


def test_message_for_picks_the_readers_script():
    table = {"en": "E", "zh": "简", "zh-Hant": "繁"}
    assert message_for(table, "zh", TRADITIONAL) == "繁"
    assert message_for(table, "zh", SIMPLIFIED) == "简"
    assert message_for(table, "zh", "肺癌") == "简"  # undecided: Simplified
    assert message_for({"en": "E", "zh": "简"}, "zh", TRADITIONAL) == "简"  # no zh-Hant entry
    assert message_for(table, "ko", "간암") == "E"


@pytest.mark.parametrize("table", [DEFAULT_REFUSALS, NOTICES])
def test_built_in_tables_have_both_scripts(table):
    assert chinese_script(table["zh"]) == "zh-Hans" and chinese_script(table["zh-Hant"]) == "zh-Hant"


def test_off_topic_refusal_is_in_the_readers_script():
    verdict = RelevanceVerdict(relevant=False, score=0.2, missing=["x"], checked="evidence", threshold=0.5)
    assert chinese_script(off_topic(TRADITIONAL, verdict).message) == "zh-Hant"
    assert chinese_script(off_topic(SIMPLIFIED, verdict).message) == "zh-Hans"


def test_evidence_language_note_is_in_the_readers_script():
    assert evidence_language_note("zh", ["en"], TRADITIONAL) == "以下證據為英語資料，按原文引用："
    assert evidence_language_note("zh", ["en"], SIMPLIFIED) == "以下证据为英语资料，按原文引用："


def test_chat_follow_up_keeps_the_readers_script():
    standalone, topic = condense_offline("還有哪些副作用？", ["肺癌要怎麼治療？"])
    assert topic == "肺癌" and standalone.startswith("關於肺癌")
    standalone, _ = condense_offline("还有哪些副作用？", ["肺癌要怎么治疗？"])
    assert standalone.startswith("关于肺癌")


def test_llm_prompt_names_traditional_chinese_and_its_refusal():
    from pathlib import Path

    from criss_rag.types import Context, Query
    from criss_rag_generate.prompts import load_prompt

    template = load_prompt("ncc", Path("."))
    values = template.variables(Query(TRADITIONAL), Context(evidence=(), text=""))
    assert values["language_name"] == "Traditional Chinese" and values["refusal"] == "證據不足"
    values = template.variables(Query(SIMPLIFIED), Context(evidence=(), text=""))
    assert values["language_name"] == "Chinese" and values["refusal"] == "证据不足"


def test_language_match_prefers_evidence_in_the_questions_language():
    from criss_rag.types import Hit, Query
    from criss_rag_basic.language_match import LanguageMatch

    def hit(doc_id: str, lang: str, score: float) -> Hit:
        from llama_index.core.schema import NodeWithScore

        from criss_rag.types import text_node

        return Hit(NodeWithScore(node=text_node(f"{doc_id}-0", "text", doc_id=doc_id, lang=lang), score=score))

    rerank = LanguageMatch(LanguageMatch.Params(weight=1.3), None).rerank
    hits = [hit("zh-page", "zh", 0.10), hit("ja-page", "ja", 0.08)]
    assert [h.doc_id for h in rerank(Query("早期の大腸がんは内視鏡で取れますか"), hits)] == ["ja-page", "zh-page"]
    assert [h.doc_id for h in rerank(Query("大肠癌早期能切除吗"), hits)] == ["zh-page", "ja-page"]
    english = [hit("a", "en", 0.2), hit("b", "en", 0.1)]
    assert rerank(Query("위암 치료"), english) == english  # nothing in the question's language: unchanged
