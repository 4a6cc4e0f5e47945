"""``criss-rag serve CONFIG``: the HTTP API and chat page for one pipeline, with uvicorn."""

from __future__ import annotations

import logging
from pathlib import Path

import click

from criss_rag.plugin_utils import host_from
from criss_rag_serve.page import PageSettings, read_page_settings
from criss_rag_serve.settings import TOKEN_ENV, ServeSettings, read_token


def url_host(host: str) -> str:
    """``host`` as a URL writes it: an IPv6 address in brackets (``[::1]``)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


@click.command()
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True,
              help=f"Address to bind. Anything but loopback needs a token in ${TOKEN_ENV} (see --token-env).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to bind.")
@click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE",
              help="Override a config value, e.g. --set retrievers.bm25.top_k=8 (repeatable).")
@click.option("--token-env", default=TOKEN_ENV, show_default=True,
              help="Environment variable holding the bearer token; when it is set, /ask and /chat need "
                   "`Authorization: Bearer <token>`.")
@click.option("--cors-origin", "cors_origins", multiple=True, metavar="ORIGIN",
              help="Allow this browser origin (e.g. https://intranet.example) by CORS (repeatable); default: CORS off.")
@click.option("--timeout", "timeout_s", default=120.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds one request may take to answer (a slow LLM then fails only that request).")
@click.option("--workers", default=4, show_default=True, type=click.IntRange(min=1),
              help="Questions answered at once (threads).")
@click.option("--max-question-chars", default=2000, show_default=True, type=click.IntRange(min=1),
              help="Longest question accepted (characters).")
@click.option("--max-body-bytes", default=16_384, show_default=True, type=click.IntRange(min=256),
              help="Largest request body accepted (bytes).")
@click.option("--max-sessions", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Chat sessions kept; the least recently used are forgotten first.")
@click.option("--session-idle", "session_idle_s", default=3600.0, show_default=True, type=click.FloatRange(min=1),
              help="Seconds after which an idle chat session is forgotten.")
@click.option("--header-timeout", "header_timeout_s", default=10.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a client has to send its request line and headers; a slower one is disconnected.")
@click.option("--body-timeout", "body_timeout_s", default=30.0, show_default=True, type=click.FloatRange(min=0.1),
              help="Seconds a client has to send its request body; a slower one gets 408.")
@click.option("--max-connections", default=256, show_default=True, type=click.IntRange(min=1),
              help="Connections (and requests) open at once; beyond it the server answers 503.")
@click.option("--reload/--no-reload", default=True, show_default=True,
              help="After a re-ingest, load the new index version in the background and answer new requests from it "
                   "(--no-reload: keep the version served; /health then says a restart is needed).")
@click.option("--sources-in-content/--no-sources-in-content", default=True, show_default=True,
              help="/v1/chat/completions: end the answer's `content` with a numbered 'Sources:' block (titles and "
                   "links), for chat tools that show only `content`.")
@click.option("--page", "page_file", type=click.Path(dir_okay=False, exists=True, path_type=Path), default=None,
              help="YAML of what the chat page says before the first question: corpus (name), notice (per language: "
                   "what the assistant is not), examples (per language: example questions).")
@click.option("--build-if-missing/--no-build", default=True, show_default=True,
              help="Ingest first when the index for this config does not exist yet (--no-build: stop and say to "
                   "ingest).")
@click.pass_context
def serve(ctx: click.Context, config: Path, overrides: tuple[str, ...], build_if_missing: bool, page_file: Path | None,
          **options: object) -> None:
    """Serve CONFIG over HTTP: POST /ask, /chat (+ /stream variants), GET /health, the chat page at /,
    and the OpenAI-compatible POST /v1/chat/completions and GET /v1/models."""
    import uvicorn

    from criss_rag_serve.app import create_app
    from criss_rag_serve.limits import uvicorn_options

    page = read_page_settings(page_file) if page_file else PageSettings()
    settings = ServeSettings.model_validate({**options, "cors_origins": list(options["cors_origins"]),  # type: ignore[arg-type]
                                             "page": page})
    token = read_token(settings)  # refuses a non-loopback host without a token, before loading anything
    import criss_rag

    engine = criss_rag.open(config, overrides=overrides, build=build_if_missing, warm_up=False, host=host_from(ctx),
                            show_progress=True)
    warm = engine.warm_up()  # models load now: the server listens (and /health answers) once the first question is fast
    click.echo(f"warmed up in {sum(warm.values()):.1f} s", err=True)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    auth = f"bearer token from ${settings.token_env}" if token else "no token (loopback only)"
    click.echo(f"serving {engine.pipeline.config.name} ({engine.manifest.chunks} chunks) on "
               f"http://{url_host(settings.host)}:{settings.port}/ ; {auth}; API docs at /docs", err=True)
    uvicorn.run(create_app(engine, settings, token), host=settings.host, port=settings.port, log_level="info",
                server_header=False, **uvicorn_options(settings.header_timeout_s, settings.max_connections))
