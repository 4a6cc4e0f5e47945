"""A loopback web site for testing crawls: pages you script, served on 127.0.0.1.

Built on :class:`criss_rag.testing.servers.StubServer` (threads, request log with arrival times
and headers, clean shutdown). Each page is a :class:`SitePage`: a body in any encoding, a status,
a content type, extra headers, a delay before answering, or a number of ``503`` answers before
it succeeds. Unknown paths get a 404.

Example::

    from criss_rag_crawl.testing import SitePage, SiteServer

    with SiteServer({"/guide/toc.html": SitePage.html("<a href='cq1.html'>CQ1</a>")}) as site:
        print(site.url + "/guide/toc.html")
        ...
        assert len(site.requests_to("/guide/cq1.html")) == 1
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from criss_rag.testing.servers import RecordedRequest, StubServer


@dataclass
class SitePage:
    """One scripted response."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0  # seconds before answering (a slow page)
    fail_first: int = 0  # answer this many requests with 503 first
    send_length: bool = True  # False: no Content-Length, the body ends when the connection closes
    trickle: float = 0.0  # seconds between the bytes of the body (a server that holds the client)
    served: int = 0  # requests answered so far (set by the server)
    bytes_sent: int = 0  # body bytes written for the last request (less than the body: the client left)

    @classmethod
    def html(cls, markup: str, *, encoding: str = "utf-8", charset_header: bool = True, **kwargs: Any) -> SitePage:
        """An HTML page; ``charset_header=False`` leaves the charset out of the Content-Type
        header, so the client has to find it in the page (``<meta charset>``) or guess."""
        content_type = f"text/html; charset={encoding}" if charset_header else "text/html"
        return cls(body=markup.encode(encoding), content_type=content_type, **kwargs)

    @classmethod
    def redirect(cls, location: str, status: int = 301) -> SitePage:
        return cls(status=status, headers={"Location": location}, content_type="text/plain")

    @classmethod
    def text(cls, text: str, content_type: str = "text/plain; charset=utf-8", **kwargs: Any) -> SitePage:
        return cls(body=text.encode("utf-8"), content_type=content_type, **kwargs)


class SiteServer(StubServer):
    """Serves ``pages`` (path -> :class:`SitePage`) over GET; see the module docstring."""

    def __init__(self, pages: Mapping[str, SitePage] | None = None) -> None:
        self.pages: dict[str, SitePage] = dict(pages or {})
        super().__init__()

    def routes(self) -> dict[tuple[str, str], Any]:
        return _Routes(self)

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        return {"error": message or f"HTTP {status}"}

    def user_agents(self) -> set[str]:
        return {r.headers.get("user-agent", "") for r in self.requests}

    def _serve(self, handler: Any, request: RecordedRequest, page: SitePage) -> None:
        page.served += 1
        if page.delay and self._stopping.wait(page.delay):
            handler.close_connection = True
            return
        status, body, content_type = page.status, page.body, page.content_type
        if page.served <= page.fail_first:
            status, body, content_type = 503, b"busy", "text/plain"
        handler.send_response(status)
        handler.send_header("Content-Type", content_type)
        if page.send_length:
            handler.send_header("Content-Length", str(len(body)))
        else:
            handler.send_header("Connection", "close")
            handler.close_connection = True
        for name, value in page.headers.items():
            handler.send_header(name, value)
        handler.end_headers()
        page.bytes_sent = 0
        if not page.trickle:
            handler.wfile.write(body)
            page.bytes_sent = len(body)
            return
        try:
            for i in range(len(body)):
                handler.wfile.write(body[i:i + 1])
                handler.wfile.flush()
                page.bytes_sent += 1
                if self._stopping.wait(page.trickle):
                    break
        except OSError:  # the client gave up and closed the connection
            handler.close_connection = True


class _Routes(dict):
    """The route table the base server looks up: every GET path of ``server.pages``, live."""

    def __init__(self, server: SiteServer) -> None:
        super().__init__()
        self.server = server

    def get(self, key: Any, default: Any = None) -> Any:
        method, path = key
        page = self.server.pages.get(path)
        if method != "GET" or page is None:
            return default
        return lambda handler, request: self.server._serve(handler, request, page)
