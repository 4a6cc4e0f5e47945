"""The registry plugin: diagnosis-year detection and filtering with accounting, open ranges, staging
versions, edition recency (and the open-ended-system trap), ICD-O-3 code ranges, corpus checks, and
a YAML pipeline end to end. Uses only tests/fixtures/registry_notes.jsonl (the team's own notes in
the registry data's shape): ../shared is not needed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from llama_index.core.schema import NodeWithScore

from criss_rag.config import load_pipeline_config
from criss_rag.context import ComponentContext
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError, DataError
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml
from criss_rag.types import FilterOutcome, Hit, Query, text_node
from criss_rag_registry.codes import ancestors, blocks
from criss_rag_registry.loader import flatten_metadata
from criss_rag_registry.years import YearRange, YearRangeReader, YearRule, find_years

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = Path(__file__).parent / "fixtures" / "registry_notes.jsonl"
CODES = {"name": "registry-codes", "base": "standard"}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture
def ctx(tmp_path, host) -> ComponentContext:
    minimal = "name: t\nloader: {name: jsonl, path: x.jsonl}\nchunker: whole-document\nretrievers: [bm25]\n" \
              "context: numbered\ngenerator: extractive\n"
    return ComponentContext(pipeline_from_yaml(minimal, tmp_path, host), "test")


def build(host: PluginHost, ctx: ComponentContext, kind: str, name: str, **params):
    spec = host.registry.get(kind, name, where="test")
    return spec.factory(spec.params_model.model_validate(params), ctx)


def fixture_records() -> list[dict]:
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]


def fixture_hits() -> list[Hit]:
    """The fixture notes as candidates (metadata flattened the way registry-jsonl stores it), in
    file order with falling scores."""
    hits = []
    for i, record in enumerate(fixture_records()):
        record = dict(record)
        doc_id, text = record.pop("doc_id"), record.pop("text")
        node = text_node(doc_id, text, **flatten_metadata(record, ", "))
        hits.append(Hit(NodeWithScore(node=node, score=10.0 - i), {"bm25": 10.0 - i}))
    return hits


def hit(doc_id: str, score: float, **metadata) -> Hit:
    return Hit(NodeWithScore(node=text_node(doc_id, doc_id, **metadata), score=score), {"bm25": score})


def ids(hits) -> list[str]:
    return [h.doc_id for h in (hits.hits if isinstance(hits, FilterOutcome) else hits)]


# -- year detection ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("Which schema for a C340 tumor diagnosed in 2019?", [2019]),
        ("dx 2019, site C509", [2019]),
        ("For a 2019 diagnosis, which EOD version applies?", [2019]),
        ("Year of diagnosis: 2021. Which note applies?", [2021]),
        ("diagnosed on 03/15/2019 with a lung mass", [2019]),
        ("2019년 진단된 폐암 환자의 병기는?", [2019]),
        ("2019년에 진단된 환자", [2019]),
        ("진단 연도 2020인 경우", [2020]),
        ("2019年に診断された肺がんのスキーマは?", [2019]),
        ("2019年診断の症例", [2019]),
        ("診断年：２０２２年の症例", [2022]),  # full-width digits and colon
        ("Which is the earliest version with the schema Lung [V9: 2025+]?", []),  # a year without a cue
        ("cases diagnosed 2018 and later", []),  # a range, not one year
        ("diagnosed 2018-2020", []),
        ("diagnosed in 2017, recurrence dx 2019", [2017, 2019]),
    ],
)
def test_diagnosis_years_are_found_in_english_korean_and_japanese(text, years):
    assert find_years(text) == years


def test_bare_years_only_when_asked():
    assert find_years("C340 in 2019: which schema?") == []
    assert find_years("C340 in 2019: which schema?", bare_years=True) == [2019]
    assert find_years("Lung [V9: 2025+] in 2019", bare_years=True) == [2019]  # "2025+" is a range


def test_transform_puts_the_year_into_filters_and_the_request_wins(host, ctx):
    transform = build(host, ctx, "query_transform", "diagnosis-year")
    query = Query("Which schema for a tumor diagnosed in 2019?", filters={"lang": "en"})
    out = transform.transform(query)
    assert out is not query and query.filters == {"lang": "en"}  # a new Query; the old one is untouched
    assert out.filters == {"lang": "en", "diagnosis_year": 2019, "diagnosis_year_source": "question"}
    assert out.text == query.text and out.retrieval_text == ""
    requested = transform.transform(replace(query, filters={"diagnosis_year": "2016"}))
    assert requested.filters == {"diagnosis_year": 2016, "diagnosis_year_source": "request"}
    assert transform.transform(Query("What is EOD?")) == Query("What is EOD?")
    with pytest.raises(DataError, match="--filter diagnosis_year=2019"):
        transform.transform(Query("x", filters={"diagnosis_year": "last year"}))


def test_several_years_are_ambiguous_unless_configured(host, ctx):
    question = Query("diagnosed in 2017, recurrence dx 2019: which schema?")
    ambiguous = build(host, ctx, "query_transform", "diagnosis-year").transform(question)
    assert "diagnosis_year" not in ambiguous.filters
    assert ambiguous.filters["diagnosis_year_candidates"] == [2017, 2019]
    latest = build(host, ctx, "query_transform", "diagnosis-year", on_multiple="latest").transform(question)
    assert latest.filters["diagnosis_year"] == 2019
    first = build(host, ctx, "query_transform", "diagnosis-year", on_multiple="first").transform(question)
    assert first.filters["diagnosis_year"] == 2017
    outcome = build(host, ctx, "filter", "diagnosis-year").apply(ambiguous, fixture_hits())
    assert not outcome.applied and len(outcome.hits) == len(fixture_hits())
    assert "several diagnosis years (2017, 2019)" in outcome.note


# -- year ranges -------------------------------------------------------------------------------


def test_year_ranges_are_read_in_every_shape_and_open_ranges_have_no_upper_bound():
    reader = YearRangeReader("applicable_years")
    assert reader.read({"applicable_years": {"from": 2018, "to": 2024}}) == YearRange(2018, 2024)
    open_range = reader.read({"applicable_years": {"from": 2004, "to": None}})
    assert open_range == YearRange(2004, None) and open_range.open and str(open_range) == "2004+"
    assert open_range.contains(2004) and open_range.contains(2100) and not open_range.contains(2003)
    assert reader.read({"applicable_years_from": 2025, "applicable_years_to": None}) == YearRange(2025, None)
    assert reader.read({"applicable_years": {"from": 2023, "to": 9998}}) == YearRange(2023, None)  # sentinel
    assert reader.read({"applicable_years": "2018-2020"}) == YearRange(2018, 2020)
    assert reader.read({"applicable_years": "2021+"}) == YearRange(2021, None)
    assert reader.read({"applicable_years": "2017"}) == YearRange(2017, 2017)
    assert reader.read({"title": "no range"}) is None
    with pytest.raises(DataError, match="ends \\(2017\\) before it starts"):
        reader.read({"doc_id": "x", "applicable_years": {"from": 2018, "to": 2017}})
    with pytest.raises(DataError, match="both must be years"):
        reader.read({"doc_id": "x", "applicable_years": {"from": "soon", "to": None}})


def test_ranges_configured_per_document_or_version():
    rules = [YearRule(where={"algorithm": "cs"}, from_year=2004, to_year=2015),
             YearRule(where={"doc_id": "eod_public:*"}, from_year=2018)]
    cs = {"doc_id": "cs:1:x", "algorithm": "cs", "applicable_years_from": 2004, "applicable_years_to": None}
    assert YearRangeReader("applicable_years", rules).read(cs) == YearRange(2004, None)  # metadata first
    assert YearRangeReader("applicable_years", rules, prefer="ranges").read(cs) == YearRange(2004, 2015)
    assert YearRangeReader("applicable_years", rules).read({"doc_id": "eod_public:3.3:x"}) == YearRange(2018, None)
    assert YearRangeReader("applicable_years", rules).read({"doc_id": "tnm:2.1:x"}) is None
    with pytest.raises(ValueError, match="before from_year"):
        YearRule(where={"algorithm": "cs"}, from_year=2015, to_year=2004)


# -- the diagnosis-year filter -----------------------------------------------------------------


def test_filter_keeps_chunks_whose_range_contains_the_year_and_says_why_others_went(host, ctx):
    year_filter = build(host, ctx, "filter", "diagnosis-year")
    query = Query("q", filters={"diagnosis_year": 2025, "diagnosis_year_source": "question"})
    hits = fixture_hits() + [hit("no-range-note", 0.5)]
    outcome = year_filter.apply(query, hits)
    assert isinstance(outcome, FilterOutcome) and outcome.applied
    assert ids(outcome) == [
        "cs:02.05.50:schema:gland:selection",  # CS: 2004 with no upper bound, so 2025 is inside
        "eod_public:1.0:schema:gland:selection",
        "eod_public:2.0:schema:gland_v9_2024:selection",
        "eod_public:2.0:schema:gland_v9_2024:notes:01",
        "eod_public:2.0:schema:colon:selection",
        "eod_public:2.0:schema:lip:selection",
        "cs:02.05.50:table:nodes_general:notes:01",
    ]
    assert outcome.removed == {"range excludes 2025": 3, "no year range": 1}
    assert len(outcome.hits) + sum(outcome.removed.values()) == len(hits)
    assert outcome.note == "diagnosis year 2025 (from the question): kept 7 of 11 candidates"
    assert all(h.signals == {"bm25": h.score} for h in outcome.hits)  # signals kept as they were


def test_filter_for_2016_keeps_the_closed_tnm_range_and_can_keep_unranged_chunks(host, ctx):
    query = Query("q", filters={"diagnosis_year": 2016})
    outcome = build(host, ctx, "filter", "diagnosis-year", unranged="keep").apply(
        query, [*fixture_hits(), hit("n", 0.1)]
    )
    kept = ids(outcome)
    assert "tnm:2.1:schema:gland:selection" in kept and "n" in kept
    assert not any(doc.startswith("eod_public") for doc in kept)
    assert outcome.removed == {"range excludes 2016": 7}
    assert "from the request" in outcome.note and "1 of them without a year range" in outcome.note


def test_filter_passes_through_with_a_note_when_no_year_is_known(host, ctx):
    outcome = build(host, ctx, "filter", "diagnosis-year").apply(Query("which schema?"), fixture_hits())
    assert not outcome.applied and outcome.removed == {} and ids(outcome) == ids(fixture_hits())
    assert outcome.note.startswith("no diagnosis year in the request or the question: nothing filtered")


def test_filter_uses_configured_ranges_when_metadata_has_none(host, ctx):
    year_filter = build(host, ctx, "filter", "diagnosis-year",
                        ranges=[{"where": {"algorithm": "cs"}, "from_year": 2004, "to_year": 2015}])
    bare = [hit("cs-note", 2.0, algorithm="cs"), hit("eod-note", 1.0, algorithm="eod_public")]
    outcome = year_filter.apply(Query("q", filters={"diagnosis_year": 2010}), bare)
    assert ids(outcome) == ["cs-note"] and outcome.removed == {"no year range": 1}
    assert ids(year_filter.apply(Query("q", filters={"diagnosis_year": 2019}), bare)) == []


def test_corpus_check_strict_error_and_lenient_warning(host, ctx):
    with_ranges = [h.node.node for h in fixture_hits()]
    without = [text_node("plain-1", "a note"), text_node("plain-2", "another")]
    strict = build(host, ctx, "filter", "diagnosis-year")
    assert strict.check_corpus(with_ranges) is None
    with pytest.raises(ConfigError, match="2 of 12 chunks carry no diagnosis-year range.*registry-jsonl"):
        strict.check_corpus(with_ranges + without)
    lenient = build(host, ctx, "filter", "diagnosis-year", corpus_check="lenient")
    warning = lenient.check_corpus(with_ranges + without)
    assert "2 of 12 chunks" in warning and warning.endswith("they are dropped whenever a year is known")
    broken = [text_node("bad", "x", applicable_years="next year")]
    with pytest.raises(DataError, match="malformed year range"):
        strict.check_corpus(broken)
    assert "malformed" in lenient.check_corpus(broken)
    version_filter = build(host, ctx, "filter", "staging-version")
    assert version_filter.check_corpus(with_ranges) is None
    with pytest.raises(ConfigError, match="lack metadata `algorithm` or `version`"):
        version_filter.check_corpus(without)
    recency = build(host, ctx, "reranker", "edition-recency", corpus_check="lenient")
    assert "2 of 2 chunks lack metadata" in recency.check_corpus(without)


# -- staging system and version ----------------------------------------------------------------


def test_staging_version_transform_and_filter(host, ctx):
    transform = build(host, ctx, "query_transform", "staging-version")
    version_filter = build(host, ctx, "filter", "staging-version")
    named = transform.transform(Query("Under Extent of Disease (eod_public version 2.0), which schema applies?"))
    assert named.filters == {"staging_system": "eod_public", "staging_version": "2.0"}
    outcome = version_filter.apply(named, fixture_hits())
    assert outcome.applied and all(doc.startswith("eod_public:2.0:") for doc in ids(outcome))
    assert outcome.removed == {"other system (not eod_public)": 3, "other version (not 2.0)": 1}
    several = transform.transform(Query('Among the EOD versions 1.0, 2.0, which first contains "Gland [V9: 2024+]"?'))
    assert several.filters == {"staging_system": "eod_public", "staging_version_candidates": ["1.0", "2.0"]}
    assert ids(version_filter.apply(several, fixture_hits())) == [d for d in ids(fixture_hits()) if d.startswith("eod")]
    assert transform.transform(Query("What does Note 1 say?")).filters == {}  # "V9", "Note 1" are not versions
    passed = version_filter.apply(Query("q", filters={"staging_version_candidates": ["1.0", "2.0"]}), fixture_hits())
    assert not passed.applied and "several named: staging_version: 1.0, 2.0" in passed.note
    cs = version_filter.apply(Query("q", filters={"staging_system": "cs", "staging_version": "2.5.50"}), fixture_hits())
    assert ids(cs) == [
        "cs:02.05.50:schema:gland:selection",
        "cs:02.05.50:table:nodes_general:notes:01",
    ]  # 02.05.50 == 2.5.50


# -- edition recency ---------------------------------------------------------------------------


def _versions(hits):
    return [h.metadata["version"] for h in hits if h.metadata.get("schema_id") == "gland"]


def test_recency_prefers_the_newest_version_of_the_same_item_and_the_earliest_when_asked(host, ctx):
    recency = build(host, ctx, "reranker", "edition-recency")
    old_first = [hit("eod_public:1.0:schema:gland:selection", 9.0, algorithm="eod_public", version="1.0",
                     section="schema_selection", schema_id="gland", title="EOD 1.0 | Gland"),
                 hit("other", 5.0, algorithm="eod_public", version="2.0", section="schema_notes", schema_id="lip"),
                 hit("eod_public:2.0:schema:gland:selection", 3.0, algorithm="eod_public", version="2.0",
                     section="schema_selection", schema_id="gland", title="EOD 2.0 | Gland [8th: 2018-2023]")]
    newest = recency.rerank(Query("which schema applies?"), old_first)
    assert ids(newest) == ["eod_public:2.0:schema:gland:selection", "other", "eod_public:1.0:schema:gland:selection"]
    # the group's positions and scores, the others unmoved; the older version is also demoted (x 0.5)
    assert [h.score for h in newest] == [9.0, 5.0, 1.5]
    assert newest[0].signals == {"bm25": 3.0, "edition-recency": 9.0}
    earliest = recency.rerank(Query("Which is the earliest version that contains the Gland schema?"), newest)
    assert ids(earliest)[0] == "eod_public:1.0:schema:gland:selection"
    assert ids(recency.rerank(Query("가장 이른 버전은?"), newest))[0] == "eod_public:1.0:schema:gland:selection"
    assert ids(recency.rerank(Query("q", filters={"edition_order": "earliest"}), newest))[0].startswith(
        "eod_public:1.0"
    )


def test_recency_trap_an_open_ended_old_system_does_not_win_a_new_year(host, ctx):
    """CS applies from 2004 with no upper bound, so a 2019 case passes the year filter for CS and
    EOD alike: the year alone does not pick the system. EOD started later (2018), so for 2019 it is
    the newer edition and CS is demoted; for 2010 only CS applies; for 2016 TNM (2016-2017) is newer
    than CS; a requested system is never overridden."""
    recency = build(host, ctx, "reranker", "edition-recency")
    year_filter = build(host, ctx, "filter", "diagnosis-year")

    def top(year: int, **filters) -> list[str]:
        query = Query("which schema applies?", filters={"diagnosis_year": year, **filters})
        return ids(recency.rerank(query, year_filter.apply(query, fixture_hits()).hits))

    assert "cs:02.05.50:schema:gland:selection" in top(2019)  # the filter alone keeps CS ...
    assert top(2019)[0] == "eod_public:2.0:schema:gland:selection"  # ... the reranker prefers EOD
    query = Query("which schema applies?", filters={"diagnosis_year": 2019})
    cs = next(
        h for h in recency.rerank(query, year_filter.apply(query, fixture_hits()).hits) if h.doc_id.startswith("cs:")
    )
    assert cs.score == pytest.approx(cs.signals["bm25"] * 0.5)  # demoted once: an older system for 2019
    assert top(2010)[0] == "cs:02.05.50:schema:gland:selection"
    assert top(2016)[0] == "tnm:2.1:schema:gland:selection"
    assert top(2019, staging_system="cs")[0] == "cs:02.05.50:schema:gland:selection"
    assert top(2025)[0] == "eod_public:2.0:schema:gland_v9_2024:selection"
    no_year = recency.rerank(Query("which schema applies?"), fixture_hits())
    assert ids(no_year)[0] == "cs:02.05.50:schema:gland:selection"  # no year: systems are not ranked
    off = build(host, ctx, "reranker", "edition-recency", superseded_weight=1)
    query = Query("q", filters={"diagnosis_year": 2019})
    assert ids(off.rerank(query, year_filter.apply(query, fixture_hits()).hits))[0].startswith("cs:")


def test_recency_demotes_versions_whose_range_excludes_the_year_without_a_filter(host, ctx):
    recency = build(host, ctx, "reranker", "edition-recency")
    ranked = recency.rerank(Query("q", filters={"diagnosis_year": 2025}), fixture_hits())
    top = ids(ranked)
    assert top.index("eod_public:2.0:schema:gland_v9_2024:selection") < top.index(
        "eod_public:2.0:schema:gland:selection"
    )
    assert ranked[-1].score < ranked[0].score and all("edition-recency" in h.signals for h in ranked)


# -- code ranges -------------------------------------------------------------------------------


def test_range_blocks_are_exact_covers():
    assert blocks(70, 79, 3) == ["07*"]
    assert blocks(80, 81, 3) == ["080", "081"]
    assert blocks(8000, 8576, 4)[:6] == ["80**", "81**", "82**", "83**", "84**", "850*"]
    assert blocks(8000, 8576, 4)[-1] == "8576" and len(blocks(8000, 8576, 4)) == 19
    assert ancestors(79, 3) == ["079", "07*", "0**"]
    assert ancestors(8041, 4) == ["8041", "804*", "80**", "8***"]
    for lo, hi in [(70, 79), (3, 118), (8000, 8576), (8941, 9999)]:
        width = 3 if hi < 1000 else 4
        covered = set()
        for block in blocks(lo, hi, width):
            stars = block.count("*")
            start = int(block.replace("*", "0"))
            covered |= set(range(start, start + 10**stars))
        assert covered == set(range(lo, hi + 1))


def _matches(analyzer, transform, question: str, note: str) -> set[str]:
    query = transform.transform(Query(question))
    return {t for t in analyzer.analyze(query.search_text) if t.startswith(("site_", "hist_"))} & set(
        analyzer.analyze(note)
    )


def test_a_code_inside_a_listed_range_matches_and_a_code_outside_does_not(host, ctx):
    analyzer = ctx.analyzer(CODES)
    transform = build(host, ctx, "query_transform", "registry-codes", analyzer=CODES)
    note = "Primary Site: C070-C079, C080-C081; Histology: 8000-8576, 8940-8941; Year of Diagnosis: 2018-2023"
    assert _matches(analyzer, transform, "primary site C079", note) == {"site_c07x"}
    assert _matches(analyzer, transform, "histology 8041", note) == {"hist_80xx"}
    assert _matches(analyzer, transform, "site C07.5, histology 8941/3", note) == {"site_c07x", "hist_8941"}
    assert _matches(analyzer, transform, "primary site C082", note) == set()  # outside C080-C081
    assert _matches(analyzer, transform, "histology 8600", note) == set()  # outside 8000-8576
    # a note that lists the single code C071 is not a match for C079 (no shared decade block)
    assert _matches(analyzer, transform, "primary site C079", "Primary Site: C071; Histology: 8600") == set()
    # years are not histology codes, and the data's 9998/9999 sentinels are not either
    assert not [t for t in analyzer.analyze("Year of Diagnosis: 2018-2023, 2025-9998, 9999") if t.startswith("hist_")]
    assert analyzer.analyze("Tumor in C50._ or C50x") == ["tumor", "site_c50x"]  # once per text
    assert ctx.analyzer({**CODES, "once": False}).analyze("C50._ or C50x") == ["site_c50x", "site_c50x"]


def test_transform_adds_the_enclosing_blocks_and_keeps_the_question(host, ctx):
    transform = build(host, ctx, "query_transform", "registry-codes", analyzer=CODES)
    query = Query("Which schema for C079 with histology 8041 diagnosed in 2019?")
    out = transform.transform(query)
    assert out.text == query.text
    assert out.retrieval_text == query.text + " C07* C0** 804* 80** 8***"
    two = transform.transform(Query("C079 or C071?"))  # shared blocks are added once
    assert two.retrieval_text == "C079 or C071? C07* C0**"
    assert transform.transform(Query("no codes here")) == Query("no codes here")
    with pytest.raises(ConfigError, match="does not read registry codes"):
        build(host, ctx, "query_transform", "registry-codes", analyzer="standard")


def test_code_coverage_wants_site_and_histology_on_one_row_in_a_row_year(host, ctx):
    coverage = build(host, ctx, "reranker", "code-coverage", analyzer=CODES, weight=4)
    lip = next(h for h in fixture_hits() if h.doc_id == "eod_public:2.0:schema:lip:selection")
    gland = next(h for h in fixture_hits() if h.doc_id == "eod_public:2.0:schema:gland:selection")
    codes = [("site", 71), ("hist", 8600)]
    assert coverage.coverage(codes, gland.text) == 0.5  # C071 is inside C070-C079, 8600 is not in 8000-8576
    assert coverage.coverage(codes, lip.text) == 0.5  # row 1 has C071 (not 8600); row 2 has 8600 (not C071)
    assert coverage.coverage([("site", 5), ("hist", 8600)], lip.text, 2019) == 1.0
    assert coverage.coverage([("site", 5), ("hist", 8600)], lip.text, 2021) == 0.0  # that row is 2018-2020
    ranked = coverage.rerank(Query("site C075, histology 8041, diagnosed in 2019", filters={"diagnosis_year": 2019}),
                             [lip, gland])
    assert ids(ranked) == [gland.doc_id, lip.doc_id]
    assert ranked[0].signals["code-coverage"] == pytest.approx(gland.score * 4)
    assert coverage.rerank(Query("no codes"), [lip, gland]) == [lip, gland]


# -- loader, whole pipeline --------------------------------------------------------------------


def test_registry_jsonl_flattens_what_jsonl_drops():
    flat = flatten_metadata({"applicable_years": {"from": 2018, "to": None}, "schema_ids": ["a", "b"],
                             "nested": {"deep": {"x": 1}}, "n": 3}, ", ")
    assert flat == {"applicable_years_from": 2018, "applicable_years_to": None, "schema_ids": "a, b", "n": 3}
    assert "schema_ids" not in flatten_metadata({"schema_ids": ["a"]}, None)


def registry_yaml(loader: str = "registry-jsonl", year_check: str = "strict") -> str:
    return f"""
