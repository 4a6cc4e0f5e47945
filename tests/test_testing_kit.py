"""The test kit's own helpers: `replaced` refuses a fixture edit whose text is absent, and the fakes
count per instance (two pipelines never share a count)."""

from __future__ import annotations

import pytest

from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import FAKE_PIPELINE_YAML, engine_from_yaml, pipeline_from_yaml, replaced


def test_replaced_edits_like_str_replace_and_takes_pairs_in_order():
    assert replaced("a: 1\nb: 1\n", "1", "2") == "a: 2\nb: 2\n"
    assert replaced("top_k: K, index: I", "K", "5", "I", "flat") == "top_k: 5, index: flat"
    assert replaced("X", "X", "Y", "Y", "Z") == "Z"  # each pair sees the previous one's result
    assert replaced(b"<loc>{site}/a</loc>", b"{site}", b"http://x") == b"<loc>http://x/a</loc>"


def test_replaced_fails_when_the_text_is_absent_and_names_it():
    with pytest.raises(ValueError, match=r"'min_score: 7' is not in the text.*edit the test") as err:
        replaced(FAKE_PIPELINE_YAML, "min_score: 7", "min_score: 0")
    assert "name: fake" in str(err.value)  # the start of the text, to compare with
    with pytest.raises(ValueError, match="'INDEX' is not in the text"):
        replaced("docs: DOCS", "DOCS", "[]", "INDEX", "flat")  # the second pair is checked too
    with pytest.raises(ValueError, match=r"b'\{site\}' is not in the text"):
        replaced(b"<urlset/>", b"{site}", b"x")
    with pytest.raises(TypeError, match="has no replacement"):
        replaced("a b", "a", "c", "b")


def test_the_fake_generator_counts_its_own_calls(tmp_path):
    refusing = engine_from_yaml(replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_score: 50"), tmp_path / "r")
    answering = engine_from_yaml(FAKE_PIPELINE_YAML, tmp_path / "a")
    answering.ask("What is liver cancer?")
    answering.ask("Which test finds stomach cancer?")
    assert refusing.ask("What is liver cancer?").refused
    assert answering.pipeline.one("generator").calls == 2
    assert refusing.pipeline.one("generator").calls == 0


def test_the_counting_embedding_records_what_each_pipeline_embedded(tmp_path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "retrievers: [{name: fake-keyword, top_k: 5}]",
                         "embedding: fake-counting\nretrievers: [{name: fake-keyword, top_k: 5, dense: true}]")
    first = pipeline_from_yaml(yaml_text, tmp_path / "one")
    second = pipeline_from_yaml(yaml_text, tmp_path / "two")
    ingest(first)
    embedded = first.embedding(requested_by="test").texts
    assert len(embedded) == 12 and any("Liver cancer" in text for text in embedded)  # TINY_CORPUS: 2 sentences each
    assert second.embedding(requested_by="test").texts == []  # nothing leaks across pipelines
