"""Utilities for plugins: everything a plugin may use from criss_rag besides the public API.

A plugin imports from ``criss_rag`` (the public API, ``hookimpl``), ``criss_rag.types``,
``criss_rag.errors``, ``criss_rag.context``, ``criss_rag.protocols``, ``criss_rag.lexicon``,
``criss_rag.testing`` and this module; every other module of criss_rag is internal and may
change (a test holds the bundled plugins to this). docs/plugin-utilities.md shows each name in use.

``import criss_rag.plugin_utils`` loads nothing else: each name loads the module that defines it on
first use, so a plugin's hook module stays as cheap to import as before.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> the module that defines it, imported when the name is first used
_SOURCES: dict[str, str] = {
    # params: marks and references between components
    "NOT_IN_INDEX_KEY": "criss_rag.config.model",
    "refers_to": "criss_rag.config.references",
    "DECLARES_SIGNAL": "criss_rag.config.references",
    "read_yaml_file": "criss_rag.config.yaml_source",
    # text in four languages
    "detect_language": "criss_rag.language.text",
    "split_sentences": "criss_rag.language.text",
    "analyze_by_script": "criss_rag.language.text",
    "helper_analyzer": "criss_rag.language.text",
    "HAN": "criss_rag.language.text",
    "HANGUL": "criss_rag.language.text",
    "KANA": "criss_rag.language.text",
    "CITATION_MARKER": "criss_rag.language.text",
    "chinese_script": "criss_rag.language.chinese_script",
    "message_for": "criss_rag.language.chinese_script",
    "simplified_chars": "criss_rag.language.chinese_script",
    # loaders
    "index_fields_param": "criss_rag.component_helpers.loader_files",
    "read_jsonl": "criss_rag.component_helpers.loader_files",
    "read_csv": "criss_rag.component_helpers.loader_files",
    "read_records": "criss_rag.component_helpers.loader_files",
    "corpus_file": "criss_rag.component_helpers.loader_files",
    "file_fingerprint": "criss_rag.component_helpers.loader_files",
    "paths_fingerprint": "criss_rag.component_helpers.loader_files",
    "make_document": "criss_rag.component_helpers.loader_files",
    # LLM replies and local models
    "complete_json": "criss_rag.component_helpers.structured_output",
    "can_constrain": "criss_rag.component_helpers.structured_output",
    "ParseStats": "criss_rag.component_helpers.structured_output",
    "split_thinking": "criss_rag.answering.thinking",
    "USAGE_KEYS": "criss_rag.component_helpers.llm_clients",
    "usage_of": "criss_rag.component_helpers.llm_clients",
    "with_usage": "criss_rag.component_helpers.llm_clients",
    "retries_text": "criss_rag.component_helpers.llm_clients",
    "http_url": "criss_rag.component_helpers.llm_clients",
    "GuardedEmbeddingCalls": "criss_rag.component_helpers.llm_clients",
    "LazyModelEmbedding": "criss_rag.component_helpers.local_embedding",
    "loading": "criss_rag.component_helpers.model_loading",
    # answers: sentences, markers, the sentence checks, refusal messages
    "strip_markers": "criss_rag.answering.sentence_check",
    "answer_pieces": "criss_rag.answering.sentence_check",
    "answer_sentences": "criss_rag.answering.sentence_check",
    "LexicalSupport": "criss_rag.answering.sentence_check",
    "LEXICAL_THRESHOLD": "criss_rag.answering.sentence_check",
    "MeaningSupport": "criss_rag.answering.meaning_check",
    "MEANING_THRESHOLD": "criss_rag.answering.meaning_check",
    "CLAUSE_THRESHOLD": "criss_rag.answering.meaning_check",
    "INSUFFICIENT_EVIDENCE": "criss_rag.answering.refusal_messages",
    "FILLER_WORDS": "criss_rag.answering.relevance",
    "languages_of": "criss_rag.answering.relevance",
    # commands and servers
    "host_from": "criss_rag.cli.context",
    "LazyCommand": "criss_rag.cli.lazy",
    "Exchange": "criss_rag.answering.chat",
}

#: names that are defined under another name in their module
_RENAMED: dict[str, str] = {"LEXICAL_THRESHOLD": "DEFAULT_THRESHOLD", "MEANING_THRESHOLD": "DEFAULT_THRESHOLD"}

__all__ = sorted(_SOURCES)

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ below loads them
    from criss_rag.answering.chat import Exchange
    from criss_rag.answering.meaning_check import CLAUSE_THRESHOLD, MeaningSupport
    from criss_rag.answering.meaning_check import DEFAULT_THRESHOLD as MEANING_THRESHOLD
    from criss_rag.answering.refusal_messages import INSUFFICIENT_EVIDENCE
    from criss_rag.answering.relevance import FILLER_WORDS, languages_of
    from criss_rag.answering.sentence_check import DEFAULT_THRESHOLD as LEXICAL_THRESHOLD
    from criss_rag.answering.sentence_check import LexicalSupport, answer_pieces, answer_sentences, strip_markers
    from criss_rag.answering.thinking import split_thinking
    from criss_rag.cli.context import host_from
    from criss_rag.cli.lazy import LazyCommand
    from criss_rag.component_helpers.llm_clients import (
        USAGE_KEYS,
        GuardedEmbeddingCalls,
        http_url,
        retries_text,
        usage_of,
        with_usage,
    )
    from criss_rag.component_helpers.loader_files import (
        corpus_file,
        file_fingerprint,
        index_fields_param,
        make_document,
        paths_fingerprint,
        read_csv,
        read_jsonl,
        read_records,
    )
    from criss_rag.component_helpers.local_embedding import LazyModelEmbedding
    from criss_rag.component_helpers.model_loading import loading
    from criss_rag.component_helpers.structured_output import ParseStats, can_constrain, complete_json
    from criss_rag.config.model import NOT_IN_INDEX_KEY
    from criss_rag.config.references import DECLARES_SIGNAL, refers_to
    from criss_rag.config.yaml_source import read_yaml_file
    from criss_rag.language.chinese_script import chinese_script, message_for, simplified_chars
    from criss_rag.language.text import (
        CITATION_MARKER,
        HAN,
        HANGUL,
        KANA,
        analyze_by_script,
        detect_language,
        helper_analyzer,
        split_sentences,
    )


def __getattr__(name: str) -> Any:
    module = _SOURCES.get(name)
    if module is None:
        raise AttributeError(f"module 'criss_rag.plugin_utils' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), _RENAMED.get(name, name))
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_SOURCES})
