"""One normal form for text that is compared word by word.

Two writings of the same thing must compare equal: full-width and half-width forms (NFKC),
typographic apostrophes (``isnʼt``, ``isn’t``), and the dash family (``non–small``, ``non—small``,
``non‐small``, the minus sign) as ASCII ``-``.
"""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = re.compile("[\u2018\u2019\u201b\u02bc\u02b9\u2032\u00b4\u0060\uff07]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_WAVES = re.compile("[\u301c\u223c\u2053]")  # the wave dash of Japanese ranges (5〜10年), which NFKC keeps


def normalize(text: str) -> str:
    """``text`` in NFKC with typographic apostrophes as ``'``, dashes and minus signs as ``-`` and
    wave dashes as ``~``."""
    text = unicodedata.normalize("NFKC", text)
    return _WAVES.sub("~", _DASHES.sub("-", _APOSTROPHES.sub("'", text)))


# -- numbers, stages and comparison signs ------------------------------------------------------------
# Applied to both sides of a comparison, so a number is compared by value whatever its writing:
# "stage three" / "stage 3", "II-A" / "IIA", "≧" / "≥", "二十五歳" / "25歳", "7割" / "七成" / "70%".

_SIGNS = {"≧": "≥", "⩾": "≥", "≦": "≤", "⩽": "≤", "＜": "<", "＞": ">"}
_SIGN_RE = re.compile("|".join(map(re.escape, _SIGNS)))
_ASCII_SIGNS = re.compile(r">=|=>|<=|=<")

_EN_UNITS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
             "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
             "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19}
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
            "ninety": 90}
_EN_NUMBER = re.compile(
    r"\b(?:(?P<tens>" + "|".join(_EN_TENS) + r")(?:[\s-](?P<unit1>" + "|".join(list(_EN_UNITS)[1:10]) + r"))?"
    r"|(?P<unit>" + "|".join(_EN_UNITS) + r"))\b", re.IGNORECASE)
_EN_HUNDREDS = re.compile(r"\b(\d+)\s+hundred\b(?:\s+(?:and\s+)?(\d+)\b)?", re.IGNORECASE)
_PERCENT_WORD = re.compile(r"(\d)\s*(?:percent|per\s+cent)\b", re.IGNORECASE)
# a Roman or Arabic stage numeral with its sub-stage letter written apart: "II-A", "3 - b", "IV–B"
_SUBSTAGE = re.compile(r"\b(IV|I{1,3}|V|[0-4])\s*-\s*([A-Ca-c])(?![A-Za-z])")

_HAN_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "两": 2, "兩": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
               "八": 8, "九": 9}
_HAN_POWERS = {"十": 10, "百": 100, "千": 1000}
# Han numerals are read as numbers only next to what they count, so words that contain a numeral
# ("一般", "十分", "一緒", "统一") stay words
_HAN_COUNTERS = ("期|歳|才|岁|周岁|年|か月|ヶ月|カ月|ヵ月|个月|個月|週間|週|周|日|天|回|次|人|名|割|成|センチ|厘米|"
                 "公分|毫米|ミリ|キロ|公斤|倍|例|個|个|種類|种|級|级|型|時間|小时|%|％|パーセント|cm|mm|mg")
_HAN_NUMBER = re.compile(
    rf"(?:(?<=第)|(?<=ステージ)|(?<=分期))?([〇零一二两兩三四五六七八九十百千]+)(?=\s*(?:{_HAN_COUNTERS}))"
)
_HAN_AFTER_ORDINAL = re.compile(r"(?<=第)([〇零一二两兩三四五六七八九十百千]+)")
# shares written as tenths: 7割 (Japanese), 七成 (Chinese) -> 70%
_TENTHS = re.compile(r"(\d+(?:\.\d+)?)\s*(?:割|成)(?![人功為为分长長])")
_KO_NATIVE = {"한": 1, "두": 2, "세": 3, "네": 4, "다섯": 5, "여섯": 6, "일곱": 7, "여덟": 8, "아홉": 9, "열": 10}
_KO_NUMBER = re.compile(r"(?<![가-힣])(" + "|".join(sorted(_KO_NATIVE, key=len, reverse=True)) +
                        r")\s+(?=(?:번|명|개|살|가지|달|시간|주|차례|배|군데|곳)(?![가-힣]{2}))")


def _han_value(numeral: str) -> int | None:
    """The value of a Han numeral (二十五 -> 25, 百二十 -> 120, 三 -> 3), or None if it is not one."""
    total, digit = 0, None
    for ch in numeral:
        if ch in _HAN_DIGITS:
            if digit is not None:  # 二五: digits written in a row
                digit = digit * 10 + _HAN_DIGITS[ch]
            else:
                digit = _HAN_DIGITS[ch]
        elif ch in _HAN_POWERS:
            total += (1 if digit is None else digit) * _HAN_POWERS[ch]
            digit = None
        else:
            return None
    return total + (digit or 0)


def _en_value(match: re.Match[str]) -> str:
    if match["tens"]:
        return str(_EN_TENS[match["tens"].lower()] + (_EN_UNITS[match["unit1"].lower()] if match["unit1"] else 0))
    return str(_EN_UNITS[match["unit"].lower()])


def normalize_numbers(text: str) -> str:
    """``text`` in :func:`normalize`'s form with numbers written as digits and comparison signs in
    one form: English number words ("three", "twenty-five", "two hundred") and Korean native numbers
    before a counter ("두 번") as digits; Han numerals before a counter or after 第 ("三期",
    "二十五歳", "第二") as digits; tenths as percentages ("7割", "七成" -> "70%"); "percent" as
    "%"; a sub-stage written apart joined ("II-A" -> "IIA"); ≧ ≦ >= <= as ≥ ≤."""
    text = normalize(text)
    text = _SIGN_RE.sub(lambda m: _SIGNS[m.group(0)], text)
    text = _ASCII_SIGNS.sub(lambda m: "≥" if ">" in m.group(0) else "≤", text)
    text = _EN_NUMBER.sub(_en_value, text)
    text = _EN_HUNDREDS.sub(lambda m: str(int(m.group(1)) * 100 + int(m.group(2) or 0)), text)
    text = _KO_NUMBER.sub(lambda m: f"{_KO_NATIVE[m.group(1)]} ", text)

    def han(match: re.Match[str]) -> str:
        value = _han_value(match.group(1))
        return match.group(0) if value is None else str(value)

    text = _HAN_NUMBER.sub(han, text)
    text = _HAN_AFTER_ORDINAL.sub(han, text)
    text = _TENTHS.sub(lambda m: f"{float(m.group(1)) * 10:g}%", text)
    text = _PERCENT_WORD.sub(r"\1%", text)
    return _SUBSTAGE.sub(lambda m: f"{m.group(1)}{m.group(2).upper()}", text)
