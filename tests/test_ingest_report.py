"""The ingest report's summary credits the embedding cache only with the vectors it gave."""

from __future__ import annotations

from pathlib import Path

from criss_rag.indexing.ingest_report import IngestReport


def test_the_ingest_summary_credits_the_embedding_cache_only_with_what_it_gave():
    def line(embedded: int | None, new_chunks: int, from_cache: int = 0) -> str:
        report = IngestReport(index_dir=Path("i"), key="k", built=True, documents=2, chunks=10, mean_chunk_tokens=1,
                              median_chunk_tokens=1, seconds=1.0, mode="updated", new_chunks=new_chunks,
                              embedded=embedded, from_cache=from_cache)
        return report.summary().splitlines()[2]

    assert line(10, 10).endswith("embedded 10 texts")  # every vector computed: nothing came from the cache
    assert line(4, 10, from_cache=6).endswith("embedded 4 texts (the other 6 came from the embedding cache)")
    assert line(4, 10).endswith("embedded 4 texts")  # 6 chunks repeat another's text: embedded once, not cached
    assert "embedded" not in line(None, 10)


def test_an_ingest_counts_what_the_embedding_cache_gave_and_loads_the_model_before_its_bar(tmp_path):
    from criss_rag.indexing.embedding_cache import EmbeddingCache, embed_with_cache

    class Model:
        embed_batch_size = 2
        loaded_before: list[int] = []

        def __init__(self) -> None:
            self.calls = 0

        def load_model(self) -> None:
            self.loaded_before.append(self.calls)

        def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
            self.calls += 1
            return [[float(len(t)), 1.0] for t in texts]

    cache = EmbeddingCache(tmp_path / "e.sqlite")
    counts: dict[str, int] = {}
    embed_with_cache(Model(), "m", ["a", "bb", "a"], cache, counts=counts)  # "a" twice: computed once
    assert counts == {"computed": 2, "from_cache": 0, "repeats": 1} and Model.loaded_before == [0]
    embed_with_cache(Model(), "m", ["a", "bb", "ccc"], cache, counts=counts)
    assert counts == {"computed": 1, "from_cache": 2, "repeats": 0}
    embed_with_cache(Model(), "m", ["a"], cache, counts=counts)  # nothing to compute: no model loaded
    assert counts == {"computed": 0, "from_cache": 1, "repeats": 0} and Model.loaded_before == [0, 0]
    cache.close()
