"""PDF to the manuals' Markdown with pypdf: headings from font sizes, tables from column gaps,
paragraphs from line spacing, and the character offset where each page starts.

pypdf reports every piece of text with its position and font size (``visitor_text``). From those:

- a *line* is the text pieces at one height;
- a line split by wide horizontal gaps is a row of cells, and two or more such rows in a row with
  the same number of cells are a *table* (the first row its header);
- a short one-cell line in a font clearly larger than the body text (``heading_ratio``) is a
  *heading*; its level is the rank of its size among the heading sizes of the document;
- a paragraph ends at a vertical gap wider than ``paragraph_gap`` body-line heights, at a page
  break, or where the next line starts with a rule or note identifier.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from criss_rag.errors import DataError
from criss_rag_manuals.manual import markdown_table

_CHAR_WIDTH = 0.5  # average glyph width in ems: an estimate of where a piece of text ends


@dataclass
class _Line:
    y: float
    size: float
    cells: list[list[str]] = field(default_factory=list)  # pieces grouped into cells
    ends: list[float] = field(default_factory=list)  # estimated x where each cell ends

    def add(self, text: str, x: float, size: float) -> None:
        if self.cells and x <= self.ends[-1] + size:  # no wide gap: the same cell
            self.cells[-1].append(text)
        else:
            self.cells.append([text])
            self.ends.append(x)
        self.ends[-1] = max(self.ends[-1], x + len(text) * size * _CHAR_WIDTH)
        self.size = max(self.size, size)

    @property
    def texts(self) -> list[str]:
        return [" ".join("".join(cell).split()) for cell in self.cells]

    @property
    def text(self) -> str:
        return " ".join(self.texts)


def _page_lines(page) -> list[_Line]:
    lines: list[_Line] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        if not text.strip():
            return
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        size = abs(size * (tm[3] or 1) * (cm[3] or 1)) or 1.0
        if not lines or abs(lines[-1].y - y) > size * 0.5:
            lines.append(_Line(y, size))
        lines[-1].add(text.replace("\n", " "), x, size)

    page.extract_text(visitor_text=visit)
    return [line for line in lines if line.text]


def pdf_to_markdown(
    path: Path,
    *,
    id_start: re.Pattern[str],
    drop_lines: list[re.Pattern[str]],
    heading_ratio: float = 1.15,
    paragraph_gap: float = 1.8,
) -> tuple[str, list[int]]:
    """The PDF as Markdown, and the character offset in it where each page starts."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        pages = [_page_lines(page) for page in reader.pages]
    except PdfReadError as exc:
        raise DataError(str(exc)) from None
    sizes: Counter[float] = Counter()
    for lines in pages:
        for line in lines:
            sizes[round(line.size, 1)] += len(line.text)
    if not sizes:
        return "", [0] * len(pages)
    body = sizes.most_common(1)[0][0]
    heading_sizes = sorted({s for s in sizes if s >= body * heading_ratio}, reverse=True)
    level = {s: min(i + 1, 6) for i, s in enumerate(heading_sizes)}

    blocks: list[str] = []
    offsets: list[int] = []
    length = 0
    for lines in pages:
        offsets.append(length)
        page_blocks = _page_blocks(
            [ln for ln in lines if not any(p.match(ln.text) for p in drop_lines)],
            body, level, id_start, paragraph_gap,
        )
        for block in page_blocks:
            length += len(block) + 2
        blocks.extend(page_blocks)
    return "\n\n".join(blocks), offsets


def _page_blocks(
    lines: list[_Line], body: float, level: dict[float, int], id_start: re.Pattern[str], paragraph_gap: float
) -> list[str]:
    blocks: list[str] = []
    paragraph: list[str] = []
    previous: _Line | None = None

    def end_paragraph() -> None:
        if paragraph:
            blocks.append(_join_lines(paragraph))
            paragraph.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        run = _table_run(lines, i)
        if run > 1:
            end_paragraph()
            blocks.append(markdown_table([ln.texts for ln in lines[i : i + run]]))
            previous, i = lines[i + run - 1], i + run
            continue
        size = round(line.size, 1)
        if size in level and len(line.text) <= 150:
            end_paragraph()
            heading = f"{'#' * level[size]} {line.text}"
            if blocks and previous is not None and round(previous.size, 1) == size and blocks[-1].startswith("#"):
                blocks[-1] += " " + line.text  # a heading wrapped over two lines
            else:
                blocks.append(heading)
        else:
            gap = abs(previous.y - line.y) if previous is not None else 0
            if paragraph and (gap > paragraph_gap * body or id_start.match(line.text)):
                end_paragraph()
            paragraph.append(line.text)
        previous, i = line, i + 1
    end_paragraph()
    return blocks


def _table_run(lines: list[_Line], start: int) -> int:
    """How many lines from ``start`` on form a table (rows with the same number of cells, >= 2)."""
    width = len(lines[start].cells)
    if width < 2:
        return 0
    end = start
    while end < len(lines) and len(lines[end].cells) == width:
        end += 1
    return end - start


def _join_lines(lines: list[str]) -> str:
    text = lines[0]
    for line in lines[1:]:
        if text.endswith("-") and line[:1].islower():  # a word hyphenated at the line end
            text = text[:-1] + line
        else:
            text += " " + line
    return text
