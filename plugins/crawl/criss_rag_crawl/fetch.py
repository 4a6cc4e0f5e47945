"""A polite HTTP fetcher for one guideline site.

Politeness, in the order a fetch meets it:

- **robots.txt** of each origin is read once (with this fetcher's User-Agent and timeout) and
  honoured through :mod:`urllib.robotparser`; a ``Crawl-delay`` longer than ``delay`` wins. A
  missing robots.txt (4xx) allows everything; 401/403 or a server error (5xx) disallows everything
  (RFC 9309).
- **rate limit**: at least ``delay`` seconds between the starts of two requests, retries and
  robots.txt included;
- **timeouts** on connecting and on each read, and a **deadline per page** (``page_timeout``):
  every attempt, redirect and the whole body must arrive within it, so a server that sends one
  byte every few seconds is cut off (status ``timeout``); a caller may pass an earlier deadline
  (the crawl's total budget); **retries** with exponential backoff after a timeout, a dropped
  connection, HTTP 429 or 5xx (``Retry-After`` is honoured when it is longer), never past the
  deadline;
- **scope**: every URL is judged by :meth:`Scope.outside` before it is requested, the first and
  each redirect hop, on its path with dot segments removed and unreserved escapes decoded
  (``/guide/../outside.html`` and ``/guide/%2e%2e/outside.html`` are ``/outside.html``); the hop is
  then requested in that cleaned form, so the page fetched is the page judged;
- **redirects** are followed by hand, at most ``max_redirects``, and only inside the scope and
  where robots.txt allows: an off-site redirect is reported, never fetched;
- **content type**: only HTML is read (``text/html``, ``application/xhtml+xml``); anything else
  is reported without reading its body;
- **size cap**: a page larger than ``max_bytes`` (by its Content-Length, or while reading) is
  abandoned.

The body is decoded by :func:`criss_rag_crawl.charset.decode_html`.
"""

from __future__ import annotations

import re
import time
import urllib.robotparser
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from urllib.parse import urldefrag, urljoin, urlsplit, urlunsplit

import requests
import urllib3
from pydantic import BaseModel, ConfigDict, Field

from criss_rag_crawl.charset import decode_html
from criss_rag_crawl.urls import Scope, clean_path, normalize_url

HTML_TYPES = ("text/html", "application/xhtml+xml")
_RETRY_STATUSES = {429, 500, 502, 503, 504}


class FetchSettings(BaseModel):
    """How politely to fetch (shared by ``criss-rag crawl`` and the ``reviewed-urls`` loader)."""

    model_config = ConfigDict(extra="forbid")
    user_agent: str = Field(
        "criss-rag-crawler/0.1",
        description="the User-Agent sent with every request and matched against robots.txt; name yourself and a "
                    "contact",
    )
    delay: float = Field(
        1.0,
        ge=0.0,
        description="the least seconds between the starts of two requests (a longer robots.txt Crawl-delay wins)",
    )
    timeout: float = Field(10.0, gt=0.0, description="seconds to wait for a connection and for each read")
    page_timeout: float = Field(60.0, gt=0.0, description="seconds one page may take in all (attempts, redirects, "
                                                           "the whole body); over it the page is `timeout`")
    retries: int = Field(2, ge=0, description="retries after a timeout, a dropped connection, HTTP 429 or 5xx")
    backoff: float = Field(1.0, ge=0.0, description="seconds before the first retry; the wait doubles after each")
    max_bytes: int = Field(2_000_000, ge=1, description="pages larger than this many bytes are skipped (`too-large`)")
    max_redirects: int = Field(5, ge=0, description="redirects followed per page, each inside the scope")


@dataclass
class FetchResult:
    """What fetching one URL gave. ``status`` is ``ok`` or why there is no page (see docs)."""

    url: str
    status: str
    detail: str = ""
    final_url: str = ""
    http_status: int | None = None
    content_type: str = ""
    charset: str = ""
    html: str = ""
    attempts: int = 0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


@dataclass
class RateLimiter:
    """Spaces the starts of requests at least ``delay`` seconds apart (clock and sleep injectable)."""

    delay: float
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    _last: float | None = field(default=None, init=False)

    def wait(self) -> None:
        if self._last is not None:
            remaining = self._last + self.delay - self.clock()
            if remaining > 0:
                self.sleep(remaining)
        self._last = self.clock()


class _TooLarge(Exception):
    pass


class _PastDeadline(Exception):
    pass


