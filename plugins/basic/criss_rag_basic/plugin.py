"""The ``basic`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_basic.analyzers import EnglishAnalyzer, StandardAnalyzer
from criss_rag_basic.answering import EvidenceThreshold, NumberedContext
from criss_rag_basic.chunkers import SectionChunker, WholeDocumentChunker
from criss_rag_basic.extractive import ExtractiveGenerator
from criss_rag_basic.loaders import JsonlLoader, NccJsonLoader
from criss_rag_basic.metrics import AnswerBasics
from criss_rag_basic.ranking import MetadataFilter, ReciprocalRankFusion, Truncate


@hookimpl
def register_loaders(register):
    register("jsonl", JsonlLoader)
    register("ncc-json", NccJsonLoader)


@hookimpl
def register_chunkers(register):
    register("whole-document", WholeDocumentChunker)
    register("sections", SectionChunker)


@hookimpl
def register_analyzers(register):
    register("english", EnglishAnalyzer)
    register("standard", StandardAnalyzer)


@hookimpl
def register_fusions(register):
    register("rrf", ReciprocalRankFusion)


@hookimpl
def register_filters(register):
    register("metadata", MetadataFilter)


@hookimpl
def register_rerankers(register):
    register("truncate", Truncate)


@hookimpl
def register_refusal_policies(register):
    register("evidence-threshold", EvidenceThreshold)


@hookimpl
def register_context_builders(register):
    register("numbered", NumberedContext)


@hookimpl
def register_generators(register):
    register("extractive", ExtractiveGenerator)


@hookimpl
def register_metrics(register):
    register("answer-basics", AnswerBasics)
