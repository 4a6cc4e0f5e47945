"""The HTTP API and the chat page: ``create_app(engine, settings, token)`` returns a FastAPI app.

Routes: ``POST /ask``, ``POST /chat`` and their ``/stream`` variants (server-sent events),
``GET /health``, the OpenAI-compatible ``POST /v1/chat/completions`` and ``GET /v1/models``
(:mod:`criss_rag_serve.openai_api`), the page at ``/`` (files under ``/static``), OpenAPI at ``/openapi.json`` and
``/docs``. Every error is ``{"error": {"code", "message", "request_id", "details"}}``; a traceback
only ever goes to the server log.
"""

# no `from __future__ import annotations`: FastAPI reads the request models from the live annotations
import asyncio
import hmac
import logging
import secrets
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sse_starlette.sse import EventSourceResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from criss_rag import ChatSession, Engine, __version__
from criss_rag.types import Answer
from criss_rag_serve.jobs import ApiError, run_job, stream_job
from criss_rag_serve.limits import AnswerPool
from criss_rag_serve.openai_api import add_openai_routes
from criss_rag_serve.page import page_info
from criss_rag_serve.schemas import ChatResponse, ErrorResponse, Health, request_models
from criss_rag_serve.served import ServedEngine
from criss_rag_serve.sessions import Session, SessionStore
from criss_rag_serve.settings import ServeSettings

log = logging.getLogger("criss_rag_serve")
STATIC = Path(__file__).parent / "static"
#: the page loads nothing but its own files, and no script runs that the page did not ship
PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorResponse, "description": what} for status, what in {
        401: "missing or wrong bearer token", 404: "unknown session", 409: "the session is answering another message",
        413: "request body too large", 415: "the body is not JSON (Content-Type)", 422: "invalid request (see details)",
        502: "the pipeline failed",
        504: "no answer in time"}.items()
}


def error_response(status: int, code: str, message: str, request_id: str, details: list[dict[str, Any]] | None = None,
                   headers: dict[str, str] | None = None) -> JSONResponse:
    body = {"error": {"code": code, "message": message, "request_id": request_id, "details": details or []}}
    return JSONResponse(body, status_code=status, headers=headers)


def _detail(error: dict[str, Any]) -> dict[str, Any]:
    """One validation problem as ``{field, problem}``; a body that is not JSON at all is the field
    ``body``, with the character where parsing stopped (FastAPI gives that offset as the location)."""
    if error.get("type") == "json_invalid":
        where = next((p for p in error["loc"][1:] if isinstance(p, int)), None)
        reason = (error.get("ctx") or {}).get("error", "")
        at = f" at character {where}" if where is not None else ""
        return {"field": "body", "problem": f"not valid JSON{at}" + (f" ({reason})" if reason else "")}
    return {"field": ".".join(str(p) for p in error["loc"] if p != "body") or "body", "problem": error["msg"]}


class Guard:
    """ASGI middleware: a request id for every request (header ``X-Request-Id``), the body size
    limit (413 before the app reads anything), ``nosniff``, and the page's CSP."""

    def __init__(self, app: Any, max_body_bytes: int, body_timeout_s: float = 30.0) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.body_timeout_s = body_timeout_s

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = secrets.token_hex(6)
        scope.setdefault("state", {})["request_id"] = request_id
        page = scope["path"] in ("/", "/favicon.ico") or scope["path"].startswith("/static/")

        async def send_with_headers(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(b"x-request-id", request_id.encode()), (b"x-content-type-options", b"nosniff")]
                if page:
                    headers += [(b"content-security-policy", PAGE_CSP.encode()), (b"referrer-policy", b"no-referrer")]
                message = {**message, "headers": headers}
            await send(message)

        declared = dict(scope.get("headers", [])).get(b"content-length")
        too_large = declared is not None and declared.isdigit() and int(declared) > self.max_body_bytes
        body, more = b"", not too_large
        deadline = asyncio.get_running_loop().time() + self.body_timeout_s
        while more:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - asyncio.get_running_loop().time()))
            except TimeoutError:
                response = error_response(408, "request_timeout", f"the request body did not arrive within "
                                          f"{self.body_timeout_s:g} s", request_id, headers={"Connection": "close"})
                await response(scope, receive, send_with_headers)
                return
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            too_large = len(body) > self.max_body_bytes
            if too_large:
                break
        if too_large:
            response = error_response(413, "request_too_large", f"the request body is larger than "
                                      f"{self.max_body_bytes} bytes; send a shorter question", request_id)
            await response(scope, receive, send_with_headers)
            return
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # after the body: wait for the disconnect

        await self.app(scope, replay, send_with_headers)


