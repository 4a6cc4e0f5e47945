"""Chinese analysis with jieba word segmentation, punctuation and function words removed.

Traditional and Simplified Chinese are read alike: by default the text is first converted to
Simplified with OpenCC (``t2s``, character and phrase dictionaries), so 化療 in a question matches
化疗 in a passage, and jieba (whose dictionary is Simplified) segments both scripts equally well.
"""

from __future__ import annotations

import logging
import re
import tempfile
import threading
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import HANGUL, KANA, analyze_by_script, helper_analyzer

if TYPE_CHECKING:  # jieba loads when a config names this analyzer, not with the plugin
    import jieba

# Function words, question words, pronouns, particles, adverbs of degree and time, and the light
# verbs of everyday questions (Simplified: text is converted to Simplified first). They match
# every passage and would only dilute BM25, the coverage check and the extractive scores: "化疗有
# 什么副作用？应该怎样处理？" is about 化疗, 副作用 and 处理, not about 什么, 应该 or 怎样.
STOPWORDS = frozenset(
    """的 地 得 了 着 过 是 在 和 与 及 或 等 之 其 而 并 但 也 都 就 才 还 又 再 被 把 对 从 以 为 于 将 由 向 跟 给 让
    如何 什么 甚么 什么样 啥 吗 呢 吧 啊 呀 嘛 哦 么 怎么 怎样 怎么样 怎么办 咋 哪 哪些 哪个 哪里 哪儿 为什么 为何
    是否 是不是 有没有 有无 会不会 能不能 要不要 可不可以 需不需要 多少 几 几个 多久 多大 多长
    这 那 这个 那个 这些 那些 这样 那样 这种 那种 这是 那是 一个 一些 一种 一下 一点 有点 一直 一定 个 些
    我 你 您 他 她 它 我们 你们 他们 她们 自己 大家 人家 别人
    请问 请 谢谢 麻烦 可以 能 能否 能够 会 要 想 需要 应该 应当 必须 得到 可能 也许 大概 好像
    有 没有 没 不 别 无 非 如果 要是 因为 所以 以及 或者 还是 及其 并且 而且 但是 不过 然后 之后 以后 之前 以前
    非常 很 最 太 更 比较 特别 尤其 真的 到底 究竟 已经 还有 还要 还会 常常 经常 有时 有时候 总是 现在 最近 马上
    觉得 知道 听说 看 说 问 问题 情况 时候 意思 左右 方面 部分 其他 其它 另外 除了 上 下 里 中 内 后 前
    不会 不能 不要 不用 不是 没什么 怎么回事 是什么 干嘛 为啥 好不好 对不对 行不行 算不算 还是说
    才能 就是 只是 只有 而已 一样 一般 平常 平时 从来 从来不 一直都 老是 总 往往 直接 然后呢 接下来 再说
    完 过来 起来 下来 下去 出来 一点 一点点 有些 有的 什么样 这类 那类 类 之类 等等 像 比如 例如 关系 有关 相关
    办法 方法 做法 东西 事 事情 地方 方式 程度 样子 人 用 来 去 做 弄 搞 让 使 叫 得了 好 多 少 大 小 真
    挺 蛮""".split()
)
#: The same classes in written Cantonese (Hong Kong questions mix it with standard Chinese): its
#: own particles, negation, pronouns, copula and question forms, which jieba's Mandarin dictionary
#: leaves as single characters (嘅 = 的, 咗 = 了, 唔 = 不, 佢 = 他, 系 = 是, 冇 = 没有, 仲 = 还,
#: 啲 = 些, 喺 = 在, 嘢 = 东西, 咩/乜 = 什么, 点解 = 为什么, 使唔使 = 要不要), as OpenCC t2s writes them
#: (嗰 as 𠮶, 喎 as 㖞)
CANTONESE_STOPWORDS = frozenset(
    """嘅 咗 唔 佢 佢哋 我哋 你哋 咁 噉 系 冇 仲 嚟 啲 喺 嘢 咩 乜 乜嘢 嗰 嗰个 呢个 呢啲 边 边个 边度 几时 几多
    𠮶 𠮶个 㖞 点 点解 点样 做乜 咪 即 系咪 系唔系 有冇 使唔使 会唔会 可唔可以 得唔得 要唔要 同埋 同 话 睇
    即系 就系 而家 依家 宜家 好似 成日 今朝 琴日 寻日 听日 埋 啱 㗎 啰 喎 嘞 啦 咧 吖 噃 啩 呀 嘛 咋""".split()
)
#: Cancer and treatment words jieba's own dictionary splits or merges wrongly (胰脏癌 as 胰脏 / 癌是),
#: added to its dictionary so each is one word.
MEDICAL_WORDS = (
    "肝癌 胃癌 肺癌 乳癌 乳腺癌 大肠癌 结肠癌 直肠癌 结直肠癌 胰腺癌 胰脏癌 食道癌 食管癌 甲状腺癌 前列腺癌 宫颈癌 "
    "子宫颈癌 卵巢癌 膀胱癌 肾癌 胆管癌 胆囊癌 鼻咽癌 口腔癌 血癌 白血病 淋巴瘤 肉瘤 肿瘤 恶性肿瘤 良性肿瘤 息肉 "
    "化疗 放疗 手术 切除 副作用 转移 复发 分期 "
    "幽门螺旋杆菌 螺旋杆菌 超音波 电脑扫描 筛查 肠镜 大肠镜 胃镜 内镜 活检 病理 黄疸 腹水 淋巴结 幽门螺杆菌 甲胎蛋白 "
    "标靶 荷尔蒙"
).split()
#: Medical words written differently in Taiwan and Hong Kong than on the mainland (after the
#: conversion to Simplified characters), read as the mainland word: 胰臟癌 and 胰腺癌 are one word.
REGIONAL_WORDS = {
    "胰脏": "胰腺", "胰脏癌": "胰腺癌", "乳癌": "乳腺癌", "标靶": "靶向", "荷尔蒙": "激素", "大肠镜": "肠镜",
    "幽门螺旋杆菌": "幽门螺杆菌", "螺旋杆菌": "螺杆菌", "超音波": "超声", "电脑扫描": "ct",
}
# The Traditional forms of the most common of them, for `script: as-written` (which converts nothing)
TRADITIONAL_STOPWORDS = frozenset(
    """什麼 甚麼 什麼樣 嗎 們 與 這 這個 這些 這樣 這種 這是 個 為 對 於 還 還是 還有 會 會不會 過 將 該 應該 應當
    沒有 沒 為什麼 為何 怎麼 怎樣 怎麼樣 怎麼辦 哪裡 有沒有 是不是 能不能 要不要 需不需要 請問 請 謝謝 們 別人
    係 係咪 係唔係 點 點解 點樣 幾多 幾時 邊 邊個 嗰個 呢個 囉 話 睇 即係 就係
    覺得 聽說 說 問 問題
    時候 現在 經常 總是 已經 比較 特別 幾 幾個 多長 麼 們 從 將 並 並且 但是 因為 所以 以後 之後 以前 裡 後""".split()
)

