"""The context builder `{{ cookiecutter.component_name }}`: numbers the best candidates [1]..[n],
at most one passage per source document, so the answer draws on more than one source.

Replace the body of ``build`` with your own selection; keep the contract: evidence numbered from 1,
and ``text`` the rendered evidence a generator's prompt can use.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Context, Evidence, Hit, Query


class {{ cookiecutter.__class_name }}:
    """Numbers the best candidates, at most one per source document."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        max_evidence: int = Field(3, ge=1, description="at most this many passages")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.max_evidence = params.max_evidence

    def build(self, query: Query, hits: list[Hit]) -> Context:
        chosen: list[Evidence] = []
        seen: set[str] = set()
        for hit in hits:
            if hit.doc_id in seen:
                continue
            seen.add(hit.doc_id)
            chosen.append(Evidence(len(chosen) + 1, hit, hit.text))
            if len(chosen) == self.max_evidence:
                break
        rendered = "\n\n".join(f"[{e.number}] {e.hit.metadata.get('title', '')}\n{e.text}".strip() for e in chosen)
        return Context(tuple(chosen), rendered)
