"""The ``metrics`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_metrics.caution import CautionBehaviour
from criss_rag_metrics.overlap import Containment, Rouge
from criss_rag_metrics.retrieval import RetrievalMetrics
from criss_rag_metrics.semantic import BertScore, EmbeddingCosine
from criss_rag_metrics.traceability import Traceability


@hookimpl
def register_metrics(register):
    register("traceability", Traceability)
    register("retrieval", RetrievalMetrics)
    register("rouge", Rouge)
    register("containment", Containment)
    register("bertscore", BertScore)
    register("embedding-cosine", EmbeddingCosine)
    register("caution", CautionBehaviour)
