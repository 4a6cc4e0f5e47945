"""Generic sources: the csv loader's field mapping and encodings, skipped items (``loader.skipped``),
MedQuAD XML, the registry JSONL's year/version fields, and the sections chunker's heading path."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from llama_index.core.schema import MetadataMode
from pydantic import ValidationError

from criss_rag.component_helpers.loader_files import make_document
from criss_rag.errors import DataError
from criss_rag_basic.chunkers import SectionChunker
from criss_rag_basic.datasets.medquad import MedQuadXmlLoader
from criss_rag_basic.datasets.ncc import NccJsonLoader
from criss_rag_basic.loaders import CsvLoader, JsonlLoader
from criss_rag_registry.loader import RegistryJsonlLoader


def ctx(base: Path) -> SimpleNamespace:
    return SimpleNamespace(base_dir=base, show_progress=False,
                           resolve_path=lambda p: Path(p) if Path(p).is_absolute() else base / p)


def load(cls, base: Path, **params):
    loader = cls(cls.Params(**params), ctx(base))
    return loader, list(loader.load())


# -- csv ---------------------------------------------------------------------------------------------

CSV_TEXT = (
    "id,heading,summary,body,lang,reviewed\n"
    "1,Lung cancer,Short summary.,\"Smoking causes most lung cancers, and radon is another cause.\",en,yes\n"
    "2,간암,,간암은 간에서 시작되는 암입니다.,ko,no\n"
    "3,Empty,,,en,no\n"
)


def test_csv_maps_columns_to_id_title_text_and_metadata(tmp_path):
    (tmp_path / "c.csv").write_text(CSV_TEXT, encoding="utf-8")
    loader, docs = load(CsvLoader, tmp_path, path="c.csv", id_field="id", title_field="heading",
                        text_field=["summary", "body"], metadata_fields=["lang"])
    assert [d.doc_id for d in docs] == ["1", "2"]
    assert docs[0].text == "Short summary.\n\nSmoking causes most lung cancers, and radon is another cause."
    assert docs[1].text == "간암은 간에서 시작되는 암입니다."
    assert docs[0].metadata == {"title": "Lung cancer", "lang": "en", "doc_id": "1"}  # `reviewed` not kept
    assert docs[1].get_content(MetadataMode.EMBED) == "간암\n\n간암은 간에서 시작되는 암입니다."
    assert loader.skipped == [("c.csv:4", "empty text (document '3')")]


@pytest.mark.parametrize("encoding", ["utf-8-sig", "cp932"])
def test_csv_encodings_excel_bom_and_shift_jis(tmp_path, encoding):
    text = "doc_id\ttitle\ttext\nja-1\t肺がん\t肺がんは肺にできるがんです。\n"
    (tmp_path / "j.tsv").write_bytes(text.encode(encoding if encoding == "cp932" else "utf-8-sig"))
    _, docs = load(CsvLoader, tmp_path, path="j.tsv", delimiter="\t", encoding=encoding)
    assert (docs[0].doc_id, docs[0].metadata["title"], docs[0].text) == (
        "ja-1",
        "肺がん",
        "肺がんは肺にできるがんです。",
    )


def test_csv_wrong_encoding_and_bad_rows_are_explained(tmp_path):
    (tmp_path / "j.csv").write_bytes("doc_id,text\nja-1,肺がんです\n".encode("cp932"))
    with pytest.raises(DataError, match=r"j\.csv: not readable as utf-8-sig.*cp932 for Japanese Shift_JIS"):
        load(CsvLoader, tmp_path, path="j.csv")
    (tmp_path / "w.csv").write_text("doc_id,text\na,one,two\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"w\.csv:2: 3 cells but 2 columns.*delimiter"):
        load(CsvLoader, tmp_path, path="w.csv")
    with pytest.raises(ValidationError, match="unknown encoding 'latin-99'"):
        CsvLoader.Params(path="x.csv", encoding="latin-99")


def test_csv_missing_fields_error_or_skip(tmp_path):
    (tmp_path / "m.csv").write_text("doc_id,text\n,orphan text\nb,fine\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"m\.csv:2: each line needs `doc_id` and `text`"):
        load(CsvLoader, tmp_path, path="m.csv")
    loader, docs = load(CsvLoader, tmp_path, path="m.csv", on_invalid="skip")
    assert [d.doc_id for d in docs] == ["b"] and loader.skipped == [("m.csv:2", "missing doc_id")]


def test_jsonl_skips_empty_and_lenient_missing_records(tmp_path):
    lines = [{"doc_id": "a", "text": "Alpha."}, {"doc_id": "b", "text": "  "}, {"text": "no id"}, {"doc_id": "d"},
             {"doc_id": "e", "text": "Echo.", "extra": {"nested": 1}, "lang": "en"}]
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(r) for r in lines), encoding="utf-8")
    loader, docs = load(JsonlLoader, tmp_path, path="c.jsonl", on_invalid="skip", metadata_fields=[])
    assert [d.doc_id for d in docs] == ["a", "e"]
    assert docs[1].metadata == {"title": "", "doc_id": "e"}  # metadata_fields: [] keeps none but the title
    assert loader.skipped == [("c.jsonl:2", "empty text (document 'b')"), ("c.jsonl:3", "missing doc_id"),
                              ("c.jsonl:4", "missing text")]
    list(loader.load())
    assert len(loader.skipped) == 3  # reset on each load


# -- MedQuAD XML ---------------------------------------------------------------------------------------

MEDQUAD = """<?xml version="1.0" encoding="UTF-8"?>
<Document id="0000099_1" source="CancerGov" url="https://www.cancer.gov/types/example/patient/example-treatment-pdq">
<Focus>Example Gland Cancer</Focus>
<FocusAnnotations><UMLS><CUIs><CUI>C0000001</CUI><CUI>C0000002</CUI></CUIs></UMLS></FocusAnnotations>
<QAPairs>
<QAPair pid="1"><Question qid="0000099_1-1" qtype="information">What is (are) Example Gland Cancer ?</Question>
<Answer>Key Points
 - Example gland cancer   forms in the example gland.
 - Age &amp; family history affect risk.</Answer></QAPair>
