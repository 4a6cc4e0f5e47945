"""The ``domain`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl
from criss_rag_domain.cancer_boost import CancerTypeBoost
from criss_rag_domain.cancer_filter import CancerTypeFilter
from criss_rag_domain.intent_boost import IntentBoost


@hookimpl
def register_filters(register):
    register("cancer-type", CancerTypeFilter)


@hookimpl
def register_rerankers(register):
    register("cancer-type-boost", CancerTypeBoost)
    register("intent-boost", IntentBoost)
