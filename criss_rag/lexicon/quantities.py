"""Numbers in any notation, bound to their comparison word and unit, and compared by value.

Read after :func:`~criss_rag.lexicon.normalize.normalize_numbers` (number words and Han numerals
as digits): shares become percentages ("3 in 10", "10명 중 약 3명", "10人中3人", "三分之一",
"3分の1", "3분의 1", "a third", "half", 半数, 절반, 一半), half a year becomes six months (半年,
반년); a range is one quantity whether its unit is written once or twice ("5 to 10 years", "5년에서
10년", "5年から10年", "between 15 and 35"); "aged 15" is an age; "over the past 40 years" is a
span, not "more than 40 years". :func:`same_quantity` compares values across the units of time
(7-14 days = 1-2 weeks, 6 months = half a year) and of length (5 mm = 0.5 cm; 1.5 m is read as 150 cm).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from criss_rag.lexicon import facets as _facets
from criss_rag.lexicon.normalize import _han_value

_HAN = r"[〇零一二两三四五六七八九十百]+|\d+"
_EXTRA_UNITS = [(r"대|代|多岁", "decade"), (r"met(?:er|re)s?|m(?![a-z])|미터|メートル|米(?![饭])", "m"),
                (r"inch(?:es)?|in\.", "inch"), (r"f(?:oo|ee)t|ft", "ft")]
_EXTRA_AFTER = [(r"이후|이상|以降|以后|之后|以上|上", ">="), (r"이전|이하|以前|之前|以下|未満", "<")]
_UNITS = _EXTRA_UNITS + _facets._UNITS
_AFTER = _EXTRA_AFTER + _facets._CMP_AFTER
_UNIT_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<u{i}>{p})" for i, (p, _) in enumerate(_UNITS)) + r")")
_AFTER_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<a{i}>{p})" for i, (p, _) in enumerate(_AFTER)) + r")")
# what joins the two ends of a range written with the unit after each end ("5년에서 10년")
_RANGE_JOIN = re.compile(r"^\s*(?:-|~|to|through|부터|에서|から|至|到)\s*$")
_AGE_BEFORE = re.compile(r"(?:\baged?|\bages?(?:\s+of)?|만)\s*(?:between|from)?\s*$")
_LASTING = re.compile(r"\s*(?:간|동안|間)")  # "3년간", "3년 동안", "3年間": how long, part of the quantity
_BETWEEN = re.compile(r"\bbetween\b[^.,;]*$")
_SPAN_BEFORE = re.compile(r"\b(?:over|in|during|for)\s+the\s+(?:past|last|next)\s*$")
_HAN_RANGE_START = re.compile(
    r"([〇零一二两三四五六七八九十]+)(?=\s*(?:至|到|~|-|から)\s*[〇零一二两三四五六七八九十\d])"
)
_NOT_BELOW = re.compile(r"不(?:少|低|小|短|下)于|(?:达到|等于)或(?:超过|高于|以上)")
_NOT_ABOVE = re.compile(r"不(?:超过|高于|大于|多于|长于)|(?:达到|等于)或(?:低于|少于)")
_PERCENT_OF = re.compile(r"百分之([〇零一二两三四五六七八九十百\d]+)")
_CJK_TENTHS_RANGE = re.compile(
    r"([一二三四五六七八九十\d]+)\s*(?:至|到|~|-|から)\s*([一二三四五六七八九十\d]+)\s*(割|成)"
)
_COUNTER = r"(?:명|건|개|人|名|例|个|個|件|位|例中)?"
_APPROX = r"(약|대략|约|約|大约|およそ)?\s*"
_CJK_SHARE = re.compile(
    rf"({_HAN})\s*{_COUNTER}\s*(?:中|가운데|중|のうち|之中|当中|に)\s*(?:就|会)?有?\s*{_APPROX}({_HAN}|한(?=\s*명))"
    rf"\s*{_COUNTER}"
)
# tenths and one more digit: 一成五 = 15%
_TENTHS_AND_ONE = re.compile(r"([一二两兩三四五六七八九])成([一二三四五六七八九])(?![成一二三四五六七八九十\d])")
_EN_SHARE = re.compile(r"\b(?:(\d+)\s+(?:to|or|-)\s+)?(\d+)\s+(?:in(?:\s+every)?|out\s+of|of\s+every)\s+(\d+)\b")
_FRACTION = re.compile(rf"({_HAN})\s*(?:分之|分の|분의)\s*({_HAN})")
_EN_FRACTION = re.compile(r"\b(a|1|2|3|4|5|6|7|8|9)[\s-](third|quarter|fifth|tenth)s?\b")
_EN_SLASH = re.compile(r"\b(\d{1,2})\s*/\s*(\d{1,3})(?=\s+of\b)")  # "1/3 of patients"
_PARTS = {"third": 3, "quarter": 4, "fifth": 5, "tenth": 10}
_HALF_YEAR = re.compile(r"\bhalf\s+(?:a|an)\s+year\b|반년|半年")
_HALF = re.compile(r"\b(?:a\s+|1\s+)?half\b|절반|半数|半分|一半")
_DAYS = {"d": 1.0, "wk": 7.0, "mo": 30.44, "y": 365.25}
_CM = {"mm": 0.1, "cm": 1.0}
_SCALES = (_DAYS, _CM)  # units compared by value: of time, of length
_LEANING = {"=": "", "~": "", "range": "", ">": "up", ">=": "up", "<": "down", "<=": "down"}


@dataclass(frozen=True)
class Quantity:
    """A number with the comparison word and unit bound to it: ``>= 65 y``, ``~ 70 %``."""

    comparison: str  # = ~ > >= < <= range
    value: str
    unit: str

    def __str__(self) -> str:
        cmp = {
            "=": "",
            "~": "about ",
            ">": "more than ",
            ">=": "at least ",
            "<": "less than ",
            "<=": "at most ",
            "range": "",
        }.get(self.comparison, "")
        unit = {"y": " years", "mo": " months", "wk": " weeks", "d": " days", "%": "%", "decade": "s"}.get(
            self.unit, f" {self.unit}" if self.unit else ""
        )
        return f"{cmp}{self.value}{unit}"


def cjk_int(token: str) -> int | None:
    return int(token) if token.isdigit() else _han_value(token)


def _percent(part: int | None, whole: int | None) -> str | None:
    return f"{round(100 * part / whole)}%" if whole and part is not None and part <= whole else None


def shares(text: str, language: str) -> str:
    """Shares as percentages and half a year as six months (module docstring), in text whose
    numbers are already digits (English lower-cased)."""

    def en_share(match: re.Match) -> str:
        whole = int(match.group(3))
        if not whole:
            return match.group(0)
        part = f"{round(100 * int(match.group(2)) / whole)}%"
        return f"{round(100 * int(match.group(1)) / whole)} to {part}" if match.group(1) else part

    def cjk_share(match: re.Match) -> str:
        share = _percent(1 if match.group(3) == "한" else cjk_int(match.group(3)), cjk_int(match.group(1)))
        return f"{match.group(2) or ''}{share}" if share else match.group(0)

    def fraction(match: re.Match) -> str:  # 三分之一, 3分の1, 3분의 1: the whole is written first
        return _percent(cjk_int(match.group(2)), cjk_int(match.group(1))) or match.group(0)

    def en_fraction(match: re.Match) -> str:
        count = 1 if match.group(1) == "a" else int(match.group(1))
        return _percent(count, _PARTS[match.group(2)]) or match.group(0)

    if language == "en":
        text = _EN_SHARE.sub(en_share, text)
        text = _EN_FRACTION.sub(en_fraction, text)
        text = _EN_SLASH.sub(lambda m: _percent(int(m.group(1)), int(m.group(2))) or m.group(0), text)
    else:
        text = _CJK_SHARE.sub(cjk_share, text)
        text = _FRACTION.sub(fraction, text)
    months = {"en": "6 months", "ko": "6개월", "ja": "6か月", "zh": "6个月"}.get(language, "6 months")
    text = _HALF_YEAR.sub(months, text)
    return _HALF.sub("50%", text)


def before_numbers(text: str) -> str:
    """What :func:`~criss_rag.lexicon.normalize.normalize_numbers` does not read: a range of tenths
    ("八至九成" -> 80-90%), the first numeral of a range ("三到四倍"), 百分之 ("百分之八十" -> 80%),
    and a negated comparison as its converse (不少于 "not less than" -> ≥, 不超过 -> ≤, 达到或超过 -> ≥)."""

    def tenths_range(match: re.Match) -> str:
        low, high = cjk_int(match.group(1)), cjk_int(match.group(2))
        return f"{low * 10}-{high * 10}%" if low is not None and high is not None and high <= 10 else match.group(0)

    text = _TENTHS_AND_ONE.sub(lambda m: f"{cjk_int(m.group(1).replace('兩', '两'))}{cjk_int(m.group(2))}%", text)
    text = _CJK_TENTHS_RANGE.sub(tenths_range, text)
    text = _HAN_RANGE_START.sub(
        lambda m: str(cjk_int(m.group(1))) if cjk_int(m.group(1)) is not None else m.group(0), text
    )

    def percent(match: re.Match) -> str:
        value = cjk_int(match.group(1))
        return f"{value}%" if value is not None else match.group(0)

    text = _NOT_BELOW.sub("≥", text)
    text = _NOT_ABOVE.sub("≤", text)
    return _PERCENT_OF.sub(percent, text)


def _read_one(text: str, match: re.Match) -> tuple[str | None, str, str, int, int]:
    """``(comparison, number, unit, start, end)`` of one number match and the words bound to it."""
    before = text[max(0, match.start() - 24) : match.start()]
    cmp_match = _facets._CMP_BEFORE_RE.search(before)
    comparison = _facets._which(cmp_match, "b", _facets._CMP_BEFORE) if cmp_match else None
    if _SPAN_BEFORE.search(before):
        comparison = "="  # "over the past 40 years": how long, not more than
    unit_match = _UNIT_RE.match(text[match.end() : match.end() + 24])
    unit = _facets._which(unit_match, "u", _UNITS) if unit_match else ""
    if not unit and _AGE_BEFORE.search(before):
        unit = "y"
    end = match.end() + (unit_match.end() if unit_match else 0)
    after_match = _AFTER_RE.match(text[end : end + 24])
    if after_match:
        comparison = _facets._which(after_match, "a", _AFTER)
        end += after_match.end()
    start = cmp_match.start() + max(0, match.start() - 24) if cmp_match else match.start()
    return comparison, _facets._normal_number(match.group(0)), unit or "", start, end


def quantity_spans(text: str) -> list[tuple[int, int, Quantity]]:
    """Each number of ``text`` as a :class:`Quantity` with the span it and its words take."""
    found: list[tuple[int, int, Quantity]] = []
    matches = list(_facets._NUMBER_RE.finditer(text))
    skip = False
    for i, match in enumerate(matches):
        if skip:
            skip = False
            continue
        comparison, number, unit, start, end = _read_one(text, match)
        if i + 1 < len(matches) and "-" not in number:
            after = matches[i + 1]
            joined = text[end : after.start()]
            between = comparison == "range" or _BETWEEN.search(text[max(0, start - 32) : start])
            if _RANGE_JOIN.match(joined) or (between and re.fullmatch(r"\s*and\s*", joined)):
                other_cmp, other, other_unit, _, other_end = _read_one(text, after)
                if "-" not in other and (not unit or not other_unit or unit == other_unit):
                    number, unit, end, skip = f"{number}-{other}", unit or other_unit, other_end, True
                    comparison = other_cmp if other_cmp not in (None, "range", "=") else "range"
        if unit == "m":  # one unit for lengths: 1.5 m = 150 cm
            number, unit = "-".join(_scaled(part, 100) for part in number.split("-")), "cm"
        if "-" in number and comparison in (None, "range"):
            comparison = "range"
        if unit in _DAYS:
            lasting = _LASTING.match(text, end)
            end = lasting.end() if lasting else end
        unit, end = _rate(text, start, end, unit)
        found.append((start, end, Quantity(comparison or "=", number, unit)))
    return found


_PERIODS = {"day": "d", "week": "wk", "month": "mo", "year": "y", "하루": "d", "일주일": "wk", "주": "wk", "달": "mo",
            "한 달": "mo", "1달": "mo", "1년": "y", "일 년": "y", "년": "y", "1日": "d", "日": "d", "週": "wk",
            "月": "mo", "年": "y", "天": "d", "周": "wk"}
_RATE_AFTER = re.compile(r"\s*(?:times?\s+)?(?:a|an|per|each|every)\s+(day|week|month|year)\b")
_RATE_BEFORE = re.compile(
    r"(?:(하루|일주일|한 달|1달|1년|일 년|주|달|년)에\s*|(1日|週|月|年)(?:に)?\s*|每(天|日|周|月|年)\s*)$"
)


def _rate(text: str, start: int, end: int, unit: str) -> tuple[str, int]:
    """A count said per period ("12 times a month", 하루에 두 번, 週3回, 每天两次) as a rate: its unit
    names the period (``x/mo``), so that "12 times a year" is not the passage's "12 times a month"."""
    if unit not in ("", "x"):
        return unit, end
    after = _RATE_AFTER.match(text, end) if unit == "x" or re.match(r"\s*times?\b", text[end:]) else None
    if after:
        return f"x/{_PERIODS[after.group(1)]}", after.end()
    before = _RATE_BEFORE.search(text[max(0, start - 12) : start]) if unit == "x" else None
    if before:
        period = next(g for g in before.groups() if g)
        return f"x/{_PERIODS.get(period, _PERIODS.get(period[-1:], 'd'))}", end
    return unit, end


