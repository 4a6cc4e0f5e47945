"""Text analyzers: English (stopwords + Snowball stemming) and a standard analyzer that adds
character bigrams for Korean, Japanese and Chinese runs (no dictionary needed)."""

from __future__ import annotations

import re
import unicodedata

import Stemmer
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.lexicon.stopwords import ENGLISH

STOPWORDS = ENGLISH  # the English stopword list lives in criss_rag.lexicon.stopwords
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_CJK_RUN = re.compile(
    r"[\u3040-\u30ff\u31f0-\u31ff\u4e00-\u9fff\u3400-\u4dbf\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]+"
)
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]+")
# Japanese content lives in kanji and katakana runs; hiragana runs are mostly particles and endings.
_JA_CONTENT = re.compile(r"[\u30a0-\u30ff\u31f0-\u31ff\u4e00-\u9fff\u3400-\u4dbf々ー]+")
_KANA = re.compile(r"[\u3040-\u30ff]")
# Korean particles and verb endings stripped from the end of a word (longest first), and
# question words that carry no topic. A dictionary analyzer (kiwipiepy) does this properly.
_KO_SUFFIXES = sorted(
    """은 는 이 가 을 를 의 에 에서 에게 으로 로 와 과 도 만 까지 부터 보다 처럼 이나 나 란 이란
    인가요 인가 나요 까요 가요 습니까 합니까 입니까 니까 하나요 한가요 할까요 하면 되나요 됩니까 있나요 있습니까
    입니다 합니다 됩니다 습니다 이다 하다 되다 해야 하는 되는 있는 에는 에서는 으로는 로는 이며 하며""".split(),
    key=len, reverse=True,
)
_KO_STOP = frozenset("무엇 무엇이 어떻게 어떤 어느 왜 언제 어디 누가 얼마나 알려 주세요 있나".split())


class EnglishAnalyzer:
    """Lowercase words, English stopwords removed, Snowball-stemmed."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        stem: bool = Field(True, description="apply the Snowball English stemmer")
        stopwords: bool = Field(True, description="drop common English function words")

    def __init__(self, params: Params | None = None, ctx: ComponentContext | None = None) -> None:
        self.params = params or self.Params()
        self._stemmer = Stemmer.Stemmer("english") if self.params.stem else None

    def analyze(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).lower()
        words = [w.replace("’", "'").split("'")[0] for w in _WORD.findall(text)]
        if self.params.stopwords:
            words = [w for w in words if w not in STOPWORDS]
        return self._stemmer.stemWords(words) if self._stemmer else words


class StandardAnalyzer:
    """English analysis for Latin text plus character bigrams for Hangul, kana and Han runs."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        stem: bool = Field(True, description="stem the English words")

    def __init__(self, params: Params | None = None, ctx: ComponentContext | None = None) -> None:
        self.params = params or self.Params()
        self._english = EnglishAnalyzer(EnglishAnalyzer.Params(stem=self.params.stem))

    def analyze(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text)
        terms: list[str] = []
        for run in _CJK_RUN.findall(text):
            if _HANGUL_WORD.fullmatch(run):
                terms.extend(_bigrams(_korean_stem(run)))
            elif _KANA.search(run):
                for content in _JA_CONTENT.findall(run):
                    terms.extend(_bigrams(content))
            else:
                terms.extend(_bigrams(run))
        terms.extend(self._english.analyze(_CJK_RUN.sub(" ", text)))
        return terms


def _bigrams(run: str) -> list[str]:
    if not run:
        return []
    return [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]


def _korean_stem(word: str) -> str:
    for suffix in _KO_SUFFIXES:
        if word.endswith(suffix) and len(word) > len(suffix):
            word = word[: -len(suffix)]
            break
    return "" if word in _KO_STOP else word