_ALL_STOPWORDS = STOPWORDS | CANTONESE_STOPWORDS | TRADITIONAL_STOPWORDS

_tokenizers: dict[Path, jieba.Tokenizer] = {}
_lock = threading.Lock()
_converter: Any = None


def to_simplified(text: str) -> str:
    """``text`` with Traditional Chinese converted to Simplified (OpenCC ``t2s``, loaded once per
    process); other scripts pass unchanged."""
    global _converter
    with _lock:
        if _converter is None:
            try:
                import opencc
            except ImportError:
                raise ConfigError(
                    "analyzer 'jieba' with script: simplified needs OpenCC: pip install opencc "
                    "(or set `script: as-written` to segment the text as it is written)"
                ) from None
            _converter = opencc.OpenCC("t2s")
    return _converter.convert(text)


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
            # Cantonese function words of two or more characters are words too (系咪, not 系 / 咪)
            for word in (*MEDICAL_WORDS, *(w for w in CANTONESE_STOPWORDS if len(w) > 1)):
                tokenizer.add_word(word, freq=None)
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
            True, description="drop common Chinese function and question words (的, 了, 是, 如何, 什么, 应该, ...; "
                        "Cantonese 嘅, 咗, 唔, 佢, 点解, ...)"
        )
        script: Literal["simplified", "as-written"] = Field(
            "simplified",
            description="simplified: convert Traditional Chinese to Simplified (OpenCC t2s) before segmenting, so "
            "both scripts match each other, and read Taiwan/Hong Kong medical words as the mainland's (胰臟 as "
            "胰腺, 乳癌 as 乳腺癌); as-written: segment the text as it is written",
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
        if self.params.script == "simplified":  # the Han runs only: kana and Hangul runs go elsewhere as written
            text = to_simplified(text)
        # without HMM new-word guessing: unknown runs split into characters (常吃红肉 -> 常 / 吃 / 红 / 肉),
        # which match passages; guessed "words" (癌是, 靶够) match nothing
        words = shared_tokenizer(self.cache_dir).lcut(text, HMM=False)
        # a token without a letter or digit is punctuation or whitespace
        words = [w for w in words if any(ch.isalnum() for ch in w)]
        if self.params.script == "simplified":
            words = [REGIONAL_WORDS.get(w, w) for w in words]
        if not self.params.stopwords:
            return words
        kept = [w for w in words if w not in _ALL_STOPWORDS]
        return [w for i, w in enumerate(kept) if not _quantity(w, kept[i - 1] if i else "")]


#: a number in Chinese numerals, and the measure words and time units counted with it
_NUMERAL = "零一二两三四五六七八九十百千万几好多半"
_MEASURE = "个年月天日周岁次遍粒颗圈块斤步期"
_COUNTED_ALONE = frozenset("礼拜 星期 小时 分钟 个月 年 月 天 周 岁 次 粒 颗".split())
# 一个多月 (a month or more), 十公斤, 半年前: a count, its measure word, "more than", a unit, before/after
_QUANTITY = re.compile(f"[{_NUMERAL}]+个?多?(?:[{_MEASURE}]|个月|礼拜|星期|小时|分钟|公斤|公分|厘米|毫米)?"
                       "(?:前|后|以来|左右)?")


def _quantity(word: str, before: str) -> bool:
    """A count (三个, 两个, 一圈, 一粒, 三十年, 好多年, 一个多月, 十公斤, 半年前) or the unit counted
    after one (三个 / 礼拜): how much or how long, not what is asked. A stage keeps its ordinal
    (第三期 is one word) and a count written in digits its unit (5 / 年 / 生存率)."""
    if _QUANTITY.fullmatch(word) and any(ch in _NUMERAL for ch in word[:1]):
        return not word.endswith("期")
    return word in _COUNTED_ALONE and bool(_QUANTITY.fullmatch(before))
