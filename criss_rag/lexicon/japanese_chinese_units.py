"""Japanese and Chinese read into content units for :mod:`criss_rag.lexicon.equivalence`: synonym
phrases marked, function words, particles and okurigana dropped, negations kept (Japanese
``ない`` as "not"), ``Xより`` and ``比X`` bound as "than X", Latin runs read as English. Chinese is
compared as written (Traditional and Simplified characters are different words)."""

from __future__ import annotations

import re

from criss_rag.language.text import HAN
from criss_rag.lexicon import function_words as fw
from criss_rag.lexicon.content_unit import MARK, PLACEHOLDER, Unit, mark_phrases, surface_of
from criss_rag.lexicon.latin_units import latin_units

_HIRAGANA = "\u3040-\u309f"
_JA_RUN = re.compile(
    f"{MARK}[^{MARK}]+{MARK}|[{_HIRAGANA}]+|[{HAN}\u30a0-\u30ffー]+|[^{_HIRAGANA}{HAN}\u30a0-\u30ffー{MARK}]+"
)
_JA_ITEMS = fw.longest_first([*fw.JA, *fw.JA_NEGATIONS, *fw.JA_OKURIGANA, "より"])


def _segment_hiragana(run: str, after_kanji: bool) -> list[tuple[str, str]]:
    """(kind, text) pieces of a hiragana run: function, negation, than, okurigana or content."""
    pieces: list[tuple[str, str]] = []
    i = 0
    while i < len(run):
        for item in _JA_ITEMS:
            if not run.startswith(item, i):
                continue
            if item in fw.JA_NEGATIONS:
                kind = "negation"
            elif item == "より":
                kind = "than"
            elif item in fw.JA:
                kind = "function"
            elif i == 0 and after_kanji:  # verb and adjective endings only right after the kanji
                kind = "function"
            else:
                continue
            pieces.append((kind, item))
            i += len(item)
            break
        else:
            if pieces and pieces[-1][0] == "content":
                pieces[-1] = ("content", pieces[-1][1] + run[i])
            else:
                pieces.append(("content", run[i]))
            i += 1
    return pieces


def japanese_units(text: str) -> list[Unit]:
    """Units of a lower-cased, canonical Japanese question, in order."""
    text = mark_phrases(text, "ja")
    units: list[Unit] = []
    previous = ""
    for run in _JA_RUN.findall(text):
        placeholder = PLACEHOLDER.fullmatch(run)
        if placeholder:
            units.append(Unit(placeholder.group(1), surface_of(placeholder.group(1), "ja")))
            previous = "kanji"
        elif re.fullmatch(f"[{_HIRAGANA}]+", run):
            for kind, piece in _segment_hiragana(run, previous == "kanji"):
                if kind == "negation":
                    units.append(Unit("not", piece))
                elif kind == "content":
                    units.append(Unit(piece, piece))
                elif kind == "than" and units:
                    units[-1] = Unit("than:" + units[-1].key, units[-1].surface + piece)
            previous = "kana"
        elif re.fullmatch(f"[{HAN}\u30a0-\u30ffー]+", run):
            if run not in fw.JA:
                units.append(Unit(run, run))
            previous = "kanji"
        else:
            units.extend(latin_units(run, "ja", fw.EN))
            previous = "latin"
    return units


_ZH_FUNCTION = fw.longest_first(fw.ZH)
_ZH_RUN = re.compile(f"{MARK}[^{MARK}]+{MARK}|[{HAN}]+|[^{HAN}{MARK}]+")


def chinese_units(text: str) -> list[Unit]:
    """Units of a lower-cased, canonical Chinese question, in order."""
    text = mark_phrases(text, "zh")
    units: list[Unit] = []
    bind = ""
    for run in _ZH_RUN.findall(text):
        placeholder = PLACEHOLDER.fullmatch(run)
        if placeholder:
            units.append(Unit(bind + placeholder.group(1), surface_of(placeholder.group(1), "zh")))
            bind = ""
        elif re.fullmatch(f"[{HAN}]+", run):
            content, i = "", 0
            while i < len(run):
                item = next((f for f in _ZH_FUNCTION if run.startswith(f, i)), None)
                if item is None:
                    content += run[i]
                    i += 1
                    continue
                if content:
                    units.append(Unit(bind + content, content))
                    bind, content = "", ""
                i += len(item)
            if content == "比":  # 比X: X is bound to the comparison
                bind = "than:"
            elif content:
                units.append(Unit(bind + content, content))
                bind = ""
        else:
            units.extend(latin_units(run, "zh", fw.EN))
    return units

