"""The ``judges`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_judges(register):
    register("rubric", "criss_rag_judges.rubric:RubricJudge")
