"""The bundled ``basic`` plugin: loaders, HTML cleaning, chunkers, analyzers, ranking stages,
the refusal policy, the context builder, the extractive generator and the basic metric."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
from llama_index.core.schema import MetadataMode, NodeRelationship, NodeWithScore

from criss_rag.component_helpers.loader_files import make_document
from criss_rag.errors import DataError
from criss_rag.language.text import detect_language, split_sentences
from criss_rag.plugins import PluginHost
from criss_rag.testing import fake_plugin, pipeline_from_yaml, replaced, run_pipeline
from criss_rag.types import Answer, Citation, Context, Evidence, Hit, Query, Trace, text_node
from criss_rag_basic.analyzers import EnglishAnalyzer, StandardAnalyzer
from criss_rag_basic.answering import DEFAULT_REFUSALS, EvidenceThreshold, NumberedContext
from criss_rag_basic.chunkers import SectionChunker, WholeDocumentChunker
from criss_rag_basic.datasets.ncc import NccJsonLoader
from criss_rag_basic.extractive import NOTICES, ExtractiveGenerator
from criss_rag_basic.filters import MetadataFilter
from criss_rag_basic.fusion import ReciprocalRankFusion
from criss_rag_basic.html_text import html_to_text
from criss_rag_basic.loaders import JsonlLoader
from criss_rag_basic.metrics import AnswerBasics
from criss_rag_basic.rerankers import Truncate

EXAMPLE_CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus" / "ncc_example.json"

# -- helpers ---------------------------------------------------------------------------------------


def stand_in_ctx(base_dir: Path) -> SimpleNamespace:
    """The parts of a ComponentContext the basic components use."""
    return SimpleNamespace(
        base_dir=base_dir,
        show_progress=False,
        resolve_path=lambda p: Path(p) if Path(p).is_absolute() else base_dir / p,
        analyzer=lambda name: StandardAnalyzer() if name == "standard" else EnglishAnalyzer(),
    )


def hit(node_id: str, text: str = "", score: float = 1.0, signals: dict[str, float] | None = None, **metadata) -> Hit:
    return Hit(NodeWithScore(node=text_node(node_id, text or f"text of {node_id}", **metadata), score=score),
               dict(signals or {}))


def normalise(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def basic_host() -> PluginHost:
    """Installed entry-point plugins (``basic`` among them) plus the fakes, strict."""
    return PluginHost(strict=True, extra_plugins={"fake": fake_plugin})


PIPELINE_YAML = """\
name: basic-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: evidence-threshold, min_coverage: 0.5}
context: {name: numbered, max_evidence: 3}
generator: {name: extractive, max_sentences: 2}
"""


@pytest.fixture
def pipeline(tmp_path, basic_host):
    return pipeline_from_yaml(PIPELINE_YAML, tmp_path, basic_host)


def test_basic_plugin_registers_its_components(basic_host):
    registry = basic_host.registry
    expected = {
        ("loader", "jsonl"): JsonlLoader,
        ("loader", "ncc-json"): NccJsonLoader,
        ("chunker", "sections"): SectionChunker,
        ("chunker", "whole-document"): WholeDocumentChunker,
        ("analyzer", "english"): EnglishAnalyzer,
        ("analyzer", "standard"): StandardAnalyzer,
        ("fusion", "rrf"): ReciprocalRankFusion,
        ("filter", "metadata"): MetadataFilter,
        ("reranker", "truncate"): Truncate,
        ("refusal", "evidence-threshold"): EvidenceThreshold,
        ("context", "numbered"): NumberedContext,
        ("generator", "extractive"): ExtractiveGenerator,
        ("metric", "answer-basics"): AnswerBasics,
    }
    for (kind, name), cls in expected.items():
        spec = registry.get(kind, name)
        assert spec.factory is cls and spec.plugin == "basic", (kind, name)


# -- JsonlLoader -----------------------------------------------------------------------------------


def write_jsonl(path: Path, records: list[dict | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


JSONL_RECORDS = [
    {"doc_id": "thyroid", "title": "Thyroid cancer", "text": "Thyroid cancer grows in the neck gland.",
     "lang": "en", "year": 2024, "reviewed": True, "tags": ["endocrine"]},
    {"doc_id": "bladder", "title": "Bladder cancer", "text": "Blood in the urine is the usual first sign.",
     "lang": "en", "year": 2023},
]


def load_jsonl(tmp_path: Path, **params) -> list:
    loader = JsonlLoader(JsonlLoader.Params(**{"path": "corpus.jsonl", **params}), stand_in_ctx(tmp_path))
    return list(loader.load())


def test_jsonl_loads_documents_with_metadata(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", JSONL_RECORDS)
    docs = load_jsonl(tmp_path)
    assert [d.doc_id for d in docs] == ["thyroid", "bladder"]
    first = docs[0]
    assert first.text == "Thyroid cancer grows in the neck gland."
    assert first.metadata["title"] == "Thyroid cancer"
    assert first.metadata["doc_id"] == "thyroid"
    assert first.metadata["lang"] == "en" and first.metadata["year"] == 2024 and first.metadata["reviewed"] is True
    assert "tags" not in first.metadata  # only scalar fields become metadata
    assert "text" not in first.metadata


def test_jsonl_indexes_title_but_not_other_metadata(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", JSONL_RECORDS)
    doc = load_jsonl(tmp_path)[0]
    embedded = doc.get_content(MetadataMode.EMBED)
    assert embedded.startswith("Thyroid cancer")
    assert embedded.endswith("Thyroid cancer grows in the neck gland.")
    assert "2024" not in embedded and "thyroid\n" not in embedded and "True" not in embedded
    assert doc.get_content(MetadataMode.LLM) == doc.text


def test_jsonl_index_fields_option(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", JSONL_RECORDS)
    doc = load_jsonl(tmp_path, index_fields=["title", "year"])[0]
    embedded = doc.get_content(MetadataMode.EMBED)
    assert "2024" in embedded and "Thyroid cancer" in embedded


def test_jsonl_skips_blank_lines_and_defaults_missing_title(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", ["", json.dumps({"doc_id": "x", "text": "Only text."}), "   "])
    docs = load_jsonl(tmp_path)
    assert len(docs) == 1 and docs[0].metadata["title"] == ""


def test_jsonl_bad_json_names_file_and_line(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", [JSONL_RECORDS[0], "{not json", JSONL_RECORDS[1]])
    with pytest.raises(DataError) as info:
        load_jsonl(tmp_path)
    assert f"{path}:2" in str(info.value)
    assert "not valid JSON" in str(info.value)


@pytest.mark.parametrize("missing", ["doc_id", "text"])
def test_jsonl_missing_field_names_field_and_option(tmp_path, missing):
    record = {k: v for k, v in JSONL_RECORDS[1].items() if k != missing}
    path = write_jsonl(tmp_path / "corpus.jsonl", [JSONL_RECORDS[0], record])
    with pytest.raises(DataError) as info:
        load_jsonl(tmp_path)
    message = str(info.value)
    assert f"{path}:2" in message
    assert f"`{missing}`" in message
    assert "id_field" in message and "text_field" in message


def test_jsonl_missing_file(tmp_path):
    with pytest.raises(DataError, match="not found") as info:
        JsonlLoader(JsonlLoader.Params(path="nowhere.jsonl"), stand_in_ctx(tmp_path))
    assert "nowhere.jsonl" in str(info.value) and "loader.path" in str(info.value)


def test_jsonl_custom_field_names(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", [{"id": 17, "heading": "Skin cancer", "body": "Check moles for change."}])
    docs = load_jsonl(tmp_path, id_field="id", text_field="body", title_field="heading")
    assert docs[0].doc_id == "17"
    assert docs[0].text == "Check moles for change."
    assert docs[0].metadata["title"] == "Skin cancer"
    assert "heading" not in docs[0].metadata and "body" not in docs[0].metadata


def test_jsonl_custom_field_missing_names_the_custom_field(tmp_path):
    write_jsonl(tmp_path / "corpus.jsonl", [{"doc_id": "a", "text": "Default names only."}])
    with pytest.raises(DataError) as info:
        load_jsonl(tmp_path, id_field="id", text_field="body")
    assert "`id`" in str(info.value) and "`body`" in str(info.value)


def test_jsonl_fingerprint_changes_when_the_file_changes(tmp_path):
    path = write_jsonl(tmp_path / "corpus.jsonl", JSONL_RECORDS)
    loader = JsonlLoader(JsonlLoader.Params(path="corpus.jsonl"), stand_in_ctx(tmp_path))
    before = loader.fingerprint()
    assert before == loader.fingerprint()
    write_jsonl(path, JSONL_RECORDS[:1])
    assert loader.fingerprint() != before
    other_params = JsonlLoader(JsonlLoader.Params(path="corpus.jsonl", index_fields=[]), stand_in_ctx(tmp_path))
    assert other_params.fingerprint() != loader.fingerprint()


def test_jsonl_through_a_pipeline_resolves_path_against_the_config_folder(tmp_path, basic_host):
    write_jsonl(tmp_path / "corpus.jsonl", JSONL_RECORDS)
    yaml_text = replaced(PIPELINE_YAML, "loader: {name: fake-loader}", "loader: {name: jsonl, path: corpus.jsonl}")
    pipe = pipeline_from_yaml(yaml_text, tmp_path, basic_host)
    loader = pipe.build(pipe.config.one("loader"))
    assert isinstance(loader, JsonlLoader)
    assert loader.path == tmp_path / "corpus.jsonl"
    assert [d.doc_id for d in loader.load()] == ["thyroid", "bladder"]


def test_jsonl_missing_file_through_a_pipeline_is_a_data_error(tmp_path, basic_host):
    yaml_text = replaced(PIPELINE_YAML, "loader: {name: fake-loader}", "loader: {name: jsonl, path: missing.jsonl}")
    pipe = pipeline_from_yaml(yaml_text, tmp_path, basic_host)
    with pytest.raises(DataError, match="missing.jsonl"):
        pipe.build(pipe.config.one("loader"))


# -- NccJsonLoader ---------------------------------------------------------------------------------

THYROID_PART_1 = (
    '<div class="cont"><p>### Surgery</p>'
    "<p>Most people with thyroid cancer have an operation to remove all or part of the gland.</p>"
    "<script>trackPage('thyroid-treatment'); var secret = 'tracking code';</script>"
    '<span class="btn">Go to top</span>'
    '<p><a href="javascript:window.print()">Print this page</a></p></div>'
)
THYROID_PART_2 = (
    "<h3>### Radioactive iodine</h3>"
    "<p>After surgery,&nbsp;radioactive iodine destroys thyroid tissue that remains &amp; stray cancer cells.</p>"
    "<p>Ask your care team, or read https://www.example.org/thyroid/iodine?lang=en for details.</p>"
)

NCC_RECORDS = [
    {"cancer_seq": 7, "cancer_name": "Thyroid cancer", "menu_seq": 3, "menu_name": "Treatment", "lang": "en",
     "part": 2, "title": "Thyroid cancer: treatment (continued)", "content": THYROID_PART_2},
    {"cancer_seq": 7, "cancer_name": "Thyroid cancer", "menu_seq": 3, "menu_name": "Treatment", "lang": "en",
     "part": 1, "title": "Thyroid cancer: treatment", "url": "https://example.org/thyroid/3",
     "content": THYROID_PART_1},
    {"cancer_seq": 7, "cancer_name": "갑상선암", "menu_seq": 3, "menu_name": "치료", "lang": "ko", "part": 1,
     "title": "갑상선암: 치료", "content": "<p>### 수술</p><p>갑상선암은 대부분 수술로 치료합니다.</p><p>인쇄</p>"},
    {"cancer_seq": 9, "cancer_name": "Bladder cancer", "menu_seq": 1, "menu_name": "Overview", "lang": "en",
     "part": 1, "content": "<p>### Warning signs</p><p>Blood in the urine is the most common first sign.</p>"},
    {"cancer_seq": 9, "cancer_name": "膀胱がん", "menu_seq": 1, "menu_name": "概要", "lang": "ja", "part": 1,
     "title": "膀胱がん：概要", "content": "<h3>### 症状</h3><p>血尿が最もよくみられる最初の症状です。</p>"},
]


def write_ncc(tmp_path: Path, records=None, name: str = "export.json", wrap: str | None = "records") -> Path:
    records = NCC_RECORDS if records is None else records
    data = {"source": "test", wrap: records} if wrap else records
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def load_ncc(tmp_path: Path, **params) -> dict:
    loader = NccJsonLoader(NccJsonLoader.Params(**{"path": "export.json", **params}), stand_in_ctx(tmp_path))
    return {d.doc_id: d for d in loader.load()}


def test_ncc_merges_parts_in_part_order(tmp_path):
    write_ncc(tmp_path)
    docs = load_ncc(tmp_path)
    assert set(docs) == {"ncc-7-3-en", "ncc-7-3-ko", "ncc-9-1-en", "ncc-9-1-ja"}
    text = docs["ncc-7-3-en"].text
    order = [text.index(s) for s in ("### Surgery", "operation", "### Radioactive iodine", "destroys")]
    assert order == sorted(order)
    assert text == (
        "### Surgery\n"
        "Most people with thyroid cancer have an operation to remove all or part of the gland.\n"
        "### Radioactive iodine\n"
        "After surgery, radioactive iodine destroys thyroid tissue that remains & stray cancer cells.\n"
        "Ask your care team, or read for details."
    )


def test_ncc_metadata(tmp_path):
    write_ncc(tmp_path)
    doc = load_ncc(tmp_path)["ncc-7-3-en"]
    meta = doc.metadata
    assert doc.doc_id == "ncc-7-3-en" and meta["doc_id"] == "ncc-7-3-en"
    assert meta["cancer_id"] == "7" and meta["menu_id"] == "3" and meta["lang"] == "en"
    assert meta["title"] == "Thyroid cancer: treatment"  # from part 1, not the first record in the file
    assert meta["parts"] == 2
    assert meta["cancer_name"] == "Thyroid cancer" and meta["menu_name"] == "Treatment"
    assert meta["url"] == "https://example.org/thyroid/3"
    assert meta["source"] == "export.json#cancer=7&menu=3&lang=en"
    embedded = doc.get_content(MetadataMode.EMBED)
    assert embedded.startswith("Thyroid cancer: treatment\n")
    assert "example.org" not in embedded and "ncc-7-3-en" not in embedded


def test_ncc_title_falls_back_to_cancer_and_menu_names(tmp_path):
    write_ncc(tmp_path)
    assert load_ncc(tmp_path)["ncc-9-1-en"].metadata["title"] == "Bladder cancer: Overview"


def test_ncc_cleaning(tmp_path):
    write_ncc(tmp_path)
    docs = load_ncc(tmp_path)
    text = docs["ncc-7-3-en"].text
    assert "trackPage" not in text and "tracking code" not in text
    assert "http" not in text and "example.org" not in text
    assert "Go to top" not in text and "Print this page" not in text
    assert "<" not in text and "&amp;" not in text and "&nbsp;" not in text and "\xa0" not in text
    assert "remains & stray" in text and "surgery, radioactive" in text
    headings = [line for line in text.splitlines() if line.startswith("### ")]
    assert headings == ["### Surgery", "### Radioactive iodine"]  # <h3>### x</h3> not doubled
    assert "인쇄" not in docs["ncc-7-3-ko"].text
    assert docs["ncc-7-3-ko"].text == "### 수술\n갑상선암은 대부분 수술로 치료합니다."
    assert docs["ncc-9-1-ja"].text.splitlines()[0] == "### 症状"


def test_ncc_cancers_filter_by_id_or_name(tmp_path):
    write_ncc(tmp_path)
    assert set(load_ncc(tmp_path, cancers=[9])) == {"ncc-9-1-en", "ncc-9-1-ja"}
    assert set(load_ncc(tmp_path, cancers=["7"])) == {"ncc-7-3-en", "ncc-7-3-ko"}
    assert set(load_ncc(tmp_path, cancers=["Bladder cancer"])) == {"ncc-9-1-en"}


def test_ncc_languages_filter(tmp_path):
    write_ncc(tmp_path)
    assert set(load_ncc(tmp_path, languages=["ko", "ja"])) == {"ncc-7-3-ko", "ncc-9-1-ja"}
    assert set(load_ncc(tmp_path, languages=["en"], cancers=[7])) == {"ncc-7-3-en"}


def test_ncc_custom_field_names(tmp_path):
    records = [
        {"cid": "lung", "mid": "tests", "language": "en", "seq": 2, "heading": "Lung cancer: tests",
         "html": "<p>A CT scan shows the size of the tumour.</p>"},
        {"cid": "lung", "mid": "tests", "language": "en", "seq": 1, "heading": "Lung cancer: tests",
         "html": "<p>### Imaging</p><p>A chest X-ray is often the first test.</p>"},
    ]
    write_ncc(tmp_path, records, wrap="items")
    fields = {"records": "items", "cancer_id": "cid", "menu_id": "mid", "language": "language",
              "part": "seq", "title": "heading", "body": "html"}
    docs = load_ncc(tmp_path, fields=fields)
    assert list(docs) == ["ncc-lung-tests-en"]
    doc = docs["ncc-lung-tests-en"]
    assert doc.text == "### Imaging\nA chest X-ray is often the first test.\nA CT scan shows the size of the tumour."
    assert doc.metadata["title"] == "Lung cancer: tests" and doc.metadata["parts"] == 2


def test_ncc_accepts_a_top_level_list(tmp_path):
    write_ncc(tmp_path, wrap=None)
    assert len(load_ncc(tmp_path)) == 4


def test_ncc_record_lacking_a_required_field(tmp_path):
    broken = [NCC_RECORDS[0], {k: v for k, v in NCC_RECORDS[1].items() if k != "menu_seq"}]
    write_ncc(tmp_path, broken)
    with pytest.raises(DataError) as info:
        load_ncc(tmp_path)
    message = str(info.value)
    assert "record 1" in message and "menu_seq" in message and "fields" in message


def test_ncc_wrong_records_key_and_bad_json(tmp_path):
    write_ncc(tmp_path, wrap="items")
    with pytest.raises(DataError, match="records"):
        load_ncc(tmp_path)
    (tmp_path / "export.json").write_text('{"records": [\n{"cancer_seq": 1,,}]}', encoding="utf-8")
    with pytest.raises(DataError, match=r"export\.json:2"):
        load_ncc(tmp_path)


def test_ncc_fingerprint_changes_when_the_file_changes(tmp_path):
    write_ncc(tmp_path)
    loader = NccJsonLoader(NccJsonLoader.Params(path="export.json"), stand_in_ctx(tmp_path))
    before = loader.fingerprint()
    write_ncc(tmp_path, NCC_RECORDS[:2])
    assert loader.fingerprint() != before


@pytest.fixture(scope="module")
def example_documents():
    loader = NccJsonLoader(NccJsonLoader.Params(path=str(EXAMPLE_CORPUS)), stand_in_ctx(EXAMPLE_CORPUS.parent))
    return list(loader.load())


def test_example_corpus_counts(example_documents):
    assert len(example_documents) == 90
    assert len({d.doc_id for d in example_documents}) == 90
    assert Counter(d.metadata["lang"] for d in example_documents) == {"en": 36, "ko": 18, "ja": 18, "zh": 18}
    assert all(re.fullmatch(r"ncc-\w+-\w+-(en|ko|ja|zh)", d.doc_id) for d in example_documents)


def test_example_corpus_is_clean_and_sectioned(example_documents):
    for doc in example_documents:
        headings = [line for line in doc.text.splitlines() if line.startswith("### ")]
        assert len(headings) >= 2, doc.doc_id
        for artefact in ("<", "http", "Print this page", "trackPage"):
            assert artefact not in doc.text, (doc.doc_id, artefact)
        assert doc.metadata["title"], doc.doc_id


def test_example_corpus_languages_match_their_script(example_documents):
    for doc in example_documents:
        assert detect_language(doc.text) == doc.metadata["lang"], doc.doc_id


# -- html_to_text ----------------------------------------------------------------------------------


def test_html_blocks_become_lines():
    assert html_to_text("<p>One.</p><p>Two.</p><ul><li>three</li><li>four</li></ul>five<br>six") == (
        "One.\nTwo.\n- three\n- four\nfive\nsix"
    )


def test_html_lists_keep_their_items_in_four_languages():
    """Each <li> a line of its own with its bullet or number, so the items stay items (sentences)
    through chunking and quoting instead of one run-on line."""
    from criss_rag.language.text import split_sentences

    lists = {
        "en": (
            "Symptoms may include:",
            ["pain in the upper right abdomen", "a lump under the ribs", "yellowing of the skin"],
            "See a doctor if they last.",
        ),
        "ko": (
            "다음과 같은 증상이 나타날 수 있습니다.",
            ["오른쪽 윗배의 통증", "갈비뼈 아래의 덩어리", "피부가 노랗게 변하는 황달"],
            "증상이 계속되면 진료를 받으세요.",
        ),
        "ja": (
            "次のような症状があります。",
            ["右上腹部の痛み", "肋骨の下のしこり", "皮膚が黄色くなる黄疸"],
            "続くときは受診してください。",
        ),
        "zh": ("可能出现以下症状：", ["右上腹疼痛", "肋骨下方的肿块", "皮肤发黄的黄疸"], "症状持续时请就医。"),
    }
    for lang, (lead, items, after) in lists.items():
        bulleted = html_to_text(f"<p>{lead}</p><ul>{''.join(f'<li>{i}</li>' for i in items)}</ul><p>{after}</p>")
        numbered = html_to_text(
            f"<p>{lead}</p><ol start='3'>{''.join(f'<li>{i}</li>' for i in items)}</ol><p>{after}</p>"
        )
        assert bulleted.splitlines()[1:4] == [f"- {i}" for i in items], lang
        assert numbered.splitlines()[1:4] == [f"{n}. {i}" for n, i in zip((3, 4, 5), items, strict=True)], lang
        for text in (bulleted, numbered):
            assert split_sentences(text) == [lead, *items, after], lang
    assert html_to_text("<ol><li>a<ul><li>b</li></ul></li><li>c</li></ol>").splitlines() == ["1. a", "- b", "2. c"]


def test_html_headings_get_markers_once():
    markup = "<h1>Guide</h1><h2>Part</h2><h3>Tests</h3><h4>Blood</h4><h3>### Scans</h3><p>### Biopsy</p>"
    assert html_to_text(markup).splitlines() == [
        "# Guide", "## Part", "### Tests", "#### Blood", "### Scans", "### Biopsy",
    ]


def test_html_scripts_styles_and_navigation_dropped():
    markup = ("<style>p {color: red}</style><nav><span>Home</span> Cancer types</nav>"
              "<p>Rest is important during chemotherapy.</p><script>trackPage('x')</script>"
              "<footer>Copyright</footer>")
    assert html_to_text(markup) == "Rest is important during chemotherapy."


def test_html_entities_urls_and_spaces():
    markup = "<p>Tumours&nbsp;&lt;&nbsp;2&nbsp;cm &amp; no spread: see https://a.example/x or www.b.example now.</p>"
    assert html_to_text(markup) == "Tumours < 2 cm & no spread: see or now."


def test_html_boilerplate_only_on_whole_lines():
    markup = ("<p>Print this page</p><p>Go to top</p><p>맨 위로</p><p>ページの先頭へ</p><p>Share</p>"
              "<p>Print this page if your doctor asks for a copy.</p>")
    assert html_to_text(markup) == "Print this page if your doctor asks for a copy."


def test_html_custom_boilerplate_replaces_the_defaults():
    markup = "<p>Print this page</p><p>Sponsored</p><p>Keep warm after surgery.</p>"
    assert html_to_text(markup, [r"sponsored"]) == "Print this page\nKeep warm after surgery."


def test_html_button_link_does_not_swallow_what_follows():
    markup = '<p>Before.</p><a class="btn" href="#">Print</a><p>After the button.</p><p>Last line.</p>'
    assert html_to_text(markup) == "Before.\nAfter the button.\nLast line."


def test_html_nested_spans_inside_a_skipped_element():
    markup = '<span class="btn">Back <span>to the</span> start of the page</span><p>Body text.</p>'
    assert html_to_text(markup) == "Body text."
    assert html_to_text("<nav><span>Home</span> Menu items</nav><p>Body text.</p>") == "Body text."
    assert html_to_text("<button>Click<br>here<img src='x'></button><p>Body text.</p>") == "Body text."


# -- SectionChunker and WholeDocumentChunker -------------------------------------------------------

LONG_SENTENCES = " ".join(
    f"Sentence {i} explains how smoking raises the risk of lung cancer in adults." for i in range(10)
)
SECTIONED_TEXT = (
    "Lung cancer is the leading cause of cancer death.\n"
    "### Risk factors\n"
    "Smoking causes most lung cancers.\n"
    "Radon gas is another cause.\n"
    "### Symptoms\n"
    "A cough that does not go away can be a sign.\n"
    "### Empty heading\n"
    "### Long section\n"
    f"{LONG_SENTENCES}"
)


def lung_document():
    return make_document("lung", SECTIONED_TEXT, {"title": "Lung cancer", "lang": "en"}, ["title"])


def section_chunker(**params) -> SectionChunker:
    return SectionChunker(SectionChunker.Params(**params), stand_in_ctx(Path(".")))


def test_sections_split_at_marker_lines():
    sections = section_chunker().sections(SECTIONED_TEXT)
    assert [h for h, _ in sections] == ["", "Risk factors", "Symptoms", "Long section"]
    assert sections[0][1] == "Lung cancer is the leading cause of cancer death."
    assert sections[1][1] == "Smoking causes most lung cancers.\nRadon gas is another cause."


def test_section_chunks_ids_metadata_and_text():
    nodes = section_chunker().chunk([lung_document()])
    assert [n.node_id for n in nodes] == ["lung#s0", "lung#s1", "lung#s2", "lung#s3"]
    assert [n.metadata["heading"] for n in nodes] == ["", "Risk factors", "Symptoms", "Long section"]
    assert nodes[0].text == "Lung cancer is the leading cause of cancer death."  # text before the first heading kept
    assert nodes[1].text == "Smoking causes most lung cancers.\nRadon gas is another cause."
    for node in nodes:
        assert node.metadata["doc_id"] == "lung"
        assert node.metadata["title"] == "Lung cancer" and node.metadata["lang"] == "en"
        assert "###" not in node.text
        assert node.relationships[NodeRelationship.SOURCE].node_id == "lung"
        assert node.ref_doc_id == "lung"


def test_long_sections_are_split_into_numbered_pieces():
    nodes = section_chunker(max_tokens=32, overlap_tokens=0).chunk([lung_document()])
    long_ids = [n.node_id for n in nodes if n.metadata["heading"] == "Long section"]
    assert len(long_ids) > 1
    assert long_ids == [f"lung#s3.{j}" for j in range(len(long_ids))]
    assert [n.node_id for n in nodes][:3] == ["lung#s0", "lung#s1", "lung#s2"]  # short sections not split
    pieces = [n.text for n in nodes if n.metadata["heading"] == "Long section"]
    assert all(piece in LONG_SENTENCES for piece in pieces)
    assert "Sentence 0 " in pieces[0] and "Sentence 9 " in pieces[-1]


def test_heading_in_index_controls_the_embedded_text():
    with_heading = section_chunker(heading_in_index=True).chunk([lung_document()])[1]
    without = section_chunker(heading_in_index=False).chunk([lung_document()])[1]
    assert "Risk factors" in with_heading.get_content(MetadataMode.EMBED)
    assert "Risk factors" not in without.get_content(MetadataMode.EMBED)
    assert without.metadata["heading"] == "Risk factors"  # still known, only not indexed
    for node in (with_heading, without):
        assert node.get_content(MetadataMode.EMBED).startswith("Lung cancer")
        assert "en" not in node.get_content(MetadataMode.EMBED).split("\n")  # lang stays out
        assert node.get_content(MetadataMode.LLM) == node.text


def test_custom_marker():
    text = "== Diet\nEat small meals often.\n== Exercise\nWalk daily if you can."
    doc = make_document("d", text, {"title": "T"}, ["title"])
    nodes = section_chunker(marker="==").chunk([doc])
    assert [(n.node_id, n.metadata["heading"], n.text) for n in nodes] == [
        ("d#s0", "Diet", "Eat small meals often."),
        ("d#s1", "Exercise", "Walk daily if you can."),
    ]


def test_section_chunker_via_the_registry(tmp_path, basic_host):
    yaml_text = replaced(
        PIPELINE_YAML, "chunker: {name: fake-chunker}", "chunker: {name: sections, max_tokens: 64, overlap_tokens: 8}"
    )
    pipe = pipeline_from_yaml(yaml_text, tmp_path, basic_host)
    chunker = pipe.build(pipe.config.one("chunker"))
    assert isinstance(chunker, SectionChunker) and chunker.params.max_tokens == 64


def test_whole_document_chunker():
    docs = [lung_document(), make_document("skin", "Check moles monthly.", {"title": "Skin cancer"}, ["title"])]
    nodes = WholeDocumentChunker(None, stand_in_ctx(Path("."))).chunk(docs)
    assert [n.node_id for n in nodes] == ["lung", "skin"]
    assert nodes[0].text == SECTIONED_TEXT and nodes[1].text == "Check moles monthly."
    assert nodes[1].metadata == {"title": "Skin cancer", "doc_id": "skin"}
    assert "section" not in nodes[0].metadata
    assert nodes[1].relationships[NodeRelationship.SOURCE].node_id == "skin"
    assert nodes[1].get_content(MetadataMode.EMBED) == "Skin cancer\n\nCheck moles monthly."


# -- analyzers -------------------------------------------------------------------------------------


def test_english_analyzer_removes_stopwords_and_stems():
    analyzer = EnglishAnalyzer()
    terms = analyzer.analyze("What are the treatments for the patient's breast cancer?")
    assert terms == ["treatment", "patient", "breast", "cancer"]
    assert analyzer.analyze("treatments") == analyzer.analyze("treatment") == ["treatment"]
    assert analyzer.analyze("Screening screened screens") == ["screen"] * 3
    assert analyzer.analyze("the and of what how") == []


def test_english_analyzer_options():
    plain = EnglishAnalyzer(EnglishAnalyzer.Params(stem=False, stopwords=False))
    assert plain.analyze("The Treatments are working") == ["the", "treatments", "are", "working"]
    assert EnglishAnalyzer().analyze("ＣＴ　ｓｃａｎｓ") == ["ct", "scan"]  # full-width normalised


def test_standard_analyzer_korean_strips_particles_and_endings():
    analyzer = StandardAnalyzer()
    assert analyzer.analyze("위암의 치료 방법은 무엇인가요?") == ["위암", "치료", "방법"]
    assert analyzer.analyze("간암은 어떻게 진단하나요?") == ["간암", "진단"]
    # a longer word becomes bigrams, so 췌장암 matches 췌장 and 장암
    assert analyzer.analyze("췌장암의 원인") == ["췌장", "장암", "원인"]


def test_standard_analyzer_japanese_drops_hiragana():
    analyzer = StandardAnalyzer()
    assert analyzer.analyze("胃がんの治療法は何ですか？") == ["胃", "治療", "療法", "何"]
    assert analyzer.analyze("カテーテル検査を受けます") == ["カテ", "テー", "ーテ", "テル", "ル検", "検査", "受"]
    assert not any(re.search(r"[\u3040-\u309f]", t) for t in analyzer.analyze("抗がん剤の副作用について教えてください"))


def test_standard_analyzer_chinese_bigrams():
    analyzer = StandardAnalyzer()
    assert analyzer.analyze("胃癌的治疗方法") == ["胃癌", "癌的", "的治", "治疗", "疗方", "方法"]
    assert analyzer.analyze("肝") == ["肝"]


def test_standard_analyzer_mixed_text():
    analyzer = StandardAnalyzer()
    terms = analyzer.analyze("MRI 검사와 CT scans 肝癌 treatments")
    assert set(terms) == {"검사", "肝癌", "mri", "ct", "scan", "treatment"}
    assert StandardAnalyzer(StandardAnalyzer.Params(stem=False)).analyze("CT scans") == ["ct", "scans"]


# -- ReciprocalRankFusion --------------------------------------------------------------------------


def rrf_input():
    a = hit("a", signals={"bm25": 12.0})
    b_bm25 = hit("b", signals={"bm25": 9.0})
    c = hit("c", signals={"bm25": 3.0})
    b_faiss = hit("b", signals={"faiss": 0.81})
    d = hit("d", signals={"faiss": 0.64})
    return {"bm25": [a, b_bm25, c], "faiss": [b_faiss, d]}


def fuse(ranked, **params):
    return ReciprocalRankFusion(ReciprocalRankFusion.Params(**params), stand_in_ctx(Path("."))).fuse(Query("q"), ranked)


def test_rrf_exact_scores():
    fused = fuse(rrf_input(), k=10)
    expected = {"b": 1 / 12 + 1 / 11, "a": 1 / 11, "d": 1 / 12, "c": 1 / 13}
    assert [h.node_id for h in fused] == ["b", "a", "d", "c"]
    for h in fused:
        assert h.score == pytest.approx(expected[h.node_id])
        assert h.signals["rrf"] == pytest.approx(expected[h.node_id])


def test_rrf_weights():
    fused = fuse(rrf_input(), k=10, weights={"faiss": 2.0})
    expected = {"b": 1 / 12 + 2 / 11, "d": 2 / 12, "a": 1 / 11, "c": 1 / 13}
    assert [h.node_id for h in fused] == ["b", "d", "a", "c"]
    assert {h.node_id: h.score for h in fused} == pytest.approx(expected)


def test_rrf_default_k_is_60():
    fused = fuse({"only": [hit("x"), hit("y")]})
    assert [h.score for h in fused] == pytest.approx([1 / 61, 1 / 62])


def test_rrf_top_k():
    fused = fuse(rrf_input(), k=10, top_k=2)
    assert [h.node_id for h in fused] == ["b", "a"]


def test_rrf_keeps_every_retrievers_signal():
    fused = {h.node_id: h for h in fuse(rrf_input(), k=10)}
    assert set(fused["b"].signals) == {"bm25", "faiss", "rrf"}
    assert fused["b"].signals["bm25"] == 9.0 and fused["b"].signals["faiss"] == 0.81
    assert set(fused["d"].signals) == {"faiss", "rrf"}
    assert fused["a"].text == "text of a"


def test_rrf_empty_input():
    assert fuse({}) == [] and fuse({"bm25": [], "faiss": []}) == []


# -- MetadataFilter and Truncate -------------------------------------------------------------------


def lang_hits():
    return [hit("e1", lang="en", cancer_id="1"), hit("k1", lang="ko", cancer_id="1"),
            hit("j1", lang="ja", cancer_id="2"), hit("e2", lang="en", cancer_id="2"), hit("none")]


def metadata_filter(**params):
    return MetadataFilter(MetadataFilter.Params(**params), stand_in_ctx(Path(".")))


def test_metadata_filter_static_values():
    kept = metadata_filter(field="lang", values=["ko", "ja"]).apply(Query("q"), lang_hits())
    assert [h.node_id for h in kept] == ["k1", "j1"]
    # values compare as strings, so an integer id in YAML matches a string in metadata
    kept = metadata_filter(field="cancer_id", values=[2]).apply(Query("q"), lang_hits())
    assert [h.node_id for h in kept] == ["j1", "e2"]


def test_metadata_filter_static_values_ignore_the_request():
    kept = metadata_filter(field="lang", values=["en"]).apply(Query("q", filters={"lang": "ko"}), lang_hits())
    assert [h.node_id for h in kept] == ["e1", "e2"]


def test_metadata_filter_values_from_the_request():
    f = metadata_filter(field="lang")
    assert [h.node_id for h in f.apply(Query("q", filters={"lang": "ja"}), lang_hits())] == ["j1"]
    assert [h.node_id for h in f.apply(Query("q", filters={"lang": ["en", "ko"]}), lang_hits())] == ["e1", "k1", "e2"]


def test_metadata_filter_without_a_requested_value_keeps_everything():
    hits = lang_hits()
    f = metadata_filter(field="lang")
    assert f.apply(Query("q"), hits) == hits
    assert f.apply(Query("q", filters={"cancer_id": "1"}), hits) == hits


def test_truncate():
    hits = lang_hits()
    assert [h.node_id for h in Truncate(Truncate.Params(n=2), None).rerank(Query("q"), hits)] == ["e1", "k1"]
    assert Truncate(Truncate.Params(n=10), None).rerank(Query("q"), hits) == hits
    assert Truncate(Truncate.Params(), None).params.n == 10


# -- EvidenceThreshold -----------------------------------------------------------------------------


def threshold(**params) -> EvidenceThreshold:
    return EvidenceThreshold(EvidenceThreshold.Params(**params), stand_in_ctx(Path(".")))


def test_no_hits_is_no_evidence():
    refusal = threshold().decide(Query("What causes bladder cancer?"), [])
    assert refusal.reason == "no_evidence"
    assert refusal.message == DEFAULT_REFUSALS["en"]
    assert "0 candidate" in refusal.detail


def test_min_hits():
    policy = threshold(min_hits=3)
    refusal = policy.decide(Query("q"), [hit("a"), hit("b")])
    assert refusal is not None and refusal.reason == "too_little_evidence"
    assert "2 candidate" in refusal.detail and "3" in refusal.detail
    assert policy.decide(Query("q"), [hit("a"), hit("b"), hit("c")]) is None


def test_signal_below_min_score_is_weak_evidence():
    hits = [hit("a", signals={"faiss": 0.412, "rrf": 0.9}), hit("b", signals={"faiss": 0.38})]
    refusal = threshold(signal="faiss", min_score=0.55).decide(Query("q"), hits)
    assert refusal.reason == "weak_evidence"
    assert "0.412" in refusal.detail and "faiss" in refusal.detail and "0.55" in refusal.detail


def test_signal_above_min_score_passes():
    hits = [hit("a", signals={"faiss": 0.3}), hit("b", signals={"faiss": 0.71})]
    assert threshold(signal="faiss", min_score=0.55).decide(Query("q"), hits) is None


def test_missing_signal_is_weak_evidence():
    hits = [hit("a", score=20.0, signals={"bm25": 20.0})]
    refusal = threshold(signal="faiss", min_score=0.1).decide(Query("q"), hits)
    assert refusal.reason == "weak_evidence"
    assert "none" in refusal.detail


def test_missing_signal_can_be_skipped():
    policy = threshold(signal="faiss", min_score=0.5, when_signal_missing="skip")
    assert policy.decide(Query("q"), [hit("a", signals={"bm25": 20.0})]) is None
    low = policy.decide(Query("q"), [hit("a", signals={"bm25": 20.0}), hit("b", signals={"faiss": 0.2})])
    assert low is not None and low.reason == "weak_evidence"  # a present but low signal still refuses


def test_min_coverage_off_topic():
    policy = threshold(min_coverage=0.6)
    question = Query("What causes jaundice in pancreatic cancer?")
    off_topic = [hit("lung", "Smoking causes most lung cancers.", title="Lung cancer")]
    refusal = policy.decide(question, off_topic)
    assert refusal.reason == "off_topic"
    assert "50%" in refusal.detail and "60%" in refusal.detail  # caus + cancer of caus, jaundic, pancreat, cancer
    on_topic = [hit("panc", "Jaundice is a common sign.", title="Pancreatic cancer")]
    assert policy.decide(question, on_topic) is None  # the title counts too


def test_min_coverage_reads_only_the_top_candidates():
    question = Query("Does jaundice signal pancreatic cancer?")
    hits = [hit(f"x{i}", "Unrelated words about skin moles.") for i in range(3)]
    hits.append(hit("panc", "Jaundice can signal pancreatic cancer."))
    assert threshold(min_coverage=0.5, coverage_top_n=3).decide(question, hits).reason == "off_topic"
    assert threshold(min_coverage=0.5, coverage_top_n=4).decide(question, hits) is None


def test_min_coverage_through_a_pipeline(pipeline):
    policy = pipeline.build(pipeline.config.one("refusal"))
    assert isinstance(policy, EvidenceThreshold) and isinstance(policy.analyzer, StandardAnalyzer)
    refusal = policy.decide(Query("위암의 치료 방법은 무엇인가요?"), [hit("x", "간암은 흔합니다.")])
    assert refusal.reason == "off_topic"
    assert refusal.message == DEFAULT_REFUSALS["ko"]
    assert policy.decide(Query("위암의 치료 방법은 무엇인가요?"), [hit("y", "위암 치료 방법은 수술입니다.")]) is None


@pytest.mark.parametrize(
    "question",
    [
        "위암의 치료 방법은 무엇인가요?",
        "胃がんの治療法は何ですか？",
        "胃癌的治疗方法是什么？",
        "How is stomach cancer treated?",
    ],
)
def test_refusal_message_is_in_the_question_language(question):
    refusal = threshold().decide(Query(question), [])
    assert refusal.message == DEFAULT_REFUSALS[detect_language(question)]


def test_custom_messages_fall_back_to_english():
    policy = threshold(message={"en": "No answer.", "ko": "답변 없음."})
    assert policy.decide(Query("위암이란?"), []).message == "답변 없음."
    assert policy.decide(Query("胃がんとは？"), []).message == "No answer."


@pytest.mark.parametrize("params", [{"signal": "faiss"}, {"min_score": 0.5}])
def test_signal_and_min_score_go_together(params):
    with pytest.raises(ValueError, match="both"):
        threshold(**params)


# -- NumberedContext -------------------------------------------------------------------------------


def context_hits():
    return [
        hit("a#0", "Alpha one.", doc_id="a", title="Doc A"),
        hit("a#1", "Alpha two.", doc_id="a", title="Doc A"),
        hit("a#2", "Alpha three.", doc_id="a", title="Doc A"),
        hit("b#0", "Beta one.", doc_id="b", title="Doc B"),
        hit("c#0", "Gamma one.", doc_id="c", title="Doc C"),
    ]


def numbered(**params) -> NumberedContext:
    return NumberedContext(NumberedContext.Params(**params), stand_in_ctx(Path(".")))


def test_numbered_context_numbers_and_renders():
    context = numbered().build(Query("q"), context_hits())
    assert [e.number for e in context.evidence] == [1, 2, 3, 4]
    assert [e.hit.node_id for e in context.evidence] == ["a#0", "a#1", "b#0", "c#0"]  # max 2 per document
    assert context.text.startswith("[1] Doc A\nAlpha one.")
    assert "[3] Doc B\nBeta one." in context.text and "[4] Doc C\nGamma one." in context.text
    assert context.by_number(2).text == "Alpha two." and context.by_number(5) is None


def test_numbered_context_limits():
    assert len(numbered(max_evidence=2).build(Query("q"), context_hits()).evidence) == 2
    one_each = numbered(max_per_document=1).build(Query("q"), context_hits())
    assert [e.hit.node_id for e in one_each.evidence] == ["a#0", "b#0", "c#0"]


def test_numbered_context_character_budget():
    hits = [hit(f"d{i}#0", "x" * 150, doc_id=f"d{i}", title=f"T{i}") for i in range(4)]
    context = numbered(max_chars=200).build(Query("q"), hits)
    assert [len(e.text) for e in context.evidence] == [150, 50]
    assert sum(len(e.text) for e in context.evidence) == 200
    assert "[3]" not in context.text


def test_numbered_context_of_nothing():
    context = numbered().build(Query("q"), [])
    assert context.evidence == () and context.text == ""


# -- ExtractiveGenerator ---------------------------------------------------------------------------

MARKED = re.compile(r"(.+?) \[(\d+)\](?: |$)")


def generator_context() -> Context:
    hits = [
        hit("panc#s1", "Jaundice is a common early sign of pancreatic cancer. It turns the skin and eyes yellow.\n"
            "Weight loss without trying can also be a sign.",
            doc_id="panc", title="Pancreatic cancer", section="Symptoms"),
        hit("lung#s0", "### Symptoms\nA cough that will not go away is the most common sign of lung cancer.\n\n"
            "Signs of cancer.\n\nSmoking causes most lung cancers.", doc_id="lung", title="Lung cancer"),
        hit("skin#s0", "A mole that changes shape may be a sign of melanoma.", doc_id="skin", title="Skin cancer"),
    ]
    return NumberedContext(NumberedContext.Params(), None).build(Query("q"), hits)


def quoted(generation_text: str) -> tuple[str, list[tuple[str, int]]]:
    notice, _, body = generation_text.partition("\n")
    pairs = [(sentence, int(number)) for sentence, number in MARKED.findall(body)]
    assert " ".join(f"{s} [{n}]" for s, n in pairs) == body  # nothing outside a marked sentence
    return notice, pairs


@pytest.fixture
def generator(pipeline) -> ExtractiveGenerator:
    return pipeline.build(pipeline.config.one("generator"))


def test_every_quoted_sentence_is_cited_and_comes_from_its_evidence(generator):
    context = generator_context()
    generation = generator.generate(Query("What are the signs of pancreatic cancer?"), context)
    notice, pairs = quoted(generation.text)
    assert pairs
    for sentence, number in pairs:
        evidence = context.by_number(number)
        assert evidence is not None
        assert sentence in normalise(evidence.text)
    assert pairs[0] == ("Jaundice is a common early sign of pancreatic cancer.", 1)


def test_extractive_notice_and_model(generator):
    context = generator_context()
    english = generator.generate(Query("What are the signs of pancreatic cancer?"), context)
    assert english.text.split("\n")[0] == NOTICES["en"]
    assert "extracted" in NOTICES["en"].lower()
    assert "no LLM" in english.model
    korean = generator.generate(Query("췌장암의 증상은 무엇인가요? jaundice sign"), context)
    assert korean.text.split("\n")[0] == NOTICES["ko"]
    assert "발췌" in NOTICES["ko"]
    japanese = generator.generate(Query("膵臓がんの症状は？ jaundice"), context)
    assert japanese.text.split("\n")[0] == NOTICES["ja"]


def test_max_sentences_is_respected(pipeline):
    context = generator_context()
    question = Query("What signs and symptoms can cancer cause?")
    assert len(quoted(pipeline.build(pipeline.config.one("generator")).generate(question, context).text)[1]) == 2
    one = ExtractiveGenerator(ExtractiveGenerator.Params(max_sentences=1), stand_in_ctx(Path(".")))
    assert len(quoted(one.generate(question, context).text)[1]) == 1
    many = ExtractiveGenerator(ExtractiveGenerator.Params(max_sentences=10), stand_in_ctx(Path(".")))
    pairs = quoted(many.generate(question, context).text)[1]
    assert 2 < len(pairs) <= 10
    assert [n for _, n in pairs] == sorted(n for _, n in pairs)  # quoted in evidence order


def test_headings_and_short_fragments_are_not_quoted(pipeline):
    many = ExtractiveGenerator(ExtractiveGenerator.Params(max_sentences=10), stand_in_ctx(Path(".")))
    text = many.generate(Query("What are the signs and symptoms of cancer?"), generator_context()).text
    _, pairs = quoted(text)
    sentences = [s for s, _ in pairs]
    assert "Signs of cancer." not in sentences  # shorter than min_sentence_chars
    assert all(len(s) >= 20 for s in sentences)
    assert "###" not in text
    assert "A cough that will not go away is the most common sign of lung cancer." in sentences


def test_question_without_shared_terms_quotes_the_top_lead(generator):
    generation = generator.generate(Query("zzz qqq"), generator_context())
    _, pairs = quoted(generation.text)
    assert pairs == [("Jaundice is a common early sign of pancreatic cancer.", 1)]


def test_the_answer_is_quoted_from_the_language_of_the_best_ranked_passage(generator):
    """A Korean question whose ranking put an English staging page above the Korean overview (its
    language has no staging page) is answered from the English page, not from the Korean page's words."""
    hits = [
        hit("liver-staging-en#s0", "Liver cancer is staged from I to IV by the size of the tumour and its spread.",
            doc_id="liver-staging-en", title="Liver cancer: staging", lang="en"),
        hit("liver-overview-ko#s0", "간암은 간에 생기는 암입니다. 간암은 간 기능을 떨어뜨릴 수 있습니다.",
            doc_id="liver-overview-ko", title="간암: 개요", lang="ko"),
    ]
    context = NumberedContext(NumberedContext.Params(), None).build(Query("q"), hits)
    _, body = generator.generate(Query("간암은 몇 기까지 있나요?"), context).text.split("\n", 1)
    assert "[1]" in body and "[2]" not in body and "간암은" not in body
    korean_first = NumberedContext(NumberedContext.Params(), None).build(Query("q"), hits[::-1])
    text = generator.generate(Query("간암은 몇 기까지 있나요?"), korean_first).text
    assert "간암은" in text and "staged" not in text