def quantities(text: str) -> tuple[list[Quantity], str]:
    """Each number of ``text`` as a :class:`Quantity`, and the text with those spans blanked."""
    spans = quantity_spans(text)
    for start, end, _ in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return [q for _, _, q in spans], text


def _scaled(number: str, factor: float) -> str:
    try:
        return f"{float(number) * factor:g}"
    except ValueError:
        return number


def _scale(a: str, b: str) -> dict[str, float] | None:
    """The scale (time, length) both units belong to, or None."""
    return next((scale for scale in _SCALES if a in scale and b in scale), None)


def _values(quantity: Quantity, unit: str, scale: dict[str, float]) -> list[str]:
    """The ends of ``quantity`` in ``unit`` of ``scale``."""
    if quantity.unit == unit:
        return quantity.value.split("-")
    return [_scaled(part, scale[quantity.unit] / scale[unit]) for part in quantity.value.split("-")]


def _close(a: str, b: str, tolerance: float) -> bool:
    try:
        x, y = float(a), float(b)
    except ValueError:
        return a == b
    return abs(x - y) <= tolerance * max(abs(x), abs(y))


def same_quantity(claim: Quantity, other: Quantity) -> bool:
    """Whether ``other`` says the number ``claim`` says: the same value (in any unit of time or of
    length), or one end of ``other``'s range said on its own, with a comparison that leans the same
    way."""
    scale = _scale(claim.unit, other.unit) if claim.unit != other.unit else None
    if (
        claim.unit
        and other.unit
        and claim.unit != other.unit
        and {claim.unit, other.unit} != {"y", "decade"}
        and scale is None
    ):
        return False
    mine = _values(claim, claim.unit, scale) if scale else claim.value.split("-")
    theirs = _values(other, claim.unit, scale) if scale else other.value.split("-")
    tolerance = 0.05 if scale is _DAYS else 0.0  # a month is 4.3 weeks, not 4
    if len(mine) != len(theirs) or not all(_close(a, b, tolerance) for a, b in zip(mine, theirs, strict=False)):
        # one end of the passage's range, said on its own ("40대에서 50대" for "40~50대")
        return (
            len(theirs) == 2
            and len(mine) == 1
            and claim.comparison in ("=", "~", "range")
            and any(_close(mine[0], end, tolerance) for end in theirs)
        )
    lean = _LEANING.get(claim.comparison, "")
    return not lean or lean == _LEANING.get(other.comparison, "")
