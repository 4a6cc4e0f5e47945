"""The medically decisive parts of a question, extracted so that a cache can require them equal.

Two questions that embed almost alike can need different answers: "small cell" and "non-small
cell lung cancer", "stage IIIA" and "stage IIIB", "over 65" and "under 65", "recommended" and
"not recommended", "HER2-positive" and "HER2-negative". :func:`extract` reads a question (English,
Korean, Japanese, Chinese) into :class:`Facets`; the semantic cache serves a stored answer only for
a question with equal facets. Extraction is deliberately literal: a paraphrase that words a facet
differently ("kids" / "children" map to one value, an unknown synonym does not) loses a cache hit,
never gets another question's answer.

Order of work: lexicon phrases are matched longest first and their span blanked, so that
"non-small cell" is not also read as "small cell" plus a negation, and "1차 치료" (a line of
therapy) not also as the number 1; then stages, numbers with their comparison words and units,
negations and the cancer named are read from what is left.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from criss_rag.language.chinese_script import simplified_chars
from criss_rag.language.text import detect_language
from criss_rag.lexicon.cancer_names import EN_HEAD
from criss_rag.lexicon.facet_words import LEXICON, NEGATION, ROMAN

# -- the result -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Facets:
    """What must be equal for two questions to share an answer (each a sorted tuple)."""

    cancer: tuple[str, ...] = ()        # the cancer named: "lung cancer", "간암", "肺がん"
    subtype: tuple[str, ...] = ()       # small-cell, non-small-cell, triple-negative, ductal, ...
    site: tuple[str, ...] = ()          # organs named anywhere: liver, lung, bone, brain, ...
    stage: tuple[str, ...] = ()         # "stage:IIIA", "T2", "N1", "grade:2", "gleason:7"
    quantity: tuple[str, ...] = ()      # "> 65 y", "<= 2 cm", "= 2015", comparison and unit bound to the number
    negation: int = 0                   # how many negations (not, never, without, 않, ない, 不, ...)
    population: tuple[str, ...] = ()    # child, adult, elderly, male, female, pregnant, postmenopausal, ...
    line: tuple[str, ...] = ()          # first-line, second-line, adjuvant, neoadjuvant, maintenance, ...
    treatment: tuple[str, ...] = ()     # chemotherapy, radiotherapy, surgery, mastectomy, ...
    test: tuple[str, ...] = ()          # ct, mri, biopsy, colonoscopy, mammography, ...
    drug: tuple[str, ...] = ()          # tamoxifen, trastuzumab, osimertinib, ...
    biomarker: tuple[str, ...] = ()     # "HER2:positive", "EGFR:mutation", "KRAS:G12C", "PD-L1"
    disease: tuple[str, ...] = ()       # recurrent, metastatic, advanced, early, localized, inoperable, ...
    direction: tuple[str, ...] = ()     # up (raise, increase, higher), down (lower, reduce, less)
    timing: tuple[str, ...] = ()        # before, after, during (a treatment, a diagnosis, pregnancy)
    aspect: tuple[str, ...] = ()        # what is asked: treatment, symptoms, diagnosis, outlook, cause, ...

    def as_dict(self) -> dict:
        """The non-empty facets, for the trace and the cache key."""
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if v}


# -- English helpers ---------------------------------------------------------------------------------

_EN_HEAD = re.compile(rf"\b({EN_HEAD})\b")
_EN_STOP = set("""a an the of for about is are was were be been being what whats how hows and or my his her their your
our does do did can could should would will may might must with have has had in on at to from that this it its
which who whom when why where if i me we you they them he she there than then so as by into after before during
get gets got getting treat treated treating treatment treatments diagnose diagnosed diagnosis common rare
stage symptoms symptom signs sign risk risks cause causes caused find found know tell explain mean means
type types kind kinds best main usual usually like people person patients patient someone anyone survival
rate rates prognosis outlook chance chances cure cured curable screening screened test tests tested
options option therapy therapies manage managed prevent prevented prevention develop developing have having
which s detect detected detecting spot spotted check checked help helps use used using need needs needed stop
beat fight survive live living affect affects start starts begin begins grow grows look looks feel feels show
shows happen happens say says lead leads become becomes make makes take takes give given come comes go goes
worse better more most less least many much any some all each every other another same different finds causes kills
affects spreads hurts develops forms gets means raises lowers reduces prevents detects diagnoses treats cures
signals indicates suggests shows appears looks versus vs like""".split())
_EN_NAMES_ING = {"ewing"}  # cancer names that end like a verb form
_EN_OF = re.compile(r"\b(cancer|tumou?r|carcinoma|sarcoma|lymphoma)s?\s+(?:of|in)\s+(?:the\s+)?([a-z]+)\b")
_EN_WORD_NUM = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                "eight": "8", "nine": "9", "ten": "10", "eleven": "11", "twelve": "12", "twenty": "20",
                "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
                "half": "0.5"}
_EN_WORD_NUM_RE = re.compile(r"\b(" + "|".join(_EN_WORD_NUM) + r")\b(?=[\s-]+(?:years?|months?|weeks?|days?|hours?|"
                             r"cm|mm|centimet|millimet|percent|times|cycles?|lymph|nodes?|tumou?rs?|cigarettes?|"
                             r"drinks?|packs?|mg|grams?|doses?|sessions?)\b)")


def _singular(word: str) -> str:
    word = word.replace("tumour", "tumor").replace("leukaemia", "leukemia")
    if word.endswith("s") and not word.endswith(("ss", "us", "sis")):
        word = word[:-1]
    return word


def _en_cancers(text: str) -> list[str]:
    """The cancer phrases of an English question: the head with the content words before it."""
    text = _EN_OF.sub(lambda m: f"{m.group(2)} {m.group(1)}", text)
    words = re.findall(r"[a-z0-9]+", text)
    found = []
    for i, word in enumerate(words):
        if not _EN_HEAD.fullmatch(word):
            continue
        mods = []
        j = i - 1
        while j >= 0 and len(mods) < 8 and (words[j] in ("and", "or") or words[j] not in _EN_STOP) \
                and not _EN_HEAD.fullmatch(words[j]) and not words[j].isdigit() \
                and (not words[j].endswith(("ing", "ed")) or words[j] in _EN_NAMES_ING):
            if words[j] not in ("and", "or"):  # "ovarian, fallopian tube and peritoneal cancer": one name
                mods.insert(0, words[j])
            j -= 1
        found.append(" ".join([*(_singular(m) for m in mods), _singular(word)]))
    return found


# -- numbers, comparisons, units ----------------------------------------------------------------------

_NUM = r"\d+(?:[.,]\d+)?"
# comparison words before a number (all languages), longest first
_CMP_BEFORE = [
    (r"(?:greater|more|higher|larger|bigger|older|longer|heavier|over|above|exceeding)\s+than|over|above|"
     r"exceeding|exceeds?|beyond|past|after|since|later\s+than|>", ">"),
    (r"(?:less|fewer|lower|smaller|younger|shorter|lighter)\s+than|under|below|within|before|earlier\s+than|"
     r"up\s+to|<|不到|低于|小于|少于|未满", "<"),
    (r"at\s+least|no\s+(?:less|fewer)\s+than|≥|>=|=>|minimum\s+of|not\s+less\s+than", ">="),
    (r"at\s+most|no\s+more\s+than|≤|<=|=<|maximum\s+of|not\s+more\s+than|up\s+until", "<="),
    (r"between|from", "range"),
    (r"about|around|approximately|roughly|~|약|대략|約|およそ|约|大约", "~"),
    (r"exactly|=", "="),
    (r"超过|大于|高于|多于|超出", ">"),
]
# comparison words after a number (and its unit)
_CMP_AFTER = [
    (r"or\s+(?:more|older|higher|greater|larger|longer|above|over)|and\s+(?:over|above|older|up)|\+|plus|"
     r"이상|以上|或以上", ">="),
    (r"or\s+(?:less|younger|lower|fewer|smaller|shorter|under|below)|and\s+(?:under|below|younger)|"
     r"이하|以下|或以下", "<="),
    (r"미만|未満|未满|以内|以内に|내", "<"),
    (r"초과|超|を超え|を超える|以上の?", ">"),
    (r"or\s+so|정도|くらい|ぐらい|程度|左右", "~"),
]
_UNITS = [
    (r"years?[\s-]+olds?|years?|yrs?|y/o|yo|세|살|歳|才|岁|周岁|년|年", "y"),
    (r"months?|mos?|개월|달|か月|ヶ月|カ月|ヵ月|个月|個月", "mo"),
    (r"weeks?|wks?|주|週間?|周", "wk"),
    (r"days?|일|日間?|天", "d"),
    (r"hours?|hrs?|시간|時間|小时", "h"),
    (r"centimet(?:er|re)s?|cm|센티(?:미터)?|センチ(?:メートル)?|厘米|公分", "cm"),
    (r"millimet(?:er|re)s?|mm|밀리(?:미터)?|ミリ(?:メートル)?|毫米", "mm"),
    (r"milligrams?|mg", "mg"), (r"micrograms?|mcg|µg|μg", "mcg"), (r"kilograms?|kg|킬로그램|キロ|公斤", "kg"),
    (r"grams?|g(?![a-z])", "g"), (r"millilit(?:er|re)s?|ml", "ml"), (r"ng/ml", "ng/ml"), (r"u/ml", "u/ml"),
    (r"grays?|gy", "gy"), (r"%|percent|per\s*cent|퍼센트|パーセント|％|百分之", "%"),
    (r"cycles?|사이클|주기|サイクル|周期|疗程", "cycle"), (r"times|회|번|回|次", "x"),
    (r"cigarettes?|packs?|pack-years?|갑|箱|包", "pack"), (r"drinks?|잔|杯", "drink"),
    (r"lymph\s+nodes?|nodes?|림프절|リンパ節|淋巴结", "node"), (r"tumou?rs?|개|個|个", "count"),
]
_CMP_BEFORE_RE = re.compile(r"(?:" + "|".join(f"(?P<b{i}>{p})" for i, (p, _) in enumerate(_CMP_BEFORE)) + r")\s*$")
_UNIT_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<u{i}>{p})" for i, (p, _) in enumerate(_UNITS)) + r")")
_CMP_AFTER_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<a{i}>{p})" for i, (p, _) in enumerate(_CMP_AFTER)) + r")")
_NUMBER_RE = re.compile(rf"(?<![A-Za-z0-9.]){_NUM}(?:\s*(?:-|to|~|–|부터|から|至|到)\s*{_NUM})?")


def _which(match: re.Match, prefix: str, table: list) -> str | None:
    for i, (_, value) in enumerate(table):
        if match.group(f"{prefix}{i}") is not None:
            return value
    return None


def _normal_number(text: str) -> str:
    parts = re.split(r"\s*(?:-|to|~|–|부터|から|至|到)\s*", text.replace(",", ""))
    out = []
    for part in parts:
        try:
            value = float(part)
        except ValueError:
            out.append(part)
            continue
        out.append(f"{value:g}")
    return "-".join(out)


def _quantities(text: str) -> tuple[list[str], str]:
    """Each number with the comparison word before or after it and its unit ("> 65 y", "<= 2 cm"),
    and the text with those spans blanked."""
    found, spans = [], []
    for match in _NUMBER_RE.finditer(text):
        before = text[max(0, match.start() - 24):match.start()]
        after = text[match.end():match.end() + 24]
        cmp_match = _CMP_BEFORE_RE.search(before)
        comparison = _which(cmp_match, "b", _CMP_BEFORE) if cmp_match else None
        unit_match = _UNIT_RE.match(after)
        unit = _which(unit_match, "u", _UNITS) if unit_match else ""
        end = match.end() + (unit_match.end() if unit_match else 0)
        after_match = _CMP_AFTER_RE.match(text[end:end + 24])
        if after_match:
            comparison = _which(after_match, "a", _CMP_AFTER)
            end += after_match.end()
        number = _normal_number(match.group(0))
        if "-" in number and comparison in (None, "range"):
            comparison = "range"
        found.append(f"{comparison or '='} {number} {unit}".strip())
        spans.append((match.start(), end))
    for start, end in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return found, text


# -- stages ---------------------------------------------------------------------------------------

_ZH_NUM = {"零": "0", "一": "1", "二": "2", "两": "2", "三": "3", "四": "4", "五": "5", "六": "6",
           "七": "7", "八": "8", "九": "9", "十": "10"}
_ROMAN_RE = "IV|III|II|I|V|0|[0-4]|[一二三四]|[ⅠⅡⅢⅣ]"
_STAGE_RES = [
    re.compile(rf"(?:stages?|병기|ステージ|病期|分期)\s*(?P<n>{_ROMAN_RE})\s*(?P<s>[A-Ca-c](?![a-z]))?(?P<s2>\d(?!\d))?"
               r"(?![A-Za-z0-9])", re.IGNORECASE),
    re.compile(rf"(?<![A-Za-z0-9])(?P<n>{_ROMAN_RE})\s*(?P<s>[A-Ca-c])?(?P<s2>\d)?\s*(?:기|期)"),
]
_TNM_RE = re.compile(r"(?<![A-Za-z0-9])[cpy]?(?P<tnm>(?:(?:T(?:[0-4]|is|x)|N[0-3x]|M[01x])[a-d]?\d?)+)(?![A-Za-z0-9])")
_TNM_PART = re.compile(r"(?:T(?:[0-4]|is|x)|N[0-3x]|M[01x])[a-d]?\d?")
_GRADE_RE = re.compile(
    r"(?P<k>grade|gleason(?:\s+(?:score|sum|of|is|was))*|등급|グレード|グリソン|分级|级别)\s*(?P<n>\d+(?:\s*\+\s*\d+)?|IV|III|II|I)",
    re.IGNORECASE,
)


def _stage_number(text: str) -> str:
    text = text.upper()
    text = {"Ⅰ": "I", "Ⅱ": "II", "Ⅲ": "III", "Ⅳ": "IV"}.get(text, text)
    text = _ZH_NUM.get(text, text)
    return ROMAN.get(text, text)


def _stages(text: str) -> tuple[list[str], str]:
    found = []
    for pattern in _STAGE_RES:
        def take(match: re.Match) -> str:
            sub = (match.group("s") or "").upper() + (match.group("s2") or "")
            found.append(f"stage:{_stage_number(match.group('n'))}{sub}")
            return " " * len(match.group(0))
        text = pattern.sub(take, text)

    def tnm(match: re.Match) -> str:
        found.extend(part for part in _TNM_PART.findall(match.group("tnm")))
        return " " * len(match.group(0))
    text = _TNM_RE.sub(tnm, text)

    def grade(match: re.Match) -> str:
        kind = "gleason" if match.group("k").lower().startswith(("gleason", "グリソン")) else "grade"
        value = match.group("n").upper()
        value = ROMAN.get(value, value) if kind == "grade" else value.replace(" ", "")
        found.append(f"{kind}:{value}")
        return " " * len(match.group(0))
    text = _GRADE_RE.sub(grade, text)
    return found, text


# -- biomarkers -----------------------------------------------------------------------------------

_MARKERS = (r"HER-?2(?:/neu)?|ERBB2|EGFR|ALK|ROS-?1|BRAF|KRAS|NRAS|HRAS|BRCA-?[12]?|PD-?L-?1|PD-?1|CTLA-?4|MSI-H|MSI|"
            r"MSS|dMMR|pMMR|MMR|TMB|NTRK|RET|MET|PIK3CA|ESR1|TP53|IDH-?[12]?|HRD|FGFR[1-4]?|KIT|PDGFRA|"
            r"BCR-?ABL|FLT3|NPM1|JAK2|CD20|CD19|CD30|CD33|PSA|CEA|CA-?125|CA\s?19-?9|CA\s?15-?3|AFP|Ki-?67|"
            r"HPV|EBV|HBV|HCV|HIV|ER|PR|HR|AR")
_STATUS = [
    (r"\+|pos(?:itive)?|양성|陽性|阳性", "positive"),
    (r"-(?![A-Za-z0-9])|−|neg(?:ative)?|음성|陰性|阴性", "negative"),
    (r"mutat(?:ion|ions|ed)|mutant|변이|돌연변이|変異|突变", "mutation"),
    (r"amplifi(?:ed|cation)|증폭|増幅|扩增", "amplified"),
    (r"wild[\s-]?type|야생형|野生型", "wild-type"),
    (r"fusions?|rearrange(?:d|ment)|융합|融合|重排", "fusion"),
    (r"high|高|높", "high"), (r"low|低|낮", "low"),
    (r"(?:exon\s*)?\d+\s*(?:deletion|del|insertion|ins)|[A-Z]\d{2,4}[A-Z]", "variant"),
]
_MARKER_RE = re.compile(
    rf"(?<![A-Za-z0-9])(?P<m>{_MARKERS})(?![A-Za-z0-9])(?=(?P<rest>.{{0,24}}))", re.DOTALL | re.IGNORECASE
)
_STATUS_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<s{i}>{p})" for i, (p, _) in enumerate(_STATUS)) + r")",
                        re.IGNORECASE)


#: markers that are also plain English words or too short to be sure of without a status after them
_SHORT_MARKERS = ("ER", "PR", "HR", "AR", "RET", "MET", "KIT")


def _biomarkers(text: str) -> tuple[list[str], str]:
    found = []
    out = text
    for match in _MARKER_RE.finditer(text):
        marker = re.sub(r"[\s-]", "", match.group("m").upper()).replace("/NEU", "")
        if marker in _SHORT_MARKERS and not re.match(
            r"[\s-]*[+\-−]|[\s-]*(?:pos|neg|양|음|陽|陰|阳|阴|mut|变|変|fus|amp|status|express)",
            match.group("rest"),
            re.IGNORECASE,
        ):
            continue  # plain English words or too short to be sure without a status
        status_match = _STATUS_RE.match(match.group("rest"))
        end = match.end("m")
        if status_match:
            value = _which(status_match, "s", _STATUS)
            if value == "variant":
                value = re.sub(r"\s+", "", status_match.group(0)).strip("-").upper()
            found.append(f"{marker}:{value}")
            end += status_match.end()
        else:
            found.append(marker)
        out = out[:match.start()] + " " * (end - match.start()) + out[end:]
    return found, out


# -- lexicon phrases --------------------------------------------------------------------------------


def _lexicon(text: str, language: str) -> tuple[dict[str, set[str]], str]:
    found: dict[str, set[str]] = {}
    for pattern, facet, value, blank in LEXICON[language]:
        for match in pattern.finditer(text):
            found.setdefault(facet, set()).add(value if value is not None else match.group(0).strip().lower())
        if blank:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return found, text


# -- cancers named in CJK text -----------------------------------------------------------------------

_CJK_HEAD = {
    "ko": re.compile(r"암|종양|백혈병|림프종|육종|흑색종|골수종|모세포종|교종|선종"),
    "ja": re.compile(r"がん|ガン|癌|腫瘍|肉腫|白血病|リンパ腫|黒色腫|骨髄腫|芽腫|神経膠腫|腺腫"),
    "zh": re.compile(r"癌|肿瘤|白血病|淋巴瘤|肉瘤|黑色素瘤|骨髓瘤|母细胞瘤|胶质瘤|腺瘤"),
}
_CJK_PREFIX = {"ko": re.compile(r"[가-힣]"), "ja": re.compile(r"[一-龥々ァ-ヶー]"), "zh": re.compile(r"[一-龥]")}
# characters that end a cancer name when read backwards from its head (function words, people)
_CJK_STOP = {"ko": set(), "ja": set("的患者方私父母夫妻"),
             "zh": set("的了得患是有和与在对于吗么我你他她们这那个及或被把将从到为用请问该等")}
_EN_ACRONYMS = {
    "nsclc": "non-small cell lung cancer",
    "sclc": "small cell lung cancer",
    "hcc": "hepatocellular carcinoma",
    "tnbc": "triple-negative breast cancer",
    "crc": "colorectal cancer",
    "cll": "chronic lymphocytic leukemia",
    "aml": "acute myeloid leukemia",
    "cml": "chronic myeloid leukemia",
    "dcis": "ductal carcinoma in situ",
    "lcis": "lobular carcinoma in situ",
    "rcc": "renal cell carcinoma",
    "nhl": "non-hodgkin lymphoma",
    "gist": "gastrointestinal stromal tumor",
    "mds": "myelodysplastic syndrome",
    "sccs?": "squamous cell carcinoma",
    "bcc": "basal cell carcinoma",
}
_EN_ACRONYM_RE = re.compile(r"\b(" + "|".join(_EN_ACRONYMS) + r")\b", re.IGNORECASE)


def _acronym(match: re.Match) -> str:
    word = match.group(1).lower()
    return _EN_ACRONYMS.get(word) or _EN_ACRONYMS["sccs?"]


def _cjk_cancers(text: str, language: str) -> list[str]:
    found = []
    prefix, stop = _CJK_PREFIX[language], _CJK_STOP[language]
    for match in _CJK_HEAD[language].finditer(text):
        start = match.start()
        while start > 0 and match.start() - start < 6 and prefix.match(text[start - 1]) and text[start - 1] not in stop:
            start -= 1
        found.append(text[start:match.end()])
    return found


# -- the whole extraction ---------------------------------------------------------------------------


def _language(text: str, language: str | None) -> str:
    language = language or detect_language(text)
    return language if language in LEXICON else "en"


def _plain(text: str, language: str) -> str:
    """``text`` with typographic quotes, full-width forms and (Chinese) Traditional characters in
    their plain forms, character for character (a span in it is the same span in ``text``)."""
    text = text.replace("’", "'").replace("‘", "'").replace("（", "(").replace("）", ")")
    text = re.sub(r"[０-９Ａ-Ｚａ-ｚ％＋]", lambda m: chr(ord(m.group(0)) - 0xFEE0), text)  # full-width forms
    return simplified_chars(text) if language == "zh" else text


def named_spans(text: str, language: str | None = None) -> list[tuple[int, int, str]]:
    """Where ``text`` names a thing of the lexicon: ``(start, end, "facet:value")`` per phrase,
    read in the lexicon's order as :func:`extract` reads it (a blanked phrase is not read again:
    "non-small cell" is not also "small cell"). Lets a reader tell which of its words name what,
    with the words around them in view (이자 is the pancreas in 이자에 생긴 암, not in 이자가 붙는 대출)."""
    language = _language(text, language)
    text = _plain(text, language)
    if language == "en":
        text = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    spans: list[tuple[int, int, str]] = []
    for match in _MARKER_RE.finditer(text):  # the marker alone: whether a status follows is the claim's business
        marker = re.sub(r"[\s-]", "", match.group("m").upper()).replace("/NEU", "")
        if marker not in _SHORT_MARKERS:
            spans.append((match.start(), match.end("m"), f"biomarker:{marker}"))
    for pattern in _STAGE_RES:
        for match in pattern.finditer(text):
            sub = (match.group("s") or "").upper() + (match.group("s2") or "")
            spans.append((match.start(), match.end(), f"stage:stage:{_stage_number(match.group('n'))}{sub}"))
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    for pattern, facet, value, blank in LEXICON[language]:
        for match in pattern.finditer(text):
            spans.append((match.start(), match.end(),
                          f"{facet}:{value if value is not None else match.group(0).strip().lower()}"))
        if blank:
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return spans


def extract(question: str, language: str | None = None) -> Facets:
    """The facets of ``question`` (language detected unless given: en, ko, ja, zh; others read as en)."""
    language = _language(question, language)
    text = _plain(question, language)
    if language == "en":
        text = _EN_ACRONYM_RE.sub(_acronym, text)
    biomarker, text = _biomarkers(text)
    stage, text = _stages(text)
    if language == "en":
        text = text.lower()
        text = re.sub(r"n't\b", " not", text).replace("cannot", "can not")
        text = _EN_WORD_NUM_RE.sub(lambda m: _EN_WORD_NUM[m.group(1)], text)
    lexed, text = _lexicon(text, language)
    quantity, rest = _quantities(text)
    negation = len(NEGATION[language].findall(rest))
    cancer = _en_cancers(rest) if language == "en" else _cjk_cancers(rest, language)

    if lexed.get("treatment") or lexed.get("drug") or lexed.get("line"):  # "is chemo used for" asks about treatment
        lexed.setdefault("aspect", set()).add("treatment")
    if lexed.get("test"):
        lexed.setdefault("aspect", set()).add("diagnosis")

    def facet(name: str) -> tuple[str, ...]:
        return tuple(sorted(lexed.get(name, ())))

    return Facets(cancer=tuple(sorted(set(cancer))), subtype=facet("subtype"), site=facet("site"),
                  stage=tuple(sorted(set(stage))), quantity=tuple(sorted(quantity)), negation=negation,
                  population=facet("population"), line=facet("line"), treatment=facet("treatment"),
                  test=facet("test"), drug=facet("drug"),
                  biomarker=tuple(sorted(set(biomarker) | set(lexed.get("biomarker", ())))),
                  disease=facet("disease"), direction=facet("direction"), timing=facet("timing"),
                  aspect=facet("aspect"))