def test_a_passage_in_another_language_is_quoted_where_it_names_what_the_question_asks(generator):
    """Words cannot match across languages; the things the shared lexicon reads can: "局所進行" and
    "locally advanced", "手術" and "surgery". Without them the passage's lead would be quoted."""
    text = ("Pancreatic cancer is often grouped by whether it can be removed. "
            "Resectable pancreatic cancer has not grown into major blood vessels. "
            "Locally advanced pancreatic cancer has grown around major vessels, so surgery is not possible. "
            "Metastatic, or stage IV, pancreatic cancer has spread to the liver or the lungs.")
    hits = [hit("panc-staging-en#s0", text, doc_id="panc-staging-en", title="Pancreatic cancer: staging", lang="en")]
    context = NumberedContext(NumberedContext.Params(), None).build(Query("q"), hits)

    def quoted_across(question: str) -> list[str]:  # below the notice and the line saying the sources' language
        notice, language_note, body = generator.generate(Query(question), context).text.split("\n", 2)
        return [sentence for sentence, _ in quoted(f"{notice}\n{body}")[1]]

    assert quoted_across("局所進行膵がんと言われました。手術はできないってことですか？")[0].startswith(
        "Locally advanced pancreatic cancer")
    assert quoted_across("胰臟癌第四期會轉移到哪裡？") == [
        "Metastatic, or stage IV, pancreatic cancer has spread to the liver or the lungs."]


