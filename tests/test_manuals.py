"""The manuals plugin: PDF, HTML and Markdown manuals loaded with their structure, and the
``manual-structure`` chunker (section path, page, rule ids, tables, diagnosis years)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from fpdf import FPDF
from llama_index.core.schema import MetadataMode
from pydantic import ValidationError

from criss_rag.errors import ConfigError
from criss_rag.testing import pipeline_from_yaml, plugin_host
from criss_rag_manuals import plugin as manuals_plugin
from criss_rag_manuals.chunker import ManualStructureChunker
from criss_rag_manuals.loaders import HtmlManualLoader, ManualsLoader, MarkdownManualLoader, PdfManualLoader
from criss_rag_manuals.manual import parse_years

LONG_RULE = " ".join(f"Sentence {i} of the rule explains when two tumors count as one primary." for i in range(30))
TABLE_ROWS = [
    ("Code", "Term", "Use"),
    ("8140", "Adenocarcinoma", "glandular"),
    ("8070", "Squamous cell carcinoma", "flat cells"),
    ("8041", "Small cell carcinoma", "neuroendocrine"),
]


def ctx(base: Path) -> SimpleNamespace:
    return SimpleNamespace(base_dir=base, show_progress=False,
                           resolve_path=lambda p: Path(p) if Path(p).is_absolute() else base / p)


def write_pdf(path: Path) -> Path:
    """Three pages: a title and an introduction; two rules (one long) with a note; a table."""
    pdf = FPDF()
    pdf.set_auto_page_break(True, 20)

    def heading(text: str, size: int) -> None:
        pdf.set_font("Helvetica", "B", size)
        pdf.multi_cell(0, 9, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(1)

    def paragraph(text: str) -> None:
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)

    def footer(number: int) -> None:
        pdf.set_font("Helvetica", "", 9)
        pdf.set_auto_page_break(False)  # a footer below the break margin, on this page
        pdf.set_y(-15)
        pdf.cell(0, 5, f"Page {number}", align="C")
        pdf.set_auto_page_break(True, 20)

    pdf.add_page()
    heading("Lung Tumor Rules", 18)
    heading("Introduction", 14)
    paragraph("These rules decide how many primaries a registrar abstracts. They apply to the years on the cover.")
    footer(1)
    pdf.add_page()
    heading("Multiple Primary Rules", 14)
    paragraph("Rule M3 Abstract a single primary when there is a single tumor in one lung. " + LONG_RULE)
    paragraph("Note 1: A tumor crossing into the other lung by direct extension is still one tumor.")
    paragraph("Rule M4 Abstract multiple primaries when the tumors in both lungs have different histologies.")
    footer(2)
    pdf.add_page()
    heading("Histology Codes", 14)
    pdf.set_font("Helvetica", "", 11)
    with pdf.table() as table:
        for row in TABLE_ROWS:
            cells = table.row()
            for cell in row:
                cells.cell(cell)
    pdf.ln(3)
    paragraph("Use the code of the most specific term in the pathology report.")
    footer(3)
    pdf.output(str(path))
    return path


@pytest.fixture
def pdf_manual(tmp_path):
    write_pdf(tmp_path / "lung.pdf")
    params = PdfManualLoader.Params(manuals=[{"path": "lung.pdf", "name": "Lung rules", "version": "2018",
                                              "years": "2018-2022", "metadata": {"algorithm": "mp-rules"}}])
    loader = PdfManualLoader(params, ctx(tmp_path))
    docs = list(loader.load())
    assert loader.skipped == []
    return docs[0]


def chunker(**params) -> ManualStructureChunker:
    return ManualStructureChunker(ManualStructureChunker.Params(**params), None)


# -- the PDF loader --------------------------------------------------------------------------------


def test_pdf_loader_keeps_headings_rules_table_and_pages(pdf_manual):
    text, meta = pdf_manual.text, pdf_manual.metadata
    lines = text.split("\n\n")
    assert lines[0] == "# Lung Tumor Rules" and "## Introduction" in lines and "## Histology Codes" in lines
    assert any(block.startswith("Rule M3 Abstract a single primary") for block in lines)
    assert "Note 1: A tumor crossing into the other lung by direct extension is still one tumor." in lines
    assert "| Code | Term | Use |\n|---|---|---|\n| 8140 | Adenocarcinoma | glandular |" in text
    assert "| 8041 | Small cell carcinoma | neuroendocrine |" in text
    assert "Page 2" not in text  # page numbers dropped
    offsets = [int(x) for x in meta["page_offsets"].split()]
    assert len(offsets) == 3
    assert text[offsets[1]:].startswith("## Multiple Primary Rules")
    assert text[offsets[2]:].startswith("## Histology Codes")
    assert pdf_manual.doc_id == "manual-lung"
    assert (meta["manual"], meta["version"], meta["format"], meta["algorithm"]) == (
        "Lung rules",
        "2018",
        "pdf",
        "mp-rules",
    )
    assert (meta["applicable_years_from"], meta["applicable_years_to"]) == (2018, 2022)


def test_pdf_chunks_carry_section_page_rule_and_years(pdf_manual):
    nodes = chunker().chunk([pdf_manual])
    m3_pieces = [n for n in nodes if n.metadata["rule_id"] == "Rule M3"]
    assert len(m3_pieces) == 2  # the long rule, cut once; its id on both pieces
    m3, m4 = m3_pieces[0], next(n for n in nodes if n.metadata["rule_id"] == "Rule M4")
    assert {n.metadata["rule_id"] for n in nodes} == {None, "Rule M3", "Rule M4"}
    assert m3.text.startswith("Rule M3 Abstract a single primary") and "Note 1: A tumor crossing" in m3_pieces[1].text
    assert m3.metadata["rule_ids"] == "Rule M3" and m3_pieces[1].metadata["rule_ids"] == "Rule M3, Note 1"
    assert m4.text.startswith("Rule M4")  # a rule begins its own text, never mid-chunk after an overlap
    assert m3.metadata["section"] == "Lung Tumor Rules > Multiple Primary Rules"
    assert m3.metadata["heading"] == "Multiple Primary Rules"
    assert (m3.metadata["page"], m4.metadata["page"]) == (2, 2)
    assert m4.metadata["source"] == "lung.pdf, p. 2, Lung Tumor Rules > Multiple Primary Rules"  # a citation's location
    table = next(n for n in nodes if "| Code |" in n.text)
    assert table.metadata["page"] == 3 and table.metadata["section"] == "Lung Tumor Rules > Histology Codes"
    assert all(row in table.text for row in ("| 8140 |", "| 8070 |", "| 8041 |"))  # the whole table in one chunk
    intro = nodes[0]
    assert intro.metadata["section"] == "Lung Tumor Rules > Introduction" and intro.metadata["page"] == 1
    for node in nodes:
        assert len(node.text) <= 1500
        assert (node.metadata["applicable_years_from"], node.metadata["applicable_years_to"]) == (2018, 2022)
        assert node.metadata["version"] == "2018" and node.metadata["doc_id"] == "manual-lung"
        assert "page_offsets" not in node.metadata
        assert node.ref_doc_id == "manual-lung"
    embedded = m3.get_content(MetadataMode.EMBED)
    assert embedded.startswith("Lung rules\nLung Tumor Rules > Multiple Primary Rules\nRule M3\n\nRule M3 Abstract")
    assert m3.get_content(MetadataMode.LLM) == m3.text
    assert "None" not in intro.get_content(MetadataMode.EMBED)  # no rule id: nothing indexed for it


def test_long_rule_is_cut_with_overlap_and_keeps_its_id(pdf_manual):
    nodes = chunker(chunk_size=400, chunk_overlap=120).chunk([pdf_manual])
    pieces = [n for n in nodes if n.metadata["rule_id"] == "Rule M3"]
    assert len(pieces) >= 4
    assert pieces[0].text.startswith("Rule M3 Abstract")
    for before, after in zip(pieces, pieces[1:], strict=False):
        assert len(before.text) <= 400
        shared = max(k for k in range(0, 121) if before.text.endswith(after.text[:k]) or k == 0)
        assert 20 <= shared <= 120, (before.text[-130:], after.text[:130])
    assert "Note 1" in pieces[-1].text and pieces[-1].metadata["rule_ids"] == "Rule M3, Note 1"
    m4 = next(n for n in nodes if n.metadata["rule_id"] == "Rule M4")
    assert m4.text.startswith("Rule M4")


def test_tables_as_rows_with_their_header(pdf_manual):
    nodes = chunker(tables="rows").chunk([pdf_manual])
    table = next(n for n in nodes if "Adenocarcinoma" in n.text)
    assert "Code: 8140; Term: Adenocarcinoma; Use: glandular" in table.text.splitlines()
    assert "Code: 8041; Term: Small cell carcinoma; Use: neuroendocrine" in table.text.splitlines()
    assert "|" not in table.text


def test_long_table_is_cut_between_rows_with_the_header_repeated():
    rows = "\n".join(f"| {8000 + i} | Term number {i} with a description |" for i in range(40))
    text = f"# Codes\n\n| Code | Term |\n|---|---|\n{rows}"
    nodes = chunker(chunk_size=300, chunk_overlap=50).chunk([_doc(text)])
    assert len(nodes) > 3
    for node in nodes:
        lines = node.text.splitlines()
        assert lines[:2] == ["| Code | Term |", "|---|---|"] and len(node.text) <= 300
        assert all(line.startswith("| 80") and line.endswith(" |") for line in lines[2:])  # no row cut
    body = [line for n in nodes for line in n.text.splitlines()[2:]]
    assert body == rows.splitlines()  # every row once, in order


def _doc(text: str, **metadata):
    from criss_rag.component_helpers.loader_files import make_document

    return make_document("d", text, {"title": "T", **metadata}, ["title"])


# -- Markdown and HTML manuals, CJK ----------------------------------------------------------------

MARKDOWN_JA = """# 肺がん取扱い規則

