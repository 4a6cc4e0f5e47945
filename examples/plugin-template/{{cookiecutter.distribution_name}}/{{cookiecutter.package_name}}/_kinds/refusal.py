"""The refusal policy `{{ cookiecutter.component_name }}`: refuses unless at least ``min_hits``
candidates are left after retrieval, filters and rerankers.

Replace the body of ``decide`` with your own rule; keep the contract: return ``None`` to answer or
a ``Refusal(reason, detail, message)``; when it refuses, no generator is called.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Hit, Query, Refusal


class {{ cookiecutter.__class_name }}:
    """Refuses unless at least `min_hits` candidates support the answer."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        min_hits: int = Field(2, ge=1, description="fewer candidates than this: refuse")
        message: str = Field(
            "Insufficient evidence: the sources do not answer this question.",
            min_length=1,
            description="what the user is shown when the policy refuses",
        )

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.params = params

    def decide(self, query: Query, hits: list[Hit]) -> Refusal | None:
        if not hits:
            return Refusal("no_evidence", "no candidates", self.params.message)
        if len(hits) < self.params.min_hits:
            detail = f"{len(hits)} candidate(s) < min_hits {self.params.min_hits}"
            return Refusal("too_little_evidence", detail, self.params.message)
        return None  # enough evidence: answer
