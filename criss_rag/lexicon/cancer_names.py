"""The head words that make a phrase a cancer's name, per language: "liver *cancer*", "*neuroblastoma*",
간*암*, 肺*がん*, 胃*癌*. The chat's topic finder (:func:`criss_rag.answering.chat.find_topic`) reads a
question's cancer with them, the shared facets (:mod:`criss_rag.lexicon.facets`) its English
cancer names; the full names with their translations are the domain plugin's lexicon.

English heads are a regular expression alternative (use it with ``re.IGNORECASE``); the Korean,
Japanese and Chinese heads end a run of that language's letters (간암, 甲状腺がん, 黑色素瘤).
"""

from __future__ import annotations

#: English head nouns, and the suffixes of single-word cancer names (neuroblastoma, meningioma, ependymoma).
EN_HEAD = (r"cancers?|tumou?rs?|carcinomas?|leuka?emias?|lymphomas?|melanomas?|sarcomas?|myelomas?|neoplasms?"
           r"|\w+(?:blastoma|cytoma|glioma|gioma|thymoma|ymoma|mesothelioma|adenoma|carcinoid)s?")

#: Korean, Japanese and Chinese heads (Chinese in both scripts where they differ), longest first where one
#: contains another, for regular expression alternation.
CJK_HEADS: dict[str, tuple[str, ...]] = {
    "ko": ("모세포종", "흑색종", "골수종", "림프종", "백혈병", "종양", "육종", "교종", "선종", "암"),
    "ja": ("神経膠腫", "リンパ腫", "黒色腫", "骨髄腫", "白血病", "がん", "ガン", "腫瘍", "肉腫", "芽腫", "腺腫",
           "癌", "腫"),
    "zh": ("黑色素瘤", "母细胞瘤", "胶质瘤", "骨髓瘤", "白血病", "淋巴瘤", "肿瘤", "腫瘤", "肉瘤", "腺瘤", "癌"),
}


def cjk_head_pattern(language: str) -> str:
    """The heads of ``language`` (``ko``, ``ja`` or ``zh``) as one regular expression alternative."""
    return "|".join(CJK_HEADS[language])
