"""Index directories: one per ingest settings, holding successive versions of the corpus.

Layout::

    <index.dir>/<key>                     a symlink to the current version (swapped atomically)
    <index.dir>/<key>@v<N>-<rand>/        one version of the index
        manifest.json                     written last: its presence marks a complete version; it
                                          lists every other file with its size and SHA-256
        documents.json                    per document: content hash, chunk ids, chunk token counts
        docstore.json                     the chunks (LlamaIndex SimpleDocumentStore)
        retrievers/<label>/...            each retriever's own files

An ingest builds the next version in ``<index.dir>/.tmp-<key>-<pid>-<rand>``, writes its manifest,
renames the folder to its version name, then points ``<key>`` at it with one atomic
``os.replace`` of the symlink. Readers resolve the link once, so a reader never mixes two
versions; a crash at any moment leaves the link on a complete version. The previous version is
kept until the next ingest (a reader may still be loading it); temp folders whose process is gone
and versions that are not current (also those a concurrent writer left) are removed by the next
ingest, up to date or not.

Writers are serialised per index by :class:`IndexLock` (``<index.dir>/.lock-<key>``, an
``flock`` held for the whole ingest, with the holder's pid, host and start time written in it):
a second ingest of the same index waits for the first, saying whom it waits for, and refuses
with that name when its wait is over. The kernel drops the lock when its holder dies, so a lock
left by a killed ingest is recovered at once (and said so).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from criss_rag.errors import IndexStoreError
from criss_rag.indexing.disk_space import describe, disk_full, free_bytes, human
from criss_rag.indexing.index_integrity import file_digests, verify_files

FORMAT_VERSION = 3  # 3: the manifest lists every file with its size and SHA-256
MANIFEST = "manifest.json"


@dataclass
class Manifest:
    """What an index version was built from and what it holds; read back to check it matches.

    ``corpus_version`` counts the content changes this index has been through (1 for the first
    build, +1 for every ingest that changed documents, and for ``--force``);
    ``corpus_fingerprint`` is a hash of every document's content hash, so two indexes holding the
    same documents have the same fingerprint. ``source_fingerprint`` is the loader's own cheap
    fingerprint (e.g. a file hash), when it has one.
    """

    key: str
    config_name: str
    ingest_signature: dict[str, Any]
    corpus_fingerprint: str
    documents: int
    chunks: int
    corpus_version: int = 1
    source_fingerprint: str = ""
    config_hash: str = ""
    plugins: dict[str, str] = field(default_factory=dict)
    format: int = FORMAT_VERSION
    created: str = ""
    criss_rag_version: str = ""
    files: dict[str, dict[str, Any]] = field(default_factory=dict)  # relative path -> {size, sha256}

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        path = directory / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != FORMAT_VERSION:
                raise IndexStoreError(
                    f"index at {directory} has format {data.get('format')}, this criss_rag reads format "
                    f"{FORMAT_VERSION}; re-run `criss-rag ingest CONFIG --force`"
                )
            manifest = cls(**data)
        except FileNotFoundError:
            raise IndexStoreError(
                f"index at {directory} is incomplete (no {MANIFEST}); re-run `criss-rag ingest CONFIG`"
            ) from None
        except (ValueError, TypeError, AttributeError) as exc:
            raise IndexStoreError(
                f"index at {directory} is corrupt ({MANIFEST} unreadable: {exc}). "
                "Re-run `criss-rag ingest CONFIG --force` to rebuild it."
            ) from None
        return manifest

    def write(self, directory: Path) -> None:
        """Write (or atomically replace) the manifest in ``directory``."""
        write_json_atomically(directory / MANIFEST, asdict(self))


def index_key(signature: dict[str, Any], source: dict[str, Any]) -> str:
    """The key of the index for these ingest settings and this corpus source (the loader's
    name and params, but not the corpus content: a changed corpus updates the same index)."""
    blob = json.dumps({"signature": signature, "source": source}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class IndexStore:
    """The indexes under one root (``index.dir`` in the config)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        """The stable path of index ``key`` (the symlink to its current version)."""
        return self.root / key

    def current(self, key: str) -> Path:
        """The folder of the current version of index ``key`` (the link resolved once)."""
        return self.path(key).resolve()

    def has(self, key: str) -> bool:
        return (self.path(key) / MANIFEST).is_file()

    def open(self, key: str, signature: dict[str, Any], *, verify: bool = True) -> tuple[Manifest, Path]:
        """The manifest and folder of the current version of index ``key``, checked against
        ``signature`` and its files against their checksums (``verify=False``: their sizes only);
        clear errors say to re-ingest."""
        if not self.path(key).exists():
            raise IndexStoreError(
                f"no index for this config under {self.root} (expected {key}). "
                "Build it with `criss-rag ingest CONFIG` (the same config and --set options)."
            )
        directory = self.current(key)
        manifest = Manifest.read(directory)
        if manifest.key != key or manifest.ingest_signature != json.loads(json.dumps(signature, default=str)):
            raise IndexStoreError(
                f"index at {directory} was built by an incompatible config; re-run "
                "`criss-rag ingest CONFIG --force` to rebuild it"
            )
        verify_files(directory, manifest.files, content=verify)
        return manifest, directory

    def write(self, manifest: Manifest, build: Callable[[Path], None], *, needed_bytes: int = 0) -> Path:
        """Run ``build(tmp_dir)``, write the manifest, then make the folder the current version.

        Refuses before writing when the file system has less than ``needed_bytes`` free; a full
        disk while writing (``ENOSPC``, quota) is an :class:`IndexStoreError` saying what filled up.
        Either way nothing of the new version is left and the current version stays current."""
        self.root.mkdir(parents=True, exist_ok=True)
        self.remove_stale(manifest.key)
        free = free_bytes(self.root)
        if needed_bytes and free < needed_bytes:
            raise IndexStoreError(
                f"not enough free space for the new index version under {self.root}: it needs about "
                f"{human(needed_bytes)} (an estimate), the file system has {human(free)} free. Nothing was written; "
                f"{self.serving_note(manifest.key)} Free some space (or point `index.dir` at a larger disk) and re-run "
                "ingest."
            )
        tmp = self.root / f".tmp-{manifest.key}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        version = self.root / f"{manifest.key}@v{manifest.corpus_version}-{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
            build(tmp)
            manifest.files = file_digests(tmp, skip=(MANIFEST,))
            manifest.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            manifest.write(tmp)
            _fsync_dir(tmp)
            os.replace(tmp, version)
            self._point(manifest.key, version)
        except BaseException as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            if not (self.path(manifest.key).is_symlink() and self.current(manifest.key) == version.resolve()):
                shutil.rmtree(version, ignore_errors=True)  # never made current: nothing refers to it
            full = disk_full(exc)
            if full is None:
                raise
            raise IndexStoreError(
                f"the disk holding {self.root} filled up while ingest wrote the new index version "
                f"({describe(full)}; {human(free_bytes(self.root))} free now). The partial version was removed; "
                f"{self.serving_note(manifest.key)} Free some space (or point `index.dir` at a larger disk) and re-run "
                "ingest."
            ) from exc
        return version

    def serving_note(self, key: str) -> str:
        """Which version stays current after a failed write, as a sentence."""
        if not self.path(key).is_symlink():
            return "there is no earlier version of this index."
        name = self.current(key).name
        number = name.split("@v", 1)[-1].split("-", 1)[0]
        return f"the current version (corpus version {number}, {name}) is unchanged and still the one served."

    def _point(self, key: str, version: Path) -> None:
        link = self.path(key)
        if link.is_dir() and not link.is_symlink():  # a plain folder (written by hand): move it aside
            os.replace(link, self.root / f"{key}@moved-{uuid.uuid4().hex[:8]}")
        staged = self.root / f".link-{key}-{uuid.uuid4().hex[:8]}"
        os.symlink(version.name, staged)  # relative: the root can be moved or mounted elsewhere
        os.replace(staged, link)          # atomic: readers see the old version or the new one
        _fsync_dir(self.root)

    def remove_stale(self, key: str) -> None:
        """Remove what earlier ingests of ``key`` left: temp folders whose process is gone (a
        killed ingest) and every version but the current one (which becomes the previous one
        when the new version is swapped in)."""
        if not self.root.is_dir():
            return
        current = self.current(key).name if self.path(key).is_symlink() else None
        for child in self.root.iterdir():
            name = child.name
            dead_temp = name.startswith((f".tmp-{key}-", f".link-{key}-")) and not _owner_alive(name, child)
            if dead_temp or (name.startswith(f"{key}@") and name != current):
                _remove(child)


class IndexLock:
    """The writer lock of one index: ``with IndexLock(root, key, timeout, note): ...``.

    Waits up to ``timeout`` seconds (``0``: refuse at once) for another writer, calling ``note``
    with who holds the lock when the wait starts and every 30 s; then raises
    :class:`IndexStoreError` naming the holder and the lock file."""

    def __init__(self, root: Path, key: str, timeout: float = 600.0, note: Callable[[str], None] = print,
                 poll: float = 0.2) -> None:
        self.path = root / f".lock-{key}"
        self.timeout = timeout
        self.note = note
        self.poll = poll
        self._handle: Any = None
        self.recovered = ""  # set when the previous holder had died without releasing the file

    def __enter__(self) -> IndexLock:
        try:
            import fcntl
        except ImportError:  # no flock (Windows): writers are not serialised there
            return self
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.path, "a+", encoding="utf-8")  # noqa: SIM115 - held until __exit__
        started = time.monotonic()
        told = 0.0
        while True:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                holder = _read_holder(self.path)
                waited = time.monotonic() - started
                if waited >= self.timeout:
                    handle.close()
                    raise IndexStoreError(
                        f"another ingest is writing this index ({holder}; lock file {self.path}); waited "
                        f"{waited:.0f}s. Let it finish and run again, or stop it first; two writers of one "
                        "index are never run at once"
                    ) from None
                if waited - told >= 30 or told == 0.0:
                    self.note(f"waiting for another ingest of this index to finish ({holder}; lock {self.path.name})")
                    told = max(waited, 1e-9)
                time.sleep(self.poll)
        previous = _read_holder(self.path, raw=True)
        if previous and not _pid_alive(previous.get("pid")):
            self.recovered = (f"recovered the lock of an ingest that ended without releasing it "
                              f"(pid {previous.get('pid')}, started {previous.get('started', '?')})")
        handle.seek(0)
        handle.truncate()
        handle.write(json.dumps({"pid": os.getpid(), "host": socket.gethostname(),
                                 "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}))
        handle.flush()
        self._handle = handle
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._handle is not None:
            self._handle.seek(0)
            self._handle.truncate()  # the file stays (unlinking it would race a waiting writer)
            self._handle.close()  # closing releases the flock
            self._handle = None


def _read_holder(path: Path, raw: bool = False) -> Any:
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        data = {}
    if raw:
        return data
    if not data:
        return "holder unknown"
    return f"pid {data.get('pid')} on {data.get('host')}, started {data.get('started')}"


def _pid_alive(pid: Any) -> bool:
    try:
        os.kill(int(pid), 0)
    except (TypeError, ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _owner_alive(name: str, path: Path) -> bool:
    """Whether the ingest that made this temp folder may still be running."""
    try:
        pid = int(name.rsplit("-", 2)[1])
    except (IndexError, ValueError):
        return False
    if pid == os.getpid():
        return False  # ours from an earlier call that failed: never in use now
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # a live process of another user
    try:
        return time.time() - path.lstat().st_mtime < 86400  # a reused pid: give up after a day
    except FileNotFoundError:
        return False


def _remove(path: Path) -> None:
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_json_atomically(path: Path, data: Any) -> None:
    """Write JSON to a temp file beside ``path``, fsync it, then rename it over ``path``."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
