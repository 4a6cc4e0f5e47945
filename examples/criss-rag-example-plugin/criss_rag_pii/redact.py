"""The filter ``pii-redact``: removes personal data from evidence text before it reaches the
context, the generator and the answer's citations.

It drops no candidate. It returns new :class:`~criss_rag.types.Hit` objects whose node is a
*copy* of the retrieved node with the text redacted: the node the retriever returned is shared with
the docstore and with later questions, so it is never changed. Each hit records how many
replacements were made in ``hit.signals["pii-redactions"]``.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from llama_index.core.schema import MetadataMode, NodeWithScore, TextNode
from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.types import Hit, Query
from criss_rag_pii.patterns import KINDS, Redaction, Redactor

SIGNAL = "pii-redactions"

Kind = Literal["email", "phone", "rrn", "my_number", "ssn", "dob"]
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")


class PiiRedact:
    """Redacts personal data (e-mail, phone, RRN, My Number, SSN, date of birth) from evidence text."""

    SIGNALS = (SIGNAL,)  # a refusal policy may name it (criss_rag.config.references)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        kinds: list[Kind] = Field(
            default_factory=lambda: list(KINDS),
            description="which kinds to redact: email, phone, rrn, my_number, ssn, dob (default: all)",
        )
        placeholder: str = Field(
            "[{kind}]",
            description="what replaces each match; {kind} becomes EMAIL, PHONE, RRN, MY_NUMBER, SSN, DOB "
            "or an extra pattern's name",
        )
        extra_patterns: dict[str, str] = Field(
            default_factory=dict,
            description="more kinds: NAME -> regular expression (a group named `value` limits the "
            "replacement to that group); applied before the built-in kinds",
        )
        metadata_keys: list[str] = Field(
            default_factory=list,
            description="metadata fields to redact as well (e.g. title), when they hold text",
        )

        @field_validator("placeholder")
        @classmethod
        def _placeholder_formats(cls, value: str) -> str:
            try:
                value.format(kind="EMAIL")
            except KeyError as exc:
                raise ValueError(f"unknown field {{{exc.args[0]}}}: the only field is {{kind}}") from None
            except (IndexError, ValueError) as exc:
                raise ValueError(f"{exc}; the only field is {{kind}} (write a literal brace as {{{{ or }}}})") from None
            return value

        @field_validator("extra_patterns")
        @classmethod
        def _patterns_compile(cls, value: dict[str, str]) -> dict[str, str]:
            for name, regex in value.items():
                if not _NAME.fullmatch(name):
                    raise ValueError(f"pattern name {name!r} must be letters, digits and _ (e.g. MRN)")
                try:
                    compiled = re.compile(regex)
                except re.error as exc:
                    raise ValueError(f"pattern {name!r} is not a valid regular expression: {exc}") from None
                if compiled.fullmatch(""):
                    raise ValueError(f"pattern {name!r} matches the empty string; it would match everywhere")
            return value

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.redactor = Redactor(params.kinds, params.placeholder, params.extra_patterns)
        self.metadata_keys = tuple(params.metadata_keys)
        # the same chunks come back question after question: redact each text once
        self._redact = lru_cache(maxsize=4096)(self.redactor.redact)

    def redact(self, text: str) -> Redaction:
        """The redacted text and the counts per kind (cached)."""
        return self._redact(text)

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return [self._redacted(hit) for hit in hits]

    def _redacted(self, hit: Hit) -> Hit:
        node = hit.node.node
        if not isinstance(node, TextNode):
            raise DataError(
                f"pii-redact can only redact text nodes, but candidate {node.node_id!r} is of type "
                f"{type(node).__name__}; put pii-redact after a retriever that returns TextNode chunks"
            )
        body = self.redact(node.get_content(metadata_mode=MetadataMode.NONE))
        total = body.total
        metadata = dict(node.metadata)
        for key in self.metadata_keys:
            if isinstance(metadata.get(key), str):
                field = self.redact(metadata[key])
                metadata[key] = field.text
                total += field.total
        # a copy: the retrieved node is shared with the docstore and with later questions
        copy = node.model_copy(update={"text": body.text, "metadata": metadata})
        return Hit(NodeWithScore(node=copy, score=hit.node.score), {**hit.signals, SIGNAL: float(total)})
