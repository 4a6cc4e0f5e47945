"""The engine a server answers with, pinned per request and replaced after a re-ingest.

Each request takes :meth:`ServedEngine.current` once and answers with that engine to its end, so
an answer never mixes two corpus versions (an engine resolved its index version when it opened;
the files it loaded stay readable after a later ingest removes their folder). When ingest points
the index at a new version, the next request (or ``/health``) notices it (one ``readlink``, at
most every ``check_every_s``), and the new version is opened in the background: a new pipeline,
the files checked against their checksums, every component warmed up. Requests keep getting the
old engine until the new one is ready, then the swap is one assignment. A new version that does
not open (damaged, or built by another config) leaves the old engine serving and is reported in
``/health``. With ``reload=False`` the server keeps its version and ``/health`` says a restart is
needed.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from criss_rag import Engine

log = logging.getLogger("criss_rag_serve")


def reopen(engine: Engine) -> Engine:
    """A new engine for the current version of ``engine`` 's index (same config, new components)."""
    return engine.reopen()


class ServedEngine:
    """The engine requests are answered with (see the module docstring)."""

    def __init__(self, engine: Engine, *, reload: bool = True, check_every_s: float = 1.0,
                 open_engine: Callable[[Engine], Engine] = reopen) -> None:
        self.engine = engine
        self.reload = reload
        self.check_every_s = check_every_s
        self._open = open_engine
        self._lock = threading.Lock()
        self._loader: threading.Thread | None = None
        self._next_check = 0.0
        self._failed: Path | None = None
        self.reload_error: str | None = None
        self.reloads = 0

    def current(self) -> Engine:
        """The engine for one request: take it once and answer with it to the end."""
        self.check()
        return self.engine

    def on_disk(self) -> Path | None:
        """The version folder the index's link points at now (``None`` when it is gone)."""
        return self.engine.version_on_disk()

    def check(self, *, wait: bool = False) -> None:
        """Start loading a newer version if there is one (``wait``: also wait for it to be served)."""
        now = time.monotonic()
        if not wait and now < self._next_check:
            return
        self._next_check = now + self.check_every_s
        target = self.on_disk()
        if not self.reload or target is None or target == self.engine.index_dir or target == self._failed:
            return
        with self._lock:
            if self._loader is None or not self._loader.is_alive():
                self._loader = threading.Thread(target=self._load, args=(target,), name="criss-rag-reload", daemon=True)
                self._loader.start()
            loader = self._loader
        if wait:
            loader.join()

    def _load(self, target: Path) -> None:
        started = time.perf_counter()
        try:
            engine = self._open(self.engine)
            engine.warm_up()
        except Exception as exc:  # noqa: BLE001 - the old version keeps serving; /health shows why
            self._failed = target
            self.reload_error = f"{target.name}: {exc}"
            log.error("the new index version %s did not open; still serving %s: %s", target.name,
                      self.engine.index_dir.name, exc)
            return
        previous = self.engine
        self.engine = engine  # one assignment: requests that took the old engine finish with it
        self.reloads += 1
        self.reload_error = None
        log.info("now serving index version %s (corpus version %s; was %s), loaded in %.1f s", engine.index_dir.name,
                 engine.corpus_version, previous.index_dir.name, time.perf_counter() - started)

    def status(self) -> dict[str, Any]:
        """What ``/health`` reports about the served version."""
        target = self.on_disk()
        served = self.engine.index_dir
        loading = self._loader is not None and self._loader.is_alive()
        if target is None or target == served:
            state = "current"
        elif not self.reload:
            state = "restart needed"
        elif loading:
            state = "loading"
        elif target == self._failed:
            state = "failed"
        else:
            state = "pending"
        return {"index_version": served.name, "index_version_on_disk": target.name if target else None,
                "reload": state, "reload_error": self.reload_error, "reloads": self.reloads}
