"""An answer as a reader sees it: citation markers numbered 1..n in the order they first appear,
and the list of its sources (a readable title, and a link where the document has a web address).

The engine numbers citations by their place in the context (evidence 1..k), so an answer that cites
the first and third passages reads "[1] ... [3]"; a reader takes the gap for a mistake. Shown,
they are renumbered: the first source cited is [1], the next new one [2], and so on. The same
numbering serves the chat page, the OpenAI-compatible endpoint's ``content`` and its ``sources``.

Example::

    text, sources = shown_answer(answer)            # "... [1] ... [2]", [ShownSource(1, 3, ...), ...]
    text + sources_block(sources, answer.question)  # "...\\n\\nSources:\\n1. Liver cancer: treatment — https://..."
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from criss_rag.plugin_utils import CITATION_MARKER, detect_language
from criss_rag.types import Answer, Citation

#: the heading of the sources block, in the answer's language
SOURCES_HEADING = {"en": "Sources:", "ko": "출처:", "ja": "出典:", "zh": "来源:"}
_WEB = re.compile(r"^https?://[^\s<>\"']+$", re.IGNORECASE)


@dataclass(frozen=True)
class ShownSource:
    """One source as shown: ``number`` in the shown text, ``evidence`` the Answer's citation number."""

    number: int
    evidence: int
    title: str
    url: str | None
    doc_id: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def web_address(location: str) -> str | None:
    """``location`` when it is an http(s) URL (a file name with an anchor is not a link)."""
    location = location.strip()
    return location if _WEB.match(location) else None


def readable_title(citation: Citation) -> str:
    return citation.source_title or citation.title or citation.doc_id


def shown_answer(answer: Answer) -> tuple[str, list[ShownSource]]:
    """The answer text with its markers renumbered 1..n in order of first appearance, and its
    sources in that order (cited sources the text never marks come last). A refusal has none."""
    if answer.refused:
        return answer.text, []
    by_number = {c.number: c for c in answer.citations}
    order: list[int] = []
    for match in CITATION_MARKER.finditer(answer.text):
        for number in _numbers(match.group(1)):
            if number in by_number and number not in order:
                order.append(number)
    order += [c.number for c in answer.citations if c.number not in order]
    shown = {evidence: i for i, evidence in enumerate(order, start=1)}

    def renumber(match: re.Match[str]) -> str:
        numbers = [shown[n] for n in _numbers(match.group(1)) if n in shown]
        return f"[{', '.join(str(n) for n in numbers)}]" if numbers else ""

    text = CITATION_MARKER.sub(renumber, answer.text)
    sources = [ShownSource(number=shown[n], evidence=n, title=readable_title(by_number[n]),
                           url=web_address(by_number[n].location), doc_id=by_number[n].doc_id) for n in order]
    return text, sources


def sources_block(sources: list[ShownSource], language_of: str) -> str:
    """The numbered list that follows the answer in ``content`` ("" without sources): a blank line,
    the heading in the language of ``language_of`` (the answer), one line per source."""
    if not sources:
        return ""
    heading = SOURCES_HEADING.get(detect_language(language_of), SOURCES_HEADING["en"])
    lines = [f"{s.number}. {s.title}" + (f" — {s.url}" if s.url else "") for s in sources]
    return "\n\n" + heading + "\n" + "\n".join(lines)


def without_sources_block(content: str) -> str:
    """``content`` without a trailing sources block (an earlier assistant turn sent back by a chat
    client), so a follow-up question is condensed with the answer only."""
    for heading in SOURCES_HEADING.values():
        at = content.rfind("\n\n" + heading + "\n")
        if at >= 0 and all(_LISTED.match(line) for line in content[at + len(heading) + 3:].splitlines()):
            return content[:at]
    return content


_LISTED = re.compile(r"^\d+\. \S")


def _numbers(group: str) -> list[int]:
    return [int(n) for n in re.split(r"\s*,\s*", group) if n]
