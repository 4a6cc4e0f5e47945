"""The language of a candidate passage, and the note an answer carries when its evidence is
written in another language than the question (a Korean question answered from English passages)."""

from __future__ import annotations

from typing import Any

from criss_rag.plugin_utils import detect_language, message_for
from criss_rag.types import Hit

#: metadata fields a loader may set with a passage's language (the Korean export's `lang`)
LANGUAGE_FIELDS = ("lang", "language")
_NAMES = {
    "en": {"en": "English", "ko": "영어", "ja": "英語", "zh": "英语"},
    "ko": {"en": "Korean", "ko": "한국어", "ja": "韓国語", "zh": "韩语"},
    "ja": {"en": "Japanese", "ko": "일본어", "ja": "日本語", "zh": "日语"},
    "zh": {"en": "Chinese", "ko": "중국어", "ja": "中国語", "zh": "中文"},
}
_TRADITIONAL_NAMES = {"en": "英語", "ko": "韓語", "ja": "日語", "zh": "中文"}
# lead-ins (they end with a colon), so the sentence check reads them as layout, not as claims
_NOTES = {
    "en": "The evidence below is in {language}; it is quoted as written:",
    "ko": "아래 근거 자료는 {language}로 되어 있어 원문 그대로 인용합니다:",
    "ja": "以下の根拠資料は{language}で書かれているため、原文のまま引用します：",
    "zh": "以下证据为{language}资料，按原文引用：",
    "zh-Hant": "以下證據為{language}資料，按原文引用：",
}


def hit_language(hit: Hit) -> str:
    """``en``, ``ko``, ``ja`` or ``zh``: the passage's language field if it has one, else its script."""
    return node_language(hit.metadata, hit.text)


def node_language(metadata: dict[str, Any], text: str) -> str:
    """:func:`hit_language` of a passage given as its metadata and text."""
    for field in LANGUAGE_FIELDS:
        value = str(metadata.get(field) or "").lower()[:2]
        if value in _NAMES:
            return value
    return detect_language(f"{metadata.get('title', '')}\n{text[:400]}")


def evidence_language_note(question_language: str, evidence_languages: list[str], question: str = "") -> str:
    """A sentence in the question's language (and, for Chinese, the script of ``question``) naming
    the evidence's language, or ``""`` when some evidence is in the question's language (or there is none)."""
    if not evidence_languages or question_language in evidence_languages:
        return ""
    main = max(dict.fromkeys(evidence_languages), key=evidence_languages.count)
    template = message_for(_NOTES, question_language, question)
    traditional = template is _NOTES.get("zh-Hant")
    name = _TRADITIONAL_NAMES[main] if traditional else _NAMES[main].get(question_language, _NAMES[main]["en"])
    return template.format(language=name)
