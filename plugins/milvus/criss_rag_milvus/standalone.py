"""A real Milvus server on this machine, reachable on 127.0.0.1 only: the standalone Milvus 2.3
(Go coordinators, C++ segcore and knowhere, embedded etcd and rocksmq) that PyPI's ``milvus``
package ships (``pip install 'criss-rag-milvus[server]'``). The tests and benchmarks run against it.

Milvus 2.3 binds its gRPC ports on every interface and has no setting to bind loopback only, so
the server runs in a network namespace of its own (``unshare --net``: only a loopback device,
nothing else to bind or reach). The process that starts it there inherits a listening socket on
this machine's 127.0.0.1 and relays each connection to the server's port inside the namespace:
clients connect with ``http://127.0.0.1:PORT``, exactly as to a deployed server. Linux only;
``unshare`` (util-linux) must be allowed to create the namespace (root, or user namespaces).

    server = StandaloneMilvus(data_dir)      # a folder it keeps: binaries, config, data, logs
    uri = server.start()                     # http://127.0.0.1:PORT once the server is healthy
    ...
    server.stop()                            # SIGTERM by PID, SIGKILL after `stop_timeout`
    server.start()                           # the same data and port again

``python -m criss_rag_milvus.standalone DATA_DIR [--port N]`` runs one in the foreground.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from criss_rag.errors import ConfigError, IndexStoreError

INNER_PORT = 19530  # the server's own port, inside its namespace
READY = "milvus-standalone-ready"
COMPONENTS = ("rootCoord", "proxy", "queryCoord", "queryNode", "indexCoord", "indexNode", "dataCoord", "dataNode")


class StandaloneMilvus:
    """A Milvus standalone server process in its own network namespace, relayed to 127.0.0.1:``port``."""

    def __init__(
        self, data_dir: Path, port: int = 0, *, start_timeout: float = 180.0, stop_timeout: float = 20.0
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.port = port
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self._proc: subprocess.Popen[str] | None = None
        self.server_pid: int | None = None  # the `milvus run standalone` process (for its memory)

    @property
    def uri(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        """The relay's PID (the namespace's first process; the server is its child)."""
        return self._proc.pid if self._proc else None

    def start(self) -> str:
        if self._proc is not None:
            return self.uri
        try:
            import milvus  # noqa: F401  (the server's binaries)
        except ImportError:
            raise ConfigError(
                "a Milvus server needs PyPI's `milvus` package: pip install 'criss-rag-milvus[server]'"
            ) from None
        unshare = shutil.which("unshare")
        if unshare is None or sys.platform != "linux":
            raise ConfigError("StandaloneMilvus needs Linux and `unshare` (util-linux) to keep the server on loopback")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.port = listener.getsockname()[1]
        namespace = ["--net"] if os.geteuid() == 0 else ["--map-root-user", "--net"]
        log = (self.data_dir / "relay.log").open("a", encoding="utf-8")
        try:
            self._proc = subprocess.Popen(
                [unshare, *namespace, sys.executable, "-m", "criss_rag_milvus.standalone", "--relay",
                 str(listener.fileno()), str(self.data_dir)],
                stdout=subprocess.PIPE, stderr=log, text=True, pass_fds=[listener.fileno()],
            )
        finally:
            listener.close()  # the relay holds its own copy
            log.close()
        deadline = time.monotonic() + self.start_timeout
        line = _read_line(self._proc, deadline)
        if not line.startswith(READY):
            self.stop()
            tail = (self.data_dir / "relay.log").read_text(encoding="utf-8", errors="replace")[-1500:]
            raise IndexStoreError(
                f"the Milvus server in {self.data_dir} did not start ({line.strip() or 'no answer'}); "
                f"logs in {self.data_dir / 'logs'}. Relay log:\n{tail}"
            )
        self.server_pid = int(line.split()[1])
        return self.uri

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)  # the relay stops the server, then exits
            try:
                proc.wait(self.stop_timeout + 10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if proc.stdout:
            proc.stdout.close()
        self.server_pid = None

    def __enter__(self) -> StandaloneMilvus:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _read_line(proc: subprocess.Popen[str], deadline: float) -> str:
    """The relay's first line of output, or "" when it exits or the deadline passes first."""
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(proc.stdout.readline() if proc.stdout else ""), daemon=True)
    reader.start()
    reader.join(max(0.0, deadline - time.monotonic()))
    return found[0] if found else ""


# -- inside the namespace ----------------------------------------------------------------------


def _loopback_up() -> None:
    """``ip link set lo up`` without iproute2 (SIOCGIFFLAGS / SIOCSIFFLAGS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack("16sh", fcntl.ioctl(sock, 0x8913, struct.pack("16sh", b"lo", 0)))[1]
        fcntl.ioctl(sock, 0x8914, struct.pack("16sh", b"lo", flags | 0x1))


def _die_with_parent() -> None:
    """In the server's process: SIGKILL it when the relay dies (prctl PR_SET_PDEATHSIG)."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    finally:
        for sock in (source, target):
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _relay(listener: socket.socket) -> None:
    while True:
        client, _ = listener.accept()
        try:
            server = socket.create_connection(("127.0.0.1", INNER_PORT))
        except OSError:
            client.close()
            continue
        for a, b in ((client, server), (server, client)):
            threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def _serve_in_namespace(listen_fd: int, data_dir: Path) -> None:
    from milvus import MilvusServer, MilvusServerConfig

    _loopback_up()
    server = MilvusServer(MilvusServerConfig(data_dir=str(data_dir)), proxy_port=INNER_PORT)
    for component in COMPONENTS:  # the addresses the components register (the namespace has no other)
        server.config.set(f"{component}.ip", "127.0.0.1")
    server.config.set("common.gracefulStopTimeout", 5)
    original_popen = subprocess.Popen

    def popen_dying_with_us(*args, **kwargs):  # noqa: ANN002, ANN003
        return original_popen(*args, preexec_fn=_die_with_parent, **kwargs)

    subprocess.Popen = popen_dying_with_us  # type: ignore[misc]  (MilvusServer.start spawns the binary)
    try:
        server.start()
    finally:
        subprocess.Popen = original_popen  # type: ignore[misc]

    def stop(*_: object) -> None:
        proc = server.server_proc
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print(READY, server.server_proc.pid, flush=True)
    listener = socket.socket(fileno=listen_fd)
    threading.Thread(target=_relay, args=(listener,), daemon=True).start()
    while server.server_proc.poll() is None:
        time.sleep(0.5)
    print(f"milvus exited with {server.server_proc.returncode}", file=sys.stderr, flush=True)
    os._exit(1)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m criss_rag_milvus.standalone",
                                     description="Run a Milvus standalone server on 127.0.0.1 (Ctrl+C stops it).")
    parser.add_argument("data_dir", type=Path)
    parser.add_argument("--port", type=int, default=19530)
    parser.add_argument("--relay", type=int, help=argparse.SUPPRESS)  # internal: the inherited listening socket
    args = parser.parse_args(argv)
    if args.relay is not None:
        _serve_in_namespace(args.relay, args.data_dir)
        return
    with StandaloneMilvus(args.data_dir, args.port) as server:
        print(
            f"Milvus {server.uri} (relay PID {server.pid}, server PID {server.server_pid}); Ctrl+C stops it", flush=True
        )
        try:
            while server._proc is not None and server._proc.poll() is None:
                time.sleep(1)
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
