"""Basic per-answer metrics: citations, refusal, answer sentences (the claims the sentence check
reads: lead-ins such as the extractive notice and headings are not sentences)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import answer_sentences
from criss_rag.types import Answer


class AnswerBasics:
    """Counts: citations, distinct cited documents, answer sentences; refused as 0/1."""

    outputs = ("refused", "citations", "cited_documents", "answer_sentences")
    about_refusals = ("refused",)  # the report scores refused questions on this one only

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        return {
            "refused": float(answer.refused),
            "citations": float(len(answer.citations)),
            "cited_documents": float(len({c.doc_id for c in answer.citations})),
            "answer_sentences": 0.0 if answer.refused else float(len(answer_sentences(answer.text))),
        }
