"""End to end, offline: the default pipeline (BM25 + FAISS/multilingual-e5 for every language + RRF +
refusal policy + extractive generator) on the bundled example corpus, its question set and the team's Korean
and Japanese question sets (examples/eval/)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Query

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


QUESTIONS = read_jsonl(EXAMPLES / "questions.jsonl")
# the team's Korean and Japanese dev questions (one per document of each language; the held-out
# part is for docs/benchmarks.md, measured once, never tuned on) and their out-of-scope questions
CJK_DEV = [
    q for lang in ("ko", "ja") for q in read_jsonl(EXAMPLES / "eval" / f"{lang}_dev.jsonl") if q["qid"].endswith("-2")
]
CJK_OUT_OF_SCOPE = [
    q for lang in ("ko", "ja") for q in read_jsonl(EXAMPLES / "eval" / f"{lang}_out_of_scope_dev.jsonl")
]
CANCER_IDS = {"liver": "1", "colorectal": "2", "gastric": "3", "breast": "4", "pancreatic": "5", "lung": "6"}
STAGES = [
    "transform:request-terms",
    "transform:cross-lingual-terms",
    "transform:cancer-name-terms",
    "retrieve:bm25",
    "retrieve:faiss",
    "fusion",
    "hop:1",
    "reranker:section-intent",
    "reranker:cancer-type-boost",
    "reranker:language-match",
    "reranker:pivot-language",
    "refusal",
    "context",
    "relevance:evidence",
    "generate",
    "cite",
    "relevance:answer",
]


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    index_dir = tmp_path_factory.mktemp("index")
    host = PluginHost(strict=True)
    return Pipeline.from_file(EXAMPLES / "default.yaml", host, [f"index.dir={index_dir}"])


@pytest.fixture(scope="module")
def engine(pipeline):
    report = ingest(pipeline)
    assert report.built and report.documents == 90 and report.chunks > 90
    return Engine.open(pipeline)


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q["expected"] == "answer"], ids=lambda q: q["qid"])
def test_question_about_each_cancer_cites_that_cancer(engine, question):
    answer = engine.ask(question["question"])
    assert not answer.refused, answer.refusal_detail
    first = answer.citations[0]
    assert first.doc_id.split("-")[1] == CANCER_IDS[question["focus"]], (first.doc_id, first.title)
    assert {c.doc_id for c in answer.citations} & set(question["gold_doc_ids"])
    for citation in answer.citations:  # every citation maps to real evidence text
        assert citation.text and citation.title and citation.node_id.startswith(citation.doc_id)
        assert f"[{citation.number}]" in answer.text


@pytest.mark.parametrize("question", [q for q in QUESTIONS if q["expected"] == "refuse"], ids=lambda q: q["qid"])
def test_non_cancer_question_is_refused(engine, question):
    answer = engine.ask(question["question"])
    assert answer.refused
    assert answer.refusal_reason in {"weak_evidence", "off_topic", "no_evidence"}
    assert answer.citations == []
    assert answer.trace.stage("generate") is None  # no generator runs for a refusal


def test_answer_is_marked_as_extracted_and_every_sentence_is_cited(engine):
    answer = engine.ask("What are the warning signs of pancreatic cancer?")
    notice, body = answer.text.split("\n", 1)
    assert "not a generated answer" in notice
    assert answer.generator == "extractive (no LLM)"
    cited_texts = {c.number: c.text for c in answer.citations}
    for sentence, number in _sentences_with_markers(body):
        assert sentence in cited_texts[number]


def _sentences_with_markers(body: str) -> list[tuple[str, int]]:
    import re

    return [(m.group(1).strip(), int(m.group(2))) for m in re.finditer(r"(.+?) \[(\d+)\](?:\s|$)", body)]


def test_korean_question_gets_korean_evidence_and_notice(engine):
    answer = engine.ask("위암의 치료 방법은 무엇인가요?")
    assert not answer.refused
    assert answer.text.startswith("출처에서 발췌한 문장입니다")
    assert "ncc-3-5-ko" in {c.doc_id for c in answer.citations}  # gastric cancer: treatment, Korean
    assert all(c.doc_id.endswith("-ko") for c in answer.citations)


@pytest.mark.parametrize(
    ("question", "doc_id", "notice"),
    [
        # Traditional question over a Traditional document, Simplified over Simplified, and across
        ("乳癌手術後還需要做放射治療嗎？", "ncc-4-5-zh", "以下摘自來源"),
        ("胰腺癌有哪些症状？", "ncc-5-2-zh", "以下摘自来源"),
    ],
)
def test_chinese_question_is_answered_in_its_language_and_script(engine, question, doc_id, notice):
    answer = engine.ask(question)
    assert not answer.refused, answer.refusal_detail
    assert answer.text.startswith(notice)
    assert answer.citations[0].doc_id == doc_id


def test_chinese_refusal_is_in_the_readers_script(engine):
    traditional = engine.ask("我家的貓最近不太吃東西，應該帶牠去看獸醫嗎？")
    simplified = engine.ask("我家的猫最近不太吃东西，应该带它去看兽医吗？")
    assert traditional.refused and simplified.refused
    assert traditional.text.startswith("證據不足") and simplified.text.startswith("证据不足")


def test_trace_shows_every_stage(engine):
    answer = engine.ask("How is lung cancer staged?")
    assert [s.stage for s in answer.trace.stages if not s.stage.startswith("load:")] == STAGES
    assert (
        answer.trace.plugins.keys() >= {"basic", "bm25", "faiss", "e5", "domain"}
        and "minilm" not in answer.trace.plugins
    )
    fusion = answer.trace.stage("fusion")
    assert fusion.n_in == 60 and fusion.n_out == 30


def test_korean_questions_over_the_example_corpus_are_searched_as_asked(engine):
    """The example corpus has Korean documents: cross-lingual-terms adds no English to the search."""
    answer = engine.ask("간암은 어떻게 치료하나요?")
    assert answer.trace.stage("transform:cross-lingual-terms").notes["retrieval_text"] == "간암은 어떻게 치료하나요?"
    assert not answer.refused and answer.citations[0].doc_id == "ncc-1-5-ko"  # liver cancer: treatment, in Korean


@pytest.mark.parametrize(
    ("question", "doc_id"),
    [
        ("간에 생긴 작은 암을 칼을 대지 않고 바늘과 열로 없앨 수 있나요?", "ncc-1-5-ko"),
        ("배 위쪽이 묵직하게 아프고 등까지 아픈데 췌장암 증상인가요?", "ncc-5-2-ko"),
        ("기침이 몇 달째 멈추지 않는데 폐암일 수도 있나요?", "ncc-6-2-ko"),
    ],
)
def test_korean_paraphrases_are_on_topic_when_read_by_kiwi(engine, question, doc_id):
    """The relevance check reads Korean with kiwi's nouns: with the `standard` analyzer, words kept
    with their particles and endings ("칼을", "아프고", "멈추지") were not covered, and all three were
    refused as off topic."""
    answer = engine.ask(question)
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == doc_id


@pytest.mark.parametrize(
    ("question", "overview"),
    [
        ("위에 생기는 위장관기질종양(GIST)도 일반 위암처럼 치료하나요?", "ncc-3-1-ko"),
        ("胃にできるGISTも普通の胃がんと同じように治療しますか？", "ncc-3-1-ja"),
    ],
)
def test_the_asked_cancer_s_overview_outranks_other_cancers_treatment_pages(engine, question, overview):
    """The answer (GIST is treated differently) is in the gastric overview; the word for treatment
    makes the intent boost prefer treatment pages. The cancer-type boost keeps those of other
    cancers below it (without it the overview was 7th, after four other cancers' treatment pages)."""
    documents = list(dict.fromkeys(hit.node.node.ref_doc_id for hit in engine.retrieve(Query(question))))
    rank = documents.index(overview) + 1
    assert rank <= 3, documents[:5]
    assert all(doc.startswith("ncc-3-") for doc in documents[:rank]), documents[:rank]


def test_off_topic_questions_with_cancer_words_are_refused_before_the_generator(engine):
    # a Korean question with cancer words whose topic (sharing a razor) no passage covers: the
    # dense signal cannot read Korean, and the coverage of the top candidates passes; the
    # relevance check of the default config refuses it
    answer = engine.ask("면도기를 같이 쓰면 암이 옮나요?")
    assert answer.refused and answer.refusal_reason == "off_topic_evidence"
    assert answer.trace.stage("generate") is None and "면도기를" in answer.refusal_detail
    on_topic = engine.ask("How is lung cancer staged?")
    assert on_topic.relevance is not None and on_topic.relevance.relevant


@pytest.mark.parametrize("question", [
    "Can ovarian cancer be found early?",
    "난소암 초기 증상이 뭔가요?",
    "갑상선암은 어떻게 치료하나요?",
    "子宫颈癌有哪些早期症状？",
    "白血病の治療法を教えてください。",
])
def test_a_question_about_a_cancer_the_corpus_lacks_is_refused(engine, question):
    """The example corpus covers six cancers: a question about another one is refused, not answered
    from another cancer's page on the same topic (before the relevance check required the asked
    cancer, the first four were answered with other cancers' symptoms and treatments)."""
    answer = engine.ask(question)
    assert answer.refused and answer.citations == [], (answer.refusal_reason, answer.text)
    assert answer.trace.stage("generate") is None


@pytest.mark.parametrize("question", [
    "소변에서 피가 보이는데 방광암인가요?",  # bladder cancer: the corpus's pages on blood in the stool
    "うちの犬に肝臓の腫瘍が見つかりました。手術はできますか？",  # a dog
    "我家狗狗得了乳腺肿瘤，能做化疗吗？",  # a dog
    "My cat has a lump near her breast. Can cats have breast cancer surgery?",
    "慢性胃炎要怎么治疗？",  # gastritis, asked about for itself
])
def test_a_question_about_another_subject_than_the_evidence_s_is_refused(engine, question):
    """Through the real pipeline (e5, the example corpus): each shares words with a page about a
    cancer the corpus covers, and each was answered from it before the subject rules
    (criss_rag.answering.subjects; checked on 010cea1)."""
    answer = engine.ask(question)
    assert answer.refused and answer.citations == [], (answer.refusal_reason, answer.text)


def test_a_question_about_a_cancer_that_spread_stays_answered(engine):
    """The subject rules do not refuse a question about a covered cancer and the organ it spread to
    (answered before them as after; the unit test of the spread rule is in test_relevance_subject)."""
    answer = engine.ask("大腸がんが肝臓に広がった場合、肝臓の手術はできますか？")
    assert not answer.refused, (answer.refusal_reason, answer.refusal_detail)


def test_the_dense_retriever_serves_every_language(engine):
    for question in (
        "肺がんの症状は何ですか？",
        "How is lung cancer staged?",
        "폐암의 증상은 무엇인가요?",
        "肺癌有哪些症状？",
    ):
        stage = engine.ask(question).trace.stage("retrieve:faiss")
        assert "skipped" not in (stage.notes or {}) and stage.n_out == 30, question


# Known and left (docs/benchmarks.md, "A learned intent, and quoting across languages"): the English
# staging page ranks first for how armpit nodes are checked in breast surgery, and the quote from it is
# about stages and nodes; its sentinel-node sentence is in a chunk outside the context
QUOTED_OFF_POINT = {"ja-4-5-2"}


@pytest.mark.parametrize(
    "question",
    [pytest.param(q, marks=pytest.mark.xfail(strict=True, reason="answered off the point from another page"))
     if q["qid"] in QUOTED_OFF_POINT else q for q in CJK_DEV],
    ids=lambda q: q["qid"],
)
def test_korean_and_japanese_paraphrases_are_answered_from_their_document_or_refused(engine, question):
    answer = engine.ask(question["question"])
    if answer.refused:  # the relevance check: a paraphrase sharing too few words with its passage
        assert answer.refusal_reason in {"off_topic_evidence", "off_topic_answer"}, answer.refusal_detail
        return
    first = answer.citations[0]
    assert first.doc_id.split("-")[1] == CANCER_IDS[question["focus"]], (first.doc_id, first.title)
    assert {c.doc_id for c in answer.citations} & set(question["gold_doc_ids"])
    assert all(c.doc_id.endswith(question["lang"]) for c in answer.citations)  # evidence in the question's language
    assert answer.text.startswith({"ko": "출처에서", "ja": "出典から"}[question["lang"]])


def test_most_korean_and_japanese_paraphrases_are_answered(engine):
    """Safety over reach: the relevance check refuses paraphrases that share too few words with their
    passage (6 of these 36 when measured); most are answered."""
    answered = [q["qid"] for q in CJK_DEV if not engine.ask(q["question"]).refused]
    assert len(answered) >= 0.8 * len(CJK_DEV), answered


@pytest.mark.parametrize("lang", ["ko", "ja"])
def test_the_right_document_ranks_first_for_most_dev_questions(engine, lang):
    """docs/benchmarks.md: 32 (Korean) and 33 (Japanese) of 36 dev questions rank their gold page
    first, every gold document in the top 3."""
    from criss_rag.evaluation.retrieval import rank_documents

    questions = read_jsonl(EXAMPLES / "eval" / f"{lang}_dev.jsonl")
    ranks = []
    for question in questions:
        doc_ids, _ = rank_documents(engine, question["question"])
        ranks.append(doc_ids.index(question["gold_doc_ids"][0]) + 1 if question["gold_doc_ids"][0] in doc_ids else 99)
    # 0.94 before pivot-language; its cost on sets whose gold is always in the question's language is
    # 33 of 36 here (docs/benchmarks.md, "Pages in one language only"); Korean 32 since the sentence
    # that asks decides the section: "...눈이 노랗게 변했어요. 췌장암 검사를 받아야 할까요?" asks about
    # a test, and the English diagnosis page ranks above the Korean symptoms page the set names
    assert sum(r == 1 for r in ranks) >= 32, ranks
    assert max(ranks) <= 3, ranks


@pytest.mark.parametrize("question", CJK_OUT_OF_SCOPE, ids=lambda q: q["qid"])
def test_korean_and_japanese_questions_about_other_things_are_refused(engine, question):
    answer = engine.ask(question["question"])
    # by the evidence threshold: pivot-language (min_best_signal) lifts no English page past it
    assert answer.refused and answer.refusal_reason == "weak_evidence", answer.text
    assert "faiss" in answer.refusal_detail


def test_reloaded_index_gives_identical_results(pipeline, engine):
    fresh = Engine.open(Pipeline(pipeline.config, pipeline.host))
    for question in ("How is stomach cancer diagnosed?", "간암의 치료 방법은?"):
        a, b = engine.ask(question), fresh.ask(question)
        assert a.model_dump(exclude={"trace"}) == b.model_dump(exclude={"trace"})


@pytest.mark.parametrize(
    "question",
    [
        "What are the symptoms of liver cancer?",
        "간암의 증상은 무엇인가요?",
        "What are the symptoms of stomach cancer?",
        "유방암의 증상은 무엇인가요?",
    ],
)
def test_quoted_list_items_stay_items(engine, question):
    """The symptom pages list their symptoms as <li> items: every quoted sentence lies within one line
    (one item or one paragraph line) of its passage, never running one item into the next."""
    answer = engine.ask(question)
    assert not answer.refused, answer.refusal_detail
    passages = {c.number: c.text for c in answer.citations}
    quoted = [s for s in answer.sentences if s.cited]
    assert quoted
    for sentence in quoted:
        lines = [line for n in sentence.cited for line in passages[n].splitlines()]
        assert any(sentence.text.rstrip(" .") in line for line in lines), (sentence.text, lines)
    if question.startswith("What are the symptoms of liver"):  # its answer quotes items of the list
        assert any(line.startswith("- ") for c in answer.citations for line in c.text.splitlines())
        assert "\n- " in answer.text, answer.text


@pytest.mark.parametrize("question", ["What are the symptoms?", "증상은 무엇인가요?", "症状は何ですか？"])
def test_a_vague_question_with_a_cancer_type_filter_is_answered_from_that_cancer(engine, question):
    """The filter box is part of what the question asks: "What are the symptoms?" with
    cancer_type=liver is answered from the liver cancer pages, in each language the corpus has."""
    answer = engine.ask(question, filters={"cancer_type": "liver"})
    assert not answer.refused, (answer.refusal_reason, answer.refusal_detail)
    assert {c.doc_id.split("-")[1] for c in answer.citations} == {CANCER_IDS["liver"]}, answer.citations
    transform = next(s for s in answer.trace.stages if s.stage == "transform:request-terms")
    assert transform.notes["retrieval_text"] != question  # searched with the cancer's name
    breast = engine.ask(question, filters={"cancer_type": "breast"})
    assert not breast.refused and {c.doc_id.split("-")[1] for c in breast.citations} == {CANCER_IDS["breast"]}


# -- docs/getting-started.md shows what `criss-rag demo` prints ------------------------------------------


def _masked(text: str) -> str:
    """Scores, shares and timings move with the machine: every decimal number becomes '#'."""
    return re.sub(r"\d+\.\d+", "#", text)


def test_the_getting_started_demo_transcript_is_what_the_demo_prints(engine):
    """The page's `criss-rag demo` block asks the questions of examples/demo_questions.txt, and
    under each is the answer the default pipeline gives, as the CLI renders it (decimals masked): a
    changed answer, source title, sentence check or refusal line makes the page stale."""
    from criss_rag.cli.render import render_answer

    page = (EXAMPLES.parent / "docs" / "getting-started.md").read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ criss-rag demo\n(.*?)```", page, re.S).group(1)
    first, *turns = block.split("\n>>> ")
    assert re.match(r"indexed 90 documents as \d+ chunks", first), first  # the example corpus, as ingested above
    questions = [
        line
        for line in (EXAMPLES / "demo_questions.txt").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert [turn.split("\n", 1)[0] for turn in turns] == questions
    for turn, question in zip(turns, questions, strict=True):
        shown = turn.split("\n", 1)[1].rstrip("\n")
        assert _masked(render_answer(engine.ask(question)).rstrip("\n")) == _masked(shown), question


def test_ask_transcripts_of_the_default_pipeline_in_the_docs_are_what_ask_prints(engine):
    """Every `$ criss-rag ask examples/default.yaml "QUESTION"` block (no options) of the docs shows
    what the command prints for that question today (decimals masked)."""
    from criss_rag.cli.render import render_answer

    command = re.compile(r"```text\n\$ criss-rag ask examples/default\.yaml \"([^\"]+)\"\n(.*?)```", re.S)
    shown = [
        (page.name, *match.groups())
        for page in sorted((EXAMPLES.parent / "docs").rglob("*.md"))
        for match in command.finditer(page.read_text(encoding="utf-8"))
    ]
    assert shown, "no transcript of `criss-rag ask examples/default.yaml` found in docs/"
    for page, question, output in shown:
        shown_now = render_answer(engine.ask(question)).rstrip("\n")
        assert _masked(shown_now) == _masked(output.rstrip("\n")), (page, question)


