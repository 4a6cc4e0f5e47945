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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.relevance import RelevanceCheck, RelevancePolicy
from criss_rag.support import answer_pieces
from criss_rag.text import detect_language
from criss_rag.types import Refusal, RelevanceVerdict, SentenceSupport

if TYPE_CHECKING:
    from criss_rag.pipeline import Pipeline

#: Shown instead of an answer none of whose sentences the evidence supports (or, with
#: ``unsupported: withhold``, one with an unsupported sentence).
UNSUPPORTED_MESSAGES = {
    "en": "Insufficient evidence: the answer could not be checked against the sources, so it is withheld.",
    "ko": "근거 부족: 답변을 자료로 확인할 수 없어 보여 드리지 않습니다.",
    "ja": "根拠が不十分です：回答を資料で確認できないため、表示しません。",
    "zh": "证据不足：无法用资料核实该回答，因此不予显示。",
}
#: Shown when the evidence (or the answer) does not cover what the question asks.
OFF_TOPIC_MESSAGES = {
    "en": "Insufficient evidence: the sources available to me do not address this question.",
    "ko": "근거 부족: 제공된 자료는 이 질문의 내용을 다루지 않습니다.",
    "ja": "根拠が不十分です：参照できる資料はこの質問の内容を扱っていません。",
    "zh": "证据不足：现有资料没有涉及这个问题的内容。",
}

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


def apply_policy(text: str, verdicts: list[SentenceSupport], policy: GroundingPolicy) -> Grounded:
    """Apply ``policy`` to ``text`` whose claims (:func:`~criss_rag.support.answer_sentences`)
    have ``verdicts``. ``text`` comes back unchanged unless a marker is added or a sentence dropped."""
    shown: list[SentenceSupport] = []
    dropped: list[SentenceSupport] = []
    add: dict[int, int] = {}  # claim position -> evidence number to cite
    drop: set[int] = set()
    for i, verdict in enumerate(verdicts):
        if (policy.citations == "attribute" and not verdict.cited and verdict.supported
                and verdict.evidence is not None):
            verdict = verdict.model_copy(update={"cited": [verdict.evidence], "attributed": True})
            add[i] = verdict.evidence
        if not verdict.supported and policy.unsupported == "drop":
            drop.add(i)
            dropped.append(verdict)
        else:
            shown.append(verdict)
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
    return Grounded(_tidy("".join(parts)), shown, dropped, sum(v.attributed for v in shown), withheld)


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


def answer_policies(pipeline: Pipeline) -> tuple[GroundingPolicy, RelevanceCheck | None]:
    """The generator stage's policies, from its engine keys (validated when the config loaded)."""
    cc = pipeline.config.one("generator")
    options = cc.options if cc is not None else {}
    grounding = GroundingPolicy(citations=options.get("citations", "require"),
                                unsupported=options.get("unsupported", "drop"))
    if not options.get("relevance"):
        return grounding, None
    policy = RelevancePolicy.model_validate(options["relevance"])
    if policy.analyzer is None:
        return grounding, RelevanceCheck(policy)
    return grounding, RelevanceCheck(policy, pipeline.analyzer(policy.analyzer, requested_by="generator").analyze)


def ungrounded(question: str, model: str, verdicts: Sequence[SentenceSupport], grounded: Grounded,
               cited: bool) -> Refusal | None:
    """The refusal an answer earns after the policy: withheld, no supported sentence, nothing cited."""
    message = UNSUPPORTED_MESSAGES.get(detect_language(question), UNSUPPORTED_MESSAGES["en"])
    unsupported = sum(not v.supported for v in verdicts)
    if grounded.withheld:
        return Refusal("unsupported_sentence", f"{unsupported} of {len(verdicts)} sentence(s) of the answer of "
                       f"{model} are not supported by the evidence (unsupported: withhold)", message)
    if not any(v.supported for v in grounded.sentences):
        return Refusal("unsupported_answer", f"none of the {len(verdicts)} sentence(s) of the answer of {model} is "
                       "supported by the evidence", message)
    if not cited:
        return Refusal("uncited_answer", f"no sentence of the answer of {model} could be tied to a numbered passage",
                       message)
    return None


def off_topic(question: str, verdict: RelevanceVerdict) -> Refusal:
    """The refusal for a relevance verdict that failed."""
    where = "the evidence" if verdict.checked == "evidence" else "the answer"
    missing = ", ".join(verdict.missing[:6]) + (", ..." if len(verdict.missing) > 6 else "")
    return Refusal("off_topic_evidence" if verdict.checked == "evidence" else "off_topic_answer",
                   f"{where} covers {verdict.score:.0%} of the question's content words, at least "
                   f"{verdict.threshold:.0%} required (not covered: {missing})",
                   OFF_TOPIC_MESSAGES.get(detect_language(question), OFF_TOPIC_MESSAGES["en"]))
