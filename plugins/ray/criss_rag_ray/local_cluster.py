"""A Ray cluster of several nodes on this machine, started with Ray's own ``ray start``: the
recipe of a real cluster (docs/scaling.md) with every node on 127.0.0.1. The tests and
benchmarks run ``criss-rag ingest/eval run --executor ray --executor-set address=...`` against it.

Ray 2.60 binds its GCS, raylets and workers on every interface even with ``--node-ip-address
127.0.0.1``, so the whole cluster, and every driver that joins it, runs in a network namespace of
its own (``unshare --net``: a loopback device and nothing else; commands enter it with
``nsenter``). Each node is a ``ray start --block`` process leading a session of its own, so a
node is stopped, or killed as a machine dies, by the PIDs of that session.

Token authentication is on, as Ray documents it for clusters started with ``ray start``
(Ray >= 2.52): a token made once with ``ray get-auth-token --generate`` (here into this cluster's
folder, not ``~/.ray``), and ``RAY_AUTH_MODE=token`` plus ``RAY_AUTH_TOKEN_PATH`` in the
environment of every node and driver (:attr:`LocalRayCluster.env`).

    cluster = LocalRayCluster(workers=1)     # a head and one worker node, 1 CPU each
    address = cluster.start()                # "127.0.0.1:6379", inside the cluster's namespace
    subprocess.run(cluster.command([..., "--executor-set", f"address={address}"]), env=cluster.env)
    cluster.kill_node(cluster.nodes[1])      # SIGKILL a worker node's processes
    cluster.stop()
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from criss_rag.errors import ConfigError

LOOPBACK = "127.0.0.1"
HEAD_PORT = 6379  # Ray's default; free in a namespace of our own
READY = "ray-namespace-ready"
# the head declares a node dead after 3 missed 1-second health checks (Ray's defaults take longer)
HEALTH_CHECKS = {"RAY_health_check_period_ms": "1000", "RAY_health_check_timeout_ms": "1000",
                 "RAY_health_check_failure_threshold": "3"}


@dataclass
class RayNode:
    """One ``ray start --block`` process (its PID is also its process group's id)."""

    role: str
    proc: subprocess.Popen[bytes]
    log: Path
    killed: bool = field(default=False)

    @property
    def pid(self) -> int:
        return self.proc.pid


class LocalRayCluster:
    """A head and ``workers`` worker nodes on 127.0.0.1, each with ``cpus`` CPUs and a small object store."""

    def __init__(self, workers: int = 1, *, cpus: int = 1, object_store_mb: int = 80, base_dir: Path | None = None,
                 start_timeout: float = 120.0) -> None:
        self.workers = workers
        self.cpus = cpus
        self.object_store_mb = object_store_mb
        self.start_timeout = start_timeout
        # short: Ray's unix sockets live under it, and a socket path may not pass 107 bytes
        self.base_dir = Path(base_dir) if base_dir else Path(tempfile.mkdtemp(prefix="crray-", dir="/tmp"))
        self.port = HEAD_PORT
        self.nodes: list[RayNode] = []
        self._holder: subprocess.Popen[str] | None = None
        self.ray = str(Path(sys.executable).with_name("ray"))
        if not Path(self.ray).exists():
            self.ray = shutil.which("ray") or ""
        if not self.ray:
            raise ConfigError("LocalRayCluster needs the `ray` command: pip install criss-rag-ray")
        if sys.platform != "linux" or not (shutil.which("unshare") and shutil.which("nsenter")):
            raise ConfigError("LocalRayCluster needs Linux with `unshare` and `nsenter` (util-linux)")

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def token_path(self) -> Path:
        return self.base_dir / "home" / ".ray" / "auth_token"

    @property
    def env(self) -> dict[str, str]:
        """The environment every node and driver of this cluster runs with."""
        return {**os.environ, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(self.token_path),
                "RAY_USAGE_STATS_ENABLED": "0", **HEALTH_CHECKS}

    def command(self, argv: list[str]) -> list[str]:
        """``argv`` run inside the cluster's network namespace (a driver, `ray status`)."""
        if self._holder is None:
            raise RuntimeError("the cluster is not started")
        if os.geteuid() == 0:
            return ["nsenter", f"--net=/proc/{self._holder.pid}/ns/net", "--", *argv]
        return ["nsenter", "--user", "--net", "--preserve-credentials", "-t", str(self._holder.pid), "--", *argv]

    def start(self) -> str:
        self.base_dir.mkdir(parents=True, exist_ok=True)
        if not self.token_path.exists():
            # Ray's documented way to make a cluster token; HOME points it into this cluster's folder
            env = {k: v for k, v in self.env.items() if k != "RAY_AUTH_TOKEN_PATH"}  # it must exist when set
            subprocess.run([self.ray, "get-auth-token", "--generate"], env={**env, "HOME": str(self.base_dir / "home")},
                           check=True, capture_output=True, timeout=60)
            self.token_path.chmod(0o600)
        namespace = ["--net"] if os.geteuid() == 0 else ["--map-root-user", "--net"]
        self._holder = subprocess.Popen(["unshare", *namespace, sys.executable, "-m", "criss_rag_ray.local_cluster"],
                                        stdout=subprocess.PIPE, text=True)
        line = self._holder.stdout.readline() if self._holder.stdout else ""
        if not line.startswith(READY):
            self._holder.kill()
            raise RuntimeError(
                f"could not make a network namespace for the Ray cluster (unshare: {line.strip() or 'no answer'})"
            )
        self._start_node("head", ["--head", "--port", str(self.port), "--include-dashboard", "false",
                                  "--temp-dir", str(self.base_dir / "t")])
        for _ in range(self.workers):
            self.add_worker()
        return self.address

    def add_worker(self) -> RayNode:
        return self._start_node(f"worker{len(self.nodes)}", ["--address", self.address])

    def _start_node(self, role: str, args: list[str]) -> RayNode:
        log = self.base_dir / f"{role}.log"
        expected = len(self.live_nodes()) + 1
        with log.open("ab") as out:
            proc = subprocess.Popen(self.command(
                [self.ray, "start", "--block", "--node-ip-address", LOOPBACK, "--num-cpus", str(self.cpus),
                 "--object-store-memory", str(self.object_store_mb * 1024 * 1024), "--disable-usage-stats", *args]),
                env=self.env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True,
            )
        node = RayNode(role, proc, log)
        self.nodes.append(node)
        deadline = time.monotonic() + self.start_timeout
        while "Ray runtime started" not in log.read_text(errors="replace"):
            if proc.poll() is not None:
                raise RuntimeError(
                    f"ray start ({role}) exited with {proc.returncode}:\n{log.read_text(errors='replace')[-2000:]}"
                )
            if time.monotonic() > deadline:
                raise TimeoutError(f"ray start ({role}) did not start within {self.start_timeout:.0f} s; log: {log}")
            time.sleep(0.5)
        while role != "head" and self.alive_nodes() < expected:  # registered with the head's GCS
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"ray node {role} did not join the cluster within {self.start_timeout:.0f} s; log: {log}"
                )
            time.sleep(1)
        return node

    def live_nodes(self) -> list[RayNode]:
        return [node for node in self.nodes if not node.killed and node.proc.poll() is None]

    def alive_nodes(self) -> int:
        """Nodes the head's GCS counts as alive (``ray list nodes`` through the state API)."""
        probe = subprocess.run(self.command(
            [sys.executable, "-c", "import ray, sys; ray.init(address=sys.argv[1], log_to_driver=False, "
             "include_dashboard=False); print(sum(n['Alive'] for n in ray.nodes()))", self.address]),
            env=self.env, capture_output=True, text=True, timeout=120,
        )
        lines = probe.stdout.strip().splitlines()
        return int(lines[-1]) if probe.returncode == 0 and lines and lines[-1].isdigit() else 0

    def kill_node(self, node: RayNode) -> None:
        """SIGKILL every process of ``node`` (its raylet, object store, workers): a machine that dies."""
        _signal_session(node.pid, signal.SIGKILL)
        node.proc.wait(30)
        node.killed = True

    def stop(self) -> None:
        """Worker nodes first, then the head (a worker's raylet waits for a head that is already
        gone): SIGTERM to every process of the node's session, SIGKILL to what is left after 5 s."""
        for node in reversed(self.nodes):
            _signal_session(node.pid, signal.SIGTERM)
            deadline = time.monotonic() + 5
            while _session_pids(node.pid) and time.monotonic() < deadline:
                time.sleep(0.2)
            _signal_session(node.pid, signal.SIGKILL)
            if node.proc.poll() is None:
                node.proc.wait(10)
        self.nodes.clear()
        if self._holder is not None:
            self._holder.kill()
            self._holder.wait(10)
            if self._holder.stdout:
                self._holder.stdout.close()
            self._holder = None
        shutil.rmtree(self.base_dir, ignore_errors=True)

    def __enter__(self) -> LocalRayCluster:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _session_pids(sid: int) -> list[int]:
    """The live processes of session ``sid`` (Ray's workers are in process groups of their own, but
    they stay in the session of the ``ray start`` that started their node)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _signal_session(sid: int, sig: int) -> None:
    for pid in _session_pids(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def _loopback_up() -> None:
    """``ip link set lo up`` without iproute2 (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack("16sh", fcntl.ioctl(sock, 0x8913, struct.pack("16sh", b"lo", 0)))[1]
        fcntl.ioctl(sock, 0x8914, struct.pack("16sh", b"lo", flags | 0x1))


if __name__ == "__main__":  # the namespace's first process: loopback up, then wait to be killed
    _loopback_up()
    print(READY, flush=True)
    signal.pause()
