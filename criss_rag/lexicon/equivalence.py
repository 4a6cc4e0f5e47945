"""Do two questions ask the same thing? Shown word by word, denied otherwise.

:func:`compare` reads both questions into their content words (:func:`content_units`) and
requires every content word and number of *each* question to be matched in the other: by identity,
by normal form (:func:`~criss_rag.lexicon.normalize.normalize`, English inflection, Korean
particles and endings), or by a known synonym (:mod:`criss_rag.lexicon.synonyms`). A word matches
across compounds written apart or together ("non small" / "non-small", "폐 암" / "폐암", "IIA" /
"II-A"). Anything left unmatched, a word no list knows included, makes the questions different;
:attr:`Equivalence.unmatched` names it as written.

What is *not* content is listed (:mod:`criss_rag.lexicon.function_words`): articles, auxiliaries,
pronouns, the frame of a question (what, how, 무엇, どのような, 什么), particles and endings.
Negations are always content. Words that only make sense with the next one are bound to it, so
that swapping them is a difference: a comparison and its number ("over 65" / "under 65", "65 or
older"), "than X" ("more common in men than women"), "from X", "versus X"; Korean ``X보다``,
Japanese ``Xより``, Chinese ``比X``.

Chinese is compared as written: Traditional and Simplified characters are different words unless
both questions use the same script (no script converter is a dependency of the core).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from criss_rag.language.text import HAN, HANGUL, detect_language
from criss_rag.lexicon import function_words as fw
from criss_rag.lexicon.facets import extract
from criss_rag.lexicon.normalize import normalize, normalize_numbers
from criss_rag.lexicon.synonyms import ACRONYMS, SYNONYMS


@dataclass(frozen=True)
class Unit:
    """One content word: ``key`` is what is compared, ``surface`` what the trace shows."""

    key: str
    surface: str


@dataclass(frozen=True)
class Equivalence:
    """The verdict of :func:`compare`: ``same`` only when nothing is ``unmatched`` (words as written,
    of either question)."""

    same: bool
    unmatched: tuple[str, ...] = ()


# -- shared pieces ------------------------------------------------------------------------------------

_MARK = "\x00"  # placeholder for a synonym phrase found in the text: \x00key\x00
_PLACEHOLDER = re.compile(f"{_MARK}([^{_MARK}]+){_MARK}")
_PUNCTUATION = set("?!.,;:\"'()[]{}/…、。？！，；：「」『』（）·・〜~\\|")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_BINDING = {
    "than": "than:",
    "from": "from:",
    "versus": "versus:",
    "to": "to:",
    "into": "to:",
}  # the next word is bound to these
_CMP = re.compile(r"cmp:(?:>=|<=|>|<)")


def _number_key(text: str) -> str:
    text = re.sub(r",(?=\d{3}(?!\d))", "", text).replace(",", ".")
    return re.sub(r"\.0+$", "", text)


def _phrases(language: str) -> tuple[re.Pattern | None, dict[str, str]]:
    """A regex of a language's synonym phrases (longest first) and phrase -> key."""
    table: dict[str, str] = {}
    for key, words in SYNONYMS[language].items():
        for word in words:
            table[normalize(word).lower()] = key
    if language == "en":  # single English words go through the stemmer instead
        table = {w: k for w, k in table.items() if not re.fullmatch(r"[a-z]+", w)}
    elif language == "ko":  # single Korean words are compared after their endings are cut
        table = {w: k for w, k in table.items() if " " in w}
    if not table:
        return None, table
    alternatives = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    if language == "en":
        return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w])"), table
    if language == "ko":  # a Korean phrase may carry particles and endings: 치료 방법은
        return re.compile(rf"(?<![\w])(?:{alternatives})"), table
    return re.compile(alternatives), table


_PHRASES = {language: _phrases(language) for language in SYNONYMS}


def _mark_phrases(text: str, language: str) -> str:
    pattern, table = _PHRASES[language]
    if pattern is None:
        return text
    pad = "" if language == "ko" else " "  # a Korean phrase keeps its particle in its word
    return pattern.sub(lambda m: f"{pad}{_MARK}{table[m.group(0)]}{_MARK}{pad}", text)


# -- English ------------------------------------------------------------------------------------------


