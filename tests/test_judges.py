"""The rubric judge against loopback servers speaking the OpenAI and Ollama formats: well-formed
replies, malformed replies retried, parse failures counted (never scored), two disagreeing judges
(review file, consensus flags, agreement), and examples/experiments/criss-models.yaml end to end."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from criss_rag.context import ComponentContext
from criss_rag.evaluation.experiment import load_experiment
from criss_rag.evaluation.judging import agreement, as_verdict, combine
from criss_rag.evaluation.records import RECORDS, read_records
from criss_rag.evaluation.report_inputs import ReportOptions
from criss_rag.evaluation.report_numbers import build_report
from criss_rag.evaluation.runner import run_experiment
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, replaced
from criss_rag.testing.servers import OllamaStubServer, OpenAIStubServer
from criss_rag.types import Answer, Citation, JudgeVerdict, Trace
from criss_rag_judges.rubric import FLAGS, SCORES, ParseError, RubricJudge, extract_json, parse_reply

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


def verdict_json(score: float = 4, *, flags: tuple[str, ...] = (), rationale: str = "fine") -> str:
    return json.dumps({"scores": {s: score for s in SCORES}, "flags": {f: f in flags for f in FLAGS},
                       "rationale": rationale})


ANSWER = Answer(question="Which test finds stomach cancer?", text="Endoscopy is the main test [1].",
                citations=[Citation(number=1, doc_id="gastric", node_id="g#1", title="Stomach cancer", score=1.0,
                                    text="Endoscopy is the main test for stomach cancer.")],
                trace=Trace(config_hash="x"))
QUESTION = {
    "question": "Which test finds stomach cancer?",
    "reference_answer": "Endoscopy finds stomach cancer.",
    "_evidence": [{"number": 1, "title": "Stomach cancer", "text": "Endoscopy is the main test for stomach cancer."}],
}


def judge_for(tmp_path: Path, llm_yaml: str, **params) -> RubricJudge:
    host = plugin_host(entry_points=True)
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML + f"llms: {{judge: {llm_yaml}}}\n", tmp_path, host)
    return RubricJudge(RubricJudge.Params(**params), ComponentContext(pipeline, "judges[0]"))


def openai_llm(server: OpenAIStubServer) -> str:
    return f"{{name: openai-compatible, model: judge-m, api_base: '{server.base_url}', max_retries: 0}}"


def ollama_llm(server: OllamaStubServer) -> str:
    return f"{{name: ollama, model: judge-o, base_url: '{server.base_url}', max_retries: 0}}"


# -- parsing ----------------------------------------------------------------------------------------


def test_replies_are_parsed_strictly():
    fenced = "Here you go:\n```json\n" + verdict_json(5, flags=("missed_compound_part",)) + "\n```\nThanks"
    scores, flags, rationale = parse_reply(fenced, 1, 5)
    assert scores == {s: 5.0 for s in SCORES} and flags["missed_compound_part"] and rationale == "fine"
    assert extract_json('prose {"a": "}{", "b": {"c": 1}} more') == {"a": "}{", "b": {"c": 1}}
    for bad, message in [("no json here", "no JSON object"), ('{"scores": {', "not closed"),
                         (json.dumps({"scores": {"correctness": 3}, "flags": {}}), "missing: faithfulness"),
                         (verdict_json(9), "outside 1-5"), ('{"scores": [1], "flags": {}}', "scores")]:
        with pytest.raises(ParseError, match=message):
            parse_reply(bad, 1, 5)


# -- one judge against the stub servers -------------------------------------------------------------


def test_rubric_judge_with_a_well_formed_openai_reply(tmp_path):
    with OpenAIStubServer(reply=verdict_json(4, rationale="matches the reference")) as server:
        verdict = judge_for(tmp_path, openai_llm(server)).judge(QUESTION, ANSWER)
        prompt = server.requests[-1].prompt
    assert not verdict.parse_failed and verdict.attempts == 1
    assert verdict.scores == {s: 4.0 for s in SCORES} and not any(verdict.flags.values())
    assert verdict.rationale == "matches the reference"
    for text in ("Which test finds stomach cancer?", "Endoscopy finds stomach cancer.", "[1] Stomach cancer",
                 "Endoscopy is the main test [1].", "citation_accuracy"):
        assert text in prompt


def test_prompt_language_follows_the_question(tmp_path):
    with OpenAIStubServer(reply=verdict_json()) as server:
        judge = judge_for(tmp_path, openai_llm(server))
        ja = judge.prompt({"question": "胸腺腫の手術について教えてください"}, ANSWER)
        ko = judge.prompt({"question": "간암 검진은 얼마나 자주 받나요?"}, ANSWER)
        en = judge.prompt({"question": "How often?"}, ANSWER)
    assert "模範解答" in ja and "모범 답안" in ko and "REFERENCE ANSWER" in en
    assert "{{" not in ja + ko + en and "1（非常に悪い）" in ja


def test_a_malformed_reply_is_retried_with_the_reason(tmp_path):
    replies = iter(["I think it is good, maybe 4/5.", verdict_json(3)])
    with OllamaStubServer(reply=lambda request: next(replies)) as server:
        verdict = judge_for(tmp_path, ollama_llm(server)).judge(QUESTION, ANSWER)
        asked = [r.prompt for r in server.requests_to("/api/chat")]
    assert not verdict.parse_failed and verdict.attempts == 2 and verdict.scores["tone"] == 3.0
    assert len(asked) == 2 and "could not be used (the reply holds no JSON object)" in asked[1]


def test_malformed_twice_is_a_parse_failure_never_a_zero(tmp_path):
    with OllamaStubServer(reply="Score: excellent!") as server:
        verdict = judge_for(tmp_path, ollama_llm(server), retries=1).judge(QUESTION, ANSWER)
        assert len(server.requests_to("/api/chat")) == 2
    assert verdict.parse_failed and verdict.scores == {} and verdict.attempts == 2
    assert "no JSON object" in verdict.error and verdict.raw == "Score: excellent!"


# -- the panel ----------------------------------------------------------------------------------------


def test_panel_averages_scores_counts_flags_only_when_all_raise_them_and_sends_disagreement_to_review():
    a = JudgeVerdict(judge="a", scores={"correctness": 4, "tone": 5}, flags={"x": True, "y": True})
    b = JudgeVerdict(judge="b", scores={"correctness": 3, "tone": 5}, flags={"x": True, "y": False})
    panel = combine([a, b], disagreement=0.5)
    assert panel["scores"] == {"correctness": 3.5, "tone": 5.0}
    assert panel["flags"] == {"x": True, "y": False} and panel["review"]
    assert panel["review_reasons"] == ["correctness differs by 1 > 0.5"]
    failed = JudgeVerdict(judge="b", parse_failed=True, error="no JSON object")
    partial = combine([a, failed])
    assert partial["scores"] == {"correctness": 4.0, "tone": 5.0}  # the failure adds nothing, not a zero
    assert partial["flags"] == {"x": None, "y": None} and partial["parse_failures"] == 1 and partial["review"]
    assert combine([failed])["scores"] == {}
    stats = agreement([panel, combine([a, a])], disagreement=0.5)
    assert stats["scores"]["correctness"]["pairs"] == 2 and stats["scores"]["correctness"]["mean_abs_diff"] == 0.5
    assert stats["flags"]["y"]["agreement"] == 0.5
    assert as_verdict({"grounded": 1.0, "flag_uncited": 0}, "m").flags == {"uncited": False}


EXPERIMENT = """\
name: judged
pipeline: eval_pipeline.yaml
variants: [{name: plain}, {name: reversed, set: {rerankers: [fake-reverse]}}]
questions: [{path: eval_questions.jsonl, limit: 4}]
metrics: [caution]
llms:
  judge-a: {LLM_A}
  judge-b: {LLM_B}
