"""Titles that tell an answer's sources apart.

Two chunks of one document carry the same document title ("Liver cancer: treatment"); shown as
sources they read the same. A source title adds what the chunk's metadata knows about where it sits:
its section heading (``heading_path``, else ``heading``), its page, and, when a section was split
into several chunks, ``passage k of n``. Titles that still coincide get the chunk id. A ``section``
field is a category label for filters and boosts (``overview``, ``treatment``), not words a reader
reads, so it is never appended ("갑상선암 - 개요", not "갑상선암 - 개요 › overview").

Example::

    source_titles(context)  # {1: "Liver cancer: treatment › Surgery", 2: "Liver cancer: treatment › Ablation"}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from criss_rag.types import Context

SEPARATOR = " › "


def base_title(metadata: Mapping[str, Any], doc_id: str) -> str:
    """Title, section and page of one chunk, from its metadata."""
    title = str(metadata.get("title") or doc_id)
    parts = [title]
    section = next((str(metadata[k]) for k in ("heading_path", "heading") if metadata.get(k)), "")
    if section and section.casefold() not in title.casefold():
        parts.append(section)
    text = SEPARATOR.join(parts)
    page = metadata.get("page")
    if page not in (None, ""):
        text += f", p. {page}"
    return text


def source_titles(context: Context) -> dict[int, str]:
    """``{evidence number: title}`` for every passage of ``context``, distinct from one another."""
    titles = {e.number: base_title(e.hit.metadata, e.hit.doc_id) for e in context.evidence}
    shared = Counter(titles.values())
    for e in context.evidence:
        passage, passages = e.hit.metadata.get("passage"), e.hit.metadata.get("passages")
        if shared[titles[e.number]] > 1 and passage:
            titles[e.number] += f" (passage {passage} of {passages})" if passages else f" (passage {passage})"
    shared = Counter(titles.values())
    for e in context.evidence:
        if shared[titles[e.number]] > 1:
            titles[e.number] += f" [{e.hit.node_id}]"
    return titles
