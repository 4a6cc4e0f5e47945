"""The ``metrics`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_metrics(register):
    register("traceability", "criss_rag_metrics.traceability:Traceability")
    register("retrieval", "criss_rag_metrics.retrieval:RetrievalMetrics")
    register("rouge", "criss_rag_metrics.overlap:Rouge")
    register("containment", "criss_rag_metrics.overlap:Containment")
    register("bertscore", "criss_rag_metrics.semantic:BertScore")
    register("embedding-cosine", "criss_rag_metrics.semantic:EmbeddingCosine")
    register("caution", "criss_rag_metrics.caution:CautionBehaviour")
