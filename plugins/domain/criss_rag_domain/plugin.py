"""The ``domain`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_filters(register):
    register("cancer-type", "criss_rag_domain.cancer_filter:CancerTypeFilter")


@hookimpl
def register_rerankers(register):
    register("cancer-type-boost", "criss_rag_domain.cancer_boost:CancerTypeBoost")
    register("intent-boost", "criss_rag_domain.intent_boost:IntentBoost")


@hookimpl
def register_hop_policies(register):
    register("cross-lingual-hop", "criss_rag_domain.section_gap:CrossLingualHop")


@hookimpl
def register_query_transforms(register):
    register("cross-lingual-terms", "criss_rag_domain.cross_lingual:CrossLingualTerms")
    register("request-terms", "criss_rag_domain.request_terms:RequestTerms")
    register("cancer-name-terms", "criss_rag_domain.cancer_names:CancerNameTerms")
