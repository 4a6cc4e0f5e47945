"""Removing characters outside the guideline's language, as the Japanese guideline system did.

``keep: [ja]`` keeps kana and kanji (with ー 々 〆 〇); ``ko`` Hangul; ``zh`` Han characters;
``en`` Latin letters. Digits, punctuation (Unicode categories P*, so 、。「」（） and ASCII
punctuation) and line breaks are kept unless switched off, and ``extra`` lists further characters
to keep. Each run of removed characters becomes one space, so words on either side stay apart:
"胸腺腫（thymoma）は" becomes "胸腺腫（ ）は".
"""

from __future__ import annotations

import re
import unicodedata

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import HAN, HANGUL, KANA

SCRIPTS = {"ja": KANA + HAN, "ko": HANGUL, "zh": HAN, "en": "A-Za-z\u00c0-\u024f"}


class LanguageFilter(BaseModel):
    """Which characters a document keeps (``keep: []`` keeps everything)."""

    model_config = ConfigDict(extra="forbid")
    keep: list[str] = Field(
        default_factory=list,
        description=f"languages whose script is kept ({', '.join(SCRIPTS)}); every other letter is removed. "
        "Empty: keep the text as it is",
    )
    digits: bool = Field(True, description="keep digits (0-9 and full-width ０-９)")
    punctuation: bool = Field(True, description="keep punctuation (、。「」（）.,:; ...)")
    extra: str = Field("", description="further characters to keep, e.g. `%±~`")

    def apply(self, text: str) -> str:
        """``text`` with the characters outside the kept scripts removed (see the module docstring)."""
        if not self.keep:
            return text
        unknown = [lang for lang in self.keep if lang not in SCRIPTS]
        if unknown:
            raise ConfigError(f"language filter: unknown language {unknown[0]!r}; valid: {', '.join(SCRIPTS)}")
        script = re.compile("[" + "".join(SCRIPTS[lang] for lang in self.keep) + re.escape(self.extra) + "]")
        out: list[str] = []
        for ch in text:
            if ch == "\n" or script.match(ch) or self._kept_class(ch):
                out.append(ch)
            elif not out or out[-1] != " ":
                out.append(" ")
        lines = (" ".join(line.split()) for line in "".join(out).splitlines())
        return "\n".join(line for line in lines if line)

    def _kept_class(self, ch: str) -> bool:
        category = unicodedata.category(ch)
        return (self.digits and category == "Nd") or (self.punctuation and category.startswith("P"))
