"""The ``ray`` plugin: registration only (Ray itself is imported when the executor first runs)."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_executors(register):
    register("ray", "criss_rag_ray.executor:RayExecutor")