def english_stem(word: str) -> str:
    """An inflection-free form of an English word (plural, -ed, -ing, final e), the same for every
    form of a word: treated / treats / treating -> treat; causes / caused / cause -> caus."""
    while True:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("sses"):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            word = word[:-1]
        elif word.endswith("ing") and len(word) >= 6:
            word = word[:-3]
        elif word.endswith("ed") and len(word) >= 4:
            word = word[:-2]
        elif word.endswith("e") and len(word) >= 4:
            word = word[:-1]
        else:
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # running -> runn -> run
    return word


_EN_SINGLE = {english_stem(w): k for k, ws in SYNONYMS["en"].items() for w in ws if re.fullmatch(r"[a-z]+", w)}
_EN_FRAMES = re.compile(r"\b(?:" + "|".join(re.escape(f).replace(r"\ ", r"\s+(?:please\s+)?")
                                          for f in sorted(fw.EN_FRAMES, key=len, reverse=True)) + r")\b")
_EN_CONTRACTIONS = [(re.compile(r"\bcan't\b|\bcannot\b"), "can not"), (re.compile(r"\bwon't\b"), "will not"),
                    (re.compile(r"n't\b"), " not"), (re.compile(r"'(?:s|re|ve|ll|d|m)\b"), "")]
# a word, a hyphenated compound, a number, a placeholder, or one symbol
_LATIN_TOKEN = re.compile(
    rf"{_MARK}[^{_MARK}]+{_MARK}|\d+(?:\s*[+/:×]\s*\d+)+|\d+(?:[.,]\d+)*(?:-?[a-z]+)?(?:-[a-z0-9]+)*|[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
    rf"|(?<=[a-z0-9])-(?![a-z0-9])|[^\s\w-]"
)


def _latin_units(text: str, language: str, standalone_function: frozenset[str]) -> list[Unit]:
    """Units of Latin, digit and symbol text (English questions, and Latin runs in the others)."""
    text = _EN_FRAMES.sub(" ", text)
    for pattern, replacement in _EN_CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = _mark_phrases(text, "en")
    units: list[Unit] = []
    for token in _LATIN_TOKEN.findall(text):
        placeholder = _PLACEHOLDER.fullmatch(token)
        if placeholder:
            units.append(Unit(placeholder.group(1), placeholder.group(1)))
            continue
        if token in _PUNCTUATION:
            continue
        if token == "-":
            units.append(Unit("sign:-", token))
            continue
        if re.fullmatch(r"\d+(?:\s*[+/:×]\s*\d+)+", token):  # 3+4, 1/2: one number, its order counts
            units.append(Unit(re.sub(r"\s", "", token), token))
            continue
        parts = [p for p in re.split(r"-", token) if p]
        if len(parts) == 1 and token in standalone_function:
            continue
        for part in parts:
            units.append(Unit(_latin_key(part), token))
    return units


def _latin_key(word: str) -> str:
    if _NUMBER.fullmatch(word):
        return _number_key(word)
    numbered = re.fullmatch(r"(\d+(?:[.,]\d+)*)([a-z]+)", word)  # 3a, 2cm
    if numbered:
        return _number_key(numbered.group(1)) + numbered.group(2)
    if not word.isalpha():
        return word
    stem = english_stem(word)
    return _EN_SINGLE.get(stem, stem)


# -- Korean -------------------------------------------------------------------------------------------

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
_KO_WORD = re.compile(f"{_MARK}[^{_MARK}]+{_MARK}|[{HANGUL}]+|[^{HANGUL}{_MARK}]+")


def _korean_units(text: str) -> list[Unit]:
    text = _mark_phrases(text, "ko")
    units: list[Unit] = []
    for word in text.split():
        for piece in _KO_WORD.findall(word):
            placeholder = _PLACEHOLDER.fullmatch(piece)
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
                units.extend(Unit(u.key, word) for u in _latin_units(piece, "ko", fw.EN))
    return units


# -- Japanese and Chinese -----------------------------------------------------------------------------

