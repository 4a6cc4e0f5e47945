"""The SQLite file behind the semantic cache: one row per stored answer, bounded, LRU eviction.

WAL journal, one transaction per write (a crash keeps the file consistent: a row is stored whole
or not at all), one connection shared by the threads of a process behind a lock.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from criss_rag.errors import DataError

FORMAT = "criss_rag.semantic-cache/1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    scope TEXT NOT NULL,          -- CacheScope.key: config hash, corpus version, filters, language
    model TEXT NOT NULL,          -- which embedding made the vector
    guard TEXT NOT NULL,          -- what else must be equal (numbers, topic), as JSON
    question TEXT NOT NULL,
    vector BLOB NOT NULL,         -- float32, L2-normalised
    answer TEXT NOT NULL,         -- the Answer as JSON (text, citations with passages, sentences, trace)
    config_hash TEXT NOT NULL,
    corpus_version TEXT NOT NULL,
    filters TEXT NOT NULL,
    language TEXT NOT NULL,
    stored TEXT NOT NULL,
    last_used REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS entries_scope ON entries (scope, model, guard);
CREATE INDEX IF NOT EXISTS entries_lru ON entries (last_used);
"""


@dataclass(frozen=True)
class Row:
    id: int
    question: str
    answer: str
    stored: str


class CacheFile:
    """Rows of stored answers in one SQLite file."""

    def __init__(self, path: Path, max_entries: int) -> None:
        self.path = path
        self.max_entries = max_entries
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(_SCHEMA)
            found = self._db.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            if found is None:
                self._db.execute("INSERT INTO meta VALUES ('format', ?)", (FORMAT,))
            elif found[0] != FORMAT:
                raise DataError(
                    f"{path}: a cache file of another format ({found[0]}); delete it or name another `path:`"
                )
        except sqlite3.DatabaseError as exc:
            raise DataError(
                f"{path}: not a readable semantic-cache file ({exc}); delete it or name another `path:`"
            ) from None

    def candidates(self, scope: str, model: str, guard: str) -> tuple[list[int], list[str], np.ndarray]:
        """Ids, questions and vectors of the rows that may answer: same scope, embedding and guard."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, question, vector FROM entries WHERE scope = ? AND model = ? AND guard = ?",
                (scope, model, guard),
            ).fetchall()
        if not rows:
            return [], [], np.zeros((0, 0), dtype=np.float32)
        return (
            [r[0] for r in rows],
            [r[1] for r in rows],
            np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows]),
        )

    def use(self, row_id: int) -> Row | None:
        """The row, marked as just used (LRU)."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("UPDATE entries SET last_used = ?, hits = hits + 1 WHERE id = ?", (time.time(), row_id))
            found = self._db.execute(
                "SELECT id, question, answer, stored FROM entries WHERE id = ?", (row_id,)
            ).fetchone()
        return Row(*found) if found else None

    def put(self, *, scope: str, model: str, guard: str, question: str, vector: np.ndarray, answer: str,
            config_hash: str, corpus_version: str, filters: dict, language: str, stored: str) -> None:
        """Store one answer (replacing one stored for the same question and scope), then evict the
        least recently used rows beyond ``max_entries``; all in one transaction."""
        blob = np.asarray(vector, dtype=np.float32).tobytes()
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute(
                "DELETE FROM entries WHERE scope = ? AND model = ? AND question = ?", (scope, model, question)
            )
            self._db.execute(
                "INSERT INTO entries (scope, model, guard, question, vector, answer, config_hash, corpus_version, "
                "filters, language, stored, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (scope, model, guard, question, blob, answer, config_hash, corpus_version,
                 json.dumps(filters, sort_keys=True, ensure_ascii=False, default=str), language, stored, time.time()),
            )
            self._db.execute(
                "DELETE FROM entries WHERE id IN (SELECT id FROM entries ORDER BY last_used DESC, id DESC LIMIT -1 "
                "OFFSET ?)",
                (self.max_entries,),
            )

    def clear(self) -> None:
        """Delete every stored answer."""
        with self._lock, self._db:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.execute("DELETE FROM entries")

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0])

    def questions(self) -> list[str]:
        """Stored questions, most recently used first."""
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT question FROM entries ORDER BY last_used DESC, id DESC")]

    def close(self) -> None:
        with self._lock:
            self._db.close()
