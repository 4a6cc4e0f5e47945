"""TF-IDF cosine retrieval, as the Japanese guideline chatbot did it: analyzer terms (MeCab nouns
there), scikit-learn's ``TfidfVectorizer`` with its default weighting, cosine similarity, and every
page at or above a fixed cosine threshold (0.2 there) kept, best first.

How the analyzer's terms reach scikit-learn (``term_mode``):

- ``whole`` (default): ``TfidfVectorizer(analyzer=<identity>)`` receives each text's term list
  as it is. Every analyzer term is one feature, whatever its length or characters. This is the
  reason for the default: the vectorizer's default ``token_pattern`` (``(?u)\\b\\w\\w+\\b``) drops
  one-character terms, and Japanese has many one-kanji nouns (肺, 癌, 腫, 胸); it would also
  split terms at punctuation and lowercase them behind the analyzer's back.
- ``sklearn-default``: the terms are joined with spaces and the vectorizer runs with *all* its
  defaults (lowercase, default ``token_pattern``). That is what "TfidfVectorizer with default
  parameters on space-joined MeCab nouns" literally computes, one-character nouns dropped.

Either way the weighting is scikit-learn's default: raw term counts (``sublinear_tf=False``),
smoothed idf (``smooth_idf=True``: idf = ln((1 + n) / (1 + df)) + 1) and L2-normalised rows
(``norm="l2"``), so a dot product of two rows is their cosine.

Nothing is pickled: ``build`` writes the vocabulary and the idf vector as JSON and the
document-term matrix as a scipy ``.npz``; ``load`` rebuilds a vectorizer from them that scores
exactly as the fitted one did.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError, IndexStoreError
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY
from criss_rag.types import Query

if TYPE_CHECKING:  # scikit-learn and scipy load when a TF-IDF index is built or loaded, not with the plugin
    import scipy.sparse as sp
    from sklearn.feature_extraction.text import TfidfVectorizer

FORMAT = 1
STATE_FILE = "tfidf.json"
MATRIX_FILE = "matrix.npz"


def given_terms(terms: list[str]) -> list[str]:
    """The vectorizer's analyzer in ``whole`` mode: the terms were computed already."""
    return terms


class TfIdf:
    """TF-IDF cosine over analyzer terms (scikit-learn defaults); keeps every candidate at or above `min_score`."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "standard",
            description="registered analyzer name, or {name: ..., <params>} (the Japanese system: MeCab nouns)",
        )
        min_score: float = Field(
            0.2, ge=0, le=1, description="keep candidates whose cosine is at least this (the Japanese system: 0.2)",
            json_schema_extra=NOT_IN_INDEX_KEY,  # a search setting: changing it needs no re-ingest
        )
        term_mode: Literal["whole", "sklearn-default"] = Field(
            "whole",
            description="`whole`: every analyzer term is a feature; `sklearn-default`: terms space-joined and "
            "re-tokenised by the vectorizer's default token_pattern (drops one-character terms)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        self.node_ids: list[str] = []
        self.matrix: sp.csr_matrix | None = None
        self.vectorizer: TfidfVectorizer | None = None
        self._docstore: BaseDocumentStore | None = None

    # -- analysis -----------------------------------------------------------------------------
    def terms(self, text: str) -> list[str]:
        """The analyzer's terms of ``text``."""
        return list(self.analyzer.analyze(text))

    def _vectorizer_input(self, terms: list[str]) -> list[str] | str:
        return terms if self.params.term_mode == "whole" else " ".join(terms)

    def _new_vectorizer(self, vocabulary: dict[str, int] | None = None) -> TfidfVectorizer:
        from sklearn.feature_extraction.text import TfidfVectorizer

        # scikit-learn's defaults for the weighting (norm, use_idf, smooth_idf, sublinear_tf)
        # are never overridden; only how terms arrive differs by term_mode
        if self.params.term_mode == "whole":
            return TfidfVectorizer(analyzer=given_terms, vocabulary=vocabulary)
        return TfidfVectorizer(vocabulary=vocabulary)

    # -- ingest -------------------------------------------------------------------------------
    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        import scipy.sparse as sp

        # the text each loader marked for indexing (title + text by default), as bm25 indexes it
        texts = [self.terms(node.get_content(MetadataMode.EMBED)) for node in nodes]
        vectorizer = self._new_vectorizer()
        try:
            matrix = vectorizer.fit_transform([self._vectorizer_input(t) for t in texts])
        except ValueError as exc:  # "empty vocabulary": the analyzer found no term anywhere
            raise DataError(
                f"stage retrievers: tfidf found no terms in {len(nodes)} chunk(s) ({exc}). Check that "
                f"the analyzer {self.params.analyzer!r} fits the corpus language"
            ) from None
        state = {
            "format": FORMAT,
            "term_mode": self.params.term_mode,
            "node_ids": [node.node_id for node in nodes],
            "vocabulary": {term: int(column) for term, column in vectorizer.vocabulary_.items()},
            "idf": [float(x) for x in vectorizer.idf_],
        }
        (directory / STATE_FILE).write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
        sp.save_npz(directory / MATRIX_FILE, sp.csr_matrix(matrix), compressed=True)

    # -- query time ---------------------------------------------------------------------------
    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        import scipy.sparse as sp

        try:
            state = json.loads((directory / STATE_FILE).read_text(encoding="utf-8"))
            matrix = sp.load_npz(directory / MATRIX_FILE).tocsr()
            if state.get("format") != FORMAT or state.get("term_mode") != self.params.term_mode:
                found = f"{state.get('format')}/{state.get('term_mode')}"
                raise ValueError(f"format {found} is not {FORMAT}/{self.params.term_mode}")
            vectorizer = self._new_vectorizer(state["vocabulary"])
            vectorizer.idf_ = np.asarray(state["idf"], dtype=np.float64)
            if matrix.shape != (len(state["node_ids"]), len(state["vocabulary"])):
                raise ValueError(f"matrix shape {matrix.shape} does not match the node ids and vocabulary")
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise IndexStoreError(
                f"TF-IDF index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None
        self.node_ids = list(state["node_ids"])
        self.matrix = matrix
        self.vectorizer = vectorizer
        self._docstore = docstore

    def cosines(self, text: str) -> np.ndarray:
        """The cosine of ``text`` with every indexed chunk, in ``node_ids`` order."""
        if self.vectorizer is None or self.matrix is None:
            raise RuntimeError("TF-IDF index not loaded; call load() first")
        terms = self.terms(text)
        if not terms:
            return np.zeros(len(self.node_ids))
        query_vector = self.vectorizer.transform([self._vectorizer_input(terms)])
        return np.asarray((self.matrix @ query_vector.T).toarray()).ravel()

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        if self._docstore is None:
            raise RuntimeError("TF-IDF index not loaded; call load() first")
        scores = self.cosines(query.search_text)
        order = np.argsort(-scores, kind="stable")  # ties keep index order: deterministic
        kept = [int(i) for i in order if scores[i] > 0 and scores[i] >= self.params.min_score][:top_k]
        return [NodeWithScore(node=self._docstore.get_node(self.node_ids[i]), score=float(scores[i])) for i in kept]
