"""URL handling for the crawler: one normal form per page, and the guideline's scope.

The normal form (``normalize_url``) makes the links a table of contents writes in different ways
name one page once:

- relative links are resolved against the page they appear on (its final URL after redirects, or
  its ``<base href>``);
- the scheme and host are lower-cased, and a default port (``:80`` for http, ``:443`` for https)
  is dropped;
- the fragment (``#section``) is dropped: it points into a page, not at another page;
- a trailing slash is dropped (``/cq/1/`` and ``/cq/1`` are one page), except for the root ``/``;
- query parameters that only track visitors (``utm_*``, ``fbclid``, ``gclid``, ... see
  :data:`TRACKING_PARAMS`) are removed, and the rest are sorted by name, so ``?b=2&a=1`` and
  ``?a=1&b=2`` are one page. Parameters that select content (``?id=3``) are kept.

Only ``http`` and ``https`` links are pages; ``mailto:``, ``javascript:``, ``tel:`` ... are not.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from criss_rag.errors import DataError

#: Query parameters that identify a visit, not a page (``*`` matches any ending).
TRACKING_PARAMS = (
    "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid",
    "_ga", "_gl", "igshid", "phpsessid", "jsessionid", "sessionid", "sid",
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def check_web_url(url: str, what: str = "URL") -> str:
    """``url`` stripped, or an error that says what a usable URL looks like."""
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise DataError(
            f"{what} {url!r} is not a web address: write it in full, with http:// or https:// and a host, "
            "e.g. https://www.example.org/guideline/index.html"
        )
    try:
        parts.port  # noqa: B018 - raises on a malformed port
    except ValueError:
        raise DataError(f"{what} {url!r} has an invalid port number") from None
    return url


def normalize_url(url: str, base: str | None = None, drop_params: Iterable[str] = TRACKING_PARAMS) -> str | None:
    """The normal form of ``url`` (resolved against ``base``), or ``None`` when it is not an
    http(s) page. See the module docstring for the rule."""
    url = url.strip()
    if base is not None:
        url = urljoin(base, url)
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname.lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    netloc = host if port in (None, _DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = parts.path or "/"
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    patterns = [p.lower() for p in drop_params]
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if not any(fnmatch.fnmatchcase(k.lower(), p) for p in patterns)]
    return urlunsplit((scheme, netloc, path, urlencode(sorted(query)), ""))


@dataclass(frozen=True)
class Scope:
    """The part of the web the crawler may fetch: one origin and a path prefix.

    By default (``Scope.of(toc_url)``) the folder of the table of contents: for
    ``https://example.org/guideline/toc.html`` that is everything under
    ``https://example.org/guideline/``."""

    prefix: str  # normalised origin + path, ending in "/"

    @classmethod
    def of(cls, toc_url: str, prefix: str | None = None) -> Scope:
        if prefix is not None:
            check_web_url(prefix, "--scope")
            normal = normalize_url(prefix) or prefix
            # a prefix names a folder: "https://h/guideline" and "https://h/guideline/" are one scope
            return cls(normal if normal.endswith("/") else normal + "/")
        normal = normalize_url(toc_url) or toc_url
        parts = urlsplit(normal)
        folder = parts.path if urlsplit(toc_url).path.endswith("/") else parts.path.rsplit("/", 1)[0]
        return cls(urlunsplit((parts.scheme, parts.netloc, folder.rstrip("/") + "/", "", "")))

    @property
    def origin(self) -> str:
        parts = urlsplit(self.prefix)
        return f"{parts.scheme}://{parts.netloc}"

    def outside(self, url: str) -> str | None:
        """Why a normalised ``url`` is outside the scope (``"off-site"`` or ``"out-of-scope"``),
        or ``None`` when the crawler may fetch it."""
        parts = urlsplit(url)
        if f"{parts.scheme}://{parts.netloc}" != self.origin:
            return "off-site"
        path = parts.path if parts.path.endswith("/") else parts.path + "/"
        if not path.startswith(urlsplit(self.prefix).path):
            return "out-of-scope"
        return None
