"""Damaged index files (FAISS vectors, docstore, BM25, the document table) are found when the index
is opened, by their checksums: a clear error naming the file and saying to re-run ingest, never
passages read from a damaged file; re-running ingest repairs it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.errors import CrissRagError, IndexStoreError
from criss_rag.indexing.index_store import MANIFEST
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host

YAML = """\
name: integrity
loader: {name: fake-loader}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers:
  - {name: bm25, top_k: 5}
  - {name: faiss, top_k: 5}
fusion: {name: rrf}
context: {name: fake-all}
generator: {name: fake-echo}
"""
QUESTION = "Which test finds stomach cancer?"
FILES = ["retrievers/faiss/vectors.faiss", "retrievers/faiss/node_ids.json", "docstore.json", "documents.json"]


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


@pytest.fixture(scope="module")
def template(tmp_path_factory, host) -> Path:
    """One ingest; each test damages its own copy."""
    root = tmp_path_factory.mktemp("integrity")
    ingest(pipeline_from_yaml(YAML, root, host))
    return root


def built(tmp_path: Path, host, template: Path) -> tuple[object, Path]:
    shutil.copytree(template / ".criss_rag", tmp_path / ".criss_rag", symlinks=True)  # the link is relative
    pipeline = pipeline_from_yaml(YAML, tmp_path, host)
    return pipeline, next(p for p in (tmp_path / ".criss_rag" / "index").iterdir() if p.is_symlink()).resolve()


def bm25_files(version: Path) -> list[str]:
    return sorted(p.relative_to(version).as_posix() for p in (version / "retrievers" / "bm25").iterdir() if p.is_file())


def truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def flip_a_bit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # same size: only the checksum can tell
    path.write_bytes(bytes(data))


def test_the_manifest_lists_every_file_with_size_and_sha256(tmp_path, host, template):
    _, version = built(tmp_path, host, template)
    files = json.loads((version / MANIFEST).read_text())["files"]
    on_disk = sorted(
        p.relative_to(version).as_posix() for p in version.rglob("*") if p.is_file() and p.name != MANIFEST
    )
    assert sorted(files) == on_disk and set(FILES) <= set(files) and bm25_files(version)
    assert all(set(entry) == {"size", "sha256"} and len(entry["sha256"]) == 64 for entry in files.values())


@pytest.mark.parametrize("damage", [truncate, flip_a_bit], ids=["truncated", "bit-flipped"])
@pytest.mark.parametrize("which", [*FILES, "bm25"])
def test_a_damaged_file_is_named_when_the_index_is_opened(tmp_path, host, template, damage, which):
    pipeline, version = built(tmp_path, host, template)
    relative = bm25_files(version)[0] if which == "bm25" else which
    damage(version / relative)
    with pytest.raises(IndexStoreError) as err:
        Engine.open(pipeline)
    message = str(err.value)
    assert str(version / relative) in message and "Re-run `criss-rag ingest CONFIG`" in message
    assert ("truncated" in message) if damage is truncate else ("checksum" in message)


def test_a_missing_file_is_named(tmp_path, host, template):
    pipeline, version = built(tmp_path, host, template)
    (version / "retrievers/faiss/vectors.faiss").unlink()
    with pytest.raises(IndexStoreError, match=r"vectors\.faiss is missing"):
        Engine.open(pipeline)


def test_re_running_ingest_rebuilds_a_damaged_index_and_it_answers_again(tmp_path, host, template):
    pipeline, version = built(tmp_path, host, template)
    before = Engine.open(pipeline).ask(QUESTION)
    flip_a_bit(version / "docstore.json")
    report = ingest(pipeline_from_yaml(YAML, tmp_path, host))
    assert report.built and report.index_dir.resolve() != version
    after = Engine.open(pipeline_from_yaml(YAML, tmp_path, host)).ask(QUESTION)
    assert after.text == before.text and [c.node_id for c in after.citations] == [c.node_id for c in before.citations]


def test_an_index_without_checksums_is_not_trusted(tmp_path, host, template):
    pipeline, version = built(tmp_path, host, template)
    manifest = json.loads((version / MANIFEST).read_text())
    manifest["files"] = {}
    (version / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(IndexStoreError, match="records no file checksums"):
        Engine.open(pipeline)


@pytest.mark.parametrize("command", [["ask", QUESTION], ["serve", "--port", "0"]])
def test_ask_and_serve_refuse_a_damaged_index_with_the_message_not_a_traceback(tmp_path, host, command):
    config = tmp_path / "integrity.yaml"
    config.write_text(YAML, encoding="utf-8")
    cli = build_cli(host)
    assert CliRunner().invoke(cli, ["ingest", str(config)], obj={"host": host}).exit_code == 0
    version = (tmp_path / ".criss_rag" / "index").resolve()
    target = next(p for p in version.rglob("vectors.faiss"))
    flip_a_bit(target)
    result = CliRunner().invoke(cli, [command[0], str(config), *command[1:]], obj={"host": host})
    assert result.exit_code != 0
    assert "vectors.faiss is damaged" in result.output and "criss-rag ingest" in result.output
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit | CrissRagError)


def test_index_verify_sizes_skips_the_content_check_but_not_the_sizes(tmp_path, host, template):
    _, version = built(tmp_path, host, template)
    sizes_only = pipeline_from_yaml(YAML + "index: {verify: sizes}\n", tmp_path, host)
    flip_a_bit(version / "docstore.json")
    Engine.open(sizes_only)  # a flipped bit goes unnoticed: the documented cost of `sizes`
    truncate(version / "docstore.json")
    with pytest.raises(IndexStoreError, match="docstore.json is damaged.*truncated"):
        Engine.open(sizes_only)
    with pytest.raises(CrissRagError, match="`index.verify` is `checksums`"):
        pipeline_from_yaml(YAML + "index: {verify: none}\n", tmp_path, host)
