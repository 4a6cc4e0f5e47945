"""Caution behaviour: what kind of answer was given, by multilingual cue rules.

Each answer gets exactly one label, the first that applies in this order:

1. ``explicit_refusal``: the engine refused, or the text says it cannot answer ("insufficient
   evidence", 답변할 수 없, 回答できません, 无法回答, ...);
2. ``request_for_information``: it asks the user for missing case details ("please provide",
   알려주시, 教えてください, 请提供, ...);
3. ``acknowledged_ambiguity``: it says the answer is unclear or depends ("it depends", 경우에 따라,
   一概には, 视情况, ...);
4. ``conditional_answer``: it answers under a condition ("if", "unless", 라면, 場合は, 如果, ...);
5. ``answered``: none of the above.

English cues match whole words, case-insensitively; Korean, Japanese and Chinese cues match as
substrings. The values are 0/1 per label (``caution_<label>``), so a report's means are shares and
its counts are numbers of answers. Rules are a screen, not a judge: an extractive answer that quotes
a source saying "if you have ..." is labelled conditional.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import HAN, HANGUL, KANA
from criss_rag.types import Answer
from criss_rag_metrics.common import strip_markers

LABELS = ("explicit_refusal", "request_for_information", "acknowledged_ambiguity", "conditional_answer", "answered")
_CJK = re.compile(f"[{HANGUL}{KANA}{HAN}]")

CUES: dict[str, list[str]] = {
    "explicit_refusal": [
        "insufficient evidence",
        "insufficient information",
        "not enough information",
        "cannot answer",
        "can't answer",
        "unable to answer",
        "not able to answer",
        "cannot provide an answer",
        "no references",
        "outside the scope",
        "out of scope",
        "the sources do not",
        "i don't know",
        "i do not know",
        "답변할 수 없",
        "답변드릴 수 없",
        "정보가 부족",
        "근거가 부족",
        "충분한 정보가 없",
        "참고문헌이 없",
        "참고 문헌이 없",
        "情報が不足",
        "十分な情報がありません",
        "回答できません",
        "お答えできません",
        "参考文献なし",
        "参考文献がありません",
        "无法回答",
        "信息不足",
        "证据不足",
        "没有足够的信息",
        "无参考文献",
    ],
    "request_for_information": [
        "could you tell me",
        "could you provide",
        "can you provide",
        "please provide",
        "please tell me",
        "please specify",
        "please share",
        "could you clarify",
        "i need to know",
        "need more information",
        "let me know",
        "알려주시",
        "알려 주시",
        "알려주세요",
        "알려 주세요",
        "말씀해 주",
        "정보를 주시",
        "教えてください",
        "お知らせください",
        "ご提供ください",
        "お聞かせください",
        "请提供",
        "请告诉",
        "请说明",
        "能否提供",
    ],
    "acknowledged_ambiguity": [
        "it depends",
        "depends on",
        "ambiguous",
        "unclear",
        "not clear",
        "varies",
        "may vary",
        "no single answer",
        "cannot be determined",
        "uncertain",
        "경우에 따라",
        "따라 다릅",
        "따라 달라",
        "불분명",
        "명확하지 않",
        "모호",
        "단정할 수 없",
        "場合によって",
        "によって異なり",
        "一概には",
        "明確ではありません",
        "はっきりしない",
        "不明確",
        "视情况",
        "因人而异",
        "不明确",
        "不确定",
        "取决于",
    ],
    "conditional_answer": [
        "if",
        "unless",
        "provided that",
        "as long as",
        "only when",
        "in case",
        "경우에는",
        "라면",
        "이라면",
        "다면",
        "한다면",
        "場合は",
        "場合には",
        "であれば",
        "ならば",
        "如果",
        "假如",
        "若是",
        "的情况下",
    ],
}


def _pattern(cues: list[str]) -> re.Pattern[str]:
    parts = [re.escape(c.casefold()) if _CJK.search(c) else rf"\b{re.escape(c.casefold())}\b" for c in cues]
    return re.compile("|".join(parts) or r"(?!)")


class CautionBehaviour:
    """Labels each answer: answered, explicit refusal, acknowledged ambiguity, request for information
    or conditional answer (cue rules, en/ko/ja/zh)."""

    outputs = tuple(f"caution_{label}" for label in LABELS)
    about_refusals = outputs  # how a question was declined is the point: refused questions count here too

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        extra_cues: dict[str, list[str]] = Field(
            default_factory=dict,
            description="label -> more cue phrases (labels: explicit_refusal, request_for_information, "
                        "acknowledged_ambiguity, conditional_answer)",
        )
        refused_is_refusal: bool = Field(
            True, description="an answer the engine refused is an explicit refusal whatever its text says"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        unknown = sorted(set(params.extra_cues) - set(CUES))
        if unknown:
            raise ValueError(f"extra_cues: unknown label(s) {unknown}; labels: {', '.join(CUES)}")
        self.params = params
        self.patterns = {label: _pattern(cues + params.extra_cues.get(label, [])) for label, cues in CUES.items()}

    def label(self, answer: Answer) -> str:
        if answer.refused and self.params.refused_is_refusal:
            return "explicit_refusal"
        text = strip_markers(answer.text).casefold()
        return next((label for label, pattern in self.patterns.items() if pattern.search(text)), "answered")

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        found = self.label(answer)
        return {f"caution_{label}": float(label == found) for label in LABELS}
