"""The ``judges`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_judges.rubric import RubricJudge


@hookimpl
def register_judges(register):
    register("rubric", RubricJudge)
