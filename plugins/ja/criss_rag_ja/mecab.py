"""Japanese analysis with MeCab (fugashi + the UniDic dictionary of unidic-lite).

The Japanese guideline system kept MeCab's nouns only and scored pages with TF-IDF; ``pos: nouns``
does the same. ``pos: content`` also keeps verbs, adjectives and adverbs in their dictionary form.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import HAN, HANGUL, KANA, analyze_by_script, helper_analyzer

_NOT_JAPANESE = re.compile(f"[^{KANA}{HAN}]+")
# Nouns too general to say what a passage is about; they would only dilute the coverage check
# and the extractive generator's sentence scores.
_STOP_NOUNS = frozenset("もの こと ため とき ところ ほう".split())
_HONORIFIC = frozenset("お ご 御".split())


class MecabAnalyzer:
    """Japanese morphemes by MeCab (fugashi + unidic-lite): nouns, or all content words."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        pos: Literal["nouns", "content"] = Field(
            "nouns",
            description="nouns: nouns (and noun suffixes) only, as the Japanese guideline system did; "
            "content: also verbs, adjectives (incl. na-adjectives) and adverbs",
        )
        form: Literal["base", "lemma"] = Field(
            "base",
            description="base: the dictionary form as written (行い → 行う); lemma: UniDic's lemma, "
            "which also unifies spellings (乳がん → 乳癌)",
        )
        stopwords: bool = Field(
            True, description="drop general nouns (もの, こと, ため, ...) and light verbs (ある, する, なる, ...)"
        )
        drop_non_japanese: bool = Field(
            False,
            description="remove every character that is not kana or kanji before analysis (Latin words, "
            "digits, Hangul), as the Japanese guideline system did",
        )
        latin_analyzer: str | dict[str, Any] = Field(
            "english", description="analyzer for Latin-script runs (e.g. HER2, CT); unused with drop_non_japanese"
        )
        other_script_analyzer: str | dict[str, Any] = Field(
            "standard", description="analyzer for Hangul runs; unused with drop_non_japanese"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        # One tagger per component: starting one takes about a millisecond, but MeCab taggers are
        # not thread-safe, so calls are serialised below.
        import fugashi  # MeCab loads only when a config names this analyzer

        self._tagger = fugashi.Tagger()
        self._lock = threading.Lock()
        if not params.drop_non_japanese:
            self._latin = helper_analyzer(ctx, params.latin_analyzer, "latin_analyzer", "mecab")
            self._other = helper_analyzer(ctx, params.other_script_analyzer, "other_script_analyzer", "mecab")

    def analyze(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text)
        if self.params.drop_non_japanese:
            return self._morphemes(_NOT_JAPANESE.sub(" ", text))
        return analyze_by_script(text, HANGUL, self._morphemes, self._latin, self._other)

    def _morphemes(self, text: str) -> list[str]:
        with self._lock:
            words = [(w.surface, w.feature) for w in self._tagger(text)]
        terms: list[str] = []
        prefix = ""
        for surface, feature in words:
            if feature.pos1 == "接頭辞":
                # UniDic splits 副作用 into 副 + 作用 and 非小細胞 into 非 + 小 + 細胞; the prefix
                # changes the meaning, so it stays glued to its word (honorific お, ご do not)
                prefix += "" if surface in _HONORIFIC else surface
                continue
            if term := self._term(surface, feature):
                terms.append(prefix + term)
            prefix = ""
        return terms

    def _term(self, surface: str, feature: Any) -> str | None:
        pos1, pos2 = feature.pos1, feature.pos2
        # UniDic splits 放射線 into 放射 + 線 (suffix); noun-like suffixes count as nouns, as in
        # the IPA dictionary the Japanese system used.
        noun = pos1 == "名詞" or (pos1 == "接尾辞" and pos2 == "名詞的")
        content = pos1 in {"動詞", "形容詞", "副詞"} or (pos1 == "形状詞" and pos2 != "助動詞語幹")
        if not (noun or (content and self.params.pos == "content")):
            return None
        base = feature.orthBase or surface  # unknown words carry no base form
        if self.params.stopwords and (base in _STOP_NOUNS or (content and pos2 == "非自立可能")):
            return None
        if self.params.form == "lemma" and feature.lemma:
            # loanword lemmas carry an English gloss: ステージ-stage
            return feature.lemma.split("-")[0]
        return base
