"""HTML to the manuals' Markdown: headings, paragraphs, list items and whole tables kept.

The basic plugin's ``html_to_text`` flattens a page to lines for chatbot exports; a manual needs
more of its structure (heading levels, table cells), so this parser writes Markdown blocks. It
drops the same page furniture (scripts, navigation, buttons, the basic plugin's boilerplate lines).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from criss_rag_basic.html_text import DEFAULT_BOILERPLATE, SKIP_TAGS, VOID_TAGS
from criss_rag_manuals.manual import markdown_table

_SKIP = SKIP_TAGS | {"head", "title", "template"}
_BLOCKS = {"p", "div", "br", "section", "article", "main", "blockquote", "dd", "dt", "pre", "ul", "ol", "caption"}


class _MarkdownWriter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self.current: list[str] = []
        self.prefix = ""
        self.skipping: list[str] = []
        self.rows: list[list[str]] | None = None  # the open table's rows
        self.cell: list[str] | None = None

    def flush(self) -> None:
        text = " ".join("".join(self.current).split())
        if text:
            self.blocks.append(self.prefix + text)
        self.current, self.prefix = [], ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(value or "" for key, value in attrs if key == "class").split()
        if self.skipping or tag in _SKIP or "btn" in classes:
            if tag not in VOID_TAGS:
                self.skipping.append(tag)
            return
        if tag == "table":
            self.flush()
            self.rows = []
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag in ("td", "th") and self.rows is not None:
            if not self.rows:
                self.rows.append([])
            self.cell = []
        elif re.fullmatch(r"h[1-6]", tag):
            self.flush()
            self.prefix = "#" * int(tag[1]) + " "
        elif tag == "li":
            self.flush()
            self.prefix = "- "
        elif tag in _BLOCKS and self.cell is None:
            self.flush()

    def handle_endtag(self, tag: str) -> None:
        if self.skipping:
            if tag in self.skipping:
                while self.skipping.pop() != tag:
                    pass
            return
        if tag in ("td", "th") and self.cell is not None and self.rows is not None:
            self.rows[-1].append(" ".join("".join(self.cell).split()))
            self.cell = None
        elif tag == "table" and self.rows is not None:
            rows = [row for row in self.rows if any(row)]
            if rows:
                self.blocks.append(markdown_table(rows))
            self.rows = None
        elif (re.fullmatch(r"h[1-6]", tag) or tag == "li" or tag in _BLOCKS) and self.cell is None:
            self.flush()

    def handle_data(self, data: str) -> None:
        if self.skipping:
            return
        if self.cell is not None:
            self.cell.append(data)
        elif self.rows is None or not self.rows:  # text between table rows is layout whitespace
            self.current.append(data)


def html_to_markdown(markup: str, boilerplate: list[str] | None = None) -> str:
    """Markdown blocks of an HTML page: ``#`` headings, paragraphs, ``- `` items, pipe tables."""
    writer = _MarkdownWriter()
    writer.feed(markup)
    writer.close()
    writer.flush()
    patterns = [re.compile(rf"^(?:{p})$", re.IGNORECASE) for p in (boilerplate or DEFAULT_BOILERPLATE)]
    blocks = []
    for block in writer.blocks:
        block = block.replace("\xa0", " ")
        block = re.sub(r"^(#+) \1 ", r"\1 ", block)  # <h3>### Title</h3> -> "### Title"
        if not any(p.match(block.lstrip("#- ")) for p in patterns):
            blocks.append(block)
    return "\n\n".join(blocks)
