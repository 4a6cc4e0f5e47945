"""Script detection and sentence splitting that treat Korean, Japanese and Chinese as first-class."""

from __future__ import annotations

import re

_HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")
_KANA = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff]")
_HAN = re.compile(r"[\u4e00-\u9fff\u3400-\u4dbf]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")

# Candidate sentence ends: CJK terminators (no space needed), or . ! ? followed by space/end.
# Closing quotes and brackets stay with their sentence.
_BOUNDARY = re.compile(r"""[。！？]+[」』）)"'\]]*\s*|[.!?]+[)"'\]]*(?:\s+|$)""")
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "dr", "mr", "ms", "mrs", "no", "st", "al", "fig"}
_LIST_ITEM = re.compile(r"(?:^|\n)\s*(?:[-*•・]|\d+[.)])\s+")


def detect_language(text: str) -> str:
    """``ko``, ``ja``, ``zh`` or ``en`` by script: kana means Japanese, Hangul Korean, Han alone
    Chinese; anything else (including empty text) is treated as English."""
    hangul = len(_HANGUL.findall(text))
    kana = len(_KANA.findall(text))
    han = len(_HAN.findall(text))
    latin = len(_LATIN.findall(text))
    if kana and kana + han >= hangul:
        return "ja"
    if hangul and hangul >= han:
        return "ko"
    if han and han >= latin / 4:
        return "zh"
    return "en"


def split_sentences(text: str) -> list[str]:
    """Split text into sentences; blank lines and list bullets also end a sentence."""
    sentences: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        for item in _LIST_ITEM.split(block):
            item = " ".join(item.split())
            if not item:
                continue
            start = 0
            for match in _BOUNDARY.finditer(item):
                if match.end() < len(item) and _is_abbreviation(item[start : match.start()]):
                    continue
                sentences.append(item[start : match.end()].strip())
                start = match.end()
            if item[start:].strip():
                sentences.append(item[start:].strip())
    return sentences


def _is_abbreviation(before: str) -> bool:
    """True when the period just before a candidate boundary ends an abbreviation.

    Single capitals are not taken as initials: medical text ends sentences with "hepatitis B."
    and "vitamin D." far more often than it names people by initials."""
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    return word.lower() in _ABBREVIATIONS
