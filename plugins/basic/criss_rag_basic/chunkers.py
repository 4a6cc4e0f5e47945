"""Chunkers: whole documents, or one chunk per heading-marked section (long sections split)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import Document, NodeRelationship, RelatedNodeInfo, TextNode
from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext


def _chunk_node(doc: Document, node_id: str, text: str, extra: dict[str, object]) -> TextNode:
    node = TextNode(id_=node_id, text=text, metadata={**doc.metadata, **extra})
    node.excluded_embed_metadata_keys = list(doc.excluded_embed_metadata_keys)
    node.excluded_llm_metadata_keys = list(node.metadata)
    node.metadata_template = doc.metadata_template
    node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=doc.doc_id)
    return node


class WholeDocumentChunker:
    """One chunk per document, unchanged."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]:
        return [_chunk_node(doc, doc.doc_id, doc.text, {}) for doc in documents]


class SectionChunker:
    """One chunk per section, split at heading-marker lines (``###``); long sections are split
    again by sentences with LlamaIndex's ``SentenceSplitter``."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        marker: str = Field("###", description="a line starting with this begins a section")
        max_tokens: int = Field(512, ge=32, description="sections longer than this are split")
        overlap_tokens: int = Field(
            64, ge=0, description="token overlap between the pieces of a split section; smaller than `max_tokens`"
        )
        heading_in_index: bool = Field(True, description="index the section heading with the text")

        @model_validator(mode="after")
        def _overlap_below_size(self) -> SectionChunker.Params:
            if self.overlap_tokens >= self.max_tokens:
                raise ValueError(f"overlap_tokens ({self.overlap_tokens}) must be smaller than max_tokens ({self.max_tokens})")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.splitter = SentenceSplitter(chunk_size=params.max_tokens, chunk_overlap=params.overlap_tokens)
        self._heading = re.compile(rf"^\s*{re.escape(params.marker)}\s*(.+?)\s*$")

    def sections(self, text: str) -> list[tuple[str, str]]:
        """(heading, body) pairs; text before the first marker has an empty heading."""
        out: list[tuple[str, list[str]]] = [("", [])]
        for line in text.splitlines():
            match = self._heading.match(line)
            if match:
                out.append((match.group(1), []))
            else:
                out[-1][1].append(line)
        return [(heading, "\n".join(body).strip()) for heading, body in out if "\n".join(body).strip()]

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]:
        nodes: list[TextNode] = []
        for doc in documents:
            for s, (heading, body) in enumerate(self.sections(doc.text)):
                pieces = self.splitter.split_text(body) or [body]
                for p, piece in enumerate(pieces):
                    suffix = f"#s{s}" + (f".{p}" if len(pieces) > 1 else "")
                    node = _chunk_node(doc, doc.doc_id + suffix, piece, {"heading": heading})
                    if not (self.params.heading_in_index and heading):
                        node.excluded_embed_metadata_keys.append("heading")
                    nodes.append(node)
        return nodes
