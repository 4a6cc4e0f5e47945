"""Human-readable output for answers, plans and plugin lists."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import yaml

from criss_rag.plugins import PluginHost, PluginInfo

if TYPE_CHECKING:
    from criss_rag.types import Answer


def render_answer(answer: Answer, *, width: int = 100) -> str:
    if answer.refused:
        return (f"REFUSED ({answer.refusal_reason}): {answer.text}\n  why: {answer.refusal_detail}"
                + render_dropped(answer))
    lines = [textwrap.fill(part, width) if part.isascii() else part for part in answer.text.splitlines()]
    return "\n".join(lines) + "\n" + render_sources(answer)


def render_sources(answer: Answer) -> str:
    """What follows the answer text: its sources, then the sentence check with unsupported
    sentences marked (``criss-rag ask --stream`` prints this after the streamed text)."""
    lines = ["", "Sources:"]
    for c in answer.citations:
        where = f" <{c.location}>" if c.location else ""
        lines.append(
            f"  [{c.number}] {c.source_title or c.title or c.doc_id}{where} (doc {c.doc_id}, score {c.score:.3f})"
        )
    if answer.sentences:
        supported = sum(s.supported for s in answer.sentences)
        lines += ["", f"Sentence check: {supported} of {len(answer.sentences)} supported by the evidence"]
        for s in answer.sentences:
            cited = "".join(f"[{n}]" for n in s.cited)
            text = s.text if len(s.text) <= 90 else s.text[:87] + "..."
            mark = "  ok            " if s.supported else "  UNSUPPORTED   "
            via = f" (supported by [{s.evidence}])" if s.supported and s.evidence not in s.cited else ""
            bad = (
                f" (cites {''.join(f'[{n}]' for n in s.invalid_citations)}: no such evidence)"
                if s.invalid_citations
                else ""
            )
            if not s.attributed:
                added = ""
            elif s.invalid_citations:  # it cited only numbers no passage has: the supporting one was added
                added = " (marker added: none of the model's markers named a passage)"
            else:
                added = " (marker added: the model cited nothing here)"
            lines.append(f"{mark}{s.score:.2f} {cited + ' ' if cited else ''}{text}{via}{bad}{added}")
            lines += [f"                why: {p.message}" for p in s.problems]
    if answer.relevance is not None:
        r = answer.relevance
        verdict = "on topic" if r.relevant else "OFF TOPIC"
        lines += ["", f"Relevance: {verdict}, {r.score:.0%} of the question's content words covered "
                      f"(at least {r.threshold:.0%}){'; not covered: ' + ', '.join(r.missing) if r.missing else ''}"]
    return "\n".join(lines) + render_dropped(answer)


def render_dropped(answer: Answer) -> str:
    """The sentences the generator wrote that were removed as unsupported (not part of the answer)."""
    if not answer.dropped:
        return ""
    lines = ["", f"Removed from the answer ({len(answer.dropped)} sentence(s) no evidence supports):"]
    for s in answer.dropped:
        text = s.text if len(s.text) <= 90 else s.text[:87] + "..."
        lines.append(f"  DROPPED       {s.score:.2f} {text}")
        lines += [f"                why: {p.message}" for p in s.problems]
    return "\n".join(lines)


def render_trace(answer: Answer) -> str:
    rows: list[str] = []
    for s in answer.trace.stages:
        rows.append(f"  {s.stage:<22} {s.component:<20} {s.n_in:>4} -> {s.n_out:<4} {s.ms:>9.1f} ms")
        rows += [f"    ! {note}" for note in s.notes.get("skipped_checks", [])]  # a safety check that did not run
        declined = s.notes.get("declined_text")
        if isinstance(declined, dict) and declined.get("text"):
            rows.append(f"    ! the model declined; what it wrote (unchecked, never shown as the answer): "
                        f"{_short(str(declined['text']), 200)}")
    return "trace (stage, component, in -> out, time):\n" + "\n".join(rows)


def render_plan(plan: dict) -> str:
    return yaml.safe_dump(plan, sort_keys=False, allow_unicode=True)


def render_plugins(host: PluginHost, plugins: list[PluginInfo], *, show_all: bool = False) -> str:
    lines = []
    for info in plugins:
        lines.append(f"{info.name} {info.version} ({info.distribution})")
        for kind, names in info.components.items():
            if show_all:
                for name in sorted(names):
                    lines.append(f"  {kind} {name}: {host.registry.get(kind, name).summary}")
            else:
                lines.append(f"  {kind}: {', '.join(sorted(names))}")
        lines.append(f"  hooks: {', '.join(info.hooks)}")
    if show_all:
        for info in host.skipped:
            lines.append(
                f"{info.name} {info.version} ({info.distribution}): not loaded (not in CRISS_RAG_LOAD_PLUGINS)"
            )
    for failure in host.failures:
        lines.append(f"FAILED {failure.name}: {failure.stage}: {failure.error}")
    return "\n".join(lines) or "no plugins installed"


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
