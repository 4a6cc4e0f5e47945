"""``criss-rag crawl TOC_URL``: the table of contents -> one classified row per page found.

By default the crawl goes one level deep, as the Japanese guideline system did: every link on the
table of contents, no links of links. ``depth`` N follows links breadth-first up to N levels: the
table of contents' own links first (level 1), then the new links on those pages (level 2), and so
on, each page once. A site built by a static-site generator (Docusaurus, MkDocs, Sphinx, Hugo)
often links only each section's first page from its table of contents and lists the rest of the
section in that page's sidebar: ``depth`` 2 or 3 reaches them. ``sitemap`` also reads the
scope's ``sitemap.xml`` (a sitemap index one level down) and queues its pages at level 1, after
the table of contents' links.

Each link is normalised (:mod:`criss_rag_crawl.urls`), duplicates are dropped, links outside the
scope are listed once but never fetched, and each page inside is fetched politely
(:mod:`criss_rag_crawl.fetch`) and classified (:mod:`criss_rag_crawl.classify`). Every row records
its ``depth`` and the page that linked it (``linked_from``). ``max_pages`` and ``max_seconds``
bound the whole crawl: pages left when either runs out are listed as ``not-fetched``.
"""

from __future__ import annotations

import sys
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import Any

from criss_rag.errors import DataError
from criss_rag_crawl.cache import PageCache
from criss_rag_crawl.classify import NON_MEDICAL, UNKNOWN, HeuristicSettings, LlmClassifier, classify_page
from criss_rag_crawl.fetch import Fetcher, FetchResult
from criss_rag_crawl.page import DEFAULT_DROP_TAGS, Page, parse_page, text_chars
from criss_rag_crawl.sheet import Row
from criss_rag_crawl.sitemap import read_sitemap
from criss_rag_crawl.urls import TRACKING_PARAMS, check_web_url, normalize_url


@dataclass
class CrawlOptions:
    """What ``crawl`` does besides fetching (the fetcher carries the politeness settings)."""

    heuristic: HeuristicSettings = field(default_factory=HeuristicSettings)
    drop_params: tuple[str, ...] = TRACKING_PARAMS
    drop_tags: tuple[str, ...] = DEFAULT_DROP_TAGS
    max_pages: int = 500
    max_seconds: float | None = None  # the crawl's total time budget; pages left when it runs out are not fetched
    depth: int = 1  # link levels followed from the table of contents (1: its own links only)
    sitemap: bool = False  # also queue the pages of the scope's sitemap.xml (level 1)
    llm: LlmClassifier | None = None
    progress: bool = True


@dataclass
class CrawlReport:
    toc_url: str
    scope: str
    rows: list[Row]
    requests: int
    ignored_links: int  # mailto:, javascript:, ... (not web pages)
    duplicate_links: int
    depth: int = 1
    sitemap: str = ""  # what reading sitemap.xml gave, when asked

    def summary(self) -> str:
        statuses = Counter(row.status for row in self.rows)
        categories = Counter(row.category for row in self.rows if row.status == "ok")
        skipped = ", ".join(f"{status} {n}" for status, n in sorted(statuses.items()) if status != "ok") or "none"
        levels = Counter(row.depth for row in self.rows if row.status == "ok" and row.depth != 0)
        by_level = ", ".join(f"level {d}: {n}" for d, n in sorted(levels.items(), key=lambda item: int(item[0])))
        deep = f" (depth {self.depth}; fetched by {by_level})" if self.depth > 1 and by_level else ""
        sitemap = f"; {self.sitemap}" if self.sitemap else ""
        return (
            f"crawled {self.toc_url} (scope {self.scope}){deep}: {len(self.rows)} URLs, {statuses['ok']} fetched "
            f"({categories['medical']} medical, {categories['non-medical']} non-medical); not fetched or failed: "
            f"{skipped}; {self.duplicate_links} duplicate and {self.ignored_links} non-web links dropped; "
            f"{self.requests} HTTP requests{sitemap}"
        )


@dataclass
class _Link:
    url: str
    text: str
    depth: int
    linked_from: str


class _Frontier:
    """The links still to visit, in breadth-first order, each URL once."""

    def __init__(self, toc: str, options: CrawlOptions) -> None:
        self.options = options
        self.queue: deque[_Link] = deque()
        self.known = {toc}
        self.ignored = self.duplicates = 0

    def add_page_links(self, page: Page, base: str, depth: int, linked_from: str) -> int:
        """Queue the new links of ``page`` (found at ``depth`` - 1) at ``depth``; the number queued."""
        if page.base:
            base = normalize_url(page.base, base=base, drop_params=()) or base
        added = 0
        for href, text in page.links:
            url = normalize_url(href, base=base, drop_params=self.options.drop_params)
            if url is None:
                self.ignored += 1
            else:
                added += self.add(url, text, depth, linked_from)
        return added

    def add(self, url: str, text: str, depth: int, linked_from: str) -> int:
        if url in self.known:
            self.duplicates += 1
            return 0
        self.known.add(url)
        self.queue.append(_Link(url, text, depth, linked_from))
        return 1


