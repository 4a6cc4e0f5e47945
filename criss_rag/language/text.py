"""Script detection and sentence splitting that treat Korean, Japanese and Chinese as first-class."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

#: Character ranges of the CJK scripts (usable inside a regex character class).
HANGUL = "\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\ud7b0-\ud7ff"
KANA = "\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff"
# 々 〆 〇 are written with kanji and belong to their runs
HAN = "\u4e00-\u9fff\u3400-\u4dbf\uf900-\ufaff\u3005-\u3007\U00020000-\U0002ffff"

#: A citation marker in an answer: ``[1]`` or ``[2, 3]`` (group 1: the numbers).
CITATION_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")

_HANGUL = re.compile(f"[{HANGUL}]")
_KANA = re.compile(f"[{KANA}]")
_HAN = re.compile(f"[{HAN}]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")

# Candidate sentence ends: CJK terminators (no space needed), or . ! ? followed by space/end, or
# by a Hangul, kana or Han character (models writing Korean often glue sentences: "높아집니다.매일").
# Closing quotes and brackets stay with their sentence.
_BOUNDARY = re.compile(f"""[。！？]+[」』）)"'\\]]*\\s*|[.!?]+[)"'\\]]*(?:\\s+|$|(?=[{HANGUL}{KANA}{HAN}]))""")
_ABBREVIATIONS = {"e.g", "i.e", "etc", "vs", "dr", "mr", "ms", "mrs", "no", "st", "al", "fig"}
#: Bullets that start a list item at the start of a line, in the four languages' usage (a dash or an
#: asterisk needs a space after it: "-5" and "*note" are not items).
LIST_BULLETS = "•・·●○◦■□◆◇▪▫▶▷►※"
# A list item: a bullet; "1." or "1)" (then a space); "1、" (Chinese); "(1)" or "（1）"; a circled
# number; Korean "가." "나." ...; each at the start of a line.
_LIST_ITEM = re.compile(
    rf"(?:^|\n)[ \t]*(?:[-*+][ \t]+|[{LIST_BULLETS}][ \t]*|\d{{1,3}}[.)][ \t]+|\d{{1,3}}、[ \t]*"
    rf"|[(（]\d{{1,3}}[)）][ \t]*|[\u2460-\u2473][ \t]*|[가나다라마바사아자차카타파하][.)][ \t]+)")


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
    """Split text into sentences; blank lines and list items also end a sentence: every item of a
    bulleted or numbered list (``- ``, ``• ``, ``・``, ``1. ``, ``1、``, ``(1)``, ``①``, ``가. `` at the
    start of a line) is a sentence of its own, however it ends. An item goes on over indented lines
    (a wrapped item) and ends at the first line that is not indented (the text after the list)."""
    sentences: list[str] = []
    for unit in _units(text):
        unit = " ".join(unit.split())
        if not unit:
            continue
        start = 0
        for match in _BOUNDARY.finditer(unit):
            if match.end() < len(unit) and _is_abbreviation(unit[start : match.start()]):
                continue
            sentences.append(unit[start : match.end()].strip())
            start = match.end()
        if unit[start:].strip():
            sentences.append(unit[start:].strip())
    return sentences


def _units(text: str) -> list[str]:
    """Paragraphs and list items, in order: the pieces no sentence runs across."""
    units: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        in_item = False
        current: list[str] = []
        for line in block.split("\n"):
            item = _LIST_ITEM.match("\n" + line)
            if item or (in_item and line[:1] not in (" ", "\t")):
                units.append("\n".join(current))
                current = [line[item.end() - 1 :]] if item else [line]
                in_item = bool(item)
            else:
                current.append(line)
        units.append("\n".join(current))
    return units


def _is_abbreviation(before: str) -> bool:
    """True when the period just before a candidate boundary ends an abbreviation.

    Single capitals are not taken as initials: medical text ends sentences with "hepatitis B."
    and "vitamin D." far more often than it names people by initials."""
    word = before.rsplit(None, 1)[-1] if before.strip() else ""
    return word.lower() in _ABBREVIATIONS


# -- script runs: each run of text reaches an analyzer made for its script ------------------------
# A morphological analyzer given another script guesses: MeCab turned the Hangul word 간암 into one
# symbol token and split "HER2" into "HER" + "2". So a language analyzer keeps the runs of its own
# script, sends Latin runs to the English analysis and runs of another CJK script elsewhere.

_LATIN_CHARS = "0-9A-Za-z\u00c0-\u024f"
_JOIN = " \t'\u2019./-"
# A Latin run holds at least one letter ("HER2", "5-FU", "non-small cell"). Plain numbers stay
# with the text around them, where the morphological analyzer reads them with their counters
# (5年, 2기, 5年生存率).
_LATIN_RUN = f"(?=[0-9{_JOIN}]*[A-Za-z\u00c0-\u024f])[{_LATIN_CHARS}]+(?:[{_JOIN}]+[{_LATIN_CHARS}]+)*"


@cache
def _foreign(other_cjk: str) -> re.Pattern[str]:
    other = f"|(?P<other>[{other_cjk}]+)" if other_cjk else ""
    return re.compile(f"(?P<latin>{_LATIN_RUN}){other}")


def script_runs(text: str, other_cjk: str) -> list[tuple[str, str]]:
    """``(kind, run)`` pieces of ``text`` in order. ``kind`` is ``"latin"``, ``"other"`` (a run of
    the characters in ``other_cjk``) or ``"own"`` (everything else: the analyzer's own script with
    the spaces, punctuation and numbers around it, so that it keeps its sentence context)."""
    runs: list[tuple[str, str]] = []
    pos = 0
    for match in _foreign(other_cjk).finditer(text):
        if match.start() > pos:
            runs.append(("own", text[pos : match.start()]))
        runs.append((str(match.lastgroup), match.group()))
        pos = match.end()
    if pos < len(text):
        runs.append(("own", text[pos:]))
    return runs


def analyze_by_script(
    text: str, other_cjk: str, own: Callable[[str], list[str]], latin: Any, other: Any
) -> list[str]:
    """Terms of ``text`` in order: own-script runs through ``own``, Latin runs through
    ``latin.analyze``, runs of ``other_cjk`` through ``other.analyze``."""
    terms: list[str] = []
    for kind, run in script_runs(text, other_cjk):
        if kind == "latin":
            terms.extend(latin.analyze(run))
        elif kind == "other":
            terms.extend(other.analyze(run))
        elif run.strip():
            terms.extend(own(run))
    return terms


def helper_analyzer(ctx: Any, spec: str | dict[str, Any], key: str, owner: str) -> Any:
    """The analyzer ``spec`` names (param ``key`` of analyzer ``owner``), with an error that says
    where the usual helpers (``english``, ``standard``) come from."""
    from criss_rag.errors import ConfigError

    try:
        return ctx.analyzer(spec)
    except ConfigError as exc:
        name = spec if isinstance(spec, str) else spec.get("name")
        hint = (
            f" The `{name}` analyzer comes with the basic plugin: pip install -e plugins/basic (criss-rag-basic)."
            if name in {"english", "standard"}
            else f" Set `{key}` of analyzer {owner!r} to a registered analyzer."
        )
        raise ConfigError(f"analyzer {owner!r} needs the analyzer {name!r} for `{key}`: {exc}{hint}") from None
