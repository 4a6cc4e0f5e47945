"""Chinese analysis with jieba word segmentation, punctuation and function words removed."""

from __future__ import annotations

import logging
import tempfile
import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.text import HANGUL, KANA, analyze_by_script, helper_analyzer

if TYPE_CHECKING:  # jieba loads when a config names this analyzer, not with the plugin
    import jieba

# Function words and question words (simplified, plus the traditional forms that differ): they
# match every passage and would only dilute BM25, the coverage check and the extractive scores.
STOPWORDS = frozenset(
    """的 地 得 了 着 过 是 在 和 与 及 或 等 之 其 而 并 但 也 都 就 还 又 被 把 对 从 以 为 于 将 由 向
    如何 什么 吗 呢 吧 啊 么 怎么 怎样 怎么样 哪 哪些 哪个 为什么 为何 是否 有没有 多少 几
    这 那 这个 那个 这些 那些 这样 那样 一个 一些 一种 我 你 您 他 她 它 我们 你们 他们 自己
    请问 请 可以 能 能否 会 要 应该 有 没有 如果 因为 所以 以及 或者 还是 及其 并且 而且 非常 很 最
    什麼 嗎 們 與 這 這個 這些 個 為 對 於 還 會 過 將 該 應該 沒有 為什麼 怎麼""".split()
)

_tokenizers: dict[Path, jieba.Tokenizer] = {}
_lock = threading.Lock()


def shared_tokenizer(cache_dir: Path) -> jieba.Tokenizer:
    """One jieba tokenizer per cache folder and process, its dictionary built on first use.

    jieba's own global tokenizer (``jieba.dt``) is left alone, so other code in the process that
    uses jieba keeps its settings. Building the prefix dictionary takes about 1.5 s and writes
    ``jieba.cache`` (~9 MB) into ``cache_dir``; later processes load that file instead."""
    import jieba

    with _lock:
        if cache_dir not in _tokenizers:
            # jieba logs "Building prefix dict ..." at DEBUG on its own stderr handler
            jieba.setLogLevel(logging.WARNING)
            cache_dir.mkdir(parents=True, exist_ok=True)
            tokenizer = jieba.Tokenizer()
            tokenizer.tmp_dir = str(cache_dir)
            _tokenizers[cache_dir] = tokenizer
        return _tokenizers[cache_dir]


class JiebaAnalyzer:
    """Chinese words by jieba, punctuation and common function words removed."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        cache_dir: str | None = Field(
            None,
            description="folder for jieba's dictionary cache file jieba.cache (~9 MB), relative to the "
            "config file; null: the system temp dir",
        )
        stopwords: bool = Field(
            True, description="drop common Chinese function and question words (的, 了, 是, 如何, ...)"
        )
        latin_analyzer: str | dict[str, Any] = Field(
            "english", description="analyzer for Latin-script runs (e.g. HER2, CT)"
        )
        other_script_analyzer: str | dict[str, Any] = Field(
            "standard", description="analyzer for Hangul and kana runs (Korean, Japanese)"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.cache_dir = ctx.resolve_path(params.cache_dir) if params.cache_dir else Path(tempfile.gettempdir())
        self._latin = helper_analyzer(ctx, params.latin_analyzer, "latin_analyzer", "jieba")
        self._other = helper_analyzer(ctx, params.other_script_analyzer, "other_script_analyzer", "jieba")

    def analyze(self, text: str) -> list[str]:
        return analyze_by_script(
            unicodedata.normalize("NFKC", text), HANGUL + KANA, self._words, self._latin, self._other
        )

    def _words(self, text: str) -> list[str]:
        words = shared_tokenizer(self.cache_dir).lcut(text)
        # a token without a letter or digit is punctuation or whitespace
        words = [w for w in words if any(ch.isalnum() for ch in w)]
        return [w for w in words if w not in STOPWORDS] if self.params.stopwords else words