def crawl(toc_url: str, fetcher: Fetcher, options: CrawlOptions, cache: PageCache | None = None) -> CrawlReport:
    """Fetch the table of contents, then the pages it links to inside ``fetcher.scope``, breadth-first
    up to ``options.depth`` levels (see the module docstring)."""
    check_web_url(toc_url, "TOC_URL")
    if options.depth < 1:
        raise DataError(f"--depth {options.depth}: the crawl needs at least depth 1 (the table of contents' links)")
    budget_end = time.monotonic() + options.max_seconds if options.max_seconds is not None else None
    toc = normalize_url(toc_url, drop_params=options.drop_params) or toc_url
    first = fetcher.fetch(toc, deadline=budget_end)
    if not first.ok:
        raise DataError(_toc_failure(toc_url, first, fetcher))
    frontier = _Frontier(toc, options)
    toc_row, toc_page = _page_row(toc, first, options, cache, link_text="(table of contents)")
    toc_row.depth = 0
    rows = [toc_row]
    if toc_page is not None:
        frontier.add_page_links(toc_page, first.final_url, 1, toc)
    sitemap_note = ""
    if options.sitemap:
        sitemap_note = _queue_sitemap(fetcher, frontier, budget_end)
    seen_final = {normalize_url(first.final_url, drop_params=options.drop_params) or toc: toc}
    fetched = 0
    bar = _progress(len(frontier.queue), options.progress)
    while frontier.queue:
        link = frontier.queue.popleft()
        bar.update(1)
        base_row = {"url": link.url, "link_text": link.text, "depth": link.depth, "linked_from": link.linked_from}
        if outside := fetcher.scope.outside(link.url):
            where = "another site" if outside == "off-site" else "outside the guideline's folder"
            rows.append(Row(**base_row, status=outside, category=UNKNOWN,
                            reason=f"{where}: not in the scope {fetcher.scope.prefix} (listed, never fetched)"))
            continue
        if fetched >= options.max_pages:
            rows.append(Row(**base_row, status="not-fetched", category=UNKNOWN,
                            reason=f"over --max-pages {options.max_pages}"))
            continue
        if budget_end is not None and time.monotonic() >= budget_end:
            rows.append(Row(**base_row, status="not-fetched", category=UNKNOWN,
                            reason=f"the crawl's time budget --max-seconds {options.max_seconds:g} ran out"))
            continue
        fetched += 1
        result = fetcher.fetch(link.url, deadline=budget_end)
        final = normalize_url(result.final_url, drop_params=options.drop_params) or result.final_url
        if result.ok and final in seen_final:
            rows.append(Row(**base_row, status="duplicate", category=UNKNOWN, final_url=result.final_url,
                            http_status=result.http_status or "",
                            reason=f"same page as {seen_final[final]} (after redirects)"))
            continue
        seen_final.setdefault(final, link.url)
        row, page = _page_row(link.url, result, options, cache, link_text=link.text)
        row.depth, row.linked_from = link.depth, link.linked_from
        rows.append(row)
        if page is not None and link.depth < options.depth:
            bar.total += frontier.add_page_links(page, result.final_url, link.depth + 1, link.url)
            bar.refresh()
    bar.close()
    if cache is not None:
        cache.compact()
    return CrawlReport(toc_url=toc, scope=fetcher.scope.prefix, rows=rows, requests=fetcher.requests_made,
                       ignored_links=frontier.ignored, duplicate_links=frontier.duplicates, depth=options.depth,
                       sitemap=sitemap_note)


def _queue_sitemap(fetcher: Fetcher, frontier: _Frontier, deadline: float | None) -> str:
    """Queue the in-scope pages of the scope's sitemap.xml at level 1; a note for the summary."""
    found = read_sitemap(fetcher, deadline, frontier.options.drop_params)
    if found.error:
        return f"sitemap {found.url}: {found.error}"
    outside = sum(1 for url in found.urls if fetcher.scope.outside(url))
    added = sum(frontier.add(url, "(sitemap.xml)", 1, found.url) for url in found.urls
                if not fetcher.scope.outside(url))
    return (f"sitemap {found.url}: {len(found.urls)} URLs, {added} not linked from the table of contents queued, "
            f"{outside} outside the scope left out")


def _page_row(url: str, result: FetchResult, options: CrawlOptions, cache: PageCache | None,
              link_text: str) -> tuple[Row, Page | None]:
    row = Row(url=url, status=result.status, link_text=link_text, http_status=result.http_status or "",
              content_type=result.content_type, charset=result.charset,
              final_url=result.final_url if result.final_url != url else "")
    if result.status == "not-html":
        row.category, row.reason = NON_MEDICAL, f"not an HTML page ({result.detail})"
        return row, None
    if not result.ok:
        row.category, row.reason = UNKNOWN, result.detail
        return row, None
    page = parse_page(result.html, options.drop_tags)
    verdict = classify_page(url, page, options.heuristic)
    row.classifier = "heuristic"
    if options.llm is not None:
        verdict, row.classifier = options.llm.classify(url, page, verdict)
    row.title, row.category, row.reason = page.title, verdict.category, verdict.reason
    row.text_length, row.link_ratio = text_chars(page.text), round(page.link_ratio, 3)
    row.medical_terms = len(verdict.medical_terms)
    if cache is not None:
        cache.put(url, result.final_url, result.charset, result.html)
    return row, page


def _toc_failure(toc_url: str, result: FetchResult, fetcher: Fetcher) -> str:
    what = f"the table of contents {toc_url}"
    if result.status == "unreachable":
        return f"cannot reach {what}: {result.detail}. Check the host name and port, and that this machine can reach it"
    if result.status == "timeout":
        return f"{what} did not answer: {result.detail}. Raise --timeout or try later"
    if result.status == "robots":
        return f"{what} may not be crawled: {result.detail}. Ask the site's owner, or crawl a page robots.txt allows"
    if result.status == "not-html":
        return f"{what} is not an HTML page: {result.detail}"
    if result.status in ("off-site", "out-of-scope"):
        return f"{what} {result.detail}; pass --scope to widen the scope"
    return f"{what} could not be fetched: {result.detail or result.status}"


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="crawl", unit="page", file=sys.stderr, disable=not enabled or total == 0)
