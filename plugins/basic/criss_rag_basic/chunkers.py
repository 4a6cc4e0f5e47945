"""Chunkers: whole documents, or one chunk per heading-marked section (long sections split)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from llama_index.core.schema import Document, NodeRelationship, RelatedNodeInfo, TextNode
from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag_basic.html_text import html_to_text

if TYPE_CHECKING:  # imports the whole of LlamaIndex (criss_rag.llama_deferred): built when a section is split
    from llama_index.core.node_parser import SentenceSplitter


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


# Linear time on any input: a heading's attributes and text are bounded and cannot run past the
# next heading tag, so a document full of unclosed "<h1>" costs one pass, not one pass per tag.
_HTML_HEADING = re.compile(
    r"(<h([1-6])\b[^<>]{0,500}>(?:(?!</?h[1-6]\b).){0,2000}?</h\2\s*>)", re.IGNORECASE | re.DOTALL
)
_HTML_TAG = re.compile(
    r"</?(?:p|div|br|li|ul|ol|span|table|tr|td|th|h[1-6]|section|article|strong|em|b|i|a)\b[^<>]{0,2000}>",
    re.IGNORECASE,
)
#: A section longer than this many characters is cut (at a line end or a sentence end where there is
#: one) into pieces of at most this size before the sentence splitter sees it: the splitter's time
#: grows faster than linearly on one long run of text without breaks.
SEGMENT_CHARS = 20_000
_BREAK = re.compile(r"\n|(?<=[.!?。！？])\s*")


def _segments(text: str, size: int = SEGMENT_CHARS) -> list[str]:
    """``text`` in pieces of at most ``size`` characters, each cut at the last line or sentence end
    in its second half when there is one (else at ``size``); nothing is lost or reordered."""
    if len(text) <= size:
        return [text]
    out, start = [], 0
    while len(text) - start > size:
        window = text[start:start + size]
        cut = max((m.end() for m in _BREAK.finditer(window, size // 2)), default=size)
        out.append(text[start:start + cut])
        start += cut
    out.append(text[start:])
    return [piece for piece in out if piece.strip()]


class SectionChunker:
    """One chunk per section, split at heading-marker lines (``###``) and at HTML headings
    (``<h1>`` … ``<h6>``) still in the text; long sections are split again by sentences with
    LlamaIndex's ``SentenceSplitter``. Each chunk carries its heading (``heading``) and the path of
    headings above it (``heading_path``); the chunks of a split section also carry ``passage`` (1, 2,
    ...) and ``passages`` (how many), which are not indexed. Linear in the document's length: a section
    over :data:`SEGMENT_CHARS` characters is cut into segments before it is split by sentences, and the
    heading patterns are bounded (a 20 MB document chunks in seconds to minutes, never hours)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        marker: str = Field(
            "###",
            description="a line starting with this begins a section; when it is made of `#`, Markdown headings of "
            "every depth (`#` to `######`) begin sections too, and their depth gives the heading path",
        )
        max_tokens: int = Field(512, ge=32, description="sections longer than this are split")
        overlap_tokens: int = Field(
            64, ge=0, description="token overlap between the pieces of a split section; smaller than `max_tokens`"
        )
        heading_in_index: bool = Field(True, description="index the section heading with the text")
        html_headings: bool = Field(
            True,
            description="also split at HTML headings <h1>..<h6> left in the text; a section holding HTML tags is "
            "cleaned like the ncc-json loader's bodies (tags, URLs and UI lines removed)",
        )
        path_separator: str = Field(" > ", description="joins the headings above a section in metadata `heading_path`")

        @model_validator(mode="after")
        def _overlap_below_size(self) -> SectionChunker.Params:
            if self.overlap_tokens >= self.max_tokens:
                raise ValueError(
                    f"overlap_tokens ({self.overlap_tokens}) must be smaller than max_tokens ({self.max_tokens})"
                )
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._heading = re.compile(rf"^\s*{re.escape(params.marker)}\s*(.+?)\s*$")
        self._markdown = re.compile(r"^\s*(#{1,6})\s+(.+?)\s*$") if set(params.marker) == {"#"} else None
        self._marker_level = len(params.marker) if self._markdown else 1

    @cached_property
    def splitter(self) -> SentenceSplitter:
        """LlamaIndex's sentence splitter, built when the first long section is split (the sizes are
        checked by ``Params``): a command that only starts the chunker does not import it."""
        from llama_index.core.node_parser import SentenceSplitter

        return SentenceSplitter(chunk_size=self.params.max_tokens, chunk_overlap=self.params.overlap_tokens)

    def _heading_of(self, line: str) -> tuple[int, str] | None:
        """``(level, title)`` when the line is a heading."""
        if self.params.html_headings and (match := _HTML_HEADING.fullmatch(line.strip())):
            title = html_to_text(match.group(1)).lstrip("#").strip()
            return (int(match.group(2)), title) if title else None
        if self._markdown and (match := self._markdown.match(line)):
            return len(match.group(1)), match.group(2)
        if match := self._heading.match(line):
            return self._marker_level, match.group(1)
        return None

    def sections_with_path(self, text: str) -> list[tuple[list[str], str]]:
        """(heading path, body) pairs; text before the first heading has an empty path."""
        if self.params.html_headings:
            text = _HTML_HEADING.sub(lambda m: "\n" + m.group(1).replace("\n", " ") + "\n", text)
        path: list[tuple[int, str]] = []
        out: list[tuple[list[str], list[str]]] = [([], [])]
        for line in text.splitlines():
            heading = self._heading_of(line)
            if heading:
                level, title = heading
                path = [(lv, t) for lv, t in path if lv < level] + [(level, title)]
                out.append(([t for _, t in path], []))
            else:
                out[-1][1].append(line)
        sections = []
        for headings, body in out:
            joined = "\n".join(body).strip()
            if self.params.html_headings and _HTML_TAG.search(joined):
                joined = html_to_text(joined)
            if joined:
                sections.append((headings, joined))
        return sections

    def sections(self, text: str) -> list[tuple[str, str]]:
        """(heading, body) pairs; text before the first marker has an empty heading."""
        return [(path[-1] if path else "", body) for path, body in self.sections_with_path(text)]

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]:
        nodes: list[TextNode] = []
        for doc in documents:
            for s, (path, body) in enumerate(self.sections_with_path(doc.text)):
                heading = path[-1] if path else ""
                extra = {"heading": heading, "heading_path": self.params.path_separator.join(path)}
                pieces = [p for segment in _segments(body) for p in self.splitter.split_text(segment)] or [body]
                for p, piece in enumerate(pieces):
                    suffix = f"#s{s}" + (f".{p}" if len(pieces) > 1 else "")
                    # a split section's passages are told apart in source titles ("passage 2 of 3")
                    split = {"passage": p + 1, "passages": len(pieces)} if len(pieces) > 1 else {}
                    node = _chunk_node(doc, doc.doc_id + suffix, piece, {**extra, **split})
                    node.excluded_embed_metadata_keys += ["heading_path", *split]
                    if not (self.params.heading_in_index and heading):
                        node.excluded_embed_metadata_keys.append("heading")
                    nodes.append(node)
        return nodes
