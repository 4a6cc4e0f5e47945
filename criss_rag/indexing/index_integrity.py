"""Checksums of an index version's files, written in its manifest and verified when it is opened.

Every file of a version (the docstore, the document table, each retriever's files) is listed in
``manifest.json`` with its size and SHA-256, computed after the files are written and before the
manifest (written last and atomically) makes the version complete. Opening a version checks each
file: a missing, truncated, grown or changed file is an :class:`~criss_rag.errors.IndexStoreError`
that names the file and says to re-run ``criss-rag ingest``, never passages read from a damaged
file. ``content=False`` checks only that every file is there with its size (no file is read).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from criss_rag.errors import IndexStoreError

_BLOCK = 1 << 20
REMEDY = ("Re-run `criss-rag ingest CONFIG` (the same --set options): it rebuilds the damaged version whole; "
          "until then nothing is answered from it")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def file_digests(directory: Path, skip: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    """``{relative path: {size, sha256}}`` for every file under ``directory`` but ``skip``."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(directory.rglob("*")):
        relative = path.relative_to(directory).as_posix()
        if path.is_file() and not path.is_symlink() and relative not in skip:
            out[relative] = {"size": path.stat().st_size, "sha256": sha256_of(path)}
    return out


def verify_files(directory: Path, files: dict[str, dict[str, Any]], *, content: bool = True) -> None:
    """Check the files of the version in ``directory`` against its manifest's ``files``."""
    if not files:
        raise IndexStoreError(
            f"index at {directory} records no file checksums, so its files cannot be checked. {REMEDY}"
        )
    for relative, expected in files.items():
        path = directory / relative
        try:
            size = path.stat().st_size
        except FileNotFoundError:
            raise IndexStoreError(f"index file {path} is missing (the manifest lists it). {REMEDY}") from None
        if size != expected.get("size"):
            how = "truncated" if size < int(expected.get("size", 0)) else "grown"
            raise IndexStoreError(
                f"index file {path} is damaged: {size} bytes, the manifest says {expected.get('size')} "
                f"({how} after ingest wrote it). {REMEDY}"
            )
        if content and sha256_of(path) != expected.get("sha256"):
            raise IndexStoreError(f"index file {path} is damaged: its content does not match the checksum ingest "
                                  f"recorded (SHA-256), e.g. a flipped bit or an edit. {REMEDY}")
