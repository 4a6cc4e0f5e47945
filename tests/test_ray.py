"""Executors: the `ray` executor on a local Ray instance (2 CPUs, started once for this module)
gives the same index as a local ingest and the same experiment records as the local runner,
and an interrupted Ray run resumes. The local executor is the plain behaviour."""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.evaluation.experiment import load_experiment
from criss_rag.evaluation.records import RECORDS, RecordWriter, read_records
from criss_rag.evaluation.runner import run_experiment
from criss_rag.indexing.executors import embed_on_executor, open_executor
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Query

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # before Ray is imported

FIXTURES = Path(__file__).parent / "fixtures"
N_QUESTIONS = 7
EXPERIMENT = """\
name: ray-experiment
pipeline: eval_pipeline.yaml
variants:
  - {name: plain}
  - {name: drop-liver, set: {filters: [{name: fake-drop-doc, doc_id: liver}]}}
questions: [{path: eval_questions.jsonl, name: fake}]
metrics: [traceability, {name: retrieval, k: 3}, {name: rouge, analyzer: standard}]
judges: [fake-judge, {name: fake-judge, label: second}]
seed: 7
output: OUT
"""
# extra documents (Korean, Japanese, Chinese among them) so the executor gets several batches
DOCS = TINY_CORPUS + [
    {"doc_id": f"extra-{i}", "title": title, "text": f"{text} Note {i} on screening and treatment."}
    for i, (title, text) in enumerate([
        ("간암", "간암은 간세포에서 시작됩니다. B형 간염은 위험을 높입니다."),
        ("肺がん", "肺がんは喫煙と関係があります。せきが続くことがあります。"),
        ("胃癌", "胃癌始于胃的内壁。内镜检查是主要检查。"),
    ] * 40)
]
PIPELINE = """\
name: dense
loader: {name: fake-loader, documents: DOCS}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers: [{name: faiss, top_k: 5}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    """A Ray of this process on 127.0.0.1 (not the machine's address), with its session files in a
    short temporary folder (Ray's socket paths must stay under ~107 bytes) removed afterwards."""
    import ray

    temp = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1", _temp_dir=temp)
    yield
    ray.shutdown()
    shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def dense(tmp_path, host):
    return pipeline_from_yaml(replaced(PIPELINE, "DOCS", json.dumps(DOCS, ensure_ascii=False)), tmp_path, host)


def test_ray_ingest_fills_the_cache_so_the_index_equals_a_local_one(tmp_path, host):
    local = dense(tmp_path / "local", host)
    ingest(local)
    assert local.embedded_last > 100  # the local build embedded everything itself
    on_ray = dense(tmp_path / "ray", host)
    executor = open_executor(on_ray, "ray", ["workers=2"])
    report = ingest(on_ray, executor=executor)
    assert report.built and on_ray.embedded_last == 0  # every vector came from Ray, through the cache
    vectors = [
        (tmp_path / d / ".criss_rag" / "index" / report.key / "retrievers" / "faiss" / "vectors.faiss").read_bytes()
        for d in ("local", "ray")
    ]
    assert vectors[0] == vectors[1]
    for question in ("간암 위험", "肺がん せき", "stomach endoscopy"):
        a = Engine.open(local).retrieve(Query(question))
        b = Engine.open(on_ray).retrieve(Query(question))
        assert [(h.node_id, h.score) for h in a] == [(h.node_id, h.score) for h in b]
    chunks = on_ray.build(on_ray.config.one("chunker")).chunk(list(on_ray.build(on_ray.config.one("loader")).load()))
    assert embed_on_executor(on_ray, chunks, executor) == 0  # all cached: nothing is sent to Ray again


def make_experiment(tmp_path: Path, out: str) -> Path:
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    path = tmp_path / f"{out}.yaml"
    path.write_text(replaced(EXPERIMENT, "OUT", out), encoding="utf-8")
    return path


def comparable(records) -> dict:
    """Records without what differs from run to run: timings, finish times, per-stage ms."""
    out = {}
    for record in records:
        data = record.model_dump(mode="json")
        data.pop("timings"), data.pop("finished_at")
        for stage in (data.get("answer") or {}).get("trace", {}).get("stages", []):
            stage.pop("ms")
        out[record.key] = data
    return out


def test_ray_eval_run_gives_the_records_of_the_local_runner(tmp_path, host):
    local = run_experiment(load_experiment(make_experiment(tmp_path, "local"), host.registry), host, progress=False)
    experiment = load_experiment(make_experiment(tmp_path, "ray"), host.registry)
    executor = open_executor(_eval_pipeline(experiment, host), "ray", ["workers=2"])
    on_ray = run_experiment(experiment, host, progress=False, executor=executor)
    assert local.written == on_ray.written == 2 * N_QUESTIONS and on_ray.errors == 0
    a = comparable(read_records(tmp_path / "local" / RECORDS))
    b = comparable(read_records(tmp_path / "ray" / RECORDS))
    assert a == b
    assert all(r["judges"]["verdicts"] for r in b.values())  # both judges ran on the workers


def _eval_pipeline(experiment, host):
    from criss_rag.pipeline import Pipeline

    return Pipeline(experiment.eval_config, host)


def test_an_interrupted_ray_run_resumes_where_it_stopped(tmp_path, host, monkeypatch):
    path = make_experiment(tmp_path, "ray")
    experiment = load_experiment(path, host.registry, only_variants=["plain"])
    executor = open_executor(_eval_pipeline(experiment, host), "ray", [])
    original = RecordWriter.write
    written = []

    def kill_after_five(self, record):
        if len(written) == 5:
            raise KeyboardInterrupt("simulated kill")
        written.append(record.key)
        original(self, record)

    monkeypatch.setattr(RecordWriter, "write", kill_after_five)
    with pytest.raises(KeyboardInterrupt):
        run_experiment(experiment, host, progress=False, executor=executor)
    monkeypatch.setattr(RecordWriter, "write", original)
    assert len(read_records(tmp_path / "ray" / RECORDS)) == 5
    resumed = load_experiment(path, host.registry, only_variants=["plain"])
    summary = run_experiment(resumed, host, progress=False, executor=executor)
    assert summary.skipped == 5 and summary.written == N_QUESTIONS - 5
    keys = [json.loads(line)["key"] for line in (tmp_path / "ray" / RECORDS).read_text().splitlines()]
    assert len(keys) == len(set(keys)) == N_QUESTIONS


def test_cli_ingest_and_eval_run_take_the_executor(tmp_path, host):
    cli = build_cli(host)
    config = tmp_path / "pipeline.yaml"
    config.write_text(replaced(PIPELINE, "DOCS", json.dumps(DOCS[:12], ensure_ascii=False)), encoding="utf-8")
    result = CliRunner().invoke(cli, ["ingest", str(config), "--executor", "ray", "--executor-set", "workers=1"],
                                obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "indexed 12 documents" in result.output
    path = make_experiment(tmp_path, "cli")
    result = CliRunner().invoke(cli, ["eval", "run", str(path), "--variant", "plain", "--limit", "2", "--no-progress",
                                      "--executor", "ray"],
                                obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "2 records written" in result.output


def test_executor_errors_teach(tmp_path, host):
    pipeline = dense(tmp_path, host)
    with pytest.raises(ConfigError, match=r"--executor 'dask': no such executor. Executors: local, fake-inline, ray"):
        open_executor(pipeline, "dask")
    with pytest.raises(ConfigError, match=r"--executor-set.*key 'worker': unknown key. Valid keys: address, "):
        open_executor(pipeline, "ray", ["worker=2"])
    with pytest.raises(ConfigError, match="the local executor takes no settings"):
        open_executor(pipeline, "local", ["workers=2"])
    assert open_executor(pipeline, "local") is None


def test_a_failing_worker_is_reported_as_a_component_error(tmp_path, host):
    executor = open_executor(dense(tmp_path, host), "ray", ["workers=1"])
    with pytest.raises(
        ComponentError, match=r"executor ray: a worker failed \(ValueError: .*not a number.*run the command again"
    ):
        list(executor.map_batches(functools.partial(int, "not a number"), [[1], [2]]))
