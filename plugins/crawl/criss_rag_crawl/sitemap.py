"""The scope's ``sitemap.xml`` (sitemaps.org protocol): the page URLs a site lists for crawlers.

``read_sitemap`` fetches ``<scope>sitemap.xml`` with the crawl's own fetcher (robots.txt, delay,
time budget), reads every ``<url><loc>``, and follows a sitemap index's ``<sitemap><loc>`` entries
one level down (inside the scope only). A missing or unreadable sitemap is a note, not an error:
the crawl goes on from the table of contents.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from criss_rag_crawl.fetch import Fetcher
from criss_rag_crawl.urls import normalize_url

XML_TYPES = ("application/xml", "text/xml")
MAX_SITEMAPS = 20  # sitemap files read from one index


@dataclass
class SitemapPages:
    url: str
    urls: list[str] = field(default_factory=list)  # normalised page URLs, in the sitemap's order, each once
    error: str = ""


def read_sitemap(fetcher: Fetcher, deadline: float | None, drop_params: tuple[str, ...]) -> SitemapPages:
    """The page URLs listed by ``<scope>sitemap.xml`` (see the module docstring)."""
    found = SitemapPages(url=fetcher.scope.prefix + "sitemap.xml")
    pending, read = [found.url], 0
    while pending and read < MAX_SITEMAPS:
        url = pending.pop(0)
        read += 1
        result = fetcher.fetch(url, deadline=deadline, types=XML_TYPES)
        if not result.ok:
            if url == found.url:
                found.error = f"not read ({result.status}: {result.detail})"
            continue
        try:
            root = ET.fromstring(result.html)
        except ET.ParseError as exc:
            if url == found.url:
                found.error = f"not XML ({exc})"
            continue
        kind = _local(root.tag)
        for entry in root:
            loc = next((child.text or "" for child in entry if _local(child.tag) == "loc"), "").strip()
            normal = normalize_url(loc, drop_params=drop_params) if loc else None
            if normal is None:
                continue
            if kind == "sitemapindex" and url == found.url and not fetcher.scope.outside(normal):
                pending.append(normal)
            elif kind == "urlset" and normal not in found.urls:
                found.urls.append(normal)
    return found


def _local(tag: str) -> str:
    """The tag's name without its XML namespace (``{http://www.sitemaps.org/...}url`` -> ``url``)."""
    return tag.rsplit("}", 1)[-1]