class Fetcher:
    """Fetches pages of one scope politely. One instance per crawl: it keeps the robots.txt rules
    and the rate limiter; ``requests_made`` counts every HTTP request it sent."""

    def __init__(self, settings: FetchSettings, scope: Scope, *, session: requests.Session | None = None,
                 limiter: RateLimiter | None = None) -> None:
        self.settings = settings
        self.scope = scope
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = settings.user_agent
        self.limiter = limiter or RateLimiter(settings.delay)
        # origin -> (rules, note), or (None, why) when robots.txt could not be reached at all
        self._robots: dict[str, tuple[urllib.robotparser.RobotFileParser | None, str]] = {}
        self.requests_made = 0
        self._deadline: float | None = None  # monotonic time the page being fetched must be done by
        self._deadline_why = ""
        self._types: tuple[str, ...] = HTML_TYPES  # media types the page being fetched may have

    # -- robots.txt -------------------------------------------------------------------------------
    def robots_verdict(self, url: str) -> tuple[str, str] | None:
        """``("robots", why)`` when robots.txt forbids ``url`` for this User-Agent,
        ``("unreachable", why)`` when the site did not answer, ``None`` when it may be fetched."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        if origin not in self._robots:
            self._robots[origin] = self._read_robots(origin)
        rules, note = self._robots[origin]
        if rules is None:
            return "unreachable", note
        if rules.can_fetch(self.settings.user_agent, url):
            return None
        return (
            "robots",
            f"robots.txt at {origin}/robots.txt disallows it for User-Agent {self.settings.user_agent!r}{note}",
        )

    def _read_robots(self, origin: str) -> tuple[urllib.robotparser.RobotFileParser | None, str]:
        rules = urllib.robotparser.RobotFileParser(origin + "/robots.txt")
        response, _status, detail, _attempts = self._get_retrying(origin + "/robots.txt", stream=False)
        if response is None:
            return None, f"{detail} (while reading {origin}/robots.txt)"
        with response:
            status, body = response.status_code, response.text
        if status == 200:
            rules.parse(body.splitlines())
            delay = rules.crawl_delay(self.settings.user_agent)
            if delay is not None and float(delay) > self.limiter.delay:
                self.limiter.delay = float(delay)
            return rules, ""
        if status in (401, 403) or status >= 500:
            rules.disallow_all = True
            return rules, f" (robots.txt HTTP {status}: everything is treated as disallowed, RFC 9309)"
        rules.allow_all = True  # other 4xx: there is no robots.txt
        return rules, ""

    # -- pages --------------------------------------------------------------------------------------
    def fetch(self, url: str, deadline: float | None = None, types: tuple[str, ...] = HTML_TYPES) -> FetchResult:
        """Fetch one normalised URL inside the scope, following redirects inside the scope, within
        ``page_timeout`` seconds (or by ``deadline``, a ``time.monotonic()`` value, if earlier).
        A response whose media type is not one of ``types`` is ``not-html``."""
        own = time.monotonic() + self.settings.page_timeout
        self._deadline = min(own, deadline) if deadline is not None else own
        self._deadline_why = (f"the page took longer than --page-timeout {self.settings.page_timeout:g}s"
                              if self._deadline == own else "the crawl's time budget (--max-seconds) ran out")
        self._types = types
        try:
            return self._fetch(url)
        finally:
            self._deadline, self._types = None, HTML_TYPES

    def _fetch(self, url: str) -> FetchResult:
        current = _cleaned(url)
        result = FetchResult(url=url, status="error")
        if outside := self.scope.outside(current):
            result.status, result.final_url = outside, current
            result.detail = f"{current} is outside the scope {self.scope.prefix} (not fetched)"
            return result
        for _hop in range(self.settings.max_redirects + 1):
            result.final_url = current
            if verdict := self.robots_verdict(current):
                result.status, result.detail = verdict
                return result
            response, status, detail, attempts = self._get_retrying(current, stream=True)
            result.attempts += attempts
            if response is None:
                result.status, result.detail = status, detail
                return result
            with response:
                location = self._read(response, result)
            if location is None:
                return result
            # follow the address as the server wrote it (normalising "/cq3/" to "/cq3" could loop
            # on a server that redirects one to the other); judge the scope on its normal form
            target = _cleaned(urldefrag(urljoin(current, location)).url)
            normal = normalize_url(target, drop_params=())
            if normal is None:
                result.status, result.detail = "error", f"redirect to a non-web address {location!r}"
                return result
            if outside := self.scope.outside(normal):
                result.status, result.final_url = outside, target
                result.detail = f"redirects to {target}, outside the scope {self.scope.prefix} (not followed)"
                return result
            current = target
        result.status, result.detail = "error", f"more than {self.settings.max_redirects} redirects"
        return result

    def _get_retrying(self, url: str, *, stream: bool) -> tuple[requests.Response | None, str, str, int]:
        """GET, retried after a timeout, a dropped connection, HTTP 429 or 5xx: ``(response, "", "",
        attempts)``, or ``(None, status, detail, attempts)`` when no attempt got a response."""
        s = self.settings
        status = detail = ""
        for attempt in range(s.retries + 1):
            wait = s.backoff * 2**attempt
            try:
                response = self._get(url, stream=stream)
            except _PastDeadline:
                return None, "timeout", self._deadline_why, attempt
            except requests.Timeout:
                status, detail = "timeout", f"no answer within {s.timeout:g}s ({attempt + 1} attempts)"
            except requests.ConnectionError as exc:
                status, detail = "unreachable", f"cannot connect: {_reason(exc, url)}"
            else:
                if response.status_code not in _RETRY_STATUSES or attempt == s.retries:
                    return response, "", "", attempt + 1
                wait = max(wait, _retry_after(response))
                response.close()
            if attempt < s.retries:
                if self._deadline is not None and time.monotonic() + wait > self._deadline:
                    return None, "timeout", f"{detail}; no time left for a retry: {self._deadline_why}", attempt + 1
                self.limiter.sleep(wait)
        return None, status, detail, s.retries + 1

    def _read(self, response: requests.Response, result: FetchResult) -> str | None:
        s = self.settings
        result.http_status = response.status_code
        result.content_type = response.headers.get("Content-Type", "")
        if response.is_redirect and response.headers.get("Location"):
            return urljoin(response.url, response.headers["Location"])
        if response.status_code >= 400:
            result.status, result.detail = "http-error", f"HTTP {response.status_code} {response.reason or ''}".strip()
            return None
        mime = result.content_type.split(";")[0].strip().lower()
        if mime not in self._types:
            result.status, result.detail = "not-html", f"content type {mime or '(none)'}: only HTML pages are read"
            return None
        declared = response.headers.get("Content-Length", "")
        if declared.isdigit() and int(declared) > s.max_bytes:
            result.status, result.detail = (
                "too-large",
                f"{int(declared):,} bytes > max {s.max_bytes:,} (Content-Length)",
            )
            return None
        try:
            body = _read_capped(response, s.max_bytes, self._deadline)
        except _PastDeadline:
            result.status, result.detail = "timeout", f"{self._deadline_why} (the body was still arriving)"
            return None
        except _TooLarge:
            result.status, result.detail = "too-large", f"more than max {s.max_bytes:,} bytes"
            return None
        except requests.Timeout:
            result.status, result.detail = "timeout", f"the body did not arrive within {s.timeout:g}s"
            return None
        except requests.RequestException as exc:
            result.status, result.detail = "error", f"reading the page failed: {_reason(exc, response.url)}"
            return None
        result.html, result.charset = decode_html(body, result.content_type)
        result.status, result.detail = "ok", ""
        return None

    def _get(self, url: str, *, stream: bool = False) -> requests.Response:
        self.limiter.wait()
        timeout = self.settings.timeout
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise _PastDeadline
            timeout = min(timeout, left)  # waiting for the answer cannot outlast the page's deadline
        self.requests_made += 1
        return self.session.get(url, timeout=timeout, allow_redirects=False, stream=stream)


def _cleaned(url: str) -> str:
    """``url`` with its path as :func:`~criss_rag_crawl.urls.clean_path` gives it (a trailing slash
    kept: the server decides whether ``/a/`` and ``/a`` are one page)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=clean_path(parts.path))) if parts.path else url


