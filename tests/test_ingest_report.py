"""The ingest report's summary credits the embedding cache only with the vectors it gave."""

from __future__ import annotations

from pathlib import Path

from criss_rag.indexing.ingest_report import IngestReport


def test_the_ingest_summary_credits_the_embedding_cache_only_with_what_it_gave():
    def line(embedded: int | None, new_chunks: int) -> str:
        report = IngestReport(index_dir=Path("i"), key="k", built=True, documents=2, chunks=10, mean_chunk_tokens=1,
                              median_chunk_tokens=1, seconds=1.0, mode="updated", new_chunks=new_chunks,
                              embedded=embedded)
        return report.summary().splitlines()[2]

    assert line(10, 10).endswith("embedded 10 texts")  # every vector computed: nothing came from the cache
    assert line(4, 10).endswith("embedded 4 texts (the other 6 came from the embedding cache)")
    assert "embedded" not in line(None, 10)
