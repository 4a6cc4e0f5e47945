"""Basic per-answer metrics: citations, refusal, answer sentences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import split_sentences
from criss_rag.types import Answer


class AnswerBasics:
    """Counts: citations, distinct cited documents, answer sentences; refused as 0/1."""

    outputs = ("refused", "citations", "cited_documents", "answer_sentences")

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        return {
            "refused": float(answer.refused),
            "citations": float(len(answer.citations)),
            "cited_documents": float(len({c.doc_id for c in answer.citations})),
            "answer_sentences": 0.0 if answer.refused else float(len(split_sentences(answer.text))),
        }