def test_empty_context_gives_empty_text(generator):
    generation = generator.generate(Query("What is cancer?"), Context((), ""))
    assert generation.text == "" and "no LLM" in generation.model


def test_extractive_answer_end_to_end(tmp_path, basic_host):
    answer = run_pipeline(PIPELINE_YAML, "Which test finds stomach cancer?", tmp_path, basic_host)
    assert not answer.refused
    assert answer.generator and answer.text.startswith(NOTICES["en"])
    assert answer.citations and answer.citations[0].doc_id == "gastric"
    assert "Endoscopy is the main test for stomach cancer." in answer.text
    refused = run_pipeline(PIPELINE_YAML, "Is elbow cancer painful?", tmp_path / "b", basic_host)
    assert refused.refused and refused.refusal_reason == "off_topic"


# -- AnswerBasics ----------------------------------------------------------------------------------


def citation(number: int, doc_id: str) -> Citation:
    return Citation(number=number, doc_id=doc_id, node_id=f"{doc_id}#0", score=1.0, text="t")


def test_answer_basics_counts():
    answer = Answer(
        question="q",
        text="Jaundice is a sign [1]. Weight loss is another [2]. Smoking causes lung cancer [3].",
        citations=[citation(1, "panc"), citation(2, "panc"), citation(3, "lung")],
        trace=Trace(config_hash="h"),
    )
    values = AnswerBasics(None, None).compute({"question": "q"}, answer)
    assert values == {"refused": 0.0, "citations": 3.0, "cited_documents": 2.0,
                      "answer_sentences": float(len(split_sentences(answer.text)))}
    assert values["answer_sentences"] == 3.0


