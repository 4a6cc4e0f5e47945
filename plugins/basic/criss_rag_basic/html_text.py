"""HTML to clean text for exported web pages: tags, scripts, UI artefacts and URLs removed.

Heading markers such as ``###`` survive as the start of a line, so a section chunker can split
at them afterwards. List items keep their structure: each ``<li>`` is a line of its own, starting
with ``- `` in a bulleted list and ``1. ``, ``2. `` ... in a numbered one, so the sentence splitter
reads every item as its own sentence instead of one run-on line.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

_BLOCK = {"p", "div", "br", "li", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "table", "section", "article"}
SKIP_TAGS = {"script", "style", "noscript", "button", "nav", "footer", "header", "form"}
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_HEADINGS = {f"h{n}": "#" * n for n in range(1, 7)}
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)

#: Lines that are page furniture, not content (matched case-insensitively, whole line).
DEFAULT_BOILERPLATE = [
    r"print( this page)?", r"go to top", r"back to top", r"top", r"share", r"font size.*",
    r"(share|print|font size)(\s*\|\s*(share|print|font size))+.*", r"more information:?",
    r"인쇄", r"목록", r"맨 ?위로", r"공유하기", r"글자 ?크기.*",
    r"印刷", r"ページの?先頭へ", r"このページの先頭へ", r"シェア", r"文字サイズ.*",
]


class _TextExtractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skipping: list[str] = []  # open tags inside a skipped element (the element first)
        self._lists: list[list[int | None]] = []  # open lists: [next number] for <ol>, [None] for <ul>

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = " ".join(value or "" for key, value in attrs if key == "class")
        if self._skipping or tag in SKIP_TAGS or "btn" in classes.split():
            if tag not in VOID_TAGS:
                self._skipping.append(tag)
            return
        if tag in _BLOCK:
            self.parts.append("\n")
        if tag in _HEADINGS:
            self.parts.append(_HEADINGS[tag] + " ")
        if tag in ("ul", "ol"):
            start = next((value for key, value in attrs if key == "start"), None)
            self._lists.append(
                [int(start) if tag == "ol" and start and start.isdigit() else 1 if tag == "ol" else None]
            )
        elif tag == "li":
            counter = self._lists[-1] if self._lists else [None]
            if counter[0] is None:
                self.parts.append("- ")
            else:
                self.parts.append(f"{counter[0]}. ")
                counter[0] += 1

    def handle_endtag(self, tag: str) -> None:
        if self._skipping:
            if tag in self._skipping:  # close up to the matching open tag
                while self._skipping.pop() != tag:
                    pass
            return
        if tag in ("ul", "ol") and self._lists:
            self._lists.pop()
        if tag in _BLOCK:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skipping:
            self.parts.append(data)


def html_to_text(markup: str, boilerplate: list[str] | None = None) -> str:
    """Visible text of an HTML fragment, one block per line, furniture and URLs removed."""
    parser = _TextExtractor()
    parser.feed(markup)
    parser.close()
    text = html.unescape("".join(parser.parts)).replace("\xa0", " ")
    patterns = [re.compile(rf"^(?:{p})$", re.IGNORECASE) for p in (boilerplate or DEFAULT_BOILERPLATE)]
    lines = []
    for line in text.splitlines():
        line = " ".join(_URL.sub("", line).split())
        line = re.sub(r"^(#+)\s+\1\s+", r"\1 ", line)  # <h3>### Title</h3> -> "### Title"
        if line and not any(p.match(line) for p in patterns):
            lines.append(line)
    return "\n".join(lines)
