"""The page cache: the HTML the crawl fetched, kept beside the spreadsheet so that
``criss-rag crawl --reviewed`` (and the ``reviewed-urls`` loader) need not fetch a page twice.

One JSON object per line: ``url`` (normalised, as in the spreadsheet), ``final_url``, ``charset``,
``fetched`` (UTC time) and ``html`` (decoded). A later line for the same URL wins; the crawl
rewrites the file without superseded lines when it ends.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from criss_rag.plugin_utils import read_jsonl

CACHE_SUFFIX = ".pages.jsonl"


def cache_path_for(sheet: Path) -> Path:
    """``urls.xlsx`` -> ``urls.pages.jsonl`` beside it."""
    return sheet.with_name(sheet.stem + CACHE_SUFFIX)


class PageCache:
    """Pages by normalised URL, read from and appended to one JSONL file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pages: dict[str, dict[str, Any]] = {}
        if path.is_file():
            for _number, record in read_jsonl(path, "page cache"):
                if isinstance(record, dict) and record.get("url") and isinstance(record.get("html"), str):
                    self.pages[str(record["url"])] = record

    def get(self, url: str) -> dict[str, Any] | None:
        return self.pages.get(url)

    def put(self, url: str, final_url: str, charset: str, html: str) -> None:
        record = {"url": url, "final_url": final_url, "charset": charset,
                  "fetched": datetime.now(UTC).isoformat(timespec="seconds"), "html": html}
        self.pages[url] = record
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")

    def compact(self) -> None:
        """Rewrite the file with one line per URL (atomically)."""
        if not self.path.exists():
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.writelines(json.dumps(record, ensure_ascii=False) + "\n" for record in self.pages.values())
        os.replace(tmp, self.path)
