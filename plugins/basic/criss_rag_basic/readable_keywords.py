"""Turning an analyzer's terms back into keywords a person (or a retriever) can read.

Analyzers cut compounds apart: MeCab gives 胸腺 + 腫 for 胸腺腫, the ``standard`` analyzer gives the
bigrams 胸腺 + 腺腫. ``surface_keywords`` finds each term in the question and joins terms whose
places touch or overlap into one keyword, taken from the question's own text (胸腺腫). Terms
separated by anything (a space, a particle such as の) stay separate keywords, so English words
never merge.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence

#: Question-frame nouns that name no topic (compared with whole keywords, after NFKC and lowercasing).
DEFAULT_STOPWORDS = [
    "こと",
    "もの",
    "ため",
    "よう",
    "とき",
    "場合",
    "方法",
    "何",
    "どれ",
    "どこ",
    "いつ",
    "誰",
    "どのくらい",
]


def unique(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, first occurrence kept."""
    seen: set[str] = set()
    out: list[str] = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def surface_keywords(text: str, terms: Sequence[str], *, merge_adjacent: bool = True,
                     stopwords: Iterable[str] = ()) -> list[str]:
    """Keywords for ``terms`` of ``text``, in order of first occurrence in the text.

    Each term is looked up in the (NFKC-normalised, case-folded) text, searching on from the
    previous term's place first, then from the start. With ``merge_adjacent`` terms whose places
    touch or overlap become one keyword, the text between their outer ends. A term that is not in
    the text (a stem such as ``diagnosi``) is kept as it is, after the located ones. Duplicates
    (case-insensitive) and ``stopwords`` are dropped.
    """
    norm = unicodedata.normalize("NFKC", text)
    folded = norm.lower()
    spans: list[tuple[int, int]] = []
    unplaced: list[str] = []
    cursor = 0
    for term in unique(t for t in terms if t and t.strip()):
        needle = unicodedata.normalize("NFKC", term).lower()
        start = folded.find(needle, cursor)
        if start < 0:
            start = folded.find(needle)
        if start < 0 or len(folded) != len(norm):  # lowercasing changed lengths: positions unreliable
            unplaced.append(term)
            continue
        spans.append((start, start + len(needle)))
        cursor = start
    spans.sort()
    merged: list[list[int]] = []
    for start, end in spans:
        if merge_adjacent and merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        elif not merge_adjacent and merged and (start, end) == tuple(merged[-1]):
            continue
        else:
            merged.append([start, end])
    stop = {unicodedata.normalize("NFKC", s).lower() for s in stopwords}
    out: list[str] = []
    seen: set[str] = set()
    for keyword in [norm[s:e] for s, e in merged] + unplaced:
        key = keyword.lower()
        if key in stop or key in seen:
            continue
        seen.add(key)
        out.append(keyword)
    return out


# a label before the keywords: "キーワード：", "Keywords:", "Sure! Here are the keywords: "
_LABEL = re.compile(r"^[^:：]*?(?:キーワード|keywords?|key\s*words?)[^:：]*[:：]\s*", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:[-*•・]+|\(?[0-9０-９]{1,2}\s*[.)．）:：]|[①-⑳])\s*")
_INLINE_NUMBER = re.compile(r"\s+(?=\(?[0-9０-９]{1,2}[.)．）]\s*\S)|(?=[①-⑳])")
# polite sentence endings: an item holding one is a sentence (a refusal, an explanation), not a keyword
_SENTENCE = re.compile(r"です|ます|ません|でした|ました|ください|でしょう")
_MAX_WORDS = 6
_SEPARATORS = re.compile(r"[、,，;；\t\u3000|/／]")
_QUOTES = "\"'`「」『』“”‘’【】[]()（）*＊<>《》"


def parse_keyword_reply(reply: str, *, max_chars: int) -> list[str]:
    """The keywords in an LLM's reply, in order, without repeats.

    Splits at 、 , ， ; ； tabs, ideographic spaces, | and / and at line breaks; removes list
    numbering (``1.``, ``1)``, ``①``, bullets), a leading label (``キーワード：``, ``Here are the keywords:``),
    preamble lines that end with a colon, quotes and brackets, and a final 。 or period. Items
    longer than ``max_chars``, of more than six words, or holding a polite sentence ending
    (です, ます, ません, ください, ...) are taken for sentences, not keywords, and dropped.
    """
    items: list[str] = []
    for raw_line in reply.replace("```", "\n").splitlines():
        line = raw_line.strip()
        if not line or re.fullmatch(r".*[:：]", line):
            continue  # empty, or a preamble such as "以下がキーワードです："
        line = _LABEL.sub("", line)
        for chunk in _INLINE_NUMBER.split(line):
            for part in _SEPARATORS.split(chunk):
                part = _NUMBERING.sub("", part).strip().strip(_QUOTES).strip()
                part = part.rstrip("。.．").strip().strip(_QUOTES).strip()
                if (part and len(part) <= max_chars and "。" not in part and not _SENTENCE.search(part)
                        and len(part.split()) <= _MAX_WORDS):
                    items.append(part)
    return unique(items)
