"""The ``registry`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_loaders(register):
    register("registry-jsonl", "criss_rag_registry.loader:RegistryJsonlLoader")


@hookimpl
def register_analyzers(register):
    register("registry-codes", "criss_rag_registry.codes:RegistryCodesAnalyzer")


@hookimpl
def register_query_transforms(register):
    register("diagnosis-year", "criss_rag_registry.diagnosis_year:DiagnosisYearTransform")
    register("staging-version", "criss_rag_registry.staging:StagingVersionTransform")
    register("registry-codes", "criss_rag_registry.codes:RegistryCodesTransform")


@hookimpl
def register_filters(register):
    register("diagnosis-year", "criss_rag_registry.diagnosis_year:DiagnosisYearFilter")
    register("staging-version", "criss_rag_registry.staging:StagingVersionFilter")


@hookimpl
def register_rerankers(register):
    register("edition-recency", "criss_rag_registry.recency:EditionRecency")
    register("code-coverage", "criss_rag_registry.codes:CodeCoverage")
