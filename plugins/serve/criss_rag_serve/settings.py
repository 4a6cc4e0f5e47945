"""What ``criss-rag serve`` is started with, and the checks that refuse an unsafe start."""

from __future__ import annotations

import ipaddress
import os

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.errors import ConfigError
from criss_rag_serve.page import PageSettings

TOKEN_ENV = "CRISS_RAG_SERVE_TOKEN"


class ServeSettings(BaseModel):
    """Server settings (the ``serve`` command's options)."""

    model_config = ConfigDict(extra="forbid")
    host: str = Field("127.0.0.1", description="address to bind; anything but loopback needs a token")
    port: int = Field(8000, ge=0, le=65535, description="port to bind (0: any free port)")
    token_env: str = Field(TOKEN_ENV, description="environment variable holding the bearer token")
    cors_origins: list[str] = Field(default_factory=list, description="origins allowed by CORS; empty: CORS off")
    max_question_chars: int = Field(2000, ge=1, description="longest question (characters)")
    max_body_bytes: int = Field(16_384, ge=256, description="largest request body (bytes)")
    timeout_s: float = Field(120.0, gt=0, description="per-request limit for answering (seconds)")
    workers: int = Field(4, ge=1, description="questions answered at once (threads)")
    max_sessions: int = Field(1000, ge=1, description="chat sessions kept; the least recently used go first")
    session_idle_s: float = Field(3600.0, gt=0, description="a chat session idle this long is forgotten")
    header_timeout_s: float = Field(10.0, gt=0, description="a client must send its request line and headers within "
                                                            "this many seconds, else its connection is closed")
    body_timeout_s: float = Field(30.0, gt=0, description="a client must send its request body within this many "
                                                          "seconds, else 408")
    max_connections: int = Field(256, ge=1, description="connections (and requests) open at once; beyond: 503")
    reload: bool = Field(True, description="after a re-ingest, load the new index version in the background and "
                                           "answer new requests from it; false: keep the version, /health says restart")
    page: PageSettings = Field(default_factory=PageSettings, description="the chat page's landing state (--page)")
    sources_in_content: bool = Field(True, description="/v1/chat/completions: end `content` with the numbered "
                                     "'Sources:' block (a request may override it)")


def is_loopback(host: str) -> bool:
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost may resolve to anything


def read_token(settings: ServeSettings) -> str | None:
    """The bearer token from ``settings.token_env``; refuses to serve a non-loopback host without one."""
    raw = os.environ.get(settings.token_env)
    if raw is not None and not raw.strip():
        raise ConfigError(
            f"environment variable {settings.token_env} is set but empty. Set a real token, e.g. "
            f"export {settings.token_env}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))'), "
            f"or unset it to serve 127.0.0.1 without one"
        )
    token = raw.strip() if raw else None
    if token is None and not is_loopback(settings.host):
        raise ConfigError(
            f"--host {settings.host} is reachable from other machines, and no token is set: anyone who reaches it "
            f"could ask questions (and spend the pipeline's LLM budget). Set a token first:\n"
            f"  export {settings.token_env}=$(python -c 'import secrets; print(secrets.token_urlsafe(32))')\n"
            f"and send it as `Authorization: Bearer <token>`; or serve only this machine with --host 127.0.0.1"
        )
    if token is not None and len(token) < 16:
        raise ConfigError(f"the token in {settings.token_env} is {len(token)} characters long; use at least 16 "
                          f"(e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')")
    return token
