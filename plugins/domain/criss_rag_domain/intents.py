"""Question intent: what kind of information a question asks for, from multilingual cue phrases.

The built-in cues (``intents.yaml`` beside this module) cover twelve intents in English, Korean,
Japanese and Chinese: overview, treatment, stages, symptoms, diagnosis, prevention, risk, outlook,
causes, research, inheritance and genetic-changes (MedQuAD keeps "inheritance" and "genetic
changes" as separate sections, so they are separate intents here). Cues follow the phrase rules
of :mod:`criss_rag_domain.matching`: whole words for Latin (``treat*`` is a prefix), substrings for
CJK, longest cue first. ``overview`` counts only when no other intent is found.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import yaml

from criss_rag_domain.matching import PhraseMatcher, find_mentions

BUILTIN_FILE = Path(__file__).with_name("intents.yaml")
OVERVIEW = "overview"


class IntentLexicon:
    """Cue phrases per intent; :meth:`detect` names the intents a question asks about."""

    def __init__(self, cues: Mapping[str, Iterable[str]] | None = None, *, builtin: bool = True) -> None:
        self._shared = [_builtin_matcher()] if builtin else []
        self.cues: dict[str, list[str]] = {k: list(v) for k, v in _builtin_cues().items()} if builtin else {}
        self._matcher = PhraseMatcher()
        for intent, phrases in (cues or {}).items():
            for phrase in phrases:
                self.cues.setdefault(intent, []).append(phrase)
                self._matcher.add(phrase, intent)

    @property
    def intents(self) -> list[str]:
        return list(self.cues)

    def detect(self, text: str) -> list[str]:
        """Intents in order of first cue; ``overview`` only when nothing more specific is asked."""
        found = list(dict.fromkeys(m.key for m in find_mentions(text, [*self._shared, self._matcher])))
        specific = [intent for intent in found if intent != OVERVIEW]
        return specific or found


@lru_cache(maxsize=1)
def _builtin_cues() -> dict[str, list[str]]:
    data = yaml.safe_load(BUILTIN_FILE.read_text(encoding="utf-8"))
    return {
        intent: [c for lang in ("en", "ko", "ja", "zh") for c in entry.get(lang, [])]
        for intent, entry in data["intents"].items()
    }


@lru_cache(maxsize=1)
def _builtin_matcher() -> PhraseMatcher:
    matcher = PhraseMatcher()
    for intent, phrases in _builtin_cues().items():
        for phrase in phrases:
            matcher.add(phrase, intent)
    return matcher
