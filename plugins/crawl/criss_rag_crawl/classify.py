"""Medical content or not: the explainable heuristic, and an optional LLM classifier.

The heuristic reads four things of a fetched HTML page and applies the first rule that fires:

1. **link share**: at least ``max_link_ratio`` of the page's text is link text -> ``non-medical``
   (a table of contents, a link list, a navigation page);
2. **length**: less text than ``min_text_chars`` -> ``non-medical`` (a stub, a redirect notice, a
   form). The length is script-aware: a Han or kana character counts as :data:`CJK_WEIGHT` Latin
   characters and a Hangul syllable as :data:`HANGUL_WEIGHT` (a Japanese or Chinese character
   carries about a word), so two short Japanese sentences are not "too little text"; and a page
   with at least twice ``min_medical_terms`` distinct medical terms is only too short below a
   quarter of ``min_text_chars`` (medical evidence weighs against shortness);
3. **site words**: the URL path has a site word (``/about/``, ``/society/``, ``/contact``, ...) or
   the title has one (学会について, 会員, お問い合わせ, 학회 소개, Privacy, ...), and the path has no
   guideline word (``/cq/``, ``/chapter``, ``/treatment``, ...) -> ``non-medical``;
4. **medical terms**: at least ``min_medical_terms`` distinct terms of a small cancer lexicon
   (English, Japanese, Korean, Chinese) occur in the text -> ``medical``;
5. otherwise -> ``non-medical`` (too few medical terms).

The reason column names the rule and the numbers, e.g. ``medical: 9 medical terms (胸腺腫, 手術,
...); 1,204 chars; links 3%``, so a reviewer sees why and can overrule it.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from criss_rag_crawl.page import Page, text_chars

log = logging.getLogger("criss_rag_crawl")

MEDICAL, NON_MEDICAL, UNKNOWN = "medical", "non-medical", "unknown"

#: Medical terms, English (matched as lower-case words or word starts), Japanese, Korean and
#: Chinese, Simplified and Traditional (matched as substrings). Small on purpose: a page of a cancer
#: guideline uses several.
MEDICAL_TERMS = {
    "en": ("cancer", "tumor", "tumour", "carcinoma", "neoplasm", "malignan", "metasta", "chemotherap",
           "radiotherap", "radiation therapy", "surgery", "surgical", "resection", "biopsy", "diagnos",
           "prognos", "recurren", "symptom", "patient", "clinical", "therapy", "treatment", "staging",
           "lymph node", "survival", "thymoma", "adjuvant", "patholog", "histolog", "lesion", "dose"),
    "ja": ("がん", "癌", "腫瘍", "胸腺腫", "肉腫", "悪性", "転移", "再発", "治療", "手術", "切除", "化学療法",
           "放射線", "薬物療法", "診断", "検査", "症状", "予後", "病期", "生存", "患者", "臨床", "病理", "組織型",
           "生検", "副作用", "推奨", "リンパ節", "術後", "術前"),
    "ko": ("암", "종양", "악성", "전이", "재발", "치료", "수술", "절제", "항암", "화학요법", "방사선", "진단",
           "검사", "증상", "예후", "병기", "생존", "환자", "임상", "병리", "조직검사", "부작용", "림프절"),
    "zh": ("癌", "肿瘤", "恶性", "转移", "复发", "治疗", "手术", "切除", "化疗", "放疗", "放射", "诊断", "检查",
           "症状", "预后", "分期", "生存", "患者", "临床", "病理", "活检", "副作用", "推荐", "淋巴结", "术后", "术前",
           # Traditional Chinese forms of the terms written differently
           "腫瘤", "惡性", "轉移", "復發", "治療", "化療", "放療", "診斷", "檢查", "預後", "臨床", "活檢", "推薦",
           "淋巴結", "術後", "術前"),
}
#: URL path words of guideline content (they overrule site words, rule 3).
GUIDELINE_PATH_WORDS = ("cq", "chapter", "clinical", "treatment", "diagnosis", "therapy", "guideline", "section",
                        "algorithm", "evidence", "recommendation")
#: URL path words and title words of pages about the site or the society, not the disease.
SITE_PATH_WORDS = ("about", "society", "member", "members", "contact", "privacy", "policy", "sitemap", "links",
                   "link", "news", "access", "login", "admin", "form", "forms", "download", "copyright",
                   "terms", "faq", "greeting", "aisatsu", "kaiin", "gakkai", "committee", "board", "events")
SITE_TITLE_WORDS = (
    "学会",
    "研究会",
    "会員",
    "役員",
    "理事",
    "委員会",
    "お問い合わせ",
    "問い合わせ",
    "リンク",
    "サイトマップ",
    "個人情報",
    "利用規約",
    "お知らせ",
    "ごあいさつ",
    "挨拶",
    "入会",
    "申込",
    "申請書",
    "様式",
    "학회",
    "회원",
    "문의",
    "개인정보",
    "이용약관",
    "공지",
    "사이트맵",
    "about us",
    "contact",
    "privacy",
    "sitemap",
    "members",
    "society",
    "links",
    "news",
    "application form",
)
_WORD = re.compile(r"[a-z0-9]+")
#: Latin characters one Han or kana character counts as in the length rule (about a word).
CJK_WEIGHT = 3
#: Latin characters one Hangul syllable counts as (Korean is written with spaces between words).
HANGUL_WEIGHT = 2
_HAN_KANA = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u31f0-\u31ff]")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")


def weighted_length(text: str) -> int:
    """The text's length in Latin-character equivalents: non-space characters, a Han or kana
    character counted :data:`CJK_WEIGHT` times and a Hangul syllable :data:`HANGUL_WEIGHT` times."""
    chars = text_chars(text)
    han = len(_HAN_KANA.findall(text))
    hangul = len(_HANGUL.findall(text))
    return chars + han * (CJK_WEIGHT - 1) + hangul * (HANGUL_WEIGHT - 1)


class HeuristicSettings(BaseModel):
    """Thresholds of the heuristic (see :mod:`criss_rag_crawl.classify`)."""

    model_config = ConfigDict(extra="forbid")
    min_text_chars: int = Field(
        100,
        ge=0,
        description="pages with less text are non-medical: non-space characters, "
        "a Han or kana character counted as 3 and a Hangul syllable as 2 (100 is about 20 English "
        "words or 33 Japanese characters); a page with twice min_medical_terms medical terms "
        "needs only a quarter of it",
    )
    max_link_ratio: float = Field(0.5, ge=0.0, le=1.0, description="pages whose text is at least this share of link "
                                                                   "text are non-medical (navigation, link lists)")
    min_medical_terms: int = Field(3, ge=1, description="distinct lexicon terms a medical page uses at least")


@dataclass(frozen=True)
class Verdict:
    category: str
    reason: str
    medical_terms: tuple[str, ...] = ()


def medical_terms(text: str) -> tuple[str, ...]:
    """The distinct lexicon terms ``text`` uses, in lexicon order."""
    lower = text.lower()
    words = set(_WORD.findall(lower))
    found: list[str] = []
    for term in MEDICAL_TERMS["en"]:
        if (" " in term and term in lower) or any(w.startswith(term) for w in words):
            found.append(term)
    found += [t for lang in ("ja", "ko", "zh") for t in MEDICAL_TERMS[lang] if t in text and t not in found]
    return tuple(found)


def path_words(url: str) -> set[str]:
    return set(_WORD.findall(unquote(urlsplit(url).path).lower()))


def classify_page(url: str, page: Page, settings: HeuristicSettings) -> Verdict:
    """The heuristic verdict for a fetched HTML page (see the module docstring)."""
    chars, ratio = text_chars(page.text), page.link_ratio
    length = weighted_length(page.text)
    terms = medical_terms(page.title + "\n" + page.text)
    numbers = f"{chars:,} chars; links {ratio:.0%}; {len(terms)} medical terms"
    if ratio >= settings.max_link_ratio:
        return Verdict(NON_MEDICAL, f"navigation / link list: {ratio:.0%} of the text is link text "
                                    f"(>= {settings.max_link_ratio:.0%}); {numbers}", terms)
    needed = settings.min_text_chars
    if len(terms) >= 2 * settings.min_medical_terms:
        needed = settings.min_text_chars // 4  # many medical terms: short, but evidently medical
    if length < needed:
        weighted = f" (weighted {length:,}: CJK characters count more)" if length != chars else ""
        return Verdict(NON_MEDICAL, f"too little text: {chars:,} chars{weighted} < {needed}; {numbers}", terms)
    words = path_words(url)
    site = sorted(words.intersection(SITE_PATH_WORDS))
    title = page.title.lower()
    site_title = [w for w in SITE_TITLE_WORDS if w in title]
    if (site or site_title) and not words.intersection(GUIDELINE_PATH_WORDS):
        where = f"URL path word /{site[0]}/" if site else f"title word {site_title[0]!r}"
        return Verdict(NON_MEDICAL, f"about the site or society: {where}; {numbers}", terms)
    if len(terms) >= settings.min_medical_terms:
        shown = ", ".join(terms[:6]) + (", ..." if len(terms) > 6 else "")
        return Verdict(
            MEDICAL, f"medical: {len(terms)} medical terms ({shown}); {chars:,} chars; links {ratio:.0%}", terms
        )
    return Verdict(NON_MEDICAL, f"too few medical terms: {len(terms)} < {settings.min_medical_terms}; {numbers}", terms)


LLM_PROMPT = (
    "You sort the pages of a clinical practice guideline's web site.\n"
    "Answer MEDICAL if the page gives medical content (disease, diagnosis, treatment, clinical questions, "
    "evidence), or NON-MEDICAL if it is about the site or the society, navigation, a link list, news or a form.\n"
    "Reply on one line: MEDICAL or NON-MEDICAL, a colon, and a reason of a few words.\n\n"
    "URL: {url}\nTitle: {title}\nText (start):\n{text}\n"
)
_LLM_REPLY = re.compile(r"\b(NO[NT][-_ ]?MEDICAL|MEDICAL)\b\s*[:\-–]?\s*(.*)", re.IGNORECASE | re.DOTALL)


def parse_llm_reply(reply: str) -> tuple[str, str] | None:
    """``(category, reason)`` from a reply like ``NON-MEDICAL: society page``, else ``None``."""
    match = _LLM_REPLY.search(reply)
    if not match:
        return None
    label = match.group(1).upper().replace("_", "-").replace(" ", "-")
    category = NON_MEDICAL if label.startswith("NO") else MEDICAL
    return category, " ".join(match.group(2).split())[:200]


class LlmClassifier:
    """Asks an LLM (a LlamaIndex ``LLM`` from a pipeline's ``llms:``) for the category; falls back to
    the heuristic verdict, saying so in the reason, when the reply names no category."""

    def __init__(self, llm: Any, key: str, max_chars: int = 1500) -> None:
        self.llm, self.key, self.max_chars = llm, key, max_chars

    def classify(self, url: str, page: Page, heuristic: Verdict) -> tuple[Verdict, str]:
        prompt = LLM_PROMPT.format(url=url, title=page.title, text=page.text[: self.max_chars])
        reply = str(self.llm.complete(prompt).text)
        parsed = parse_llm_reply(reply)
        if parsed is None:
            log.warning("crawl: the LLM %r named no category for %s (reply %r); keeping the heuristic's",
                        self.key, url, reply[:80])
            return Verdict(heuristic.category, f"LLM reply unreadable ({reply[:60]!r}); heuristic: {heuristic.reason}",
                           heuristic.medical_terms), "heuristic"
        category, why = parsed
        agree = "agrees" if category == heuristic.category else f"says {heuristic.category}"
        return Verdict(category, f"LLM: {why or category} (heuristic {agree}: {heuristic.reason})",
                       heuristic.medical_terms), f"llm:{self.key}"
