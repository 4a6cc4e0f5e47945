"""The generator `{{ cookiecutter.component_name }}`: quotes the first sentence of each evidence
passage and cites it as [n]. No LLM: a baseline, or a starting point for your own generator.

Replace the body of ``generate`` with your own; keep the contract: cite evidence as ``[n]`` with the
numbers of ``context.evidence`` (the engine drops markers that match none, and withholds an answer
that cites nothing).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import split_sentences
from criss_rag.types import Context, Generation, Query

MODEL = "{{ cookiecutter.component_name }} (no LLM)"


class {{ cookiecutter.__class_name }}:
    """Quotes the first sentence of each evidence passage, citing it as [n]."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        max_quotes: int = Field(3, ge=1, description="at most this many passages are quoted")
        prefix: str = Field("From the sources:", description="text before the quotes")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.params = params

    def generate(self, query: Query, context: Context) -> Generation:
        quotes = []
        for evidence in context.evidence:
            sentences = split_sentences(evidence.text)
            if sentences:
                quotes.append(f"{sentences[0]} [{evidence.number}]")
            if len(quotes) == self.params.max_quotes:
                break
        return Generation(text=" ".join([self.params.prefix, *quotes]), model=MODEL)
