"""The review spreadsheet: one row per URL, written as ``.xlsx`` (openpyxl) or ``.csv`` (UTF-8 with a
byte-order mark, so spreadsheet programs show Japanese and Korean correctly), read back from either.

The crawler fills every column but the last two; ``keep`` and ``reviewer_note`` are the reviewer's.
Columns may be reordered and others added; ``url`` and ``keep`` are the ones ``--reviewed`` needs.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from criss_rag.errors import DataError

SHEET_SUFFIXES = (".xlsx", ".csv")
SHEET_TITLE = "urls"
#: a cell starting with one of these is a formula to a spreadsheet program; titles and link texts
#: come from web pages, so they are written as text (CSV: behind a ``'``, removed again on reading)
_FORMULA_START = ("=", "+", "-", "@")


@dataclass
class Row:
    """One URL found by the crawl (column order = spreadsheet order); ``depth`` is the number of links
    from the table of contents (0 for itself), ``linked_from`` the page (or sitemap) that listed it."""

    url: str
    status: str = ""
    category: str = ""
    title: str = ""
    reason: str = ""
    text_length: int | str = ""
    link_ratio: float | str = ""
    medical_terms: int | str = ""
    link_text: str = ""
    depth: int | str = ""
    linked_from: str = ""
    http_status: int | str = ""
    content_type: str = ""
    charset: str = ""
    final_url: str = ""
    classifier: str = ""
    keep: str = ""
    reviewer_note: str = ""


COLUMNS = tuple(f.name for f in fields(Row))
REVIEWER_COLUMNS = ("keep", "reviewer_note")
#: accepted in the ``keep`` column (case-insensitive); anything else non-empty is an error
YES = {"y", "yes", "true", "1", "x", "keep", "ok", "o", "○", "〇", "◯", "✓", "✔", "はい", "예", "네"}
NO = {"n", "no", "false", "0", "drop", "skip", "-", "×", "✗", "いいえ", "아니오", "아니요"}


def check_sheet_path(path: Path, option: str) -> str:
    """The spreadsheet format of ``path`` by its extension, or an error naming the valid ones."""
    suffix = path.suffix.lower()
    if suffix not in SHEET_SUFFIXES:
        raise DataError(
            f"{option} {path}: unknown spreadsheet extension {path.suffix or '(none)'!r}; "
            f"use {' or '.join(SHEET_SUFFIXES)} (the format is chosen by the extension)"
        )
    return suffix


def write_sheet(path: Path, rows: Iterable[Row]) -> None:
    """Write ``rows`` as ``.xlsx`` or ``.csv`` (by extension), replacing the file."""
    suffix = check_sheet_path(path, "--out")
    table = [asdict(row) for row in rows]
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".csv":
        with open(path, "w", encoding="utf-8-sig", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows({k: _csv_safe(v) for k, v in record.items()} for record in table)
        return
    from openpyxl import Workbook
    from openpyxl.styles import Font
    from openpyxl.worksheet.datavalidation import DataValidation

    book = Workbook()
    sheet = book.active
    sheet.title = SHEET_TITLE
    sheet.append(list(COLUMNS))
    for record in table:
        sheet.append([record[c] for c in COLUMNS])
        for cell in sheet[sheet.max_row]:
            if cell.data_type == "f":  # openpyxl takes "=..." for a formula
                cell.data_type = "s"
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "B2"
    sheet.auto_filter.ref = sheet.dimensions
    widths = {
        "url": 50,
        "title": 40,
        "reason": 60,
        "final_url": 40,
        "link_text": 30,
        "linked_from": 40,
        "reviewer_note": 40,
    }
    for i, column in enumerate(COLUMNS, start=1):
        sheet.column_dimensions[sheet.cell(1, i).column_letter].width = widths.get(column, 14)
    keep = sheet.cell(1, COLUMNS.index("keep") + 1).column_letter
    choice = DataValidation(type="list", formula1='"yes,no"', allow_blank=True)
    choice.add(f"{keep}2:{keep}{max(2, len(table) + 1)}")
    sheet.add_data_validation(choice)
    book.save(path)


def read_sheet(path: Path, required: Iterable[str], option: str = "--reviewed") -> list[dict[str, str]]:
    """The rows of a spreadsheet as ``{column: text}`` (empty cells are ``""``); an error naming
    the file and the column when a required column is missing."""
    suffix = check_sheet_path(path, option)
    if not path.is_file():
        raise DataError(f"{option} {path}: file not found")
    header, body = _read_csv(path) if suffix == ".csv" else _read_xlsx(path)
    names = [str(h or "").strip() for h in header]
    missing = [c for c in required if c not in names]
    if missing:
        raise DataError(
            f"{path}: the spreadsheet has no column {missing[0]!r} (header row: "
            f"{', '.join(n for n in names if n) or '(empty)'}); "
            f"`criss-rag crawl` writes it ({', '.join(COLUMNS)}) - add the column or rename yours"
        )
    rows = []
    for values in body:
        cells = [_text(v) for v in values]
        if any(cells):
            rows.append({name: (cells[i] if i < len(cells) else "") for i, name in enumerate(names) if name})
    return rows


def keep_value(value: str, where: str, column: str = "keep") -> bool | None:
    """``True``/``False`` for a reviewer's mark, ``None`` for an empty cell; an error otherwise."""
    mark = value.strip().lower()
    if not mark:
        return None
    if mark in YES:
        return True
    if mark in NO:
        return False
    raise DataError(
        f"{where}: `{column}` is {value!r}; write yes or no (also accepted: y/n, x, 1/0, ○/×, はい/いいえ, 예/아니오)"
    )


def _csv_safe(value: Any) -> Any:
    return "'" + value if isinstance(value, str) and value.startswith(_FORMULA_START) else value


def _read_csv(path: Path) -> tuple[list[Any], list[list[Any]]]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        from criss_rag_crawl.charset import SPREADSHEET_CODECS, decode_spreadsheet_text

        decoded = decode_spreadsheet_text(raw)
        if decoded is None:
            raise DataError(f"{path}: not UTF-8, nor {', '.join(SPREADSHEET_CODECS)}; save the CSV as UTF-8 "
                            "(or use .xlsx)") from None
        text = decoded[0]
    table = [[v[1:] if v.startswith("'") and v[1:].startswith(_FORMULA_START) else v for v in line]
             for line in csv.reader(io.StringIO(text, newline=""))]
    return (table[0], table[1:]) if table else ([], [])


def _read_xlsx(path: Path) -> tuple[list[Any], list[list[Any]]]:
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        book = load_workbook(path, read_only=True, data_only=True)
    except (InvalidFileException, OSError, KeyError, ValueError) as exc:
        raise DataError(f"{path}: not a readable .xlsx workbook ({type(exc).__name__}: {exc})") from None
    sheet = book[SHEET_TITLE] if SHEET_TITLE in book.sheetnames else book.worksheets[0]
    table = [list(row) for row in sheet.iter_rows(values_only=True)]
    book.close()
    return (table[0], table[1:]) if table else ([], [])


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value).strip()
