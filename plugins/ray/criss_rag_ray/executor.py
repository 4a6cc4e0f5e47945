"""The ``ray`` executor: batches go through Ray Data ``map_batches`` over a pool of actors, each
of which builds the work (an embedding model, an engine) once from the same config.

Batches travel pickled (cloudpickle), one per Ray Data row, so any Python items work (texts,
question records) and the results come back as they finish. Ray is started here (a local
instance) unless an ``address`` names a running cluster; a Ray that is already initialised in
this process (a test fixture, a notebook) is used as it is and left running.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ComponentError, ConfigError, CrissRagError

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # never report usage to Ray's servers


class RayExecutor:
    """Runs batches on Ray workers (Ray Data map_batches over an actor pool), locally or on a cluster."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        address: str | None = Field(
            None, description="null = start Ray on this machine (loopback only); `HEAD:6379` = join that cluster "
            "(its token in RAY_AUTH_MODE=token + RAY_AUTH_TOKEN_PATH); `auto` = the cluster this machine is a node of; "
            "`ray://head:10001` = a remote cluster through Ray Client",
        )
        workers: int = Field(2, ge=1, description="actors working at once; each builds the component once")
        cpus_per_worker: float = Field(1.0, gt=0, description="CPUs Ray reserves for each actor")
        num_cpus: int | None = Field(None, ge=1, description="when Ray is started here: CPUs it may use (null = all)")
        max_restarts: int = Field(-1, ge=-1, description="times Ray restarts a worker that died (its node lost) and "
                                  "retries its batch: -1 = always (Ray Data's default; the run survives), 0 = never "
                                  "(the run stops with an error; running it again resumes)")
        start_timeout: int = Field(300, ge=1, description="seconds to wait until all `workers` actors have started "
                                   "(work is handed out once they have, so it spreads over them); a cluster without "
                                   "room for them is an error after this")
        runtime_env: dict[str, Any] = Field(
            default_factory=dict, description="Ray runtime_env for the workers, e.g. {pip: [criss-rag, ...], "
            "env_vars: {HF_HUB_OFFLINE: '1'}} (a cluster whose nodes lack the plugins)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._started_here = False
        #: batches finished per Ray node id (where the work ran)
        self.nodes: Counter[str] = Counter()

    def _ray(self) -> Any:
        import ray

        if not ray.is_initialized():
            p = self.params
            options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False}
            if p.runtime_env:
                options["runtime_env"] = p.runtime_env
            try:
                if p.address:
                    ray.init(address=p.address, **options)
                else:  # a Ray of this process only: its servers bind loopback, not the machine's address
                    ray.init(num_cpus=p.num_cpus, _node_ip_address="127.0.0.1", **options)
            except (ConnectionError, RuntimeError, ValueError, ray.exceptions.AuthenticationError) as exc:
                where = f"the Ray cluster at {p.address}" if p.address else "a local Ray instance"
                causes = _causes(exc)
                token = ""
                if any(
                    isinstance(c, ray.exceptions.AuthenticationError) or "InvalidAuthToken" in str(c) for c in causes
                ):
                    token = (
                        " The cluster uses token authentication: set RAY_AUTH_MODE=token and "
                        "RAY_AUTH_TOKEN_PATH=<a copy of the cluster's token file> (or RAY_AUTH_TOKEN) for this command."
                    )
                raise ConfigError(
                    f"executor ray: could not start or reach {where} ({_root_error(exc)}).{token} Check `address` "
                    "(--executor-set address=HEAD:6379 on a machine that can reach the head, ray://HEAD:10001 "
                    "through Ray Client, or `auto` on a cluster node)"
                ) from None
            self._started_here = True
        return ray

    def map_batches(self, setup: Callable[[], Callable[[list[Any]], list[Any]]],
                    batches: Sequence[list[Any]]) -> Iterator[list[Any]]:
        if not batches:
            return
        ray = self._ray()
        ray.data.DataContext.get_current().wait_for_min_actors_s = self.params.start_timeout
        rows = ray.data.from_items([{"batch": pickle.dumps(batch)} for batch in batches],
                                   override_num_blocks=len(batches))
        results = rows.map_batches(
            _Worker,
            fn_constructor_args=(setup,),
            batch_size=1,
            batch_format="numpy",
            # one batch at a time per worker: a batch goes to whichever worker is free, on any node
            # (more in flight would queue them on the workers next to the data, the driver's node)
            compute=ray.data.ActorPoolStrategy(
                size=min(self.params.workers, len(batches)), max_tasks_in_flight_per_actor=1
            ),
            num_cpus=self.params.cpus_per_worker,
            max_restarts=self.params.max_restarts,
        )
        try:
            for row in results.iter_rows():
                self.nodes[str(row["node"])] += 1
                yield pickle.loads(row["result"])
        except Exception as exc:  # a worker failed: Ray wraps the cause (RayTaskError, ActorDiedError, ...)
            cause = getattr(exc, "cause", None)
            if isinstance(cause, CrissRagError):
                raise cause from None
            if isinstance(exc, ray.exceptions.GetTimeoutError) and "starting actors" in str(exc):
                p = self.params
                raise ComponentError(
                    f"executor ray: the cluster did not start {min(p.workers, len(batches))} workers of "
                    f"{p.cpus_per_worker:g} CPUs each within {p.start_timeout} s (start_timeout). Lower `workers` "
                    "(--executor-set workers=N), add nodes, or see `ray status` for the CPUs free"
                ) from None
            raise ComponentError(
                f"executor ray: a worker failed ({_root_error(cause or exc)}). The results that came back are kept "
                "(the embedding cache, the records): run the command again to resume"
            ) from exc

    def summary(self) -> str:
        """Where the batches ran, e.g. ``executor ray: 9 batches on 2 nodes (3f2a91c0: 5, 9c1b7e44: 4)``."""
        if not self.nodes:
            return ""
        spread = ", ".join(f"{node[:8]}: {count}" for node, count in sorted(self.nodes.items()))
        return (f"executor ray: {sum(self.nodes.values())} batches on {len(self.nodes)} "
                f"node{'s' if len(self.nodes) > 1 else ''} ({spread})")

    def close(self) -> None:
        if self.nodes:
            print(self.summary(), file=sys.stderr, flush=True)  # next to the progress bars, not in --json output
        if self._started_here:
            import ray

            ray.shutdown()
            self._started_here = False


_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_ERROR_LINE = re.compile(r"^\s*([A-Za-z_.]*(?:Error|Exception)): (.*)$")


def _causes(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from."""
    found: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in found:
        found.append(current)
        current = current.__cause__ or current.__context__
    return found


def _root_error(exc: BaseException) -> str:
    """The innermost ``SomeError: message`` line of a Ray error (its text embeds the worker's traceback)."""
    lines = _ANSI.sub("", str(exc)).splitlines()
    found = [m for line in lines if (m := _ERROR_LINE.match(line))]
    if found:
        name, message = found[-1].groups()
        return f"{name.rsplit('.', 1)[-1]}: {message.strip()[:300]}"
    return f"{type(exc).__name__}: {' '.join(' '.join(lines).split())[:300]}"


class _Worker:
    """A Ray Data actor: builds the work once, then runs it on each pickled batch."""

    def __init__(self, setup: Callable[[], Callable[[list[Any]], list[Any]]]) -> None:
        import ray

        self.work = setup()
        self.node = ray.get_runtime_context().get_node_id()

    def __call__(self, rows: dict[str, Any]) -> dict[str, list[Any]]:
        results = [pickle.dumps(self.work(pickle.loads(blob))) for blob in rows["batch"]]
        return {"result": results, "node": [self.node] * len(results)}