def test_a_korean_question_gets_the_english_page_its_language_lacks_and_not_what_it_cannot_read(engine):
    """Real e5 over the example corpus, whose stomach-cancer diagnosis page is English only: the
    answer quotes that page (on cf914c5 it quoted the Korean overview and treatment pages); a
    question on the papers to hand in at work, whose point the lexicon cannot read, is refused by
    the cross-language check (answered from an English page before it denied by default), and one
    on an insurance claim before generation: no passage speaks of money."""
    diagnosis = engine.ask("위암 진단은 어떤 검사로 하나요?")
    assert not diagnosis.refused, diagnosis.refusal_detail
    assert {c.doc_id for c in diagnosis.citations} == {"ncc-3-3-en"}, diagnosis.text
    papers = engine.ask("췌장암 진단받은 아버지 회사에 낼 서류는 어떻게 떼나요?")
    assert papers.refused and papers.refusal_reason == "off_topic_answer", papers.text
    claim = engine.ask("췌장암 진단받은 아버지 암보험 진단금 청구하려면 어떤 서류를 떼야 하나요?")
    assert claim.refused and claim.refusal_reason == "off_topic_evidence", claim.text
    assert "암보험" in (claim.refusal_detail or ""), claim.refusal_detail


def test_a_fee_and_the_life_beside_the_illness_are_refused_when_no_page_speaks_of_them(engine):
    """Real e5 over the example corpus: a surgery fee (手術代) and having a child after chemotherapy
    are asked with words the treatment pages cover (the cancer, surgery, chemotherapy), and no
    page speaks of money or pregnancy: both refused before generation (both answered on 9975df1)."""
    for question, point in (("胃がんの手術代はどのくらいかかりますか", "手術代"),
                            ("유방암 항암 치료가 끝나면 아기를 가져도 되나요?", "아기")):
        answer = engine.ask(question)
        assert answer.refused and answer.refusal_reason == "off_topic_evidence", answer.text
        assert point in (answer.refusal_detail or ""), answer.refusal_detail
    # the same words, asking what the pages say, are answered
    assert not engine.ask("유방암 수술 후 항암 치료는 왜 하나요?").refused


