"""``manual-structure``: chunks of a manual that respect its structure.

The text is read as Markdown (what the manual loaders write): headings give each chunk its
section path, pipe tables are tables, other blocks are paragraphs. Paragraphs are grouped into
*units* that a chunk boundary avoids: a rule (a paragraph starting with a rule id such as
"Rule M3") together with the notes and paragraphs under it, a table, or one plain paragraph.

Units of one section are packed into chunks of at most ``chunk_size`` characters; a chunk never
spans two sections. A unit longer than ``chunk_size`` is cut: prose with LlamaIndex's sentence
splitter (``chunk_overlap`` characters repeated across the cut), a table between rows with the
header repeated on each piece. A chunk that begins with a plain paragraph also repeats up to
``chunk_overlap`` characters of the end of the previous chunk of its section; a chunk that begins
with a rule or a table starts clean, so a rule id is always the start of its own text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import Document, NodeRelationship, RelatedNodeInfo, TextNode
from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag_manuals.manual import DEFAULT_NOTE_PATTERNS, DEFAULT_RULE_PATTERNS, find_id, id_matcher

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_TABLE_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_INTERNAL_KEYS = ("page_offsets",)
_STRUCTURE_KEYS = ("section", "heading", "rule_id", "rule_ids", "page", "page_end")


@dataclass
class _Unit:
    kind: Literal["paragraph", "rule", "table"]
    path: tuple[str, ...]
    parts: list[tuple[int, str]] = field(default_factory=list)  # (offset in the document, text)
    ids: list[str] = field(default_factory=list)
    id_texts: dict[str, str] = field(default_factory=dict)  # a note id -> the paragraph it starts
    caption: str = ""  # a table's caption: the short line just above it
    header: list[str] = field(default_factory=list)  # a table's header lines
    rows: list[str] = field(default_factory=list)  # a table's rows (as they will be written)

    @property
    def text(self) -> str:
        if self.kind == "table":
            return "\n".join(([self.caption] if self.caption else []) + self.header + self.rows)
        return "\n\n".join(text for _, text in self.parts)


@dataclass
class _Chunk:
    path: tuple[str, ...]
    texts: list[str] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(self.texts)


class ManualStructureChunker:
    """Structure-aware chunks of a manual: section path, page, rule id and table rows kept together."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        chunk_size: int = Field(
            1500, ge=200, description="most characters in a chunk (a longer single table row stays whole)"
        )
        chunk_overlap: int = Field(
            200,
            ge=0,
            description="characters repeated where text is cut inside a paragraph or rule; smaller than chunk_size",
        )
        tables: Literal["whole", "rows"] = Field(
            "whole",
            description="whole: a table stays a pipe table (cut between rows, header repeated, when too long); "
            "rows: each row is written as `Header: value; Header: value`, so every row carries its header",
        )
        rule_patterns: list[str] = Field(
            default_factory=lambda: list(DEFAULT_RULE_PATTERNS),
            description="regexes of rule ids; a paragraph starting with one begins a rule (kept with what follows it)",
        )
        note_patterns: list[str] = Field(
            default_factory=lambda: list(DEFAULT_NOTE_PATTERNS),
            description="regexes of note ids; a note inside a rule stays with the rule, and is listed in `rule_ids`",
        )
        rule_per_chunk: bool = Field(
            True,
            description="a rule (with its notes) gets chunks of its own, so each chunk cites one rule; false packs "
            "short rules of a section together up to chunk_size (`rule_ids` lists them all)",
        )
        section_separator: str = Field(" > ", description="joins the heading path in metadata `section`")
        cite_location: bool = Field(
            True,
            description="write the chunk's place into metadata `source` (`file, p. 3, Section > Subsection`), "
            "which citations show as their location",
        )
        structure_in_index: bool = Field(
            True, description="index the section path and rule id with the text (embedded and matched lexically)"
        )

        @model_validator(mode="after")
        def _overlap_below_size(self) -> ManualStructureChunker.Params:
            if self.chunk_overlap >= self.chunk_size:
                raise ValueError(
                    f"chunk_overlap ({self.chunk_overlap}) must be smaller than chunk_size ({self.chunk_size})"
                )
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.rule = id_matcher(params.rule_patterns)
        self.note = id_matcher(params.note_patterns)
        self.splitter = SentenceSplitter(
            chunk_size=params.chunk_size, chunk_overlap=params.chunk_overlap, tokenizer=list, paragraph_separator="\n\n"
        )

    # -- reading the structure -------------------------------------------------------------------

    def _starts_unit(self, line: str) -> bool:
        return bool(find_id(self.rule, line) or find_id(self.note, line))

    def units(self, text: str) -> list[_Unit]:
        """The document's units in order, each with its heading path."""
        units: list[_Unit] = []
        path: list[tuple[int, str]] = []
        open_rule: _Unit | None = None
        previous_kind = ""
        for offset, kind, block in _blocks(text, self._starts_unit):
            current = tuple(title for _, title in path)
            if kind == "heading":
                match = _HEADING.match(block)
                assert match is not None
                level = len(match.group(1))
                path = [(lv, title) for lv, title in path if lv < level] + [(level, match.group(2))]
                open_rule = None
            elif kind == "table":
                table = self._table(offset, block, current)
                caption = _caption(units, previous_kind, current)
                if caption:
                    table.caption = caption
                    table.parts.insert(0, (offset, caption))
                units.append(table)
                open_rule = None
            elif rule_id := find_id(self.rule, block):
                open_rule = _Unit("rule", current, [(offset, block)], [rule_id])
                units.append(open_rule)
            elif open_rule is not None:  # a note or paragraph under a rule stays with it
                open_rule.parts.append((offset, block))
                if (note_id := find_id(self.note, block)) and note_id not in open_rule.ids:
                    open_rule.ids.append(note_id)
                    open_rule.id_texts[note_id] = block
            else:
                note_id = find_id(self.note, block)
                units.append(_Unit("rule" if note_id else "paragraph", current, [(offset, block)],
                                   [note_id] if note_id else []))
            previous_kind = kind
        return units

    def _table(self, offset: int, block: str, path: tuple[str, ...]) -> _Unit:
        lines = block.splitlines()
        split = next((i for i, line in enumerate(lines) if _TABLE_SEPARATOR.match(line.strip())), None)
        header, rows = (lines[: split + 1], lines[split + 1 :]) if split is not None else ([], lines)
        if self.params.tables == "rows" and split is not None:
            names = _cells(lines[split - 1]) if split > 0 else []
            rows = [
                "; ".join(
                    f"{n}: {v}" if n else v
                    for n, v in zip(names + [""] * len(_cells(row)), _cells(row), strict=False)
                    if v
                )
                for row in rows
            ]
            header = []
        return _Unit("table", path, [(offset, block)], header=header, rows=[r for r in rows if r.strip()])

    # -- packing ---------------------------------------------------------------------------------

    def pieces(self, unit: _Unit) -> list[str]:
        """The unit's text, cut to ``chunk_size`` where it must be."""
        size = self.params.chunk_size
        if len(unit.text) <= size:
            return [unit.text]
        if unit.kind == "table":  # between rows, the caption and header repeated
            header = ([unit.caption] if unit.caption else []) + unit.header
            pieces, rows = [], []
            for row in unit.rows:
                if rows and len("\n".join(header + rows + [row])) > size:
                    pieces.append("\n".join(header + rows))
                    rows = []
                rows.append(row)
            return pieces + ["\n".join(header + rows)]
        return self.splitter.split_text(unit.text)

    def pack(self, units: list[_Unit]) -> list[_Chunk]:
        size, overlap = self.params.chunk_size, self.params.chunk_overlap
        chunks: list[_Chunk] = []
        current: _Chunk | None = None
        alone = False  # the current chunk holds a rule that wants no company
        last_kind = ""  # the kind of the unit the current chunk ends with
        for unit in units:
            pieces = self.pieces(unit)
            own = self.params.rule_per_chunk and unit.kind == "rule"
            for n, piece in enumerate(pieces):
                fits = (current is not None and current.path == unit.path and not own and not alone
                        and len(current.text) + 2 + len(piece) <= size)
                if not fits or n > 0:
                    previous = current
                    current = _Chunk(unit.path)
                    chunks.append(current)
                    if (previous and previous.path == unit.path and unit.kind == last_kind == "paragraph" and n == 0
                            and overlap):  # prose continues: repeat the end of the previous chunk
                        tail = _tail(previous.text, min(overlap, size - len(piece) - 2))
                        if tail:
                            current.texts.append(tail)
                assert current is not None
                current.texts.append(piece)
                current.offsets.extend(_piece_offsets(unit, piece))
                # the unit's own id on every piece (a continued rule), a note's id where the note is
                ids = [i for n_id, i in enumerate(unit.ids) if n_id == 0 or unit.id_texts.get(i, "")[:40] in piece]
                current.ids.extend(i for i in ids if i not in current.ids)
            alone, last_kind = own, unit.kind
        return chunks

    # -- nodes -----------------------------------------------------------------------------------

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]:
        nodes: list[TextNode] = []
        for doc in documents:
            pages = [int(x) for x in str(doc.metadata.get("page_offsets") or "").split()]
            for n, chunk in enumerate(self.pack(self.units(doc.text))):
                nodes.append(self._node(doc, n, chunk, pages))
        return nodes

    def _node(self, doc: Document, n: int, chunk: _Chunk, pages: list[int]) -> TextNode:
        metadata = {k: v for k, v in doc.metadata.items() if k not in _INTERNAL_KEYS}
        first = [bisect.bisect_right(pages, o) for o in chunk.offsets] if pages else []
        metadata.update(
            section=self.params.section_separator.join(chunk.path),
            heading=chunk.path[-1] if chunk.path else "",
            rule_id=chunk.ids[0] if chunk.ids else None,
            rule_ids=", ".join(chunk.ids),
            page=min(first) if first else None,
            page_end=max(first) if first else None,
        )
        if self.params.cite_location:
            pages = "" if not first else f"p. {min(first)}" + (f"-{max(first)}" if max(first) > min(first) else "")
            place = [str(doc.metadata.get("source") or ""), pages, metadata["section"]]
            metadata["source"] = ", ".join(part for part in place if part)
        node = TextNode(id_=f"{doc.doc_id}#c{n}", text=chunk.text, metadata=metadata)
        indexed = {"section", "rule_id"} if self.params.structure_in_index else set()
        node.excluded_embed_metadata_keys = [k for k in doc.excluded_embed_metadata_keys if k in metadata] + [
            k for k in _STRUCTURE_KEYS if k not in indexed or not metadata[k]
        ]
        node.excluded_llm_metadata_keys = list(metadata)
        node.metadata_template = doc.metadata_template
        node.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id=doc.doc_id)
        return node