judges:
  - {name: rubric, llm: judge-a, label: judge-a}
  - {name: rubric, llm: judge-b, label: judge-b}
judge_panel: {disagreement: 0.5}
output: run
"""


def test_two_disagreeing_judges_in_a_run(tmp_path):
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    # judge-a: always 4, raises `missed_compound_part`; judge-b: 2 on "lung" questions (a disagreement),
    # raises the flag too only there; on "breast" questions it never manages to format a reply
    def reply_b(request):
        asked = request.prompt.split("QUESTION:")[-1].split("REFERENCE ANSWER")[0]  # the question only
        if "breast" in asked:
            return "unparsable"
        if "lung" in asked:
            return verdict_json(2, flags=("missed_compound_part",))
        return verdict_json(4)

    host = plugin_host(entry_points=True)
    with (
        OpenAIStubServer(reply=verdict_json(4, flags=("missed_compound_part",))) as a,
        OllamaStubServer(reply=reply_b) as b,
    ):
        text = replaced(EXPERIMENT, "{LLM_A}", openai_llm(a), "{LLM_B}", ollama_llm(b))
        path = tmp_path / "experiment.yaml"
        path.write_text(text, encoding="utf-8")
        summary = run_experiment(load_experiment(path, host.registry), host, progress=False)
    assert summary.errors == 0 and summary.written == 8
    records = {r.key: r for r in read_records(tmp_path / "run" / RECORDS)}
    lung = records["plain\te2"].judges
    assert lung["scores"]["correctness"] == 3.0 and lung["review"] and lung["flags"]["missed_compound_part"] is True
    stomach = records["plain\te1"].judges
    assert stomach["scores"]["correctness"] == 4.0 and not stomach["review"]
    assert stomach["flags"]["missed_compound_part"] is False  # only judge-a raised it
    review = [json.loads(line) for line in (tmp_path / "run" / "review.jsonl").read_text().splitlines()]
    assert {e["key"] for e in review} == {k for k, r in records.items() if r.judges["review"]}
    assert "plain\te2" in {e["key"] for e in review}
    report = build_report(tmp_path / "run", ReportOptions(bootstrap=200))
    judges = report["judges"]
    assert judges["judges"] == ["judge-a", "judge-b"]
    failures = sum(1 for r in records.values() if r.judges["parse_failures"])
    assert failures >= 1 and judges["parse_failures"] == {"judge-b": failures}
    # a parse failure never enters the average: those records carry judge-a's 4 alone
    for r in records.values():
        if r.judges["parse_failures"]:
            assert r.judges["scores"]["correctness"] == 4.0 and r.judges["flags"]["missed_compound_part"] is None
    reported = set(report["metrics"]) | {a for same in report["aliases"].values() for a in same}
    assert "judge.correctness" in reported and judges["agreement"]["scores"]["correctness"]["pairs"] > 0
    flags = judges["per_variant"]["plain"]["flags"]["missed_compound_part"]
    assert flags["undetermined"] >= 1 and flags["raised"] == 1


def test_criss_models_example_runs_against_loopback_servers(tmp_path):
    def ollama_reply(request):
        if '"scores"' in request.prompt:
            return verdict_json(4)
        return "Regular ultrasound checks every six months are advised [1]."

    def openai_reply(request):
        if '"scores"' in request.prompt:
            return verdict_json(3 if "no retrieval" in request.prompt else 5)
        return "Colonoscopy finds polyps early [1]."

    host = plugin_host(entry_points=True)
    with OllamaStubServer(reply=ollama_reply) as ollama, OpenAIStubServer(reply=openai_reply) as openai:
        overrides = [
            f"llms.qwen.base_url={ollama.base_url}", f"llms.judge-a.base_url={ollama.base_url}",
            f"llms.judge-b.api_base={openai.base_url}",
            f"variants.qwen-rag.set.llms.gen.base_url={ollama.base_url}",
            f"variants.local-rag.set.llms.gen.api_base={openai.base_url}",
            # lighter retrieval for the test (no MiniLM, so no dense score for the refusal policy to read:
            # a config may not name a signal it lacks), and the index and records under tmp_path
            "set={retrievers: [{name: bm25, analyzer: standard, top_k: 20}], fusion: null, refusal: null, "
            "index: {dir: "
            + json.dumps(str(tmp_path / "index")) + "}}",
            f"output={json.dumps(str(tmp_path / 'run'))}",
        ]
        experiment = load_experiment(ROOT / "examples/experiments/criss-models.yaml", host.registry,
                                     overrides=overrides, limit=2)
        summary = run_experiment(experiment, host, progress=False)
    assert summary.errors == 0, summary.error_examples
    records = read_records(tmp_path / "run" / RECORDS)
    assert {r.variant for r in records} == {"extractive", "qwen-rag", "local-rag", "qwen-no-rag"} and len(records) == 8
    baseline = [r for r in records if r.variant == "qwen-no-rag"]
    assert all(not r.evidence and "no retrieval" in r.answer["generator"] for r in baseline)
    assert all(r.judges["parsed"] == 2 for r in records)
    assert all(r.judges["review"] for r in records if r.variant != "qwen-no-rag")  # 4 vs 5 > 0.5
    report = build_report(tmp_path / "run", ReportOptions(bootstrap=200))
    # the stub judges score every answer alike: constant metrics are described, not tested
    assert report["metrics"][0] == "judge.correctness" and len(report["comparisons"]) == 6 * len(report["compared"])
    assert set(report["compared"]) | set(report["degenerate"]) == set(report["metrics"])


# -- structured output: the schema on the wire, and the counts ------------------------------------------


def test_structured_output_sends_the_rubric_schema_and_counts_replies(tmp_path):
    from criss_rag_judges.rubric import rubric_schema

    with OpenAIStubServer(reply=verdict_json(4)) as server:
        llm = replaced(openai_llm(server), "max_retries: 0", "max_retries: 0, structured_output: json_schema")
        judge = judge_for(tmp_path, llm)
        verdict = judge.judge(QUESTION, ANSWER)
        body = server.requests_to("/v1/chat/completions")[-1].body
    assert not verdict.parse_failed
    assert body["response_format"] == {"type": "json_schema", "json_schema": {
        "name": "reply", "schema": rubric_schema(1, 5), "strict": True}}
    assert judge.stats.as_dict() == {"calls": 1, "constrained": 1, "parse_failures": 0}
    schema = rubric_schema(1, 5)
    assert schema["properties"]["scores"]["required"] == list(SCORES)
    assert schema["properties"]["scores"]["properties"]["tone"]["enum"] == [1, 2, 3, 4, 5]
    assert rubric_schema(0, 1.5)["properties"]["scores"]["properties"]["tone"] == {
        "type": "number", "minimum": 0, "maximum": 1.5}


def test_without_structured_output_the_lenient_parser_reads_and_failures_are_counted(tmp_path):
    replies = iter(["no idea", "still no json", verdict_json(2)])
    with OllamaStubServer(reply=lambda request: next(replies)) as server:
        judge = judge_for(tmp_path, ollama_llm(server), retries=1)
        first = judge.judge(QUESTION, ANSWER)
        second = judge.judge(QUESTION, ANSWER)
        bodies = [r.body for r in server.requests_to("/api/chat")]
    assert first.parse_failed and not second.parse_failed
    assert judge.stats.as_dict() == {"calls": 3, "constrained": 0, "parse_failures": 2}
    assert all(not body.get("format") for body in bodies)  # nothing constrained on this backend


def test_a_raw_line_break_inside_the_rationale_still_parses():
    # a real judge-b reply of SmolLM2 failed with "Invalid control character" before
    reply = replaced(verdict_json(3), '"fine"', '"first line\nsecond line"')
    assert "\n" in reply and parse_reply(reply, 1, 5)[2] == "first line\nsecond line"