@pytest.mark.parametrize(
    ("question", "doc_id"),
    [
        ("肺癌晚期没有基因突变能吃什么药", "ncc-6-5-zh"),  # "late stage" and "mutation" are cues of other sections
        ("早期の大腸がんって内視鏡だけで取りきれるの？", "ncc-2-5-ja"),  # "can it all be taken out": no treatment cue
        ("간암 말기면 어떤 약을 써요?", "ncc-1-5-ko"),  # "which medicine": no treatment cue
    ],
)
def test_the_intent_model_reads_what_a_question_asks_in_words_no_cue_holds(engine, question, doc_id):
    from criss_rag.evaluation.retrieval import rank_documents

    doc_ids, _ = rank_documents(engine, question)
    assert doc_ids[0] == doc_id, doc_ids[:3]
    reader = next(c for cc, c in engine.pipeline.many("rerankers") if cc.label == "section-intent").intents
    assert reader.model is not None and not reader.set_aside
    assert reader.detect(question) == ["treatment"]


def test_an_english_page_is_quoted_where_it_says_what_a_japanese_question_asks(engine):
    """The staging page is in English only; the quote is its sentence on locally advanced cancer and
    surgery, not its first sentence (quoted before, and refused as off the point)."""
    answer = engine.ask("局所進行膵がんと言われました。手術はできないってことですか？")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "ncc-5-4-en"
    assert "Locally advanced pancreatic cancer has grown around major vessels" in answer.text