def _blocks(text: str, starts_unit: Callable[[str], bool]) -> list[tuple[int, str, str]]:
    """``(offset, kind, text)`` of each heading, table and paragraph; kind is heading|table|paragraph.
    A line for which ``starts_unit`` is true (a rule or note id) begins a new paragraph."""
    blocks: list[tuple[int, str, str]] = []
    start, lines, kind = 0, [], ""
    offset = 0

    def close() -> None:
        if lines:
            blocks.append((start, kind, "\n".join(lines).strip()))
            lines.clear()

    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        line_kind = "heading" if _HEADING.match(stripped) else "table" if stripped.startswith("|") else "paragraph"
        if not stripped or line_kind == "heading" or line_kind != kind or (
            line_kind == "paragraph" and starts_unit(stripped)
        ):
            close()
        if stripped:
            if not lines:
                start, kind = offset, line_kind
            lines.append(stripped if line_kind != "paragraph" else line.rstrip("\n"))
            if line_kind == "heading":
                close()
        offset += len(line)
    close()
    return blocks


def _caption(units: list[_Unit], previous_kind: str, path: tuple[str, ...]) -> str:
    """A short line without a sentence end just above a table (``Table 2. Histology codes``) is the
    table's caption: taken from the unit it was added to, so it travels with the table."""
    if previous_kind != "paragraph" or not units or units[-1].path != path or units[-1].kind == "table":
        return ""
    last = units[-1]
    text = last.parts[-1][1]
    if (len(text) > 120 or "\n" in text or re.search(r"[.!?。！？]$", text) or text in last.id_texts.values()
            or (last.ids and len(last.parts) == 1)):
        return ""
    last.parts.pop()
    if not last.parts:
        units.pop()
    return text


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _tail(text: str, limit: int) -> str:
    """At most ``limit`` characters from the end of ``text``, starting at a sentence or word start."""
    if limit <= 0:
        return ""
    tail = text[-limit:]
    if len(tail) == len(text):
        return tail
    sentence = re.search(r"(?<=[.!?。！？])\s*", tail)
    if sentence and sentence.end() < len(tail):
        return tail[sentence.end():].strip()
    space = tail.find(" ")
    return tail[space + 1:].strip() if space >= 0 else ""


def _piece_offsets(unit: _Unit, piece: str) -> tuple[int, int]:
    """Where the piece's first and last words are in the document (the offsets of the unit parts
    they come from): the pages of a chunk are read from these."""
    text = piece.strip()
    head, tail = text[:40], text[-40:]
    start = next((offset for offset, part in unit.parts if head in part), unit.parts[0][0])
    end = next((offset for offset, part in reversed(unit.parts) if tail in part), start)
    return start, max(start, end)