name: registry-test
index: {{dir: index}}
loader: {{name: {loader}, path: {FIXTURE}}}
chunker: whole-document
query_transforms:
  - diagnosis-year
  - staging-version
  - {{name: registry-codes, analyzer: {{name: registry-codes, base: standard}}}}
retrievers:
  - {{name: bm25, analyzer: {{name: registry-codes, base: standard}}, k1: 0.9, b: 0.3, top_k: 20}}
filters:
  - {{name: diagnosis-year, corpus_check: {year_check}}}
  - staging-version
rerankers:
  - {{name: code-coverage, analyzer: {{name: registry-codes, base: standard}}}}
  - edition-recency
context: {{name: numbered, max_evidence: 3, max_per_document: 1}}
generator: extractive
"""


def test_pipeline_from_yaml_retrieves_the_note_for_the_diagnosis_year(tmp_path, host):
    pipeline = pipeline_from_yaml(registry_yaml(), tmp_path, host)
    ingest(pipeline)
    engine = Engine.open(pipeline)
    question = "Which schema applies to a salivary gland tumor, primary site C075 and histology 8041, diagnosed in {}?"

    def top(text: str, **filters) -> str:
        return engine.retrieve(Query(text, filters=filters))[0].doc_id

    assert top(question.format(2019)) == "eod_public:2.0:schema:gland:selection"
    assert top(question.format(2025)) == "eod_public:2.0:schema:gland_v9_2024:selection"
    assert top(question.format(2016)) == "tnm:2.1:schema:gland:selection"
    assert top(question.format(2010)) == "cs:02.05.50:schema:gland:selection"
    assert top("2025년에 진단된 C075 8041 종양의 스키마는?") == "eod_public:2.0:schema:gland_v9_2024:selection"
    assert top("2019年に診断されたC075 8041の腫瘍のスキーマは?") == "eod_public:2.0:schema:gland:selection"
    assert top(question.format(2019), diagnosis_year=2024) == "eod_public:2.0:schema:gland_v9_2024:selection"
    assert top(question.format(2019) + " (EOD version 1.0)") == "eod_public:1.0:schema:gland:selection"

    late = engine.ask(question.format(2025))
    assert not late.refused and "eod_public:2.0:schema:gland_v9_2024:selection" in {c.doc_id for c in late.citations}
    stage = late.trace.stage("filter:diagnosis-year")
    assert stage.notes["applied"] is True and stage.notes["removed"]["range excludes 2025"] >= 2
    assert stage.notes["kept"] == stage.n_out and stage.n_in == stage.n_out + sum(stage.notes["removed"].values())
    assert late.trace.stage("transform:registry-codes").notes["retrieval_text"].endswith("C07* C0** 804* 80** 8***")
    version = late.trace.stage("filter:staging-version")
    assert version.notes["applied"] is False and "nothing filtered" in version.notes["note"]
    asked = engine.ask(question.format(2019), filters={"diagnosis_year": 2024})  # the request wins
    assert "diagnosis year 2024 (from the request)" in asked.trace.stage("filter:diagnosis-year").notes["note"]


def test_plain_jsonl_loses_the_year_range_strict_fails_at_ingest_lenient_warns(tmp_path, host):
    with pytest.raises(ConfigError, match="10 of 10 chunks carry no diagnosis-year range.*registry-jsonl"):
        ingest(pipeline_from_yaml(registry_yaml(loader="jsonl"), tmp_path / "strict", host))
    pipeline = pipeline_from_yaml(registry_yaml(loader="jsonl", year_check="lenient"), tmp_path / "lenient", host)
    ingest(pipeline)
    answer = Engine.open(pipeline).ask("Which schema for C075 diagnosed in 2019?")
    notes = answer.trace.stage("filter:diagnosis-year").notes
    assert "10 of 10 chunks carry no diagnosis-year range" in notes["corpus_warning"]
    assert notes["removed"] == {"no year range": answer.trace.stage("filter:diagnosis-year").n_in}
    assert answer.refused and answer.refusal_reason == "no_evidence"  # nothing known to apply to 2019


def test_example_registry_yaml_validates_without_the_data(host):
    config = load_pipeline_config(ROOT / "examples" / "registry.yaml", host.registry)
    names = {(cc.spec.kind, cc.name) for cc in config.all_components()}
    assert {("loader", "registry-jsonl"), ("query_transform", "diagnosis-year"), ("filter", "diagnosis-year"),
            ("filter", "staging-version"), ("reranker", "edition-recency"), ("reranker", "code-coverage"),
            ("query_transform", "registry-codes")} <= names
    assert config.one("loader").params.path == "../../shared/data/registry/staging_corpus.jsonl"


@pytest.mark.parametrize(
    ("kind", "name", "params"),
    [("filter", "diagnosis-year", {"unranged": "sometimes"}), ("filter", "diagnosis-year", {"fields": "x"}),
     ("reranker", "edition-recency", {"superseded_weight": 0}),
     ("analyzer", "registry-codes", {"histology_min": 9000, "histology_max": 8000}),
     ("query_transform", "staging-version", {"systems": {"cs": [" "]}})],
)
def test_bad_params_are_rejected(host, kind, name, params):
    with pytest.raises(ValueError):
        host.registry.get(kind, name).params_model.model_validate(params)
