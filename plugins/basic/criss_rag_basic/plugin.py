"""The ``basic`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_basic.analyzers import EnglishAnalyzer, StandardAnalyzer
from criss_rag_basic.auto_analyzer import AutoAnalyzer
from criss_rag_basic.answering import EvidenceThreshold, NumberedContext
from criss_rag_basic.chunkers import SectionChunker, WholeDocumentChunker
from criss_rag_basic.extractive import ExtractiveGenerator
from criss_rag_basic.loaders import CsvLoader, JsonlLoader, NccJsonLoader
from criss_rag_basic.medquad import MedQuadXmlLoader
from criss_rag_basic.metrics import AnswerBasics
from criss_rag_basic.ranking import MetadataFilter, ReciprocalRankFusion, Truncate
from criss_rag_basic.concatenate import ConcatenateContext
from criss_rag_basic.keywords import KeywordsTransform, LlmKeywordsTransform
from criss_rag_basic.multihop import LlmJudgeHop, MissingTermsHop
from criss_rag_basic.ranking import MetadataBoost, WeightedFusion


@hookimpl
def register_loaders(register):
    register("jsonl", JsonlLoader)
    register("csv", CsvLoader)
    register("ncc-json", NccJsonLoader)
    register("medquad-xml", MedQuadXmlLoader)


@hookimpl
def register_chunkers(register):
    register("whole-document", WholeDocumentChunker)
    register("sections", SectionChunker)


@hookimpl
def register_analyzers(register):
    register("english", EnglishAnalyzer)
    register("standard", StandardAnalyzer)
    register("auto", AutoAnalyzer)


@hookimpl
def register_query_transforms(register):
    register("keywords", KeywordsTransform)
    register("llm-keywords", LlmKeywordsTransform)


@hookimpl
def register_hop_policies(register):
    register("missing-terms", MissingTermsHop)
    register("llm-judge", LlmJudgeHop)


@hookimpl
def register_fusions(register):
    register("rrf", ReciprocalRankFusion)
    register("weighted", WeightedFusion)


@hookimpl
def register_filters(register):
    register("metadata", MetadataFilter)


@hookimpl
def register_rerankers(register):
    register("truncate", Truncate)
    register("metadata-boost", MetadataBoost)


@hookimpl
def register_refusal_policies(register):
    register("evidence-threshold", EvidenceThreshold)


@hookimpl
def register_context_builders(register):
    register("numbered", NumberedContext)
    register("concatenate", ConcatenateContext)


@hookimpl
def register_generators(register):
    register("extractive", ExtractiveGenerator)


@hookimpl
def register_metrics(register):
    register("answer-basics", AnswerBasics)
