"""``criss-rag crawl TOC_URL``: the table of contents -> one classified row per linked page.

The crawl goes one level deep, as the Japanese guideline system did: every link on the table of
contents, no links of links. Each link is normalised (:mod:`criss_rag_crawl.urls`), duplicates are
dropped, links outside the scope are listed but never fetched, and each page inside is fetched
politely (:mod:`criss_rag_crawl.fetch`) and classified (:mod:`criss_rag_crawl.classify`).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from criss_rag.errors import DataError

from criss_rag_crawl.cache import PageCache
from criss_rag_crawl.classify import NON_MEDICAL, UNKNOWN, HeuristicSettings, LlmClassifier, classify_page
from criss_rag_crawl.fetch import Fetcher, FetchResult
from criss_rag_crawl.page import DEFAULT_DROP_TAGS, parse_page, text_chars
from criss_rag_crawl.sheet import Row
from criss_rag_crawl.urls import TRACKING_PARAMS, check_web_url, normalize_url


@dataclass
class CrawlOptions:
    """What ``crawl`` does besides fetching (the fetcher carries the politeness settings)."""

    heuristic: HeuristicSettings = field(default_factory=HeuristicSettings)
    drop_params: tuple[str, ...] = TRACKING_PARAMS
    drop_tags: tuple[str, ...] = DEFAULT_DROP_TAGS
    max_pages: int = 500
    max_seconds: float | None = None  # the crawl's total time budget; pages left when it runs out are not fetched
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

    def summary(self) -> str:
        statuses = Counter(row.status for row in self.rows)
        categories = Counter(row.category for row in self.rows if row.status == "ok")
        skipped = ", ".join(f"{status} {n}" for status, n in sorted(statuses.items()) if status != "ok") or "none"
        return (
            f"crawled {self.toc_url} (scope {self.scope}): {len(self.rows)} URLs, {statuses['ok']} fetched "
            f"({categories['medical']} medical, {categories['non-medical']} non-medical); not fetched or failed: "
            f"{skipped}; {self.duplicate_links} duplicate and {self.ignored_links} non-web links dropped; "
            f"{self.requests} HTTP requests"
        )


def crawl(toc_url: str, fetcher: Fetcher, options: CrawlOptions, cache: PageCache | None = None) -> CrawlReport:
    """Fetch the table of contents, then every page it links to inside ``fetcher.scope``."""
    check_web_url(toc_url, "TOC_URL")
    budget_end = time.monotonic() + options.max_seconds if options.max_seconds is not None else None
    toc = normalize_url(toc_url, drop_params=options.drop_params) or toc_url
    first = fetcher.fetch(toc, deadline=budget_end)
    if not first.ok:
        raise DataError(_toc_failure(toc_url, first, fetcher))
    page = parse_page(first.html, options.drop_tags)
    base = normalize_url(page.base, base=first.final_url, drop_params=()) if page.base else first.final_url
    links: dict[str, str] = {}
    ignored = duplicates = 0
    for href, text in page.links:
        url = normalize_url(href, base=base, drop_params=options.drop_params)
        if url is None:
            ignored += 1
        elif url in links or url == toc:
            duplicates += 1
        else:
            links[url] = text
    rows = [_page_row(toc, first, options, cache, link_text="(table of contents)")]
    seen_final = {normalize_url(first.final_url, drop_params=options.drop_params) or toc: toc}
    fetched = 0
    for url, text in _progress(links.items(), len(links), options.progress):
        if outside := fetcher.scope.outside(url):
            where = "another site" if outside == "off-site" else "outside the guideline's folder"
            rows.append(Row(url=url, status=outside, category=UNKNOWN, link_text=text,
                            reason=f"{where}: not in the scope {fetcher.scope.prefix} (listed, never fetched)"))
            continue
        if fetched >= options.max_pages:
            rows.append(Row(url=url, status="not-fetched", category=UNKNOWN, link_text=text,
                            reason=f"over --max-pages {options.max_pages}"))
            continue
        if budget_end is not None and time.monotonic() >= budget_end:
            rows.append(Row(url=url, status="not-fetched", category=UNKNOWN, link_text=text,
                            reason=f"the crawl's time budget --max-seconds {options.max_seconds:g} ran out"))
            continue
        fetched += 1
        result = fetcher.fetch(url, deadline=budget_end)
        final = normalize_url(result.final_url, drop_params=options.drop_params) or result.final_url
        if result.ok and final in seen_final:
            rows.append(Row(url=url, status="duplicate", category=UNKNOWN, link_text=text, final_url=result.final_url,
                            http_status=result.http_status or "",
                            reason=f"same page as {seen_final[final]} (after redirects)"))
            continue
        seen_final.setdefault(final, url)
        rows.append(_page_row(url, result, options, cache, link_text=text))
    if cache is not None:
        cache.compact()
    return CrawlReport(toc_url=toc, scope=fetcher.scope.prefix, rows=rows, requests=fetcher.requests_made,
                       ignored_links=ignored, duplicate_links=duplicates)


def _page_row(url: str, result: FetchResult, options: CrawlOptions, cache: PageCache | None, link_text: str) -> Row:
    row = Row(url=url, status=result.status, link_text=link_text, http_status=result.http_status or "",
              content_type=result.content_type, charset=result.charset,
              final_url=result.final_url if result.final_url != url else "")
    if result.status == "not-html":
        row.category, row.reason = NON_MEDICAL, f"not an HTML page ({result.detail})"
        return row
    if not result.ok:
        row.category, row.reason = UNKNOWN, result.detail
        return row
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
    return row


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


def _progress(items: Iterable, total: int, enabled: bool) -> Iterable:
    from tqdm import tqdm

    return tqdm(items, total=total, desc="crawl", unit="page", file=sys.stderr, disable=not enabled or total == 0)
