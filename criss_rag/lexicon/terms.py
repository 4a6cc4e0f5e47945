"""Content terms for aligning a sentence with a passage, tolerant of paraphrase, in English, Korean,
Japanese and Chinese without an analyzer plugin.

Word-list phrases (:mod:`criss_rag.lexicon.facet_words`) become one canonical term each, so
"gastric" and "stomach", "kids" and "children", 위 and 胃 compare by what they name; numbers become
their digits. The rest: English words without stopwords, crudely stemmed, with a few spelling
variants folded; Korean words without their particles and endings, as character bigrams; Japanese
kanji and katakana runs as bigrams (hiragana is grammar: politeness and inflection do not count);
Chinese Han runs (Traditional folded to Simplified) as bigrams, function characters left out.
"""

from __future__ import annotations

import re
from functools import lru_cache

from criss_rag.language.text import detect_language
from criss_rag.lexicon import facets as _facets
from criss_rag.lexicon.claims import prepare
from criss_rag.lexicon.directions import CUES as DIRECTION_CUES
from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.negation import CUES as NEGATION_CUES
from criss_rag.lexicon.negation import LESS as NEGATION_LESS
from criss_rag.lexicon.quantities import shares
from criss_rag.lexicon.stopwords import ALIGNMENT

_EN_STOP = ALIGNMENT  # the name criss_rag.lexicon.edits imports

_EN_SPELLING = {"tumour": "tumor", "tumours": "tumor", "tumors": "tumor", "growths": "tumor", "growth": "tumor",
                "physician": "doctor", "physicians": "doctor", "doctors": "doctor", "commonest": "common",
                "oesophagus": "esophagus", "haemorrhage": "hemorrhage", "anaemia": "anemia", "centre": "center",
                "haematologist": "hematologist", "behaviour": "behavior", "colour": "color", "grey": "gray",
                "localised": "localized", "utilise": "use", "utilize": "use", "medicine": "drug", "medicines": "drug",
                "medication": "drug", "medications": "drug", "drugs": "drug", "removal": "remov", "remove": "remov",
                "illness": "disease", "sickness": "disease", "signs": "symptom", "sign": "symptom",
                "grow": "develop", "grows": "develop", "growing": "develop", "arise": "develop", "arises": "develop"}
_SUFFIXES = ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ly", "ed", "es", "s", "e")
_LATIN = re.compile(r"[a-z0-9]+")
_KO_WORD = re.compile(r"[가-힣]+")
_KO_ENDING = re.compile(
    r"(?:이란|란|입니다|습니다|합니다|됩니다|십니다|니다|이에요|예요|해요|돼요|이다|한다|된다|하다|되다|있다|있습|에서는|에서도|에서|에게|으로는|으로|로는|로|"
    r"은|는|이|가|을|를|에는|에도|에|의|도|와|과|만|까지|부터|보다|처럼|하며|하고|하는|되는|되며|되고|된|한|할|하여|해서|해|되어|돼|으면|면|"
    r"지만|고|며|요|들)$")
_KO_NEGATION = re.compile(r"(?:않|없|못|아니|아닌|아님)(?![가-힣]{2})")  # 않, 없어, 아닌: compared apart (negation)
_KO_PARTICLES = frozenset("에의은는이가을를도와과만로대서")
_JA_RUN = re.compile(r"[一-龥々〆ァ-ヶー]+")
_ZH_STOP = re.compile(
    r"[的了是在和与或也都会可以被有这那为对等其之及而并但就还则于将把让使从到由因所个种些该此它他她们我你吗呢吧很更较]"
)
_HAN_RUN = re.compile(r"[一-龥]+")
_ZH_HEDGE = re.compile(r"大约|大概|左右|上下|约|仅|只有|只")  # about, only: not what a sentence is about


def _without_compared_words(text: str, language: str) -> str:
    """``text`` with negation cues and frequency words ("usually", 보통, 通常, 一般) blanked: the
    check compares them apart (polarity, directions), so a sentence that rewords them ("一般没有疼痛"
    for "通常不伴有疼痛") still aligns with its passage sentence."""
    if language == "en":  # "painless" is about pain: the word stays, its negating suffix goes
        text = NEGATION_LESS.sub(lambda m: m.group(1) + "    ", text)
    if language != "ko":  # Korean cues are verb stems inside words: those words are left out after stemming
        text = NEGATION_CUES.get(language, NEGATION_CUES["en"]).sub(lambda m: " " * len(m.group(0)), text)
    for pattern, value in DIRECTION_CUES.get(language, DIRECTION_CUES["en"]):
        if value.startswith("frequency:"):
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def ko_stem(word: str) -> str:
    """A Korean word without its particle and verb ending, stripped at most twice and never to a
    single syllable on the second strip (필요합니다 -> 필요, not 필)."""
    for strip in range(2):
        stripped = _KO_ENDING.sub("", word)
        if not stripped or stripped == word or (strip and len(stripped) < 2):
            break
        word = stripped
    return word


def _stem(word: str) -> str:
    word = _EN_SPELLING.get(word, word)
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def _bigrams(run: str) -> list[str]:
    return [run] if len(run) <= 2 else [run[i : i + 2] for i in range(len(run) - 1)]


@lru_cache(maxsize=16384)
def content_terms(text: str, language: str | None = None) -> frozenset[str]:
    """The content terms of ``text`` (language detected unless given)."""
    language = language or detect_language(text)
    if language not in LEXICON:
        language = "en"
    text = prepare(text, language)
    if language == "en":
        text = re.sub(r"n't\b", " not", text.lower())
    text = shares(text, language)
    stages, text = _facets._stages(text)
    found: set[str] = set(stages)
    for pattern, facet, value, _ in LEXICON[language]:
        if facet == "aspect":
            continue

        def keep(match: re.Match, facet: str = facet, value: str | None = value) -> str:
            found.add(f"{facet}:{value if value is not None else match.group(0).strip().lower()}")
            return " " * len(match.group(0))

        text = pattern.sub(keep, text)
    found.update(re.findall(r"\d+(?:\.\d+)?", text))
    text = _without_compared_words(text, language)
    if language == "en":
        found.update(_stem(w) for w in _LATIN.findall(text) if w not in ALIGNMENT and not w.isdigit())
    elif language == "ko":
        for word in map(ko_stem, _KO_WORD.findall(text)):
            if _KO_NEGATION.match(word):
                continue
            if len(word) > 1 or word not in _KO_PARTICLES:
                found.update(_bigrams(word))
        found.update(w.lower() for w in _LATIN.findall(text.lower()) if not w.isdigit())
    elif language == "ja":
        for run in _JA_RUN.findall(text):
            found.update(_bigrams(run))
        found.update(w for w in _LATIN.findall(text.lower()) if not w.isdigit())
    else:
        for run in _HAN_RUN.findall(_ZH_STOP.sub(" ", _ZH_HEDGE.sub(" ", text))):
            found.update(_bigrams(run))
        found.update(w for w in _LATIN.findall(text.lower()) if not w.isdigit())
    return frozenset(found)
