"""The filter `{{ cookiecutter.component_name }}`: drops candidates whose text is shorter than
``min_chars`` characters (headings and fragments that cannot support an answer).

Replace the body of ``apply`` with your own test; keep the contract: only drop candidates, never
re-score or add any, and keep everything when there is nothing to filter on.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Hit, Query


class {{ cookiecutter.__class_name }}:
    """Drops candidates whose text is shorter than `min_chars` characters."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        min_chars: int = Field(40, ge=0, description="candidates with shorter text are dropped")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.min_chars = params.min_chars

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return [hit for hit in hits if len(hit.text.strip()) >= self.min_chars]
