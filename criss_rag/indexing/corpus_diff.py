"""What changed in a corpus since the last ingest: per-document content hashes and their diff.

Every index version keeps a document table (``documents.json``): for each ``doc_id``, the
document's content hash, the ids of its chunks and their token counts. An ingest hashes the
documents it loads, compares them with the table and re-chunks only the added and changed ones.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from llama_index.core.schema import Document

from criss_rag.errors import IndexStoreError

DOCUMENTS = "documents.json"


def document_hash(doc: Document) -> str:
    """A hash of everything in a document that reaches its chunks: the text, every metadata field
    (chunks carry them; filters and citations read them) and the settings that decide which
    metadata is embedded or shown to the LLM."""
    content = [
        doc.text,
        doc.metadata,
        sorted(doc.excluded_embed_metadata_keys),
        sorted(doc.excluded_llm_metadata_keys),
        doc.metadata_template,
        doc.metadata_separator,
        doc.text_template,
    ]
    blob = json.dumps(content, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


@dataclass
class DocumentEntry:
    """One document of an index version."""

    hash: str
    chunks: list[str]
    tokens: list[int] = field(default_factory=list)  # per chunk, same order (cl100k tokens)


class DocumentTable:
    """``doc_id`` → :class:`DocumentEntry`, in corpus order."""

    def __init__(self, entries: dict[str, DocumentEntry] | None = None) -> None:
        self.entries: dict[str, DocumentEntry] = entries or {}

    @classmethod
    def read(cls, directory: Path) -> DocumentTable:
        path = directory / DOCUMENTS
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls({doc_id: DocumentEntry(**entry) for doc_id, entry in data.items()})
        except (OSError, ValueError, TypeError) as exc:
            raise IndexStoreError(
                f"index at {directory}: {DOCUMENTS} unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None

    def write(self, directory: Path) -> None:
        data = {doc_id: asdict(entry) for doc_id, entry in self.entries.items()}
        (directory / DOCUMENTS).write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")

    def fingerprint(self) -> str:
        return corpus_fingerprint({doc_id: entry.hash for doc_id, entry in self.entries.items()})

    def chunk_ids(self, doc_ids: Iterable[str]) -> list[str]:
        return [chunk for doc_id in doc_ids for chunk in self.entries[doc_id].chunks]

    def tokens(self) -> list[int]:
        return [n for entry in self.entries.values() for n in entry.tokens]

    def __len__(self) -> int:
        return len(self.entries)


@dataclass(frozen=True)
class CorpusDiff:
    """Document ids by what happened to them since the previous index version."""

    added: list[str]
    changed: list[str]
    deleted: list[str]
    unchanged: list[str]

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.deleted)

    def counts(self) -> dict[str, int]:
        return {"added": len(self.added), "changed": len(self.changed),
                "deleted": len(self.deleted), "unchanged": len(self.unchanged)}


def diff_corpus(hashes: dict[str, str], previous: DocumentTable | None) -> CorpusDiff:
    """Compare the loaded documents' hashes (``doc_id`` → hash, in corpus order) with the
    previous version's table (``None``: no previous index, every document is added)."""
    old = previous.entries if previous is not None else {}
    added = [d for d in hashes if d not in old]
    changed = [d for d in hashes if d in old and old[d].hash != hashes[d]]
    unchanged = [d for d in hashes if d in old and old[d].hash == hashes[d]]
    deleted = [d for d in old if d not in hashes]
    return CorpusDiff(added, changed, deleted, unchanged)


def corpus_fingerprint(hashes: dict[str, str]) -> str:
    """A hash of every (doc_id, content hash): equal for equal corpora, whatever their order."""
    pairs = sorted(hashes.items())
    return hashlib.sha256(json.dumps(pairs, ensure_ascii=False).encode("utf-8")).hexdigest()[:16]


def hashes_of(documents: Sequence[Document]) -> dict[str, str]:
    return {doc.doc_id: document_hash(doc) for doc in documents}
