"""The `manuals` loader's errors and warnings: its hint names its own key (`loader.manuals[].path`),
and pypdf's warnings go into the ingest report, not raw onto stderr."""

from __future__ import annotations

import re

import pytest
from fpdf import FPDF

from criss_rag.errors import DataError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced

MANUALS_YAML = """\
name: manuals
loader: {name: manuals, manuals: [{path: MANUAL, name: Manual, version: "1"}]}
chunker: {name: manual-structure}
retrievers: [{name: bm25, analyzer: standard}]
context: numbered
generator: extractive
"""


def test_the_manuals_loader_hint_names_its_own_key(tmp_path):
    pipeline = pipeline_from_yaml(
        replaced(MANUALS_YAML, "MANUAL", "missing.md"), tmp_path, plugin_host(entry_points=True)
    )
    with pytest.raises(DataError) as err:
        ingest(pipeline)
    assert "check `loader.manuals[].path`" in str(err.value) and "check `loader.path`" not in str(err.value)


def test_pypdf_warnings_go_into_the_ingest_report(tmp_path, capfd):
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Rule 1. Two tumors in one organ count as one primary when they share a histology.")
    data = re.sub(rb"startxref\s+\d+", b"startxref\n99", bytes(pdf.output()))  # a wrong xref pointer
    (tmp_path / "rules.pdf").write_bytes(data)
    pipeline = pipeline_from_yaml(
        replaced(MANUALS_YAML, "MANUAL", "rules.pdf"), tmp_path, plugin_host(entry_points=True)
    )
    report = ingest(pipeline)
    assert report.documents == 1
    assert any("rules.pdf" in w and "pypdf: incorrect startxref pointer" in w for w in report.warnings), report.warnings
    assert "warning: loader:" in report.summary()
    assert "incorrect startxref" not in capfd.readouterr().err  # not raw on stderr