def _read_capped(response: requests.Response, cap: int, deadline: float | None = None) -> bytes:
    """The body, at most ``cap`` bytes, done by ``deadline``. Reads what each arriving packet
    brings (``read1``), so a trickling server is checked against the deadline as it goes."""
    chunks, size = [], 0
    raw = response.raw
    try:
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise _PastDeadline
            chunk = raw.read1(65536, decode_content=True)
            if not chunk:
                break
            size += len(chunk)
            if size > cap:
                raise _TooLarge
            chunks.append(chunk)
    except (urllib3.exceptions.ReadTimeoutError, TimeoutError):
        raise requests.Timeout from None
    except urllib3.exceptions.ProtocolError as exc:
        raise requests.ConnectionError(str(exc)) from None
    return b"".join(chunks)


def _retry_after(response: requests.Response) -> float:
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return 0.0
    if value.isdigit():
        return float(value)
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return 0.0


def _reason(exc: Exception, url: str) -> str:
    """A short cause of a connection failure (requests nests urllib3's long messages)."""
    text, parts = str(exc), urlsplit(url)
    if "NameResolutionError" in text or "Failed to resolve" in text or "Name or service not known" in text:
        return f"the host name {parts.hostname!r} does not resolve (check its spelling)"
    if "Connection refused" in text:
        return f"connection refused by {parts.netloc} (is a server running on that port?)"
    errno = re.search(r"\[Errno -?\d+\] ([^'\")(]+)", text)
    return errno.group(1).strip() if errno else text[:200]
