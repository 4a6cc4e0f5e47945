"""Filters: the metadata filter (keep candidates whose metadata field has an allowed value)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Hit, Query


class MetadataFilter:
    """Keeps candidates whose metadata field has one of the allowed values.

    Allowed values come from the config (``values``) or, per request, from ``query.filters[field]``.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        field: str = Field(description="metadata key to test, e.g. lang or cancer_id")
        values: list[Any] | None = Field(None, description="allowed values; None = take them from the request")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit]:
        allowed = self.params.values
        if allowed is None:
            requested = query.filters.get(self.params.field)
            if requested is None:
                return hits
            allowed = as_list(requested)
        wanted = {str(v) for v in allowed}
        return [h for h in hits if str(h.metadata.get(self.params.field)) in wanted]


def as_list(value: Any) -> list[Any]:
    """A collection as a list; any other value as a list of one."""
    return list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