<QAPair pid="2">
<Question qid="0000099_1-2" qtype="treatment">What are the treatments for Example Gland Cancer ?</Question>
<Answer>Surgery is the main treatment.</Answer></QAPair>
<QAPair pid="3"><Question qid="0000099_1-3" qtype="treatment">How is recurrent Example Gland Cancer treated ?</Question>
<Answer>Treatment depends on where the cancer comes back.</Answer></QAPair>
<QAPair pid="4"><Question qid="0000099_1-4" qtype="symptoms">What are the symptoms of Example Gland Cancer ?</Question>
<Answer></Answer></QAPair>
<QAPair pid="2"><Question qid="0000099_1-2" qtype="outlook">Repeated pair id ?</Question><Answer>Dup.</Answer></QAPair>
</QAPairs>
</Document>
"""


def write_medquad(folder: Path) -> Path:
    (folder / "1_CancerGov_QA").mkdir(parents=True)
    (folder / "1_CancerGov_QA" / "0000099_1.xml").write_text(MEDQUAD, encoding="utf-8")
    (folder / "1_CancerGov_QA" / "0000100_1.xml").write_text(  # a bare & and no focus: still read
        '<Document id="x" source="CancerGov" url="https://example.org/a?b=1&c=2"><QAPairs><QAPair pid="1">'
        '<Question qtype="causes">What causes it ?</Question><Answer>Genes & habits.</Answer></QAPair>'
        "</QAPairs></Document>", encoding="utf-8")
    (folder / "1_CancerGov_QA" / "0000101_1.xml").write_text("<Document><QAPairs><oops></Document>", encoding="utf-8")
    (folder / "1_CancerGov_QA" / "notes.xml").write_text("<Other/>", encoding="utf-8")
    return folder


def test_medquad_one_document_per_pair(tmp_path):
    loader, docs = load(MedQuadXmlLoader, write_medquad(tmp_path / "MedQuAD"), path=".")
    by_id = {d.doc_id: d for d in docs}
    assert list(by_id) == ["medquad-1_CancerGov_QA/0000099_1-1", "medquad-1_CancerGov_QA/0000099_1-2",
                           "medquad-1_CancerGov_QA/0000099_1-3", "medquad-1_CancerGov_QA/0000100_1-1"]
    first = by_id["medquad-1_CancerGov_QA/0000099_1-1"]
    assert (
        first.text
        == "Key Points\n- Example gland cancer forms in the example gland.\n- Age & family history affect risk."
    )
    meta = first.metadata
    assert meta["focus"] == "Example Gland Cancer" and meta["qtype"] == "information"
    assert meta["url"] == "https://www.cancer.gov/types/example/patient/example-treatment-pdq"
    assert meta["title"] == "Example Gland Cancer: information" and meta["source"] == "CancerGov"
    assert meta["question"] == "What is (are) Example Gland Cancer ?" and meta["umls_cuis"] == "C0000001, C0000002"
    assert "What is" not in first.get_content(MetadataMode.EMBED)  # the question is not indexed by default
    quirky = by_id["medquad-1_CancerGov_QA/0000100_1-1"]
    assert quirky.text == "Genes & habits." and quirky.metadata["focus"] == "0000100_1"  # no <Focus>: the file name
    skipped = {(Path(item).name, reason.split(" (")[0]) for item, reason in loader.skipped}
    assert skipped == {
        ("0000099_1.xml#pair=4", "empty answer"),
        ("0000099_1.xml#pair=2", "pair id repeated in the file"),
        ("0000101_1.xml", "not well-formed XML"),
        ("notes.xml", "root element is <Other>, not a MedQuAD <Document>"),
    }


def test_medquad_one_document_per_question_type_for_the_sections_chunker(tmp_path):
    folder = write_medquad(tmp_path / "MedQuAD") / "1_CancerGov_QA"
    _, docs = load(MedQuadXmlLoader, folder, path="0000099_1.xml", unit="qtype", id_prefix="cgov-")
    treatment = next(d for d in docs if d.doc_id == "cgov-0000099_1-treatment")
    assert treatment.metadata["pairs"] == 2
    chunks = SectionChunker(SectionChunker.Params(), None).chunk([treatment])
    assert [(c.metadata["heading"], c.text) for c in chunks] == [
        ("What are the treatments for Example Gland Cancer ?", "Surgery is the main treatment."),
        ("How is recurrent Example Gland Cancer treated ?", "Treatment depends on where the cancer comes back."),
    ]


def test_medquad_missing_path_is_a_data_error(tmp_path):
    with pytest.raises(DataError, match="MedQuAD path not found"):
        MedQuadXmlLoader(MedQuadXmlLoader.Params(path="nowhere"), ctx(tmp_path))


# -- registry staging JSONL ------------------------------------------------------------------------------


def test_registry_jsonl_keeps_years_version_algorithm_and_rule_id(tmp_path):
    records = [
        {
            "doc_id": "eod_public:3.3:schema:lung:notes:01",
            "source": "eod_public-3.3",
            "algorithm": "eod_public",
            "version": "3.3",
            "latest": True,
            "rule_id": "Note 1",
            "section": "schema_notes",
            "schema_ids": ["lung"],
            "applicable_years": {"from": 2018, "to": 2024},
            "title": "EOD 3.3 | Lung",
            "text": "**Note 1:** Example note.",
        },
        {
            "doc_id": "cs:02.05.50:schema:lung:notes:00",
            "algorithm": "cs",
            "version": "02.05.50",
            "rule_id": None,
            "applicable_years": {"from": 2004, "to": None},
            "title": "CS | Lung",
            "text": "Site list.",
        },
        {"doc_id": "empty", "algorithm": "cs", "version": "02.05.50", "text": ""},
    ]
    (tmp_path / "s.jsonl").write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    loader, docs = load(RegistryJsonlLoader, tmp_path, path="s.jsonl")
    eod, cs = docs
    assert {k: eod.metadata[k] for k in ("algorithm", "version", "rule_id", "applicable_years_from",
                                         "applicable_years_to", "schema_ids", "latest")} == {
        "algorithm": "eod_public", "version": "3.3", "rule_id": "Note 1", "applicable_years_from": 2018,
        "applicable_years_to": 2024, "schema_ids": "lung", "latest": True}
    assert cs.metadata["rule_id"] is None and cs.metadata["applicable_years_to"] is None
    assert loader.skipped == [("s.jsonl:3", "empty text (document 'empty')")]


def test_ncc_records_left_empty_by_cleaning_are_skipped(tmp_path):
    records = [{"cancer_seq": 1, "menu_seq": 1, "lang": "ko", "content": "<p>간암은 간에서 시작됩니다.</p>"},
               {"cancer_seq": 1, "menu_seq": 2, "lang": "ko", "content": "<script>x()</script><p>맨 위로</p>"}]
    (tmp_path / "n.json").write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    loader, docs = load(NccJsonLoader, tmp_path, path="n.json")
    assert [d.doc_id for d in docs] == ["ncc-1-1-ko"]
    assert loader.skipped == [("cancer=1 menu=2 lang=ko", "no text left after HTML cleaning")]


# -- sections chunker: heading path, HTML headings -----------------------------------------------------------


def sections(text: str, **params) -> list[tuple[str, str, str]]:
    nodes = SectionChunker(SectionChunker.Params(**params), None).chunk(
        [make_document("d", text, {"title": "T"}, ["title"])]
    )
    return [(n.metadata["heading_path"], n.metadata["heading"], n.text) for n in nodes]


def test_sections_carry_the_heading_path():
    text = (
        "# 간암\n## 치료\n### 수술\n간 절제술을 합니다.\n### 간이식\n이식을 고려합니다.\n"
        "## 예방\n### 백신\nB형 간염 백신을 맞습니다."
    )
    assert sections(text) == [
        ("간암 > 치료 > 수술", "수술", "간 절제술을 합니다."),
        ("간암 > 치료 > 간이식", "간이식", "이식을 고려합니다."),
        ("간암 > 예방 > 백신", "백신", "B형 간염 백신을 맞습니다."),
    ]


def test_sections_split_at_html_headings_left_in_the_text():
    text = ('<div class="cont"><h2>治療</h2><h3>### 手術</h3><p>手術で切除します。 詳しくは https://example.org/x</p>'
            '<h3>薬物療法</h3><p>抗がん剤を使います。</p><p class="btn">印刷</p></div>')
    assert sections(text) == [
        ("治療 > 手術", "手術", "手術で切除します。 詳しくは"),
        ("治療 > 薬物療法", "薬物療法", "抗がん剤を使います。"),
    ]
    kept = sections("<h3>A</h3>plain", html_headings=False)
    assert kept == [("", "", "<h3>A</h3>plain")]


def test_sections_path_with_a_custom_marker_and_h5_h6():
    assert sections("== Diet\nSmall meals.\n== Exercise\nWalk daily.", marker="==") == [
        ("Diet", "Diet", "Small meals."), ("Exercise", "Exercise", "Walk daily.")]
    assert [p for p, _, _ in sections("<h4>A</h4><h5>B</h5><h6>C</h6>text")] == ["A > B > C"]
