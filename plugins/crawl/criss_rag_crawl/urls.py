"""URL handling for the crawler: one normal form per page, and the guideline's scope.

The normal form (``normalize_url``) makes the links a table of contents writes in different ways
name one page once:

- relative links are resolved against the page they appear on (its final URL after redirects, or
  its ``<base href>``);
- the scheme and host are lower-cased, and a default port (``:80`` for http, ``:443`` for https)
  is dropped;
- the path is cleaned as RFC 3986 says (section 6.2.2): non-ASCII characters (a CJK path written
  as is) are percent-encoded as UTF-8, percent-encoded unreserved characters are
  decoded (``%2e`` is ``.``, ``%7E`` is ``~``), other percent-encodings upper-cased, a backslash
  read as ``/`` (as browsers do), and dot segments removed (``/guide/../outside.html`` is
  ``/outside.html``, section 5.2.4), so that the scope is judged on the page a server will serve;
- the fragment (``#section``) is dropped: it points into a page, not at another page;
- a trailing slash is dropped (``/cq/1/`` and ``/cq/1`` are one page), except for the root ``/``;
- query parameters that only track visitors (``utm_*``, ``fbclid``, ``gclid``, ... see
  :data:`TRACKING_PARAMS`) are removed, and the rest are sorted by name, so ``?b=2&a=1`` and
  ``?a=1&b=2`` are one page. Parameters that select content (``?id=3``) are kept.

Only ``http`` and ``https`` links are pages; ``mailto:``, ``javascript:``, ``tel:`` ... are not.
"""

from __future__ import annotations

import fnmatch
import re
import string
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit

from criss_rag.errors import DataError

#: Query parameters that identify a visit, not a page (``*`` matches any ending).
TRACKING_PARAMS = (
    "utm_*", "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid",
    "_ga", "_gl", "igshid", "phpsessid", "jsessionid", "sessionid", "sid",
)
_DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = frozenset(string.ascii_letters + string.digits + "-._~")
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_NON_ASCII = re.compile(r"[^\x00-\x7f]+")


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4: ``/a/b/../c/./d`` -> ``/a/c/d``; never above the root."""
    output: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if output and output[-1] != "" or len(output) > 1:
                output.pop()
        elif segment != ".":
            output.append(segment)
    result = "/".join(output)
    if path.endswith(("/.", "/..")):
        result += "/"
    if path.startswith("/") and not result.startswith("/"):
        result = "/" + result
    return result or "/"


def clean_path(path: str) -> str:
    """The path as a server resolves it: non-ASCII characters percent-encoded as UTF-8 (``/治療`` and
    ``/%E6%B2%BB%E7%99%82`` are one page), unreserved characters percent-decoded, other escapes
    upper-cased, ``\\`` read as ``/``, dot segments removed (RFC 3986 sections 6.2.2 and 5.2.4)."""
    def decode(match: re.Match) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED else "%" + match.group(1).upper()
    encoded = _NON_ASCII.sub(lambda m: quote(m.group(0), safe=""), path.replace("\\", "/"))
    return remove_dot_segments(_PERCENT.sub(decode, encoded) or "/")


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
    path = clean_path(parts.path or "/")
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
        """Why ``url`` is outside the scope (``"off-site"`` or ``"out-of-scope"``), or ``None``
        when the crawler may fetch it.

        The path is judged after :func:`clean_path` (dot segments, encoded unreserved characters),
        and again with every percent-escape decoded (``%2f`` as ``/``: some servers decode it
        before resolving dots); both must lie under the prefix."""
        parts = urlsplit(url)
        scheme, host = parts.scheme.lower(), (parts.hostname or "").lower()
        try:
            port = parts.port
        except ValueError:
            return "off-site"
        if ":" in host:
            host = f"[{host}]"
        netloc = host if port in (None, _DEFAULT_PORTS.get(scheme)) else f"{host}:{port}"
        if f"{scheme}://{netloc}" != self.origin:
            return "off-site"
        prefix = urlsplit(self.prefix).path
        for path in (clean_path(parts.path or "/"), remove_dot_segments(unquote(parts.path or "/").replace("\\", "/"))):
            path = path if path.endswith("/") else path + "/"
            if not path.startswith(prefix):
                return "out-of-scope"
        return None
