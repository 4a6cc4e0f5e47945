"""Question intent as a soft constraint: boost chunks from the section the question asks about."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import DECLARES_SIGNAL
from criss_rag.types import Hit, Query
from criss_rag_domain.intent_model import intent_reader
from criss_rag_domain.intents import OVERVIEW, IntentLexicon

#: MedQuAD's `section` values (its question types) for each built-in intent.
MEDQUAD_SECTIONS: dict[str, list[str]] = {
    "overview": ["information"],
    "treatment": ["treatment"],
    "stages": ["stages"],
    "symptoms": ["symptoms"],
    "diagnosis": ["exams and tests"],
    "prevention": ["prevention"],
    "risk": ["susceptibility"],
    "outlook": ["outlook"],
    "causes": ["causes"],
    "research": ["research"],
    "inheritance": ["inheritance"],
    "genetic-changes": ["genetic changes"],
}


class IntentBoost:
    """Boosts candidates from the section the question asks about (treatment, symptoms, ...), by multilingual cues.

    ``metadata-boost`` with its cue list replaced by a lexicon: the question's intents come from
    the built-in cue lexicon (English, Korean, Japanese, Chinese; ``cues`` adds to it), or from
    ``query.filters[request_key]``; ``sections`` maps each intent to the corpus's section values,
    and the candidates whose section (the first ``field`` they carry) has one of them are boosted
    exactly as ``metadata-boost`` boosts (same ``match``, ``mode``, ``weight`` and ``signal``
    semantics). A question with no cue asks for ``otherwise`` (``overview``: "What is X?").
    Nothing is removed.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        field: str | list[str] = Field(
            "section",
            description="metadata key holding the chunk's section, e.g. `section` (MedQuAD) or `menu_name` "
            "(the Korean export); a list = the first of these keys the chunk carries",
        )
        sections: dict[str, list[str]] = Field(
            default_factory=lambda: {k: list(v) for k, v in MEDQUAD_SECTIONS.items()},
            description="intent -> the section values it boosts; the default is MedQuAD's (overview -> information, "
            "diagnosis -> exams and tests, risk -> susceptibility, genetic-changes -> genetic changes, every other "
            "intent -> the section of its own name); an intent left out boosts nothing",
        )
        cues: dict[str, list[str]] = Field(
            default_factory=dict,
            description="extra cue phrases per intent (added to the built-in ones; a new "
            "intent name defines a new intent)",
        )
        builtin_cues: bool = Field(True, description="use the built-in cue lexicon (intents.yaml); false = only `cues`")
        named_things: bool = Field(
            True, description="a question with no cue (besides the overview's) that names a test asks about diagnosis, "
            "one naming a stage about stages, one naming a drug about treatment (read with the shared multilingual "
            "lexicon, criss_rag.lexicon.facets)",
        )
        intent_model: str | None = Field(
            None, description="a learned intent model read beside the cues (criss_rag_domain.intent_model): "
            "`builtin` (trained on the example corpus's question sets) or the path of one written by "
            "benchmarks/train_intent_model.py; null = cues only",
        )
        intent_min_probability: float = Field(
            0.5, gt=0, le=1, description="the model decides when its most probable intent reaches this; "
            "the cues decide otherwise",
        )
        otherwise: str | None = Field(
            OVERVIEW, description="the intent assumed when no cue matches; null = boost nothing then"
        )
        request_key: str = Field(
            "intent",
            min_length=1,
            description="request filter key (`query.filters[KEY]`) naming the intent(s) instead of the question's cues",
        )
        match: Literal["exact", "iexact", "icontains"] = Field(
            "iexact",
            description="how a section value is compared: equal, equal ignoring case, or contained ignoring case",
        )
        mode: Literal["multiply", "add"] = Field("multiply", description="multiply the score by `weight`, or add it")
        weight: float = Field(1.5, description="the boost: a factor (multiply, > 0) or an amount (add)")
        signal: str = Field("intent-boost", min_length=1, description="signal name the applied boost is recorded under",
                            json_schema_extra=DECLARES_SIGNAL)
        on_missing_field: Literal["error", "warn"] = Field(
            "error",
            description="no chunk of the corpus has `field`: `error` stops at ingest/open, `warn` records one "
            "warning in the ingest report and the trace and boosts nothing",
        )

        @model_validator(mode="after")
        def _check(self) -> IntentBoost.Params:
            keys = [self.field] if isinstance(self.field, str) else self.field
            if not keys or not all(k.strip() for k in keys):
                raise ValueError("`field` needs a metadata key (or a non-empty list of them)")
            if self.mode == "multiply" and self.weight <= 0:
                raise ValueError("with mode: multiply, weight must be greater than 0 (use a value below 1 to demote)")
            empty = sorted(i for i, words in self.cues.items() if not any(str(w).strip() for w in words))
            if empty:
                raise ValueError(f"cues for {', '.join(empty)} list no cue phrase")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.stage = ctx.stage
        lexicon = IntentLexicon(params.cues, builtin=params.builtin_cues, named_things=params.named_things)
        self.intents = intent_reader(lexicon, params.intent_model, params.intent_min_probability, ctx)
        known = set(self.intents.intents)
        unknown = sorted({*params.sections, *([params.otherwise] if params.otherwise else [])} - known)
        if unknown:
            raise ConfigError(
                f"stage {ctx.stage}: intent-boost: unknown intent(s) {unknown} in `sections`/`otherwise`; "
                f"known: {sorted(known)} (define new ones under `cues`)"
            )
        self.fields = [params.field] if isinstance(params.field, str) else list(params.field)
        self.active = True

    def detect(self, query: Query) -> list[str]:
        """The intents asked about: from the request, else the question's cues, else ``otherwise``."""
        requested = query.filters.get(self.params.request_key)
        if requested not in (None, "", []):
            return [str(v) for v in (requested if isinstance(requested, list | tuple | set) else [requested])]
        found = self.intents.detect(query.text)
        return found or ([self.params.otherwise] if self.params.otherwise else [])

    def wanted_sections(self, query: Query) -> list[str]:
        return list(dict.fromkeys(s for intent in self.detect(query) for s in self.params.sections.get(intent, [])))

    def section_of(self, chunk: Hit | Any) -> Any:
        """The section of a hit or a chunk: the value of the first of ``field`` it carries (None if none)."""
        metadata = getattr(chunk, "metadata", None) or {}
        return next((metadata[f] for f in self.fields if metadata.get(f) is not None), None)

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        wanted = self.wanted_sections(query) if self.active else []
        if not wanted:
            return hits
        p = self.params
        neutral = 1.0 if p.mode == "multiply" else 0.0
        out = []
        for hit in hits:
            boost = p.weight if section_matches(self.section_of(hit), wanted, p.match) else neutral
            boosted = hit.with_score(hit.score * boost if p.mode == "multiply" else hit.score + boost)
            boosted.signals[p.signal] = boost
            out.append(boosted)
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        if not nodes:
            return None
        sections = {str(s) for n in nodes if (s := self.section_of(n)) is not None}
        if sections:
            set_aside = self.intents.read_sections(sections)
            return f"reranker 'intent-boost': {set_aside}" if set_aside else None
        keys = " or ".join(repr(f) for f in self.fields)
        present = sorted(set().union(*(getattr(n, "metadata", {}).keys() for n in nodes)))
        missing = f"reranker 'intent-boost': no chunk of the corpus has the metadata field {keys}"
        carried = f"(chunks carry: {', '.join(present[:12]) or '(none)'})"
        if self.params.on_missing_field == "error":
            raise ConfigError(
                f"stage {self.stage}: {missing} {carried}. Set `field` to the key holding the section "
                "(e.g. section, menu_name), or `on_missing_field: warn` to run without it"
            )
        self.active = False
        return (
            f"{missing} {carried}: it boosts nothing, answers are ranked without the question's intent "
            "(`on_missing_field: error` stops here instead)"
        )


def section_matches(value: Any, wanted: list[str], match: str) -> bool:
    """``metadata-boost``'s comparison: any item of a (list-valued) section against any wanted value."""
    if value is None:
        return False
    values = [str(v) for v in (value if isinstance(value, list | tuple | set) else [value])]
    if match == "exact":
        return any(v == w for v in values for w in wanted)
    if match == "iexact":
        return any(v.casefold() == w.casefold() for v in values for w in wanted)
    return any(w.casefold() in v.casefold() for v in values for w in wanted)