## 多発腫瘍の規則

規則M1 片肺に腫瘍が一つのときは単一の原発とする。
注1 直接浸潤で対側肺に及ぶ腫瘍も一つと数える。

規則M2 両肺に組織型の異なる腫瘍があるときは多発とする。

### 組織型

| コード | 用語 |
|---|---|
| 8140 | 腺癌 |
"""

MARKDOWN_KO = """# 폐암 등록 지침

## 다발성 원발 규칙

규칙 M1 한쪽 폐에 종양이 하나이면 단일 원발로 등록한다.

참고 1 직접 침윤으로 반대쪽 폐에 이른 종양도 하나로 센다.
"""


def test_markdown_manual_with_japanese_and_korean_headings_and_rule_ids(tmp_path):
    (tmp_path / "ja.md").write_text(MARKDOWN_JA, encoding="utf-8")
    (tmp_path / "ko.md").write_text(MARKDOWN_KO, encoding="utf-8")
    params = MarkdownManualLoader.Params(
        manuals=[{"path": "ja.md", "years": "2018+"}, {"path": "ko.md", "years": 2021}]
    )
    docs = list(MarkdownManualLoader(params, ctx(tmp_path)).load())
    nodes = chunker().chunk(docs)
    ja = {n.metadata["rule_id"]: n for n in nodes if n.metadata["doc_id"] == "manual-ja"}
    assert (
        ja["規則M1"].text
        == "規則M1 片肺に腫瘍が一つのときは単一の原発とする。\n\n注1 直接浸潤で対側肺に及ぶ腫瘍も一つと数える。"
    )
    assert ja["規則M1"].metadata["rule_ids"] == "規則M1, 注1"
    assert ja["規則M1"].metadata["section"] == "肺がん取扱い規則 > 多発腫瘍の規則"
    assert ja["規則M1"].metadata["page"] is None  # Markdown has no pages
    assert ja[None].metadata["section"] == "肺がん取扱い規則 > 多発腫瘍の規則 > 組織型"
    assert "| 8140 | 腺癌 |" in ja[None].text
    assert ja["規則M2"].metadata["applicable_years_to"] is None  # 2018+ is open-ended
    ko = next(n for n in nodes if n.metadata["doc_id"] == "manual-ko")
    assert ko.metadata["rule_id"] == "규칙 M1" and ko.metadata["rule_ids"] == "규칙 M1, 참고 1"
    assert ko.metadata["section"] == "폐암 등록 지침 > 다발성 원발 규칙"
    assert (ko.metadata["applicable_years_from"], ko.metadata["applicable_years_to"]) == (2021, 2021)


HTML_MANUAL = """<html><head><title>x</title><script>track()</script></head><body>
<nav>Home | Manuals</nav>
<h1>Breast Rules</h1><h2>Multiple Primary Rules</h2>
<p>Rule M5 Abstract a single primary for <b>bilateral</b> tumors of the same histology&nbsp;group.</p>
<p>Note 2: Paget disease counts with the underlying tumor.</p>
<h2>Histology</h2>
<table><tr><th>Code</th><th>Term</th></tr><tr><td>8500</td><td>Duct carcinoma</td></tr>
<tr><td>8520</td><td>Lobular <i>carcinoma</i></td></tr></table>
<h3>유방암 용어</h3><ul><li>관상피내암</li><li>소엽상피내암</li></ul>
<footer>Print this page</footer><p>Back to top</p>
</body></html>"""


def test_html_manual_keeps_headings_tables_and_rules(tmp_path):
    (tmp_path / "breast.html").write_text(HTML_MANUAL, encoding="utf-8")
    params = HtmlManualLoader.Params(manuals=[{"path": "breast.html", "name": "Breast rules", "years": "2023+"}])
    doc = next(iter(HtmlManualLoader(params, ctx(tmp_path)).load()))
    assert doc.text.split("\n\n") == [
        "# Breast Rules", "## Multiple Primary Rules",
        "Rule M5 Abstract a single primary for bilateral tumors of the same histology group.",
        "Note 2: Paget disease counts with the underlying tumor.",
        "## Histology",
        "| Code | Term |\n|---|---|\n| 8500 | Duct carcinoma |\n| 8520 | Lobular carcinoma |",
        "### 유방암 용어", "- 관상피내암", "- 소엽상피내암",
    ]
    nodes = chunker().chunk([doc])
    m5 = next(n for n in nodes if n.metadata["rule_id"] == "Rule M5")
    assert m5.metadata["rule_ids"] == "Rule M5, Note 2" and m5.metadata["applicable_years_to"] is None
    assert nodes[-1].metadata["section"] == "Breast Rules > Histology > 유방암 용어"


def test_mixed_manuals_loader_reads_each_file_by_suffix(tmp_path):
    (tmp_path / "breast.html").write_text(HTML_MANUAL, encoding="utf-8")
    (tmp_path / "ko.md").write_text(MARKDOWN_KO, encoding="utf-8")
    write_pdf(tmp_path / "lung.pdf")
    params = ManualsLoader.Params(manuals=[{"path": p} for p in ("breast.html", "ko.md", "lung.pdf")])
    docs = list(ManualsLoader(params, ctx(tmp_path)).load())
    assert [d.metadata["format"] for d in docs] == ["html", "markdown", "pdf"]
    with pytest.raises(ConfigError, match=r"cannot tell the format of 'rules\.docx'.*\.pdf"):
        ManualsLoader(ManualsLoader.Params(manuals=[{"path": "rules.docx"}]), ctx(tmp_path))


def test_unreadable_and_empty_manuals_are_skipped_with_reasons(tmp_path):
    (tmp_path / "broken.pdf").write_bytes(b"this is not a PDF")
    (tmp_path / "empty.md").write_text("\n\n", encoding="utf-8")
    write_pdf(tmp_path / "lung.pdf")
    params = ManualsLoader.Params(manuals=[{"path": p} for p in ("broken.pdf", "empty.md", "missing.md", "lung.pdf")])
    loader = ManualsLoader(params, ctx(tmp_path))
    assert [d.doc_id for d in loader.load()] == ["manual-lung"]
    reasons = {Path(item).name: reason for item, reason in loader.skipped}
    assert reasons["broken.pdf"].startswith("unreadable pdf")
    assert reasons["empty.md"] == "no text found in the markdown"
    assert reasons["missing.md"].startswith("file not found")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2018-2022", (2018, 2022)),
        ("2018+", (2018, None)),
        ("2018-", (2018, None)),
        (2019, (2019, 2019)),
        (" 2004 – 2015 ", (2004, 2015)),
    ],
)
def test_years_of_a_manual(text, expected):
    assert parse_years(text) == expected


def test_bad_years_and_overlap_are_config_errors():
    with pytest.raises(ValidationError, match="ends before it starts"):
        MarkdownManualLoader.Params(manuals=[{"path": "a.md", "years": "2022-2018"}])
    with pytest.raises(ValidationError, match="write a range as 2018-2022"):
        MarkdownManualLoader.Params(manuals=[{"path": "a.md", "years": "recent"}])
    with pytest.raises(ValidationError, match="chunk_overlap"):
        ManualStructureChunker.Params(chunk_size=300, chunk_overlap=300)


def test_plain_paragraphs_overlap_but_rules_start_clean():
    paragraphs = "\n\n".join(f"Paragraph {i} says something about staging that a registrar reads." for i in range(12))
    text = f"# Guide\n\n{paragraphs}\n\nRule X1 A rule that must start its own chunk text."
    nodes = chunker(chunk_size=250, chunk_overlap=80).chunk([_doc(text)])
    assert len(nodes) >= 4
    for before, after in zip(nodes[:-2], nodes[1:-1], strict=True):
        first = after.text.split("\n\n")[0]
        assert before.text.endswith(first) and len(first) <= 80  # the previous chunk's tail, repeated
    assert nodes[-1].text == "Rule X1 A rule that must start its own chunk text."


# -- in a pipeline -----------------------------------------------------------------------------------


def test_components_are_registered_by_the_plugin(tmp_path):
    host = plugin_host({"manuals": manuals_plugin})
    write_pdf(tmp_path / "lung.pdf")
    yaml_text = """
