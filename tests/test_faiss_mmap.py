"""FAISS indexes loaded memory-mapped (`mmap: true`) answer exactly as indexes read into memory."""

from __future__ import annotations

import pytest
from test_faiss import host, open_engine  # noqa: F401 - `host` is a fixture

from criss_rag.types import Query


@pytest.mark.parametrize("index_type", ["flat", "hnsw", "ivf"])
def test_memory_mapped_index_gives_identical_results_and_keeps_the_index_key(tmp_path, host, index_type):  # noqa: F811
    in_memory, built, _ = open_engine(tmp_path, host, index_type)
    mapped, reused, _ = open_engine(tmp_path, host, index_type, ["retrievers.0.mmap=true"])
    assert not reused.built and reused.key == built.key  # a load-time setting: same index
    for question in ("smoking cough", "hepatitis liver", "간암 치료", "胃がんの検査"):
        expected = [(h.node_id, h.score) for h in in_memory.retrieve(Query(question))]
        assert [(h.node_id, h.score) for h in mapped.retrieve(Query(question))] == expected
        assert expected


def test_ivf_lists_stay_in_the_file_when_memory_mapped(tmp_path, host):  # noqa: F811
    import faiss

    def inverted_lists(engine):
        index = engine.retrievers[0][1]._index
        return type(faiss.downcast_InvertedLists(faiss.extract_index_ivf(index).invlists)).__name__

    in_memory, _, _ = open_engine(tmp_path, host, "ivf")
    mapped, _, _ = open_engine(tmp_path, host, "ivf", ["retrievers.0.mmap=true"])
    assert inverted_lists(in_memory) == "ArrayInvertedLists"
    assert inverted_lists(mapped) == "OnDiskInvertedLists"  # read from the mapped file on demand
