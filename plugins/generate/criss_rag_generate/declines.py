"""Recognising an answer in which the model itself says the evidence is insufficient.

Such an answer is a refusal, not an answer: the generator reports it as ``Refusal("model_declined",
...)``. The engine shows its fixed refusal message in the question's language; the model's words
(for the ``criss`` preset they name the missing case information) go to the trace, marked
unchecked. While a streamed answer may still become such a refusal (:func:`may_still_decline`),
none of it is shown.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from criss_rag.plugin_utils import CITATION_MARKER as MARKER
from criss_rag.plugin_utils import split_sentences

#: Phrases that mark a declined answer in any of the four languages (Chinese in both scripts),
#: besides the prompt's own refusal text. Matched after NFKC normalisation and case folding.
BUILTIN_PHRASES = (
    "insufficient evidence", "insufficient information", "not enough information", "not enough evidence",
    "the evidence does not answer", "the sources do not answer", "no references",
    "근거 부족", "근거가 부족", "근거가 충분하지", "정보가 부족", "충분한 정보가 없", "답을 찾을 수 없",
    "根拠が不十分", "根拠不十分", "十分な情報がありません", "情報が不足", "参考文献なし", "回答できません",
    "证据不足", "信息不足", "没有足够的信息", "无法回答", "无参考文献",
    "證據不足", "資訊不足", "沒有足夠的資訊", "沒有足夠的信息", "無法回答", "無參考文獻",
)


def normalise(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def declined_phrase(text: str, phrases: Iterable[str], valid_numbers: set[int]) -> str | None:
    """The refusal phrase that makes ``text`` a declined answer, or ``None``.

    A phrase in the answer's first sentence declines it ("Insufficient evidence: the answer depends
    on the diagnosis year."). Further on, it declines only an answer that cites no valid evidence:
    "Surgery is used [1]. There is not enough information about proton therapy." is a partial
    answer, and its sentence check shows what is unsupported.
    """
    wanted = [normalise(p) for p in phrases if p and p.strip()]
    lines = [line for line in MARKER.sub(" ", text).splitlines() if line.strip()]
    sentences = split_sentences(lines[0]) if lines else []
    first = normalise(sentences[0]) if sentences else ""
    for phrase in wanted:
        if phrase in first:
            return phrase
    cited = {int(n) for m in MARKER.finditer(text) for n in re.split(r"\s*,\s*", m.group(1))}
    if not cited & valid_numbers:
        whole = normalise(text)
        for phrase in wanted:
            if phrase in whole:
                return phrase
    return None


def refusal_message(text: str) -> str:
    """The model's reply as a refusal message: markers removed, whitespace tidied."""
    return " ".join(MARKER.sub("", text).split()).strip()


def may_still_decline(text: str, phrases: Iterable[str], valid_numbers: set[int]) -> bool:
    """Whether the answer begun as ``text`` may still end as a declined answer
    (:func:`declined_phrase`): until its first sentence is complete and is no refusal, and until it
    cites valid evidence (a refusal phrase further on declines only an answer citing none)."""
    if declined_phrase(text, phrases, valid_numbers) is not None:
        return True
    lines = [line for line in MARKER.sub(" ", text).splitlines() if line.strip()]
    if not lines:
        return True
    first_done = len(lines) > 1 or len(split_sentences(lines[0])) > 1 or text.endswith("\n")
    cited = {int(n) for m in MARKER.finditer(text) for n in re.split(r"\s*,\s*", m.group(1))}
    return not first_done or not cited & valid_numbers