name: manuals-test
loader: {name: manual-pdf, manuals: [{path: lung.pdf, years: 2018-2022}]}
chunker: {name: manual-structure, chunk_size: 800, chunk_overlap: 100, tables: rows}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: fake-all}
generator: {name: fake-echo}
"""
    pipe = pipeline_from_yaml(yaml_text, tmp_path, host)
    assert isinstance(pipe.build(pipe.config.one("chunker")), ManualStructureChunker)
    assert isinstance(pipe.build(pipe.config.one("loader")), PdfManualLoader)


# -- the example pipeline, end to end ------------------------------------------------------------------

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


@pytest.fixture(scope="module")
def manuals_engine(tmp_path_factory):
    from criss_rag.engine import Engine
    from criss_rag.indexing.ingestion import ingest
    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    index_dir = tmp_path_factory.mktemp("manuals-index")
    pipeline = Pipeline.from_file(
        EXAMPLES / "registry-manuals.yaml", PluginHost(strict=True), [f"index.dir={index_dir}"]
    )
    report = ingest(pipeline)
    assert report.built and report.documents == 2
    return Engine.open(pipeline)


@pytest.mark.parametrize(("year", "manual"), [(2020, "manual-lung-rules-2018"), (2024, "manual-lung-rules-2023")])
def test_example_manuals_answer_with_the_rule_of_the_diagnosis_year(manuals_engine, year, manual):
    answer = manuals_engine.ask(f"Which rule applies to tumors in both lungs with different histology families, "
                                f"diagnosed in {year}?")
    assert not answer.refused, answer.refusal_detail
    assert {c.doc_id for c in answer.citations} == {manual}  # the other edition's years exclude it
    rules = [c for c in answer.citations if c.text.startswith("Rule M2")]
    assert rules, [c.text for c in answer.citations]
    assert rules[0].location.endswith("Example Lung Tumor Rules (" + ("2018" if year == 2020 else "2023")
                                      + " edition) > Multiple Primary Rules")
    assert f"[{rules[0].number}]" in answer.text


def test_a_caption_line_above_a_table_travels_with_the_table():
    text = ("# Codes\n\nRule H1 Code the histology of the resected specimen.\n\nNote 1: Not the biopsy\n\n"
            "Table 2 Histology families\n\n| Family | Codes |\n|---|---|\n| Adenocarcinoma | 8140 |")
    rule, table = chunker(tables="rows").chunk([_doc(text)])
    assert rule.text == "Rule H1 Code the histology of the resected specimen.\n\nNote 1: Not the biopsy"
    assert rule.metadata["rule_ids"] == "Rule H1, Note 1"  # a note is never taken for a caption
    assert table.text == "Table 2 Histology families\nFamily: Adenocarcinoma; Codes: 8140"
    assert table.metadata["rule_id"] is None


def test_no_overlap_is_taken_from_a_table():
    rows = "\n".join(f"| {8000 + i} | Term {i} |" for i in range(6))
    text = f"# Codes\n\n| Code | Term |\n|---|---|\n{rows}\n\n" + " ".join(["Prose after the table."] * 8)
    table, prose = chunker(chunk_size=200, chunk_overlap=100).chunk([_doc(text)])
    assert table.text.startswith("| Code | Term |") and prose.text.startswith("Prose after the table.")
