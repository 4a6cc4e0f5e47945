"""The engine's chunk store: a node is rebuilt from JSON once, then the same object is returned."""

from __future__ import annotations

import pytest
from llama_index.core.schema import TextNode

from criss_rag.indexing.chunk_store import ChunkStore

CHUNKS = [
    TextNode(text="간암은 간세포에서 시작됩니다.", id_="ko-1", metadata={"doc_id": "liver-ko"}),
    TextNode(text="胃がんは胃の粘膜から始まります。", id_="ja-1", metadata={"doc_id": "gastric-ja"}),
    TextNode(text="Lung cancer is linked to smoking.", id_="en-1", metadata={"doc_id": "lung-en"}),
]


@pytest.fixture
def store(tmp_path):
    written = ChunkStore()
    written.add_documents(CHUNKS)
    written.persist(str(tmp_path / "docstore.json"))
    return ChunkStore.from_persist_path(str(tmp_path / "docstore.json"))


def test_a_retrieved_chunk_is_built_once_and_reused(store):
    first = store.get_node("ko-1")
    assert first.get_content() == "간암은 간세포에서 시작됩니다." and first.metadata == {"doc_id": "liver-ko"}
    assert store.get_node("ko-1") is first
    assert (
        store.get_node("ja-1") is not first
        and store.get_node("ja-1").get_content() == "胃がんは胃の粘膜から始まります。"
    )


def test_all_chunks_and_missing_ids_behave_like_llama_index(store):
    retrieved = store.get_node("en-1")
    docs = store.docs
    assert sorted(docs) == ["en-1", "ja-1", "ko-1"] and docs["en-1"] is retrieved
    with pytest.raises(ValueError, match="not found"):
        store.get_node("nope")
    assert store.get_document("nope", raise_error=False) is None
    assert store.get_node("nope", raise_error=False) is None
    assert store.get_node("ja-1", raise_error=False) is store.get_node("ja-1")
