"""The ``basic`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_loaders(register):
    register("jsonl", "criss_rag_basic.loaders:JsonlLoader")
    register("csv", "criss_rag_basic.loaders:CsvLoader")
    register("ncc-json", "criss_rag_basic.datasets.ncc:NccJsonLoader")
    register("medquad-xml", "criss_rag_basic.datasets.medquad:MedQuadXmlLoader")


@hookimpl
def register_chunkers(register):
    register("whole-document", "criss_rag_basic.chunkers:WholeDocumentChunker")
    register("sections", "criss_rag_basic.chunkers:SectionChunker")


@hookimpl
def register_analyzers(register):
    register("english", "criss_rag_basic.analyzers:EnglishAnalyzer")
    register("standard", "criss_rag_basic.analyzers:StandardAnalyzer")
    register("auto", "criss_rag_basic.auto_analyzer:AutoAnalyzer")


@hookimpl
def register_query_transforms(register):
    register("keywords", "criss_rag_basic.keywords:KeywordsTransform")
    register("llm-keywords", "criss_rag_basic.keywords:LlmKeywordsTransform")


@hookimpl
def register_hop_policies(register):
    register("missing-terms", "criss_rag_basic.multihop:MissingTermsHop")
    register("llm-judge", "criss_rag_basic.multihop:LlmJudgeHop")


@hookimpl
def register_fusions(register):
    register("rrf", "criss_rag_basic.fusion:ReciprocalRankFusion")
    register("weighted", "criss_rag_basic.fusion:WeightedFusion")


@hookimpl
def register_filters(register):
    register("metadata", "criss_rag_basic.filters:MetadataFilter")


@hookimpl
def register_rerankers(register):
    register("truncate", "criss_rag_basic.rerankers:Truncate")
    register("metadata-boost", "criss_rag_basic.rerankers:MetadataBoost")
    register("language-match", "criss_rag_basic.language_match:LanguageMatch")
    register("pivot-language", "criss_rag_basic.pivot_language:PivotLanguage")


@hookimpl
def register_refusal_policies(register):
    register("evidence-threshold", "criss_rag_basic.answering:EvidenceThreshold")


@hookimpl
def register_context_builders(register):
    register("numbered", "criss_rag_basic.answering:NumberedContext")
    register("concatenate", "criss_rag_basic.concatenate:ConcatenateContext")


@hookimpl
def register_generators(register):
    register("extractive", "criss_rag_basic.extractive:ExtractiveGenerator")


@hookimpl
def register_metrics(register):
    register("answer-basics", "criss_rag_basic.metrics:AnswerBasics")
