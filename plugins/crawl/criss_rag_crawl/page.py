"""What the crawler reads from an HTML page: title, links, visible text, how much of it is links.

The text is Beautiful Soup's ``get_text()`` with block elements (paragraphs, headings, list items,
table cells, ``<br>``) on lines of their own and inline elements (links, emphasis) kept inside
their sentence, so "詳しくは<a>治療</a>を参照" stays one line. ``<script>``, ``<style>``,
``<noscript>`` and ``<template>`` never count as text; page furniture (``<nav>``, ``<header>``,
``<footer>`` by default) is dropped from the text too, but its links are still collected: a table
of contents is often a ``<nav>``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bs4 import BeautifulSoup

INVISIBLE = ("script", "style", "noscript", "template")
DEFAULT_DROP_TAGS = ("nav", "header", "footer")
_BLOCKS = (
    "p", "div", "section", "article", "main", "aside", "h1", "h2", "h3", "h4", "h5", "h6", "li", "dt", "dd",
    "tr", "td", "th", "caption", "table", "ul", "ol", "dl", "blockquote", "pre", "figure", "figcaption",
    "br", "hr", "address", "form", "fieldset", "details", "summary",
)
_SPACES = re.compile(r"[ \t\r\f\v\u00a0\u3000]+")


@dataclass(frozen=True)
class Page:
    """One parsed HTML page."""

    title: str
    text: str
    links: tuple[tuple[str, str], ...]  # (href as written, link text), in page order
    base: str | None  # <base href>, if the page sets one
    link_chars: int  # characters of the text that sit inside links

    @property
    def link_ratio(self) -> float:
        chars = text_chars(self.text)
        return min(1.0, self.link_chars / chars) if chars else 0.0


def text_chars(text: str) -> int:
    """Characters that are not whitespace: the length used for thresholds and the spreadsheet."""
    return sum(1 for ch in text if not ch.isspace())


def parse_page(html: str, drop_tags: Iterable[str] = DEFAULT_DROP_TAGS) -> Page:
    """Title, links, text and link share of ``html`` (see the module docstring)."""
    soup = BeautifulSoup(html, "html.parser")
    for tag in soup.find_all(INVISIBLE):
        tag.decompose()
    title = _title(soup)
    links = tuple((str(a.get("href", "")), " ".join(a.get_text(" ").split()))
                  for a in soup.find_all(["a", "area"], href=True))
    base_tag = soup.find("base", href=True)
    base = str(base_tag["href"]) if base_tag else None
    dropped = tuple(drop_tags)
    if dropped:
        for tag in soup.find_all(dropped):
            tag.decompose()
    if soup.head is not None:
        soup.head.decompose()  # <title> is metadata, not text
    for tag in soup.find_all(_BLOCKS):
        tag.insert_before("\n")
        tag.insert_after("\n")
    link_chars = sum(text_chars(a.get_text()) for a in soup.find_all(["a", "area"]))
    return Page(title=title, text=clean_lines(soup.get_text()), links=links, base=base, link_chars=link_chars)


def clean_lines(text: str) -> str:
    """Spaces collapsed within each line, blank lines dropped."""
    lines = (_SPACES.sub(" ", line).strip() for line in text.splitlines())
    return "\n".join(line for line in lines if line)


def _title(soup: BeautifulSoup) -> str:
    for tag in (soup.title, soup.find("h1")):
        if tag is not None and tag.get_text().strip():
            return " ".join(tag.get_text(" ").split())
    return ""
