"""The personal-data patterns behind ``pii-redact``, and :class:`Redactor`, which applies them.

Each kind is one or more regular expressions plus, where the shape alone is ambiguous, a check of
the matched value (a real calendar date, a plausible digit count). Kinds that look like ordinary
numbers (Japan's 12-digit My Number, a bare date) are redacted only when a label names them, and
then only the value is replaced: ``DOB: 1970-01-05`` becomes ``DOB: [DOB]``.

The patterns are written for evidence text in English, Korean and Japanese: the guards around a
match exclude Latin letters and digits only, so a Korean particle or Japanese text written directly
after a number (``010-1234-5678로``, ``03-1234-5678まで``) does not hide it. Full-width digits
and punctuation, common in Japanese text, are matched as their ASCII forms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

#: The built-in kinds, in the order they are applied, with their placeholder names.
KINDS: dict[str, str] = {
    "email": "EMAIL",
    "rrn": "RRN",
    "my_number": "MY_NUMBER",
    "ssn": "SSN",
    "dob": "DOB",
    "phone": "PHONE",
}

# Full-width ASCII forms (Ｕ+FF01..FF5E: digits, letters, hyphen, parentheses, @) and the
# ideographic space, mapped one to one onto ASCII: "０３－１２３４－５６７８" matches like "03-1234-5678".
_FOLD = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}

# Guards: no Latin letter or digit (of any script) directly before / after a match.
_B = r"(?<![A-Za-z\d])"
_A = r"(?![A-Za-z\d])"
# phone-number separators: hyphens and dashes, dot, space
_SEP = r"[-‐‑‒–—. ]"
# between a label and its value: spaces, a colon, "is"/"was", a Korean or Japanese topic particle
_LABEL_GAP = r"\s*(?:[:：=]|\b(?:is|was)\b|은|는|は)?\s*"


@dataclass(frozen=True)
class Pattern:
    """One regular expression for one kind. ``group`` is the part replaced (``0``: the whole
    match); ``check`` receives that part and may reject it (then the match is left alone)."""

    kind: str
    regex: re.Pattern[str]
    group: int | str = 0
    check: Callable[[str], bool] | None = None


def _digits(text: str) -> str:
    return "".join(c for c in text if c.isdigit())


def _is_yymmdd(digits: str) -> bool:
    month, day = int(digits[2:4]), int(digits[4:6])
    return 1 <= month <= 12 and 1 <= day <= 31


def _rrn_ok(value: str) -> bool:
    digits = _digits(value)
    return len(digits) >= 7 and _is_yymmdd(digits)


def _national_phone_ok(value: str) -> bool:
    # Korean and Japanese numbers with the trunk prefix 0: 9 to 11 digits in all
    return 9 <= len(_digits(value)) <= 11


def _international_phone_ok(value: str) -> bool:
    # E.164: at most 15 digits with the country code; fewer than 8 is not a phone number
    return 8 <= len(_digits(value)) <= 15


_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DATE = (
    r"(?:"
    r"\d{4}\s?[-/.年년]\s?\d{1,2}\s?[-/.月월]\s?\d{1,2}\s?[日일]?"  # 1970-01-05, 1970年1月5日
    r"|(?:明治|大正|昭和|平成|令和)\s?(?:元|\d{1,2})\s?年\s?\d{1,2}\s?月\s?\d{1,2}\s?日"  # Japanese era
    r"|\d{1,2}[-/.]\d{1,2}[-/.](?:\d{4}|\d{2})"  # 01/05/1970, 5.1.70
    rf"|{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"  # January 5, 1970
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\.?,?\s+\d{{4}}"  # 5 January 1970
    r"|\d{8}|\d{6}"  # 19700105, 700105 (after a label only, like every date here)
    r")"
)

# e-mail: an ASCII local part and a domain with at least one dot
_EMAIL = (
    r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}(?![A-Za-z0-9\-])"
)
# Korean resident registration number after a label: 13 digits, with or without the hyphen
_RRN_LABELLED = (
    r"(?:주민\s?등록\s?번호|주민번호|\bRRN\b|resident\s+registration\s+(?:number|no\.?))"
    rf"{_LABEL_GAP}(?P<value>\d{{6}}\s?[-–]?\s?\d{{7}}){_A}"
)
# ... without one: YYMMDD-SNNNNNN (S 1-8: sex and century, or a foreign resident); the last six
# may be masked (850315-2******), which still gives away the birth date
_RRN = rf"{_B}\d{{6}}\s?[-–]\s?[1-8](?:\d{{6}}|[*xX]{{6}})(?![A-Za-z\d*])"
# Japanese Individual Number (My Number): 12 digits, after a label only
_MY_NUMBER = (
    r"(?:マイナンバー|個人番号|\bmy\s?number\b|\bindividual\s+number\b)"
    rf"{_LABEL_GAP}(?P<value>\d{{4}}{_SEP}?\d{{4}}{_SEP}?\d{{4}}){_A}"
)
# US Social Security number AAA-GG-SSSS, without the never-issued area 000, 666, 9xx, group 00
# and serial 0000
_SSN = r"(?<![A-Za-z\d\-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![A-Za-z\d]|-\d)"
# ... after a label also nine digits without hyphens
_SSN_LABELLED = rf"(?:\bSSN\b|social\s+security\s+(?:number|no\.?)){_LABEL_GAP}(?P<value>\d{{9}}){_A}"
# date of birth, after a label only
_DOB = (
    r"(?:date\s+of\s+birth|\bD\.?O\.?B\b\.?|birth\s?date|\bborn(?:\s+on)?|생년월일|생일|生年月日|誕生日)"
    rf"{_LABEL_GAP}(?P<value>{_DATE}){_A}"
)
# phone, international: +CC, then 2 to 5 groups (a "(0)" trunk prefix or a bracketed area code allowed)
_PHONE_INTERNATIONAL = rf"(?<![A-Za-z\d+])\+\d{{1,3}}(?:{_SEP}?\(?\d{{1,4}}\)?){{2,5}}{_A}"
# phone, North America: (555) 123-4567, 555-123-4567, 555.123.4567, optionally after "1-"
_PHONE_NANP = (
    r"(?<![A-Za-z\d\-.+])(?:1[-. ])?"
    r"(?:\([2-9]\d{2}\)\s?\d{3}-\d{4}|[2-9]\d{2}-\d{3}-\d{4}|[2-9]\d{2}\.\d{3}\.\d{4})"
    r"(?![A-Za-z\d]|[-.]\d)"
)
# phone, Korean and Japanese: trunk 0 + area or mobile prefix, then two groups
# (02-123-4567, 010-1234-5678, 03-1234-5678, 0466-12-3456, (02) 2072-2114, 0120-123-456)
_PHONE_NATIONAL = (
    rf"(?<![A-Za-z\d\-.+])(?:\(0[1-9]\d{{0,3}}\) ?|0[1-9]\d{{0,3}}{_SEP})"
    rf"\d{{1,4}}{_SEP}\d{{3,4}}(?![A-Za-z\d]|[-.]\d)"
)
# ... mobile numbers written without separators: 01012345678 (KR), 09012345678 (JP)
_PHONE_MOBILE = r"(?<![A-Za-z\d\-.+])(?:01[016789]\d{7,8}|0[5789]0\d{8})(?![A-Za-z\d]|[-.]\d)"

_I = re.IGNORECASE
PATTERNS: tuple[Pattern, ...] = (
    Pattern("email", re.compile(_EMAIL)),
    Pattern("rrn", re.compile(_RRN_LABELLED, _I), "value"),  # the label says what it is: no date check
    Pattern("rrn", re.compile(_RRN), 0, _rrn_ok),
    Pattern("my_number", re.compile(_MY_NUMBER, _I), "value"),
    Pattern("ssn", re.compile(_SSN)),
    Pattern("ssn", re.compile(_SSN_LABELLED, _I), "value"),
    Pattern("dob", re.compile(_DOB, _I), "value"),
    Pattern("phone", re.compile(_PHONE_INTERNATIONAL), 0, _international_phone_ok),
    Pattern("phone", re.compile(_PHONE_NANP)),
    Pattern("phone", re.compile(_PHONE_NATIONAL), 0, _national_phone_ok),
    Pattern("phone", re.compile(_PHONE_MOBILE)),
)


def compile_extra(name: str, regex: str) -> Pattern:
    """A user pattern from the ``extra_patterns`` param. A named group ``value`` limits the
    replacement to that group (keep a label, replace the number)."""
    compiled = re.compile(regex)
    return Pattern(name, compiled, "value" if "value" in compiled.groupindex else 0)


@dataclass(frozen=True)
class Redaction:
    """The text with every match replaced, and how many replacements of each kind were made."""

    text: str
    counts: Mapping[str, int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


class Redactor:
    """Applies patterns in order; each match is replaced by ``placeholder.format(kind=NAME)``.

    User patterns run first (they are the most specific), then the built-in kinds in
    :data:`KINDS` order: e-mail before phone, so an address's digits are never read as a phone
    number. The default placeholders hold no digits, so later patterns pass over them.
    """

    def __init__(self, kinds: Iterable[str] = tuple(KINDS), placeholder: str = "[{kind}]",
                 extra: Mapping[str, str] | None = None) -> None:
        wanted = set(kinds)
        unknown = wanted - set(KINDS)
        if unknown:
            raise ValueError(f"unknown kinds {sorted(unknown)}; known: {', '.join(KINDS)}")
        self.placeholder = placeholder
        user = [compile_extra(name, regex) for name, regex in (extra or {}).items()]
        builtin = [p for kind in KINDS for p in PATTERNS if p.kind == kind and kind in wanted]
        self.patterns: tuple[Pattern, ...] = (*user, *builtin)

    def label(self, kind: str) -> str:
        return self.placeholder.format(kind=KINDS.get(kind, kind.upper()))

    def redact(self, text: str) -> Redaction:
        counts: dict[str, int] = {}
        for pattern in self.patterns:
            text, n = self._apply(pattern, text)
            if n:
                counts[pattern.kind] = counts.get(pattern.kind, 0) + n
        return Redaction(text, counts)

    def _apply(self, pattern: Pattern, text: str) -> tuple[str, int]:
        # match on the text with full-width forms folded to ASCII (one character for one, so the
        # offsets are the same), and cut the original text at those offsets
        folded = text.translate(_FOLD)
        pieces: list[str] = []
        position = count = 0
        for match in pattern.regex.finditer(folded):
            value = match.group(pattern.group)
            if not value or (pattern.check is not None and not pattern.check(value)):
                continue
            start, end = match.span(pattern.group)
            pieces += [text[position:start], self.label(pattern.kind)]
            position = end
            count += 1
        if not count:
            return text, 0
        pieces.append(text[position:])
        return "".join(pieces), count