_HIRAGANA = "\u3040-\u309f"
_JA_RUN = re.compile(
    f"{_MARK}[^{_MARK}]+{_MARK}|[{_HIRAGANA}]+|[{HAN}\u30a0-\u30ffー]+|[^{_HIRAGANA}{HAN}\u30a0-\u30ffー{_MARK}]+"
)
_JA_ITEMS = sorted(set(fw.JA) | set(fw.JA_NEGATIONS) | set(fw.JA_OKURIGANA) | {"より"}, key=len, reverse=True)


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


def _japanese_units(text: str) -> list[Unit]:
    text = _mark_phrases(text, "ja")
    units: list[Unit] = []
    previous = ""
    for run in _JA_RUN.findall(text):
        placeholder = _PLACEHOLDER.fullmatch(run)
        if placeholder:
            units.append(Unit(placeholder.group(1), _surface_of(placeholder.group(1), "ja")))
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
            units.extend(_latin_units(run, "ja", fw.EN))
            previous = "latin"
    return units


_ZH_FUNCTION = sorted(fw.ZH, key=len, reverse=True)
_ZH_RUN = re.compile(f"{_MARK}[^{_MARK}]+{_MARK}|[{HAN}]+|[^{HAN}{_MARK}]+")


def _chinese_units(text: str) -> list[Unit]:
    text = _mark_phrases(text, "zh")
    units: list[Unit] = []
    bind = ""
    for run in _ZH_RUN.findall(text):
        placeholder = _PLACEHOLDER.fullmatch(run)
        if placeholder:
            units.append(Unit(bind + placeholder.group(1), _surface_of(placeholder.group(1), "zh")))
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
            units.extend(_latin_units(run, "zh", fw.EN))
    return units


def _surface_of(key: str, language: str) -> str:
    words = SYNONYMS[language].get(key, ())
    return words[0] if words else key


# -- the whole reading ----------------------------------------------------------------------------------


_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}
_ROMAN_STAGE = re.compile(r"(iv|i{1,3}|v)([a-c]?)")
_STAGE_WORDS = {"stage", "grade"}


def _stage_numbers(units: list[Unit]) -> list[Unit]:
    """Roman numerals next to a stage or grade word as digits: stage IIIA -> 3a, III기 -> 3."""
    out = list(units)
    for i, unit in enumerate(out):
        roman = _ROMAN_STAGE.fullmatch(unit.key)
        beside = {out[j].key for j in (i - 1, i + 1) if 0 <= j < len(out)}
        if roman and beside & _STAGE_WORDS:
            out[i] = Unit(_ROMAN[roman.group(1)] + roman.group(2), unit.surface)
    return out


def _bind(units: list[Unit]) -> list[Unit]:
    """Words that belong with the next one (than, from, versus) or a comparison with its number
    (before it: "over 65"; after it: "65 or older") become one unit."""
    out: list[Unit] = []
    i = 0
    while i < len(units):
        unit = units[i]
        nxt = units[i + 1] if i + 1 < len(units) else None
        if unit.key in _BINDING and nxt is not None:
            out.append(Unit(_BINDING[unit.key] + nxt.key, f"{unit.surface} {nxt.surface}"))
            i += 2
            continue
        if _CMP.fullmatch(unit.key):
            if nxt is not None and _NUMBER.match(nxt.key):
                out.append(Unit(unit.key + nxt.key, f"{unit.surface} {nxt.surface}"))
                i += 2
                continue
            back = next((j for j in (-1, -2) if len(out) >= -j and _NUMBER.match(out[j].key)), None)
            if back is not None:  # 65 or older, 65세 이상 (a unit may stand between)
                out[back] = Unit(unit.key + out[back].key, f"{out[back].surface} {unit.surface}")
                i += 1
                continue
        out.append(unit)
        i += 1
    return out


_ACRONYM = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(ACRONYMS) + r")(?![A-Za-z0-9])", re.IGNORECASE)
_FRAMES = {language: re.compile("|".join(patterns)) for language, patterns in fw.FRAMES.items()}


def canonical_text(text: str, language: str) -> str:
    """``text`` with numbers, stages and signs in one form, abbreviations of cancer names written
    out in the question's language (NSCLC는 -> 비소세포폐암는) and Korean, Japanese and Chinese
    question frames removed; case is kept. What the cache reads facets from, too."""
    text = normalize_numbers(text)

    def name(match: re.Match) -> str:
        pad = " " if language == "en" else ""  # a Korean particle stays on its word: NSCLC는
        return f"{pad}{ACRONYMS[match.group(1).lower()].get(language, match.group(1))}{pad}"

    text = _ACRONYM.sub(name, text)
    return _FRAMES[language].sub(" ", text) if language in _FRAMES else text


