"""The `ray` executor on a real Ray cluster of two nodes: a head and a worker node, each started
with `ray start` as processes of their own (criss_rag_ray.local_cluster: 127.0.0.1, token
authentication, a private network namespace), joined by `criss-rag ingest/eval run --executor ray
--executor-set address=...` run as separate driver processes, as a user runs them. Their index and
records equal a local run's, the batches run on both nodes, and a worker node killed mid-run is
survived (or reported) and the run resumes."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_ray import DOCS, N_QUESTIONS, comparable, make_experiment

from criss_rag.evaluation.experiment import load_experiment
from criss_rag.evaluation.records import RECORDS, read_records
from criss_rag.evaluation.runner import run_experiment
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced
from criss_rag_ray.local_cluster import LocalRayCluster, _session_pids

# the CLI with the test fakes registered (criss_rag.testing), exactly as `criss-rag` runs it otherwise
DRIVER = (
    "import sys; from criss_rag.cli.main import build_cli; from criss_rag.testing import plugin_host; "
    "h = plugin_host(entry_points=True); build_cli(h).main(args=sys.argv[1:], prog_name='criss-rag', obj={'host': h})"
)
PIPELINE = """\
name: dense
loader: {name: fake-loader, documents: DOCS}
chunker: {name: fake-chunker}
embedding: {name: fake-counting, delay_s: DELAY}
retrievers: [{name: faiss, top_k: 5}]
context: {name: fake-all}
generator: {name: fake-echo}
"""
SPREAD = re.compile(r"executor ray: (\d+) batches on (\d+) nodes? \(([^)]*)\)")
# enough documents for 5 or more executor batches (256 texts each)
MANY_DOCS = DOCS + [{"doc_id": f"more-{i}", "title": f"Note {i}", "text": f"Screening note {i}: follow-up visit {i}."}
                    for i in range(1100)]


@pytest.fixture(scope="module")
def cluster():
    ray_cluster = LocalRayCluster(workers=1, cpus=1, object_store_mb=80)
    ray_cluster.start()
    yield ray_cluster
    ray_cluster.stop()


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def write_pipeline(base: Path, delay: float = 0.0, docs=MANY_DOCS) -> Path:
    base.mkdir(parents=True, exist_ok=True)
    path = base / "pipeline.yaml"
    path.write_text(replaced(PIPELINE, "DOCS", json.dumps(docs, ensure_ascii=False), "DELAY", str(delay)),
                    encoding="utf-8")
    return path


def drive(cluster, *args: str, env=None, wait=True):
    """`criss-rag ARGS` as a driver process inside the cluster's network namespace."""
    command = cluster.command([sys.executable, "-c", DRIVER, *args])
    proc = subprocess.Popen(command, env=env or cluster.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait:
        return proc
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def spread(stderr: str) -> tuple[int, dict[str, int]]:
    found = SPREAD.search(stderr)
    assert found, stderr[-3000:]
    nodes = dict((k.strip(), int(v)) for k, v in (part.split(":") for part in found.group(3).split(",")))
    return int(found.group(1)), nodes


def vectors(base: Path) -> bytes:
    return next(base.rglob("vectors.faiss")).read_bytes()


def test_cluster_has_two_nodes_on_loopback_behind_a_token(cluster, tmp_path):
    assert cluster.alive_nodes() == 2 and cluster.address == "127.0.0.1:6379"
    head, worker = cluster.nodes
    assert head.pid != worker.pid != os.getpid() and _session_pids(head.pid) and _session_pids(worker.pid)
    # every node process lives in the cluster's own network namespace, not this one
    for node in cluster.nodes:
        assert os.readlink(f"/proc/{node.pid}/ns/net") != os.readlink("/proc/self/ns/net")
    # a driver without the cluster's token is refused, with what to set
    config = write_pipeline(tmp_path / "no-token", docs=DOCS[:5])
    no_token = {k: v for k, v in cluster.env.items() if not k.startswith("RAY_AUTH")}
    code, out, err = drive(cluster, "ingest", str(config), "--executor", "ray", "--executor-set",
                           f"address={cluster.address}", env=no_token)
    assert code != 0 and "Traceback" not in err
    assert "executor ray: could not start or reach the Ray cluster at 127.0.0.1:6379" in err
    assert "RAY_AUTH_MODE=token" in err and "RAY_AUTH_TOKEN_PATH" in err


def test_cluster_ingest_builds_the_local_index_on_both_nodes(cluster, tmp_path, host):
    local = pipeline_from_yaml(write_pipeline(tmp_path / "local").read_text(encoding="utf-8"), tmp_path / "local", host)
    ingest(local)
    config = write_pipeline(tmp_path / "cluster", delay=0.02)  # slow enough that both actors get batches
    code, out, err = drive(cluster, "ingest", str(config), "--executor", "ray", "--executor-set",
                           f"address={cluster.address}", "--executor-set", "workers=2")
    assert code == 0, err[-3000:]
    assert f"indexed {len(MANY_DOCS)} documents" in out
    batches, nodes = spread(err)
    assert batches == -(-local.embedded_last // 256)  # every text, in batches of 256
    assert len(nodes) == 2 and sum(nodes.values()) == batches and batches >= 5  # both nodes embedded
    assert vectors(tmp_path / "cluster") == vectors(tmp_path / "local")


def test_cluster_eval_run_gives_the_records_of_the_local_runner(cluster, tmp_path, host):
    local = run_experiment(load_experiment(make_experiment(tmp_path, "local"), host.registry), host, progress=False)
    path = make_experiment(tmp_path, "cluster")
    code, out, err = drive(cluster, "eval", "run", str(path), "--no-progress", "--executor", "ray",
                           "--executor-set", f"address={cluster.address}", "--executor-set", "workers=2")
    assert code == 0, err[-3000:]
    assert local.written == 2 * N_QUESTIONS and f"{2 * N_QUESTIONS} records written" in out
    assert comparable(read_records(tmp_path / "cluster" / RECORDS)) == comparable(
        read_records(tmp_path / "local" / RECORDS)
    )
    batches, nodes = spread(err)
    assert batches == 2 * N_QUESTIONS and len(nodes) == 2  # one question per batch, on both nodes


def test_cluster_worker_node_killed_mid_ingest_is_reported_and_the_rerun_resumes(cluster, tmp_path, host):
    local = pipeline_from_yaml(write_pipeline(tmp_path / "local").read_text(encoding="utf-8"), tmp_path / "local", host)
    ingest(local)
    config = write_pipeline(tmp_path / "cluster", delay=0.1)  # ~2.5 s per batch of 256
    # max_restarts=0: a lost worker stops the run at once (the default, -1, restarts it and retries
    # its batch once Ray has room for it again: slow on a 2-CPU cluster, see docs/scaling.md)
    proc = drive(cluster, "ingest", str(config), "--executor", "ray", "--executor-set", f"address={cluster.address}",
                 "--executor-set", "workers=2", "--executor-set", "max_restarts=0", wait=False)
    cache = tmp_path / "cluster" / ".criss_rag" / "index" / ".cache" / "embeddings.sqlite"
    deadline = time.monotonic() + 180
    while _cached(cache) == 0:  # both workers are up (work starts once they are) and one batch is back
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()[-3000:] if proc.stderr else ""
        time.sleep(0.2)
    cluster.kill_node(cluster.nodes[1])  # mid-batch: the node's raylet, object store and workers die at once
    out, err = proc.communicate(timeout=300)
    last = err.strip().splitlines()[-1]  # (above it, Ray Data logs its own account of the lost actor)
    assert proc.returncode == 2 and last.startswith("error: executor ray: a worker failed ("), err[-3000:]
    assert last.endswith("run the command again to resume")
    done = _cached(cache)
    assert 0 < done < local.embedded_last  # what came back before the failure is kept
    # two workers no longer fit on the head's one CPU: said so, after start_timeout
    code, out, err = drive(
        cluster,
        "ingest",
        str(config),
        "--executor",
        "ray",
        "--executor-set",
        f"address={cluster.address}",
        "--executor-set",
        "workers=2",
        "--executor-set",
        "start_timeout=5",
    )
    assert code != 0 and "the cluster did not start 2 workers of 1 CPUs each within 5 s" in err, err[-3000:]
    code, out, err = drive(cluster, "ingest", str(config), "--executor", "ray", "--executor-set",
                           f"address={cluster.address}", "--executor-set", "workers=1")
    assert code == 0, err[-3000:]
    batches, nodes = spread(err)
    assert batches == -(-(local.embedded_last - done) // 256) and len(nodes) == 1  # only what was missing, on the head
    assert vectors(tmp_path / "cluster") == vectors(tmp_path / "local")
    assert cluster.alive_nodes() == 1


def _cached(cache: Path) -> int:
    """Vectors in an embedding cache file that another process is writing (0 before it exists)."""
    if not cache.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{cache}?mode=ro", uri=True, timeout=5) as db:
            return db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""
