"""Server-side chat sessions: bounded in number, forgotten when idle, one turn at a time each."""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from criss_rag import ChatSession


@dataclass
class Session:
    id: str
    chat: ChatSession
    last_used: float
    busy: threading.Lock = field(default_factory=threading.Lock)  # one turn at a time


class SessionStore:
    """At most ``max_sessions`` sessions; the least recently used go first, and any idle for
    ``idle_s`` seconds is forgotten. Ids are random (``secrets``), so they cannot be guessed."""

    def __init__(self, new_chat: Callable[[], ChatSession], *, max_sessions: int, idle_s: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._new_chat = new_chat
        self.max_sessions = max_sessions
        self.idle_s = idle_s
        self._clock = clock
        self._sessions: OrderedDict[str, Session] = OrderedDict()
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        while self._sessions:
            oldest = next(iter(self._sessions.values()))
            if now - oldest.last_used < self.idle_s:
                break
            self._sessions.popitem(last=False)

    def create(self) -> Session:
        now = self._clock()
        session = Session(secrets.token_urlsafe(16), self._new_chat(), now)
        with self._lock:
            self._expire(now)
            while len(self._sessions) >= self.max_sessions:
                self._sessions.popitem(last=False)
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> Session | None:
        """The session, marked as used now; ``None`` when unknown or expired."""
        now = self._clock()
        with self._lock:
            self._expire(now)
            session = self._sessions.get(session_id)
            if session is not None:
                session.last_used = now
                self._sessions.move_to_end(session_id)
            return session

    def __len__(self) -> int:
        with self._lock:
            self._expire(self._clock())
            return len(self._sessions)
