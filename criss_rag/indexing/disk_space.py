"""Free space for a new index version: checked before ingest writes, and a full disk while it
writes explained as such (what filled up, and that the previous version is still the one served)."""

from __future__ import annotations

import errno
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: errors that mean the file system (or the user's quota) has no room left
FULL = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
#: a margin over the estimate: the manifest, file-system blocks, a retriever's temporary files
MARGIN_BYTES = 16 * 1024 * 1024


def free_bytes(path: Path) -> int:
    """Bytes free to this user on the file system that holds ``path`` (or its nearest parent)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return shutil.disk_usage(path).free


def estimate_version_bytes(
    texts: Sequence[str], retrievers: int, previous_bytes: int = 0, previous_chunks: int = 0
) -> int:
    """About how many bytes the next version takes: the previous version's size scaled by its
    chunk count when there is one; else from the chunk text (the docstore stores each chunk about
    twice over as JSON with its metadata; each retriever about twice the text: terms, postings or
    vectors), plus a margin."""
    if previous_bytes and previous_chunks:
        return int(previous_bytes * max(1.0, len(texts) / previous_chunks)) + MARGIN_BYTES
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)
    return text_bytes * (2 + 2 * max(1, retrievers)) + MARGIN_BYTES


def disk_full(exc: BaseException) -> BaseException | None:
    """The error in ``exc`` 's chain that says the disk is full (``ENOSPC``, quota, file too large,
    SQLite's "database or disk is full"), or ``None``."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in FULL:
            return current
        if type(current).__name__ == "OperationalError" and "disk is full" in str(current):
            return current
        current = current.__cause__ or current.__context__
    return None


def describe(error: BaseException) -> str:
    """``'No space left on device' writing /path/file``."""
    what = getattr(error, "strerror", None) or str(error)
    filename: Any = getattr(error, "filename", None)
    return f"{what!r}" + (f" writing {filename}" if filename else "")


def human(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} bytes"  # pragma: no cover
