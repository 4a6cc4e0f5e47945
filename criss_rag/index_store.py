"""Index directories: one per (ingest settings, corpus fingerprint), written atomically.

Layout::

    <index.dir>/<key>/manifest.json     written last; its presence marks a complete index
    <index.dir>/<key>/docstore.json     the chunks (LlamaIndex SimpleDocumentStore)
    <index.dir>/<key>/retrievers/<label>/...   each retriever's own files

An ingest builds into ``<index.dir>/.tmp-<key>-<random>`` and renames it into place, so a crash
mid-ingest leaves any previous index untouched (the stale temp folder is removed next time).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from criss_rag.errors import IndexStoreError

FORMAT_VERSION = 1
MANIFEST = "manifest.json"


@dataclass
class Manifest:
    """What an index was built from; read back to check it matches the config."""

    key: str
    config_name: str
    ingest_signature: dict[str, Any]
    corpus_fingerprint: str
    documents: int
    chunks: int
    config_hash: str = ""
    plugins: dict[str, str] = field(default_factory=dict)
    format: int = FORMAT_VERSION
    created: str = ""
    criss_rag_version: str = ""

    @classmethod
    def read(cls, directory: Path) -> Manifest:
        path = directory / MANIFEST
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            manifest = cls(**data)
        except FileNotFoundError:
            raise IndexStoreError(
                f"index at {directory} is incomplete (no {MANIFEST}); re-run `criss-rag ingest CONFIG`"
            ) from None
        except (ValueError, TypeError) as exc:
            raise IndexStoreError(
                f"index at {directory} is corrupt ({MANIFEST} unreadable: {exc}). "
                "Re-run `criss-rag ingest CONFIG --force` to rebuild it."
            ) from None
        if manifest.format != FORMAT_VERSION:
            raise IndexStoreError(
                f"index at {directory} has format {manifest.format}, this criss_rag reads format "
                f"{FORMAT_VERSION}; re-run `criss-rag ingest CONFIG --force`"
            )
        return manifest


def index_key(signature: dict[str, Any], fingerprint: str) -> str:
    blob = json.dumps({"signature": signature, "corpus": fingerprint}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


class IndexStore:
    """The index folders under one root (``index.dir`` in the config)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root / key

    def has(self, key: str) -> bool:
        return (self.path(key) / MANIFEST).is_file()

    def open(self, key: str, signature: dict[str, Any]) -> Manifest:
        """Read and check the manifest of index ``key``; clear errors say to re-ingest."""
        directory = self.path(key)
        if not directory.exists():
            raise IndexStoreError(
                f"no index for this config and corpus under {self.root} (expected {directory.name}). "
                "Build it with `criss-rag ingest CONFIG` (the same config and --set options)."
            )
        manifest = Manifest.read(directory)
        if manifest.key != key or manifest.ingest_signature != json.loads(json.dumps(signature, default=str)):
            raise IndexStoreError(
                f"index at {directory} was built by an incompatible config; re-run "
                "`criss-rag ingest CONFIG --force` to rebuild it"
            )
        return manifest

    def write(self, manifest: Manifest, build: Callable[[Path], None]) -> Path:
        """Run ``build(tmp_dir)``, write the manifest, then move the folder into place."""
        self.root.mkdir(parents=True, exist_ok=True)
        self._remove_stale_temp()
        tmp = self.root / f".tmp-{manifest.key}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir()
        try:
            build(tmp)
            manifest.created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
            _write_json_durably(tmp / MANIFEST, asdict(manifest))
            final = self.path(manifest.key)
            if final.exists():  # --force rebuild: swap, then delete the old one
                old = self.root / f".old-{manifest.key}-{uuid.uuid4().hex[:8]}"
                os.replace(final, old)
                os.replace(tmp, final)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return final

    def _remove_stale_temp(self) -> None:
        for child in self.root.glob(".tmp-*"):
            if time.time() - child.stat().st_mtime > 3600:  # an ingest that died an hour ago
                shutil.rmtree(child, ignore_errors=True)
        for child in self.root.glob(".old-*"):
            shutil.rmtree(child, ignore_errors=True)


def _write_json_durably(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=2, sort_keys=True)
        handle.flush()
        os.fsync(handle.fileno())
