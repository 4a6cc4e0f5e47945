"""The ``reviewed-urls`` loader: a reviewed crawl spreadsheet straight into a pipeline."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

from llama_index.core.schema import Document
from pydantic import ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import corpus_file, file_fingerprint, index_fields_param, make_document
from criss_rag_crawl.cache import cache_path_for
from criss_rag_crawl.reviewed import ReviewedPages, ReviewSettings


class ReviewedUrlsLoader:
    """One document per page a reviewer kept in a `criss-rag crawl` spreadsheet (`.xlsx` or `.csv`)."""

    suffixes = (".xlsx",)

    class Params(ReviewSettings):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(
            description="the reviewed spreadsheet written by `criss-rag crawl` (relative to the config file)"
        )
        index_fields: list[str] = index_fields_param()

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.path = corpus_file(ctx, params.path)
        self.cache_path = ctx.resolve_path(params.cache) if params.cache else cache_path_for(self.path)
        self.show_progress = ctx.show_progress
        #: (URL, reason) of every row not loaded; the ingest summary prints them
        self.skipped: list[tuple[str, str]] = []

    def fingerprint(self) -> str:
        """The spreadsheet, the page cache and the params. Pages fetched live (not in the cache)
        are not part of it: re-crawl, or set `offline: true`, for a corpus that cannot drift."""
        digest = hashlib.sha256(file_fingerprint(self.path, self.params).encode())
        if self.cache_path.is_file():
            digest.update(file_fingerprint(self.cache_path, self.params).encode())
        return digest.hexdigest()[:16]

    def load(self) -> Iterator[Document]:
        settings = ReviewSettings.model_validate(self.params.model_dump(exclude={"path", "index_fields"}))
        pages = ReviewedPages(self.path, settings, self.cache_path, progress=self.show_progress)
        self.skipped = pages.skipped
        for record in pages.records():
            doc_id, text = record.pop("doc_id"), record.pop("text")
            yield make_document(doc_id, text, record, self.params.index_fields)
