"""The answer policies of the ``generator:`` stage: what happens to sentences that cite nothing and
to sentences the evidence does not support.

They are engine keys written in the generator's mapping (any generator)::

    generator: {name: llm, llm: local, citations: attribute, unsupported: drop}

``citations``
    ``require`` (default): an answer without one valid ``[n]`` marker is withheld
    (``uncited_answer``). ``attribute``: every sentence without a valid marker gets the marker of
    the passage the sentence check found supports it best (the verdict says ``attributed``);
    for models that do not cite.
``unsupported``
    ``drop`` (default): a sentence no evidence supports is removed from the shown answer and kept
    in :attr:`~criss_rag.types.Answer.dropped` with its score; ``mark``: it stays in the answer,
    flagged (the CLI and the chat page mark it); ``withhold``: the whole answer is refused
    (``unsupported_sentence``).

An answer left with no supported sentence is refused (``unsupported_answer``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.answering.refusal_messages import OFF_TOPIC, UNSUPPORTED
from criss_rag.answering.sentence_check import answer_pieces, answer_sentences
from criss_rag.language.chinese_script import message_for
from criss_rag.language.text import detect_language
from criss_rag.types import Refusal, RelevanceVerdict, SentenceSupport

UNSUPPORTED_MESSAGES = UNSUPPORTED  # shown instead of an answer the evidence does not support
OFF_TOPIC_MESSAGES = OFF_TOPIC  # shown when the evidence (or the answer) does not cover the question

_END = re.compile(r"([.!?。！？]+[」』）)\"'\]]*)\s*$")


class GroundingPolicy(BaseModel):
    """The ``citations`` and ``unsupported`` engine keys of the generator stage."""

    model_config = ConfigDict(extra="forbid")
    citations: Literal["require", "attribute"] = Field(
        "require", description="require: an answer citing no evidence is withheld; attribute: a sentence without a "
                               "valid [n] gets the marker of the passage that supports it best")
    unsupported: Literal["drop", "mark", "withhold"] = Field(
        "drop", description="a sentence the evidence does not support: drop it from the shown answer (kept in "
                            "`dropped`), mark it, or withhold the whole answer")


@dataclass
class Grounded:
    """What :func:`apply_policy` made of an answer."""

    text: str  # the answer to show (markers added, unsupported sentences removed as the policy says)
    sentences: list[SentenceSupport]  # the verdicts of the sentences in ``text``, in order
    dropped: list[SentenceSupport] = field(default_factory=list)  # removed sentences, with their scores
    attributed: int = 0  # markers the policy added
    withheld: bool = False  # `unsupported: withhold` and some sentence is unsupported
    repeated: int = 0  # sentences removed because an earlier shown sentence said the same


def apply_policy(text: str, verdicts: list[SentenceSupport], policy: GroundingPolicy) -> Grounded:
    """Apply ``policy`` to ``text`` whose claims (:func:`~criss_rag.answering.sentence_check.answer_sentences`)
    have ``verdicts``. ``text`` comes back unchanged unless a marker is added or a sentence dropped."""
    shown: list[SentenceSupport] = []
    dropped: list[SentenceSupport] = []
    add: dict[int, int] = {}  # claim position -> evidence number to cite
    drop: set[int] = set()
    seen: set[str] = set()
    repeated = 0
    for i, verdict in enumerate(verdicts):
        if _key(verdict.text) in seen:  # a looping model says the same sentence again: shown once
            drop.add(i)
            repeated += 1
            continue
        if (policy.citations == "attribute" and not verdict.cited and verdict.supported
                and verdict.evidence is not None):
            add[i] = verdict.evidence
            verdict = verdict.model_copy(update={"cited": [verdict.evidence], "attributed": True})
        if not verdict.supported and policy.unsupported == "drop":
            drop.add(i)
            dropped.append(verdict)
        else:
            shown.append(verdict)
            seen.add(_key(verdict.text))
    withheld = policy.unsupported == "withhold" and any(not v.supported for v in verdicts)
    if not add and not drop:
        return Grounded(text, shown, dropped, 0, withheld)
    parts: list[str] = []
    for piece, claim in answer_pieces(text):
        if claim is not None and claim in drop:
            continue
        if claim is not None and claim in add and _has_claim_words(piece):
            piece = _with_marker(piece, add.pop(claim))
        parts.append(piece)
    return Grounded(_tidy("".join(parts)), shown, dropped, sum(v.attributed for v in shown), withheld, repeated)


def _key(sentence: str) -> str:
    return " ".join(sentence.casefold().split())


def unchecked_claims(text: str) -> list[SentenceSupport]:
    """The claims of ``text`` with their cited numbers, not yet judged or split into valid ones."""
    return [SentenceSupport(text=sentence, cited=numbers) for sentence, numbers in answer_sentences(text)]


def _has_claim_words(piece: str) -> bool:
    return any(ch.isalnum() for ch in re.sub(r"\[[\d,\s]+\]", "", piece))


def _with_marker(sentence: str, number: int) -> str:
    """``sentence`` with ``[number]`` before its closing punctuation ("cells." -> "cells [2].")."""
    match = _END.search(sentence)
    body, end = (sentence[: match.start()], match.group(1)) if match else (sentence.rstrip(), "")
    space = " " if body[-1:].isascii() else ""
    return f"{body.rstrip()}{space}[{number}]{end}"


def _tidy(text: str) -> str:
    lines = [" ".join(line.split()) for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def ungrounded(question: str, model: str, verdicts: Sequence[SentenceSupport], grounded: Grounded,
               cited: bool) -> Refusal | None:
    """The refusal an answer earns after the policy: withheld, no supported sentence, nothing cited."""
    message = message_for(UNSUPPORTED_MESSAGES, detect_language(question), question)
    unsupported = sum(not v.supported for v in verdicts)
    if grounded.withheld:
        return Refusal("unsupported_sentence", f"{unsupported} of {len(verdicts)} sentence(s) of the answer of "
                       f"{model} are not supported by the evidence (unsupported: withhold){found(verdicts)}", message)
    if not any(v.supported for v in grounded.sentences):
        return Refusal("unsupported_answer", f"none of the {len(verdicts)} sentence(s) of the answer of {model} is "
                       f"supported by the evidence{found(verdicts)}", message)
    if not cited:
        return Refusal("uncited_answer", f"no sentence of the answer of {model} could be tied to a numbered passage",
                       message)
    return None


def found(verdicts: Sequence[SentenceSupport], limit: int = 3) -> str:
    """What the sentence check found in the unsupported sentences, for a refusal's detail
    (": sentence 1: number: 30% — evidence [2] says 70%; ...")."""
    parts = [f"sentence {i}: {v.why}" for i, v in enumerate(verdicts, 1) if not v.supported and v.problems]
    if not parts:
        return ""
    more = f"; and {len(parts) - limit} more" if len(parts) > limit else ""
    return ": " + "; ".join(parts[:limit]) + more


def not_shown(verdicts: Sequence[SentenceSupport], grounded: Grounded) -> list[SentenceSupport]:
    """The unsupported sentences of an answer that is refused: those the policy dropped and those it
    would have shown (``unsupported: mark``), each with its verdict, so the refusal keeps what was found."""
    dropped = list(grounded.dropped)
    return dropped + [v for v in grounded.sentences if not v.supported and v not in dropped]


def off_topic(question: str, verdict: RelevanceVerdict) -> Refusal:
    """The refusal for a relevance verdict that failed."""
    where = "the evidence" if verdict.checked.startswith("evidence") else "the answer"
    missing = ", ".join(verdict.missing[:6]) + (", ..." if len(verdict.missing) > 6 else "")
    if verdict.score < verdict.threshold:
        detail = (f"{where} covers {verdict.score:.0%} of the question's content words, at least "
                  f"{verdict.threshold:.0%} required (not covered: {missing})")
    elif verdict.focus and not verdict.focus_score:  # the words are covered, the question's point is not
        detail = (f"{where} covers none of what the question asks besides the cancer's name "
                  f"(not covered: {missing})")
    else:
        detail = f"{where} does not name what the question is about (not covered: {missing})"
    return Refusal("off_topic_evidence" if verdict.checked.startswith("evidence") else "off_topic_answer", detail,
                   message_for(OFF_TOPIC_MESSAGES, detect_language(question), question))


class SentenceGate:
    """Holds a streamed answer back sentence by sentence, so that what the policy would remove is
    never shown, not even while the model writes.

    A sentence is released when the next one has begun (its markers, written after its full stop,
    have arrived by then) and its verdict is in: ``judge(sentence)`` gives it. Unsupported with
    ``drop``: never released; with ``withhold``: nothing more is released (the answer is refused);
    with ``attribute``: released with its added marker. The final answer, checked as a whole, is
    what counts; the gate only decides what the reader sees meanwhile."""

    def __init__(self, judge: Callable[[SentenceSupport], SentenceSupport], policy: GroundingPolicy) -> None:
        self.judge = judge
        self.policy = policy
        self.buffer = ""
        self.released = 0  # pieces of answer_pieces(buffer) already decided
        self.verdicts: list[SentenceSupport] = []
        self.withheld = False
        self.seen: set[str] = set()
        self.skipped: set[int] = set()
        self.tail = ""  # the last character released

    @staticmethod
    def needed(policy: GroundingPolicy) -> bool:
        """Whether the policy can change streamed text (else tokens stream as they come)."""
        return policy.unsupported != "mark" or policy.citations == "attribute"

    def feed(self, text: str) -> str:
        self.buffer += text
        return self._release(final=False)

    def finish(self) -> str:
        return self._release(final=True)

    def _release(self, *, final: bool) -> str:
        pieces = answer_pieces(self.buffer)
        claims = [claim for _, claim in pieces if claim is not None]
        # the last sentence may still grow, or get its marker: held until the stream ends
        complete = (max(claims) + (1 if final else 0)) if claims else 0
        sentences = unchecked_claims(self.buffer)
        while len(self.verdicts) < min(complete, len(sentences)):
            self.verdicts.append(self.judge(sentences[len(self.verdicts)]))
        out: list[str] = []
        for piece, claim in pieces[self.released:]:
            if claim is not None and claim >= complete:
                break
            if not final and claim is None and self.released == len(pieces) - 1:
                break  # a trailing space or line may belong to what comes next
            self.released += 1
            if self.withheld:
                continue
            if claim is None:
                if not (piece == " " and self.tail in (" ", "\n", "")):  # no gap left by a removed sentence
                    out.append(piece)
                    self.tail = piece[-1:] or self.tail
                continue
            verdict = self.verdicts[claim]
            if claim in self.skipped or (_key(verdict.text) in self.seen and _has_claim_words(piece)):
                self.skipped.add(claim)  # said before (its markers, in a piece of their own, go too)
                continue
            if not verdict.supported and self.policy.unsupported == "withhold":
                self.withheld = True
            elif not verdict.supported and self.policy.unsupported == "drop":
                continue
            elif (self.policy.citations == "attribute" and verdict.supported and not verdict.cited
                  and verdict.evidence is not None and _has_claim_words(piece)):
                out.append(_with_marker(piece, verdict.evidence))
            else:
                out.append(piece)
            if _has_claim_words(piece):
                self.seen.add(_key(verdict.text))
            self.tail = out[-1][-1:] if out else self.tail
        return "".join(out)
