"""In a corpus whose pages exist in one language and only partly in others, choose the page in that language.

A corpus written in several languages rarely translates every page: the example corpus has Korean,
Japanese and Chinese pages on the overview, symptoms and treatment of six cancers, and their
diagnosis, staging and prevention pages in English only. A multilingual embedding scores passages
in the question's language far above those in another (the small e5 puts a Korean page on the right
cancer first for a Korean question about staging, and no English page in its top 30), so a
question about what its language has no page on is answered from a page that is merely in its
language. Which page serves the question is a comparison the embedding makes well *within one
language*: among the English pages of the cancer the question is about, it picks the section a
Korean question asks about far more often than across languages (measured in docs/benchmarks.md,
"Pages in one language only").

``pivot-language`` makes that comparison. The pivot language (``pivot``) has a version of every page;
a page is identified across its language versions by ``group_by`` (the example corpus's
``cancer_id`` and ``menu_id``), and pages compete within the topic of the best candidate
(``topic_by``: ``cancer_id``). For a question in another language, it scores the pivot-language
versions of the topic's pages against the question (the pipeline's embedding, whose vectors the
index already cached). When the best page has no version in the question's language and scores at
least ``margin`` above every page that has one, that page's passages go first; otherwise the
ranking is left as it is. It is also left as it is when an earlier reranker put the first passage
there on purpose (``yield_to``: the section the question names, read by ``intent-boost``), and, with
``min_best_signal``, when no candidate reaches the refusal threshold: a page in another language,
judged by a lower cross-lingual threshold, never lifts a question past the refusal policy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import DECLARES_SIGNAL, detect_language, refers_to
from criss_rag.types import Hit, Query
from criss_rag_basic.languages import node_language

Key = tuple[str, ...]


class PivotLanguage:
    """Puts first the pivot-language page a question asks about when its language has no version of it."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        pivot: str = Field(..., min_length=2, description="the language every page exists in (en, ko, ja, zh)")
        group_by: list[str] = Field(
            ..., min_length=1,
            description="metadata keys whose values together identify one page across its language versions",
        )
        topic_by: list[str] = Field(
            default_factory=list,
            description="metadata keys of the topic pages compete within (that of the best candidate); "
            "empty: every page of the corpus competes",
        )
        margin: float = Field(
            0.01, ge=0,
            description="how much higher (cosine) the page without a version in the question's language must score "
            "than the best page with one",
        )
        yield_to: list[str] = Field(
            default_factory=list,
            description="signals of earlier rerankers (e.g. intent-boost): a first passage boosted by one of "
            "them stays first",
            json_schema_extra=refers_to(names="signal"),
        )
        score_signal: str | None = Field(
            None,
            description="the signal a dense retriever records its cosine under (e.g. faiss): a pivot passage that is "
            "not among the candidates is added with its cosine under this name, so refusal policies read it; "
            "without it only candidates already found are moved",
        )
        min_best_signal: float | None = Field(
            None,
            description="act only when the best `score_signal` among the candidates reaches this (the refusal "
            "policy's threshold for the question's language): a question the candidates do not pass that threshold "
            "for is not given a page in another language that a lower cross-lingual threshold would pass",
        )
        signal: str = Field("pivot-language", min_length=1, description="signal name the move is recorded under",
                            json_schema_extra=DECLARES_SIGNAL)
        on_missing_field: Literal["error", "warn"] = Field(
            "error",
            description="a corpus without the group_by keys or a pivot-language page: stop, or warn and do nothing",
        )

        @model_validator(mode="after")
        def check_pair(self) -> PivotLanguage.Params:
            if self.min_best_signal is not None and self.score_signal is None:
                raise ValueError("`min_best_signal` tests the `score_signal` score: set `score_signal` (e.g. faiss)")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.ctx = ctx
        self.pages: dict[Key, dict[Key, list[Any]]] = {}  # topic -> group -> the pivot page's passages
        self.languages_of: dict[Key, set[str]] = {}  # group -> languages it has a version in
        self.vectors: dict[str, np.ndarray] = {}  # node id -> unit vector (read on first use)

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        p = self.params
        self.pages, self.languages_of = {}, {}
        for node in nodes:
            metadata = getattr(node, "metadata", None) or {}
            group = _key(metadata, p.group_by)
            if group is None:
                continue
            language = node_language(metadata, getattr(node, "text", "") or "")
            self.languages_of.setdefault(group, set()).add(language)
            if language == p.pivot:
                topic = _key(metadata, p.topic_by) or ()
                self.pages.setdefault(topic, {}).setdefault(group, []).append(node)
        if self.pages:
            return None
        problem = (f"reranker 'pivot-language': no chunk of the corpus has all of the metadata keys "
                   f"{', '.join(p.group_by)} and is in the pivot language {p.pivot!r}")
        if p.on_missing_field == "error":
            raise ConfigError(f"stage {self.ctx.stage}: {problem}. Set `group_by` to the keys that identify a page "
                              "across its translations, or `on_missing_field: warn` to run without it")
        return f"{problem}: it moves nothing (`on_missing_field: error` stops here instead)"

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        p = self.params
        language = detect_language(query.text)
        if not hits or language == p.pivot or any(hits[0].signals.get(s, 1.0) > 1.0 for s in p.yield_to):
            return hits
        if p.min_best_signal is not None and max(
                h.signals.get(str(p.score_signal), float("-inf")) for h in hits) < p.min_best_signal:
            return hits  # left for the refusal policy to refuse, as it would have
        first = _key(hits[0].metadata, p.group_by)
        pages = self.pages.get(_key(hits[0].metadata, p.topic_by) or (), {})
        if first is None or not pages or language not in self.languages_of.get(first, set()):
            return hits  # not a page of the corpus's structure, or already a page its language lacks
        cosine = self._cosines(query, pages)
        best = {g: max(cosine[n.node_id] for n in nodes) for g, nodes in pages.items()}
        lacking = [g for g in best if language not in self.languages_of[g]]
        having = [best[g] for g in best if language in self.languages_of[g]]
        if not lacking:
            return hits
        chosen = max(lacking, key=best.__getitem__)
        if having and best[chosen] - max(having) < p.margin:
            return hits
        return self._move_first(pages[chosen], cosine, hits)

    def _cosines(self, query: Query, pages: dict[Key, list[Any]]) -> dict[str, float]:
        nodes = [n for passages in pages.values() for n in passages]
        missing = [n for n in nodes if n.node_id not in self.vectors]
        if missing:  # the same texts the dense retriever embedded: read from the embedding cache
            from llama_index.core.schema import MetadataMode

            vectors = np.asarray(self.ctx.embed_documents([n.get_content(MetadataMode.EMBED) for n in missing]),
                                 dtype="float32")
            vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
            self.vectors.update({n.node_id: v for n, v in zip(missing, vectors, strict=True)})
        question = self.ctx.embed_query(query.search_text)  # unit length, shared with the dense retriever
        return {n.node_id: float(self.vectors[n.node_id] @ question) for n in nodes}

    def _move_first(self, page: list[Any], cosine: dict[str, float], hits: list[Hit]) -> list[Hit]:
        p = self.params
        found = {h.node_id: h for h in hits}
        top = max(hits[0].score, 0.0)
        moved: list[Hit] = []
        for rank, node in enumerate(sorted(page, key=lambda n: -cosine[n.node_id])):
            hit = found.get(node.node_id)
            if hit is None and p.score_signal is None:
                continue
            signals = dict(hit.signals) if hit is not None else {str(p.score_signal): cosine[node.node_id]}
            signals[p.signal] = 1.0
            moved.append(Hit.of(node, top * (1.0 + 1e-3 * (len(page) - rank)) + 1e-9, signals))
        if not moved:
            return hits
        ids = {h.node_id for h in moved}
        return moved + [h for h in hits if h.node_id not in ids]


def _key(metadata: dict[str, Any], fields: Sequence[str]) -> Key | None:
    """The values of ``fields`` in ``metadata`` (``None`` when one is missing; ``()`` for no fields)."""
    values = tuple(str(metadata[f]) for f in fields if metadata.get(f) not in (None, ""))
    return values if len(values) == len(fields) else None
