"""Config parsing is bounded: an alias bomb, a recursive anchor or a huge document fails in
seconds with a short error, and values echoed in validation errors are cut short."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from criss_rag.config import load_pipeline_config, parse_pipeline_text
from criss_rag.config.yaml_source import MAX_YAML_BYTES, MAX_YAML_NODES, load_yaml
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, replaced

BOMB = textwrap.dedent("""\
    name: bomb
    loader: {name: jsonl, path: corpus.jsonl}
    chunker: whole-document
    retrievers:
      - name: bm25
        repeat_fields:
          a: &a [x, x, x, x, x, x, x, x, x, x]
          b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
          c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
          d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
          e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
          f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
          g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
          h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
          i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
    context: numbered
    generator: extractive
    """)
# the child process may not use more than 2 GiB: before the loader was bounded, this file took 9.9 GB
LIMITED = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30)); "
           "from criss_rag.cli.main import main; sys.argv = ['criss-rag', *sys.argv[1:]]; main()")


def _validate(path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", LIMITED, "validate", str(path), *args], capture_output=True,
                          text=True, timeout=120)


def test_an_alias_bomb_fails_in_seconds_with_a_short_error(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB, encoding="utf-8")
    started = time.monotonic()
    result = _validate(path)
    elapsed = time.monotonic() - started
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"expands to more than {MAX_YAML_NODES:,} values" in output, output[-2000:]
    assert f"{path}:" in output and "Traceback" not in output
    assert len(output) < 2000
    assert elapsed < 60  # a bound, not a timing measurement: before the fix it did not end


def test_an_alias_bomb_in_a_set_override_fails_too(tmp_path):
    value = "{a: &a [x, x, x, x, x, x, x, x, x, x], b: &b [" + ", ".join(["*a"] * 10) + "]"
    for level in "cdefghi":
        previous = chr(ord(level) - 1)
        value += f", {level}: &{level} [" + ", ".join([f"*{previous}"] * 10) + "]"
    value += "}"
    with pytest.raises(ConfigError, match="--set .*expands to more than"):
        load_pipeline_config(_write(tmp_path, FAKE_PIPELINE_YAML), _registry(), [f"retrievers.0.top_k={value}"])


def test_a_recursive_anchor_is_refused():
    with pytest.raises(ConfigError, match="contains it"):
        load_yaml("a: &a [1, *a]\n", "loop.yaml")


def test_a_huge_document_is_refused_before_parsing(tmp_path):
    path = tmp_path / "huge.yaml"
    path.write_text(FAKE_PIPELINE_YAML + "# " + "x" * (MAX_YAML_BYTES + 10) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(path, _registry())
    assert "over the limit" in str(err.value) and len(str(err.value)) < 500


def test_a_large_wrong_typed_value_gives_a_short_error(tmp_path):
    big = "y" * 500_000
    text = replaced(FAKE_PIPELINE_YAML, "min_score: 1}", f"min_score: {big}}}")
    with pytest.raises(ConfigError) as err:
        parse_pipeline_text(text, _registry(), base_dir=tmp_path)
    message = str(err.value)
    assert "key 'min_score'" in message and "yyyy" in message
    assert len(message) < 1000, len(message)


def test_ordinary_anchors_and_aliases_still_work(tmp_path):
    text = "x-shared: &top {top_k: 3}\n" + replaced(
        FAKE_PIPELINE_YAML,
        "retrievers: [{name: fake-keyword, top_k: 5}]",
        "retrievers: [{name: fake-keyword, <<: *top}]",
    )
    raw = load_yaml(text, "anchors.yaml")
    assert raw["retrievers"][0] == {"name": "fake-keyword", "top_k": 3}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pipe.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _registry():
    from criss_rag.testing import plugin_host

    return plugin_host().registry