def version_headers(engine: Engine) -> dict[str, str]:
    """Which corpus version answered: ``X-Corpus-Version`` (``v<N>:<fingerprint>``) and the index folder."""
    return {"X-Corpus-Version": engine.corpus_label, "X-Index-Version": engine.index_dir.name}


def create_app(engine: Engine, settings: ServeSettings, token: str | None = None) -> FastAPI:
    """The API and page for ``engine`` (bind it with uvicorn; ``criss-rag serve`` does). Each request
    answers with one engine, the one serving when it arrived (:mod:`criss_rag_serve.served`)."""
    executor = AnswerPool(settings.workers)
    served = ServedEngine(engine, reload=settings.reload)
    sessions = SessionStore(lambda: ChatSession(served.current()), max_sessions=settings.max_sessions,
                            idle_s=settings.session_idle_s)
    AskRequest, ChatRequest = request_models(settings.max_question_chars)

    @asynccontextmanager
    async def lifespan(app: FastAPI):  # noqa: ANN202
        yield
        executor.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title=f"criss_rag: {engine.pipeline.config.name}", version=__version__, lifespan=lifespan,
                  description="Evidence-grounded answers with numbered citations; refusals carry a reason. "
                              "Streaming endpoints send server-sent events: progress*, thinking*, token*, citations, "
                              "done (or error).")
    app.state.engine, app.state.served, app.state.sessions, app.state.executor = engine, served, sessions, executor
    if settings.cors_origins:
        app.add_middleware(CORSMiddleware, allow_origins=settings.cors_origins, allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])
    app.add_middleware(Guard, max_body_bytes=settings.max_body_bytes, body_timeout_s=settings.body_timeout_s)

    def request_id(request: Request) -> str:
        return getattr(request.state, "request_id", "-")

    def check_token(request: Request) -> None:
        if token is None:
            return
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(given.strip().encode(), token.encode()):
            raise ApiError(
                401,
                "unauthorized",
                "this server needs a bearer token: send `Authorization: Bearer <token>` "
                "(the token is in the server's environment variable "
                f"{settings.token_env})",
                {"WWW-Authenticate": "Bearer"},
            )

    # -- errors -----------------------------------------------------------------------------------
    @app.exception_handler(ApiError)
    async def api_error(request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.status, exc.code, exc.message, request_id(request), headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        mime = request.headers.get("content-type", "").split(";")[0].strip().lower()
        body_error = any(e["loc"][:1] == ("body",) for e in exc.errors())
        if body_error and mime and mime != "application/json" and not mime.endswith("+json"):
            return error_response(415, "unsupported_media_type", f"the body must be JSON, sent with "
                                  f"Content-Type: application/json (got {mime[:100]!r})", request_id(request))
        details = [_detail(e) for e in exc.errors()]
        first = details[0] if details else {"field": "body", "problem": "invalid"}
        return error_response(422, "invalid_request", f"{first['field']}: {first['problem']}", request_id(request),
                              details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        message = {404: f"no such endpoint: {request.url.path}; see /docs",
                   405: f"{request.method} is not allowed on {request.url.path}"}.get(exc.status_code, str(exc.detail))
        return error_response(exc.status_code, code, message, request_id(request))

    @app.exception_handler(Exception)
    async def crashed(request: Request, exc: Exception) -> JSONResponse:
        log.error("request %s: unexpected error", request_id(request), exc_info=exc)
        return error_response(500, "internal_error", f"internal error; the server log has the details under request "
                                                     f"{request_id(request)}", request_id(request))

    # -- helpers ------------------------------------------------------------------------------------
    def session_for(session_id: str | None) -> Session:
        session = sessions.get(session_id) if session_id else sessions.create()
        if session is None:
            raise ApiError(
                404,
                "session_not_found",
                "no such chat session (it may have expired after "
                f"{settings.session_idle_s:g} s idle); omit session_id to start a new one",
            )
        if not session.busy.acquire(blocking=False):
            raise ApiError(409, "session_busy", "this session is still answering its previous message; wait for it")
        return session

    def chat_turn(session: Session, body: Any, stream: bool, cancel: Any = None) -> Any:
        session.chat.engine = served.current()  # each message answered by the version serving when it arrived
        session.chat.filters = dict(body.filters)
        return session.chat.ask_stream(body.question, progress=True, cancel=cancel) if stream else \
            session.chat.ask(body.question)

    # -- routes -------------------------------------------------------------------------------------
    protected = [Depends(check_token)]

    @app.post("/ask", response_model=Answer, responses=ERRORS, dependencies=protected, tags=["answer"])
    async def ask(body: AskRequest, request: Request) -> Any:  # type: ignore[valid-type]
        """Answer one question (or refuse, with a reason): the Answer as JSON."""
        pinned = served.current()  # one corpus version for the whole answer
        answer = await run_job(executor, lambda: pinned.ask(body.question, filters=body.filters),
                               settings.timeout_s, request_id(request))
        return JSONResponse(answer.model_dump(mode="json"), headers=version_headers(pinned))

    @app.post("/ask/stream", responses=ERRORS, dependencies=protected, tags=["answer"],
              response_class=EventSourceResponse)
    async def ask_stream(body: AskRequest, request: Request) -> EventSourceResponse:  # type: ignore[valid-type]
        """Server-sent events: `progress` {step, detail}, `thinking` {text} (a reasoning model's
        thinking, never part of the answer) and `token` {text} as they come, then `citations`
        {citations, sentences, dropped, relevance}, then `done` {answer, display}; or one `error`
        {code, message, request_id}."""
        pinned = served.current()  # one corpus version for the whole answer
        events = stream_job(executor, lambda stop: pinned.ask_stream(body.question, filters=body.filters, progress=True,
                                                                    cancel=stop),
                            settings.timeout_s, request_id(request))
        return EventSourceResponse(events, headers=version_headers(pinned))

    @app.post("/chat", response_model=ChatResponse, responses=ERRORS, dependencies=protected, tags=["chat"])
    async def chat(body: ChatRequest, request: Request) -> Any:  # type: ignore[valid-type]
        """One message of a conversation kept on the server (omit session_id to start one)."""
        session = session_for(body.session_id)
        answer = await run_job(executor, lambda: chat_turn(session, body, stream=False), settings.timeout_s,
                               request_id(request), on_done=session.busy.release)
        return JSONResponse({"session_id": session.id, "turn": len(session.chat.exchanges),
                             "answer": answer.model_dump(mode="json")})

    @app.post("/chat/stream", responses=ERRORS, dependencies=protected, tags=["chat"],
              response_class=EventSourceResponse)
    async def chat_stream(body: ChatRequest, request: Request) -> EventSourceResponse:  # type: ignore[valid-type]
        """The streaming /chat: the same events as /ask/stream; `done` also has session_id and turn."""
        session = session_for(body.session_id)
        events = stream_job(
            executor,
            lambda stop: chat_turn(session, body, stream=True, cancel=stop),
            settings.timeout_s,
            request_id(request),
            extra=lambda: {"session_id": session.id, "turn": len(session.chat.exchanges)},
            on_done=session.busy.release,
        )
        return EventSourceResponse(events)

    @app.get("/health", response_model=Health, tags=["server"])
    async def health() -> Health:
        """Whether the index is loaded, what the pipeline is made of, the corpus version served, and
        whether a newer version written by ingest is loading (or failed to load)."""
        served.check()
        engine = served.engine
        config = engine.pipeline.config
        components: dict[str, Any] = {}
        for stage, value in config.components.items():
            if isinstance(value, list):
                if value:
                    components[stage] = [cc.name for cc in value]
            elif value is not None:
                components[stage] = value.name
        cache = config.one("cache")
        return Health(status="ok", index_loaded=True, pipeline=config.name, config_hash=engine.config_hash,
                      index_key=engine.manifest.key, corpus_version=engine.corpus_label,
                      documents=engine.manifest.documents, chunks=engine.manifest.chunks, components=components,
                      cache=cache.name if cache else None, sessions=len(sessions), warm_up_s=engine.warmed_up,
                      in_flight=executor.in_flight, answer_threads=executor.threads(), **served.status())

    add_openai_routes(
        app, served.current, executor, settings, protected, request_id
    )  # /v1/models, /v1/chat/completions

    @app.get("/page.json", tags=["server"])
    async def landing() -> dict[str, Any]:
        """What the chat page says before the first question: corpus name, document count, last
        update (the index's build date), the medical notice and example questions per language."""
        return page_info(settings.page, engine.pipeline.config.name, engine.manifest.documents,
                         engine.manifest.created)

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8")

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.ico", media_type="image/x-icon")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
