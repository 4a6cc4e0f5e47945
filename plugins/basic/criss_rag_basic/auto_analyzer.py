"""An analyzer that picks, per text, the analyzer made for that text's language."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import detect_language

DEFAULT_ANALYZERS: dict[str, str] = {"ja": "mecab", "ko": "kiwi", "zh": "jieba", "en": "english"}
# Where the language analyzers come from, for the error when one is not installed. Names only:
# the basic plugin imports no other plugin.
_PLUGIN_DIRS = {"mecab": "ja", "kiwi": "ko", "jieba": "zh"}
_LANGUAGE_NAMES = {"ja": "Japanese", "ko": "Korean", "zh": "Chinese", "en": "English"}
#: one short text per language, analyzed by warm_up() so that each language's analyzer loads its model
_WARM_UP_TEXT = {"en": "cancer treatment", "ko": "간암 치료", "ja": "がんの治療", "zh": "癌症治疗"}


class AutoAnalyzer:
    """Detects each text's language by script and analyses it with that language's analyzer."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzers: dict[Literal["en", "ja", "ko", "zh"], str | dict[str, Any]] = Field(
            default_factory=lambda: dict(DEFAULT_ANALYZERS),
            description="language code → analyzer name (or {name: ..., params}); a language left out "
            "uses `fallback`",
        )
        fallback: str | dict[str, Any] = Field("standard", description="analyzer for a language `analyzers` leaves out")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._ctx = ctx
        # Resolved on first use per language: a Japanese-only corpus needs no Korean analyzer
        # installed (and never loads its model).
        self._by_language: dict[str, Any] = {}

    def analyze(self, text: str) -> list[str]:
        return self.analyzer_for(detect_language(text)).analyze(text)

    def warm_up(self) -> None:
        """Start every language's analyzer and let it load its model (``Engine.warm_up``; a one-shot
        question loads only its own language's)."""
        for language, text in _WARM_UP_TEXT.items():
            self.analyzer_for(language).analyze(text)

    def analyzer_for(self, language: str) -> Any:
        """The analyzer this component uses for ``language`` (``ja``, ``ko``, ``zh`` or ``en``)."""
        if language not in self._by_language:
            spec = self.params.analyzers.get(language, self.params.fallback)  # type: ignore[call-overload]
            name = spec if isinstance(spec, str) else spec.get("name")
            try:
                self._by_language[language] = self._ctx.analyzer(spec)
            except ConfigError as exc:
                raise ConfigError(self._unavailable(language, str(name), exc)) from None
        return self._by_language[language]

    def _unavailable(self, language: str, name: str, exc: ConfigError) -> str:
        text = f"analyzer 'auto': {_LANGUAGE_NAMES[language]} text ({language}) goes to the analyzer {name!r}"
        if "unknown analyzer" not in str(exc):
            return f"{text}, which failed to start: {exc}"
        if name in _PLUGIN_DIRS:
            plugin = _PLUGIN_DIRS[name]
            fix = f"install its plugin: pip install -e plugins/{plugin} (criss-rag-{plugin})"
        else:
            fix = "install the plugin that registers it"
        return (
            f"{text}, which is not installed. To fix, {fix}, or map {language} to an installed analyzer "
            f"(e.g. standard) in `analyzers:`. ({exc})"
        )
