"""Korean analysis with Kiwi (kiwipiepy): nouns, or nouns plus verb/adjective stems and adverbs.

Eojeol such as 간암의 or 병기는 never match as whole words; Kiwi splits off the particles and
endings (간암/NNG 의/JKG, 병기/NNG 는/JX).
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import KANA, analyze_by_script, helper_analyzer, loading

# Nouns (general, proper, dependent), foreign words, hanja and numbers. Latin text never reaches
# Kiwi (it goes to the Latin analyzer first), so SL is kept only for completeness.
_NOUN_TAGS = frozenset({"NNG", "NNP", "NNB", "SL", "SH", "SN"})
_STEM_TAGS = frozenset({"VV", "VA"})  # Kiwi marks irregular stems VV-I, VA-R, ...: compare the prefix
_ADVERB_TAGS = frozenset({"MAG"})
# Dependent nouns, light verbs and question adverbs that say nothing about the topic; they would
# only dilute the coverage check and the extractive generator's sentence scores.
_STOPWORDS = frozenset(
    """것 수 등 때 중 데 바 뿐 줄 지 편 점
    있다 없다 하다 되다 않다 같다 이다 어떻다 그렇다 이렇다
    왜 얼마나 어떻게 어디 언제 더 또 잘 좀 매우""".split()
)

_kiwi: Any = None
_kiwi_lock = threading.Lock()


def shared_kiwi() -> Any:
    """The process's one Kiwi instance, loaded on first use.

    Loading takes about 1.4 s and 300 MB, so every ``kiwi`` analyzer in the process shares one,
    and a pipeline that never analyses Korean never loads it. It is a read-only model, not
    registry state, so a module-level cache is safe across plugin hosts."""
    global _kiwi
    with _kiwi_lock:
        if _kiwi is None:
            with loading("kiwi (Korean morphology)"):
                from kiwipiepy import Kiwi

                _kiwi = Kiwi()
    return _kiwi


class KiwiAnalyzer:
    """Korean morphemes by Kiwi (kiwipiepy): nouns, or nouns plus verb/adjective stems and adverbs."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        pos: Literal["nouns", "content"] = Field(
            "nouns",
            description="nouns: nouns (NN*), hanja (SH) and numbers (SN); content: also verb and "
            "adjective stems as dictionary forms (VV/VA + 다) and adverbs (MAG)",
        )
        stopwords: bool = Field(
            True,
            description="drop dependent nouns (것, 수, 등, ...), light verbs (있다, 하다, ...) and question adverbs",
        )
        latin_analyzer: str | dict[str, Any] = Field(
            "english", description="analyzer for Latin-script runs (e.g. HER2, CT)"
        )
        other_script_analyzer: str | dict[str, Any] = Field("standard", description="analyzer for kana runs (Japanese)")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._latin = helper_analyzer(ctx, params.latin_analyzer, "latin_analyzer", "kiwi")
        self._other = helper_analyzer(ctx, params.other_script_analyzer, "other_script_analyzer", "kiwi")

    def analyze(self, text: str) -> list[str]:
        # Han characters stay with the Hangul: in Korean text they are hanja, which Kiwi tags SH.
        return analyze_by_script(unicodedata.normalize("NFKC", text), KANA, self._morphemes, self._latin, self._other)

    def _morphemes(self, text: str) -> list[str]:
        terms = []
        for token in shared_kiwi().tokenize(text):
            tag = token.tag.split("-")[0]
            if tag in _NOUN_TAGS:
                term = token.form
            elif self.params.pos == "content" and tag in _STEM_TAGS:
                term = token.form + "다"
            elif self.params.pos == "content" and tag in _ADVERB_TAGS:
                term = token.form
            else:
                continue
            if not (self.params.stopwords and (term in _STOPWORDS or _says_nothing(term, tag))):
                terms.append(term)
        return terms


_JAMO = re.compile("[\u1100-\u11ff\u3130-\u318f]+")


#: the formal dependent nouns (NNB) beside those of the stop list, with their colloquial forms:
#: "the thing, the fact, the way" (생기는 거예요, 해주는 건지); not the units (몇 주 뒤, 5년), which
#: may be what is asked
_FORMAL_NOUNS = frozenset("거 건 게 걸 듯 만 척 체 터 리 김 채".split())


def _says_nothing(term: str, tag: str) -> bool:
    """A formal dependent noun (``_FORMAL_NOUNS``) and loose jamo (ㅠㅠ, ㅋㅋ, which Kiwi tags as
    nouns): no topic."""
    return (tag == "NNB" and term in _FORMAL_NOUNS) or bool(_JAMO.fullmatch(term))
