"""What the cancer-type filter and the cancer-type boost share: the lexicon params, reading the
cancer types a question asks about and a chunk is about, and the corpus check."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.types import Hit, Query
from criss_rag_domain.asked import asked_types
from criss_rag_domain.lexicon import CancerLexicon

TEXT_FIELD = "text"  # in `fields`, the chunk's text; any other name is a metadata key


class LexiconParams(BaseModel):
    """Params shared by `cancer-type` and `cancer-type-boost`."""

    model_config = ConfigDict(extra="forbid")
    builtin_lexicon: bool = Field(
        True,
        description="start from the bundled lexicon (cancer_types.yaml: 85 types, en/ko/ja/zh); false = only "
        "`lexicon_file` and `metadata_field`",
    )
    lexicon_file: str | None = Field(
        None,
        description="a YAML or CSV file of further types and synonyms, added to the lexicon (relative to "
        "the pipeline YAML); null = none",
    )
    metadata_field: str | None = Field(
        None,
        description="corpus metadata field whose distinct values become types (e.g. `focus`), read when the "
        "index is opened; null = none",
    )
    fields: list[str] = Field(
        default_factory=lambda: ["title", "text"],
        description="where a chunk names its cancer type: `text` is the chunk text, any other name a metadata "
        "key (the filter reads them all; the boost reads them in order, and the first that names a type decides)",
    )
    request_key: str = Field(
        "cancer_type",
        min_length=1,
        description="request filter key (`query.filters[KEY]`, `ask --filter cancer_type=...`) naming the "
        "cancer type (a type id or a name; a list for several) instead of the question",
    )
    on_missing_field: Literal["error", "warn"] = Field(
        "error",
        description="a field in `fields` (or `metadata_field`) that no chunk of the corpus carries: "
        "`error` stops at ingest/open, `warn` records a warning in the trace and does without it",
    )

    @field_validator("fields")
    @classmethod
    def _fields(cls, value: list[str]) -> list[str]:
        if not value or not all(isinstance(f, str) and f.strip() for f in value):
            raise ValueError("list at least one field, e.g. [title, text]")
        return value


class CancerTypeComponent:
    """Base of the cancer-type filter and boost (not registered itself)."""

    kind = "component"
    name = "cancer-type"

    def __init__(self, params: LexiconParams, ctx: ComponentContext) -> None:
        self.params = params
        self.stage = ctx.stage
        self.lexicon = CancerLexicon.builtin() if params.builtin_lexicon else CancerLexicon()
        if params.lexicon_file:
            self.lexicon.extend_from_file(ctx.resolve_path(params.lexicon_file))
        self.fields = list(params.fields)
        self.missing: list[str] = []  # configured fields the corpus lacks (lenient mode)
        self._cache: dict[tuple[str, str], tuple[str, ...]] = {}
        self._cache_version = self.lexicon.version
        if not self.lexicon.types and params.metadata_field is None:
            raise ConfigError(
                f"stage {ctx.stage}: {self.kind} {self.name!r} has an empty lexicon: keep "
                "`builtin_lexicon: true`, or give `lexicon_file` or `metadata_field`"
            )

    # -- the question ---------------------------------------------------------------------------
    def wanted(self, query: Query) -> tuple[list[str], str]:
        """The types asked about, and a note saying where they came from (or why there are none)."""
        requested = query.filters.get(self.params.request_key)
        if requested not in (None, "", []):
            values = list(requested) if isinstance(requested, list | tuple | set) else [requested]
            types = list(dict.fromkeys(t for v in values for t in self.lexicon.resolve(v)))
            unknown = [str(v) for v in values if not self.lexicon.resolve(v)]
            if not types:
                return [], (
                    f"request {self.params.request_key}={', '.join(unknown)} names no cancer type of the lexicon"
                )
            return types, "the request" + (f" (unknown, ignored: {', '.join(unknown)})" if unknown else "")
        types = asked_types(self.lexicon, query.text)
        if not types:
            return [], "no cancer type of the lexicon in the question"
        return types, "the question"

    def label(self, types: Sequence[str]) -> str:
        return ", ".join(self.lexicon.name(t) for t in types)

    # -- the chunk ------------------------------------------------------------------------------
    def types_in(self, hit: Hit, field: str) -> tuple[str, ...]:
        """The types the chunk's ``field`` names (cached per chunk and field)."""
        if self._cache_version != self.lexicon.version:
            self._cache.clear()
            self._cache_version = self.lexicon.version
        key = (hit.node_id, field)
        if key not in self._cache:
            self._cache[key] = tuple(self.lexicon.detect(field_text(hit, field)))
        return self._cache[key]

    # -- the corpus -----------------------------------------------------------------------------
    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        """Every configured field must exist on the corpus; `metadata_field` values become types."""
        if not nodes:
            return None
        present = set().union(*(getattr(n, "metadata", {}).keys() for n in nodes))
        problems = [f for f in self.params.fields if f != TEXT_FIELD and f not in present]
        source = self.params.metadata_field
        if source is not None:
            if source in present:
                self.lexicon.extend_from_nodes(nodes, source)
            else:
                problems.append(source)
        if not problems:
            return None
        seen = ", ".join(sorted(present)[:12]) or "(none)"
        message = (
            f"stage {self.stage}: {self.kind} {self.name!r}: no chunk of the corpus has the metadata field(s) "
            f"{', '.join(repr(p) for p in problems)} (chunks carry: {seen})"
        )
        if self.params.on_missing_field == "error":
            raise ConfigError(
                f"{message}. Fix `fields`/`metadata_field` ({TEXT_FIELD!r} means the chunk text), "
                "or set `on_missing_field: warn` to run without them"
            )
        self.missing = [p for p in problems if p in self.params.fields]
        self.fields = [f for f in self.params.fields if f not in self.missing]
        return message + ("; it does without them" if self.fields else "; it does not apply")


def field_text(hit: Hit, field: str) -> str:
    if field == TEXT_FIELD:
        return hit.text
    value = hit.metadata.get(field)
    if value is None:
        return ""
    return "; ".join(map(str, value)) if isinstance(value, list | tuple | set) else str(value)


def boost_score(score: float, factor: float) -> float:
    """``score`` moved by ``factor`` in the right direction for any sign: a factor above 1 always
    ranks a candidate higher (a negative score is divided by it), below 1 lower."""
    return score * factor if score >= 0 else score / factor
