"""Korean read into content units for :mod:`criss_rag.lexicon.equivalence`: synonym phrases marked,
particles and endings cut (while what is left is a known word or two syllables or more),
``X보다`` bound as "than X", Latin runs read as English."""

from __future__ import annotations

import re

from criss_rag.language.text import HANGUL
from criss_rag.lexicon import function_words as fw
from criss_rag.lexicon.content_unit import MARK, PLACEHOLDER, Unit, mark_phrases
from criss_rag.lexicon.latin_units import latin_units
from criss_rag.lexicon.synonyms import SYNONYMS

_KO_KNOWN_SHORT = frozenset(
    "간 폐 위 뼈 뇌 암 피 눈 입 목 배 혹 전 후 중 않 없 못 안 말 더 덜 잘 왜 또 꼭 늘 다 술 약 균 병 열 혈".split()
)
_KO_SINGLE = {w: k for k, ws in SYNONYMS["ko"].items() for w in ws if " " not in w}
_JONG = {"ㄴ": 4, "ㄹ": 8, "ㅂ": 17}


def _jong(syllable: str) -> int:
    code = ord(syllable) - 0xAC00
    return code % 28 if 0 <= code < 11172 else -1


def _drop_jong(syllable: str) -> str:
    return chr(ord(syllable) - _jong(syllable))


def _ko_known(word: str) -> bool:
    return word in _KO_SINGLE or word in fw.KO or word in _KO_KNOWN_SHORT


def _ko_strip(word: str) -> str:
    """The word without particles and endings: cut while what is left is a known word or two
    syllables or more (a content word never shrinks into a particle: 나이 stays 나이)."""
    for _ in range(4):
        if _ko_known(word) and len(word) <= 2:
            return word
        for ending in fw.KO_ENDINGS:
            if ending[0] in _JONG:  # the ending begins in the final consonant of the syllable before it
                tail = ending[1:]
                if not word.endswith(tail) or len(word) <= len(tail):
                    continue
                before = word[-len(tail) - 1] if tail else word[-1]
                if _jong(before) != _JONG[ending[0]]:
                    continue
                rest = word[: -len(tail) - 1] + _drop_jong(before) if tail else word[:-1] + _drop_jong(before)
            else:
                if not word.endswith(ending) or len(word) <= len(ending):
                    continue
                rest = word[: -len(ending)]
            if len(rest) >= 2 or rest in _KO_SINGLE or rest in _KO_KNOWN_SHORT:
                word = rest
                break
        else:
            return word
    return word


_KO_ENDING_SET = frozenset(fw.KO_ENDINGS)
_KO_WORD = re.compile(f"{MARK}[^{MARK}]+{MARK}|[{HANGUL}]+|[^{HANGUL}{MARK}]+")


def korean_units(text: str) -> list[Unit]:
    """Units of a lower-cased, canonical Korean question, in order."""
    text = mark_phrases(text, "ko")
    units: list[Unit] = []
    for word in text.split():
        for piece in _KO_WORD.findall(word):
            placeholder = PLACEHOLDER.fullmatch(piece)
            if placeholder:
                units.append(Unit(placeholder.group(1), word))
            elif re.fullmatch(f"[{HANGUL}]+", piece):
                if piece in _KO_ENDING_SET and units and units[-1].surface == word:
                    continue  # the particle of a phrase just read: 치료 방법은
                bound = ""
                if piece.endswith("보다") and len(piece) > 2:
                    piece, bound = piece[:-2], "than:"
                stem = "" if piece in fw.KO else _ko_strip(piece)
                if stem in fw.KO or not stem:
                    continue
                units.append(Unit(bound + _KO_SINGLE.get(stem, stem), word))
            else:
                units.extend(Unit(u.key, word) for u in latin_units(piece, "ko", fw.EN))
    return units

