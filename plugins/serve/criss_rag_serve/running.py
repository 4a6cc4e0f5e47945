"""Run an app with uvicorn in a background thread (for tests, benchmarks and notebooks)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def running(app: Any, host: str = "127.0.0.1", port: int = 0, timeout_s: float = 20.0, **options: Any) -> Iterator[str]:
    """Serve ``app`` on ``host`` (port 0: a free one) while the block runs; yields the base URL.
    ``options`` go to ``uvicorn.Config`` (e.g. :func:`criss_rag_serve.limits.uvicorn_options`)."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="on", **options))
    thread = threading.Thread(target=server.run, name="criss-rag-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout_s
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"uvicorn did not start on {host}:{port}")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
