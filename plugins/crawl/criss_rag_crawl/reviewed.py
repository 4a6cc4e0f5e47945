"""The rows a reviewer kept -> one document per page.

Used by ``criss-rag crawl --reviewed SHEET --out corpus.jsonl`` and by the ``reviewed-urls``
loader. A row is taken when its ``keep`` cell says yes; an empty cell counts as the classifier's
verdict only with ``unreviewed: medical`` (the default, ``skip``, takes reviewed rows only). The
page comes from the page cache the crawl wrote, else it is fetched (politely, as the crawl
does) unless ``offline``. Every row not taken is recorded in ``skipped`` with the reason.
"""

from __future__ import annotations

import hashlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field
from tqdm import tqdm

from criss_rag.plugin_utils import detect_language
from criss_rag_crawl.cache import PageCache, cache_path_for
from criss_rag_crawl.classify import MEDICAL
from criss_rag_crawl.fetch import Fetcher, FetchSettings
from criss_rag_crawl.langfilter import LanguageFilter
from criss_rag_crawl.page import DEFAULT_DROP_TAGS, parse_page
from criss_rag_crawl.sheet import keep_value, read_sheet
from criss_rag_crawl.urls import Scope, normalize_url

#: statuses whose page the crawl never fetched and a second try would not fetch either
_NOT_FETCHABLE = {"off-site", "out-of-scope", "robots", "not-html", "too-large", "duplicate"}


class ReviewSettings(BaseModel):
    """How kept rows become documents (the ``reviewed-urls`` loader's params, less ``path``)."""

    model_config = ConfigDict(extra="forbid")
    keep_column: str = Field(
        "keep", description="the reviewer's column: yes/no (y/n, x, 1/0, ○/×, はい/いいえ, 예/아니오)"
    )
    unreviewed: Literal["skip", "medical"] = Field(
        "skip",
        description="rows whose keep cell is empty: `skip` them, or take them when the crawl classified them `medical`",
    )
    cache: str | None = Field(None, description="the page cache the crawl wrote; default: beside the spreadsheet "
                                                "(`urls.xlsx` -> `urls.pages.jsonl`)")
    offline: bool = Field(False, description="never fetch: a kept page missing from the cache is skipped")
    drop_tags: list[str] = Field(default_factory=lambda: list(DEFAULT_DROP_TAGS),
                                 description="HTML elements whose text is left out (page furniture)")
    language_filter: LanguageFilter = Field(
        default_factory=LanguageFilter,
        description="remove characters outside the guideline's language, e.g. `{keep: [ja]}` as the Japanese system "
                    "did",
    )
    fetch: FetchSettings = Field(
        default_factory=FetchSettings, description="politeness settings for pages not in the cache"
    )


def doc_id_for(url: str) -> str:
    """A readable, stable id: the URL's path as a slug plus a short hash of the whole URL."""
    parts = urlsplit(url)
    slug = re.sub(r"[^0-9A-Za-z]+", "-", parts.path).strip("-")[-48:] or "index"
    return f"{slug}-{hashlib.sha256(url.encode()).hexdigest()[:8]}"


class ReviewedPages:
    """Reads a reviewed spreadsheet; ``records()`` yields one corpus record per kept page."""

    def __init__(self, sheet: Path, settings: ReviewSettings, cache_path: Path | None = None, *,
                 progress: bool = False) -> None:
        self.sheet = sheet
        self.settings = settings
        self.cache_path = cache_path or cache_path_for(sheet)
        self.progress = progress
        self.skipped: list[tuple[str, str]] = []
        self.fetched = 0
        self._fetchers: dict[str, Fetcher] = {}

    def records(self) -> Iterator[dict[str, Any]]:
        rows = read_sheet(self.sheet, ["url", self.settings.keep_column])
        cache = PageCache(self.cache_path)
        bar = tqdm(total=len(rows), desc="pages", unit="row", file=sys.stderr, disable=not self.progress or not rows)
        with bar:
            for number, row in enumerate(rows, start=2):  # row 1 is the header
                record = self._take(number, row, cache)
                bar.update()
                if record is not None:
                    yield record

    def _take(self, number: int, row: dict[str, str], cache: PageCache) -> dict[str, Any] | None:
        """The corpus record of one spreadsheet row, or ``None`` (the reason added to ``skipped``)."""
        url = normalize_url(row["url"], drop_params=()) if row["url"] else None
        item = row["url"] or f"row {number}"
        if url is None:
            self.skipped.append((item, f"{self.sheet}:{number}: not a web address"))
            return None
        if (reason := self._not_taken(row, number)) is not None:
            self.skipped.append((url, reason))
            return None
        page = cache.get(url)
        source = "cache"
        if page is None:
            page, why = self._fetch(url, row)
            source = "web"
            if page is None:
                self.skipped.append((url, why))
                return None
            cache.put(url, page["final_url"], page["charset"], page["html"])  # the next run reads it offline
        record = self._record(url, row, page, source)
        if not record["text"].strip():
            self.skipped.append((url, "kept, but no text is left (after the language filter, if any)"))
            return None
        return record

    def _not_taken(self, row: dict[str, str], number: int) -> str | None:
        column = self.settings.keep_column
        kept = keep_value(row.get(column, ""), f"{self.sheet}, row {number}", column)
        if kept is None and self.settings.unreviewed == "medical":
            kept = row.get("category") == MEDICAL
            if not kept:
                return f"not reviewed, and classified {row.get('category') or 'unknown'} (unreviewed: medical)"
        if kept is None:
            return f"not reviewed (`{column}` is empty)"
        if not kept:
            return f"reviewer said no{': ' + row['reviewer_note'] if row.get('reviewer_note') else ''}"
        if row.get("status") in _NOT_FETCHABLE:
            return f"kept, but the crawl could not read it: {row['status']} ({row.get('reason', '')})"
        return None

    def _fetch(self, url: str, row: dict[str, str]) -> tuple[dict[str, Any] | None, str]:
        if self.settings.offline:
            return None, "kept, but not in the page cache and offline is set"
        origin = "{0.scheme}://{0.netloc}/".format(urlsplit(url))
        if origin not in self._fetchers:  # one fetcher (robots.txt, rate limit) per site
            self._fetchers[origin] = Fetcher(self.settings.fetch, Scope(origin))
        result = self._fetchers[origin].fetch(url)
        self.fetched += 1
        if not result.ok:
            return None, f"kept, but fetching failed: {result.status} ({result.detail})"
        return {"url": url, "final_url": result.final_url, "charset": result.charset, "html": result.html}, ""

    def _record(self, url: str, row: dict[str, str], cached: dict[str, Any], source: str) -> dict[str, Any]:
        page = parse_page(str(cached["html"]), self.settings.drop_tags)
        text = self.settings.language_filter.apply(page.text)
        title = page.title or row.get("title", "") or url
        return {
            "doc_id": doc_id_for(url),
            "title": title,
            "url": url,
            "category": row.get("category", ""),
            "lang": detect_language(page.text),
            "reviewer_note": row.get("reviewer_note", ""),
            "page_source": source,
            "text": text,
        }