def content_units(text: str, language: str | None = None) -> list[Unit]:
    """The content words and numbers of a question, in order (see the module docstring)."""
    language = language or detect_language(text)
    text = canonical_text(text, language).lower()
    if language == "ko":
        units = _korean_units(text)
    elif language == "ja":
        units = _japanese_units(text)
    elif language == "zh":
        units = _chinese_units(text)
    else:
        units = _latin_units(text, "en", fw.EN)
    punctuation = "".join(_PUNCTUATION)
    return [Unit(u.key, u.surface.strip(punctuation) or u.surface) for u in _bind(_stage_numbers(units))]


def _joins(units: list[Unit], size: int = 3) -> dict[str, list[int]]:
    """Keys of runs of 2..size neighbouring units written together, with the units they cover."""
    joined: dict[str, list[int]] = {}
    for start in range(len(units)):
        for end in range(start + 2, min(len(units), start + size) + 1):
            joined.setdefault("".join(u.key for u in units[start:end]), list(range(start, end)))
    return joined


def _unmatched(mine: list[Unit], theirs: list[Unit]) -> list[int]:
    keys = {u.key for u in theirs}
    their_joins = _joins(theirs)
    covered = {i for joined, span in _joins(mine).items() if joined in keys for i in span}
    return [i for i, u in enumerate(mine) if u.key not in keys and u.key not in their_joins and i not in covered]


def compare(a: str, b: str, language: str | None = None) -> Equivalence:
    """Whether ``a`` and ``b`` ask the same thing: every content unit of each matched in the other."""
    language = language or detect_language(a)
    units_a, units_b = content_units(a, language), content_units(b, language)
    missing = [units_a[i].surface for i in _unmatched(units_a, units_b)]
    missing += [units_b[i].surface for i in _unmatched(units_b, units_a)]
    unmatched = tuple(dict.fromkeys(missing))
    if not unmatched:  # the same words: they must also come in the same order
        unmatched = _reordered(units_a, units_b)
    return Equivalence(same=not unmatched, unmatched=unmatched)


def _movable(unit: Unit) -> bool:
    """A unit whose place in the question does not change what it asks about: what is asked
    (treated / the treatment, symptoms, causes), and stage numbers and their markers (第3期 /
    ステージ3)."""
    if any(ch.isdigit() for ch in unit.key) or unit.key.lower() in _STAGE_MARKERS:
        return True
    return bool(extract(unit.surface).aspect or extract(unit.key).aspect)


_STAGE_MARKERS = frozenset({"stage", "grade", "ステージ", "期", "기", "병기", "分期", "第", "病期", "级", "級", "등급"})


def _reordered(units_a: list[Unit], units_b: list[Unit]) -> tuple[str, ...]:
    """The first pair of content units that the two questions write in opposite order ("does
    hepatitis B cause liver cancer" / "does liver cancer cause hepatitis B"), as one unmatched item;
    () when none is. Word order can carry who does what to whom, so a question whose words are the
    same but reordered is not shown to ask the same thing (a paraphrase that reorders is a cache miss,
    never another question's answer). Units written once in each question are compared."""
    units_a, units_b = [u for u in units_a if not _movable(u)], [u for u in units_b if not _movable(u)]
    once_a = [u.key for u in units_a if sum(v.key == u.key for v in units_a) == 1]
    position_b = {u.key: i for i, u in enumerate(units_b) if sum(v.key == u.key for v in units_b) == 1}
    shared = [key for key in once_a if key in position_b]
    surface = {u.key: u.surface for u in units_a}
    for first, second in zip(shared, shared[1:], strict=False):
        if position_b[first] > position_b[second]:
            return (f"word order: {surface[first]} … {surface[second]}",)
    return ()


def keys(units: Iterable[Unit]) -> list[str]:
    """The compared keys of ``units`` (for tests and benchmarks)."""
    return [u.key for u in units]
