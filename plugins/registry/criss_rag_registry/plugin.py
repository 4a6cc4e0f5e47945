"""The ``registry`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_registry.codes import CodeCoverage, RegistryCodesAnalyzer, RegistryCodesTransform
from criss_rag_registry.diagnosis_year import DiagnosisYearFilter, DiagnosisYearTransform
from criss_rag_registry.loader import RegistryJsonlLoader
from criss_rag_registry.recency import EditionRecency
from criss_rag_registry.staging import StagingVersionFilter, StagingVersionTransform


@hookimpl
def register_loaders(register):
    register("registry-jsonl", RegistryJsonlLoader)


@hookimpl
def register_analyzers(register):
    register("registry-codes", RegistryCodesAnalyzer)


@hookimpl
def register_query_transforms(register):
    register("diagnosis-year", DiagnosisYearTransform)
    register("staging-version", StagingVersionTransform)
    register("registry-codes", RegistryCodesTransform)


@hookimpl
def register_filters(register):
    register("diagnosis-year", DiagnosisYearFilter)
    register("staging-version", StagingVersionFilter)


@hookimpl
def register_rerankers(register):
    register("edition-recency", EditionRecency)
    register("code-coverage", CodeCoverage)