def test_answer_basics_refused():
    answer = Answer(question="q", text="Insufficient evidence. Try again.", refused=True,
                    refusal_reason="no_evidence", trace=Trace(config_hash="h"))
    assert AnswerBasics(None, None).compute({}, answer) == {
        "refused": 1.0, "citations": 0.0, "cited_documents": 0.0, "answer_sentences": 0.0,
    }


def test_evidence_type_is_what_the_context_holds():
    context = generator_context()
    assert all(isinstance(e, Evidence) for e in context.evidence)


def test_the_extractive_generator_quotes_a_lead_in_with_its_list_items_one_per_line():
    from criss_rag.language.text import split_sentences
    from criss_rag_basic.extractive import quoted_body, with_their_lists

    units = {1: split_sentences("Liver cancer may cause:\n- pain under the right ribs\n- yellow skin and eyes\n"
                                "See a doctor if these last.")}
    quotes = with_their_lists([(1, 0, "Liver cancer may cause:")], units)
    assert quotes == [(1, "Liver cancer may cause:"), (1, "pain under the right ribs"), (1, "yellow skin and eyes")]
    body = quoted_body([*quotes, (2, "It is often found late.")])
    assert body == ("Liver cancer may cause: [1]\n- pain under the right ribs [1]\n- yellow skin and eyes [1]\n"
                    "It is often found late. [2]")
    assert split_sentences(body) == ["Liver cancer may cause: [1]", "pain under the right ribs [1]",
                                     "yellow skin and eyes [1]", "It is often found late.", "[2]"]
    # Korean and Japanese lists and prose without a list are quoted as before
    ko = {1: split_sentences("다음과 같은 증상이 있습니다:\n- 오른쪽 윗배의 통증\n- 황달\n진료를 받으세요.")}
    assert [q for _, q in with_their_lists([(1, 0, "다음과 같은 증상이 있습니다:")], ko)] == [
        "다음과 같은 증상이 있습니다:", "오른쪽 윗배의 통증", "황달"]
    assert quoted_body([(1, "胃がんは早期には症状がありません。"), (1, "検診が大切です。")]) == \
        "胃がんは早期には症状がありません。 [1] 検診が大切です。 [1]"
