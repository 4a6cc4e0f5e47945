"""The registrar assistant's rubric, asked of an LLM: six scores, four flags and a rationale.

The judge sees the question, the reference answer (when the question has one), the numbered
evidence the assistant was given and the answer, and replies with JSON. The reply is validated (every
score present and on the scale, every flag a yes/no); a reply that fails is asked for again
(``retries`` times) with the reason, and if it still fails the verdict is a **parse failure**:
no scores at all, so reports count it and never average it as a zero.

With a backend that can constrain decoding (``llama-cpp``; ``openai-compatible`` with
``json_schema``) the reply is forced into :func:`rubric_schema`'s shape token by token; the same
parser then reads it (a reply cut short by ``max_tokens`` can still fail). ``RubricJudge.stats``
counts the calls, the constrained ones and the parse failures.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from importlib import resources
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import ParseStats, complete_json, detect_language
from criss_rag.types import Answer, JudgeVerdict

SCORES = ("correctness", "faithfulness", "completeness", "reasoning", "citation_accuracy", "tone")
FLAGS = ("hallucinated_or_irrelevant_rule", "clinically_meaningful_error", "missed_compound_part",
         "unresolved_rule_conflict")
TEMPLATE_LANGUAGES = ("en", "ja", "ko")
REFERENCE_FIELDS = ["reference_answer", "reference", "long_answer", "answer"]
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


class ParseError(ValueError):
    """The judge's reply is not the JSON the rubric asks for."""


def load_template(language: str) -> str:
    return resources.files("criss_rag_judges").joinpath(f"templates/rubric.{language}.txt").read_text(encoding="utf-8")


def extract_json(reply: str) -> Any:
    """The first JSON object in ``reply`` (code fences and surrounding prose allowed)."""
    fenced = _FENCE.search(reply)
    text = fenced.group(1) if fenced else reply
    start = text.find("{")
    if start < 0:
        raise ParseError("the reply holds no JSON object")
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                try:
                    # strict=False: raw line breaks inside strings (what a grammar-constrained small
                    # model writes in its rationale) are read, not a parse failure
                    return json.loads(text[start : i + 1], strict=False)
                except json.JSONDecodeError as exc:
                    raise ParseError(f"the JSON object is malformed ({exc.msg})") from None
    raise ParseError("the JSON object is not closed")


class _Reply(BaseModel):
    model_config = ConfigDict(extra="ignore")
    scores: dict[str, float]
    flags: dict[str, bool]
    rationale: str = ""


def parse_reply(reply: str, low: float, high: float) -> tuple[dict[str, float], dict[str, bool], str]:
    """(scores, flags, rationale) of a reply, or ParseError saying exactly what is wrong."""
    data = extract_json(reply)
    try:
        parsed = _Reply.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ParseError(f"{'.'.join(map(str, first['loc']))}: {first['msg']}") from None
    missing = [s for s in SCORES if s not in parsed.scores] + [f for f in FLAGS if f not in parsed.flags]
    if missing:
        raise ParseError(f"missing: {', '.join(missing)}")
    outside = [f"{k}={v:g}" for k, v in parsed.scores.items() if k in SCORES and not low <= v <= high]
    if outside:
        raise ParseError(f"scores outside {low:g}-{high:g}: {', '.join(outside)}")
    return ({k: parsed.scores[k] for k in SCORES}, {k: parsed.flags[k] for k in FLAGS}, parsed.rationale.strip())


def rubric_schema(low: float, high: float, rationale_chars: int = 300) -> dict[str, Any]:
    """The JSON schema of a rubric reply: every score on the scale, every flag a boolean, a short rationale.

    Integer scales are written as an enum of the allowed whole numbers (grammar converters handle
    enums everywhere; numeric ranges not always)."""
    if float(low).is_integer() and float(high).is_integer() and high - low <= 20:
        score: dict[str, Any] = {"type": "integer", "enum": list(range(int(low), int(high) + 1))}
    else:
        score = {"type": "number", "minimum": low, "maximum": high}
    return {
        "type": "object",
        "properties": {
            "scores": {"type": "object", "properties": {name: score for name in SCORES},
                       "required": list(SCORES), "additionalProperties": False},
            "flags": {"type": "object", "properties": {name: {"type": "boolean"} for name in FLAGS},
                      "required": list(FLAGS), "additionalProperties": False},
            "rationale": {"type": "string", "maxLength": rationale_chars},
        },
        "required": ["scores", "flags", "rationale"],
        "additionalProperties": False,
    }


class RubricJudge:
    """The registrar assistant's LLM rubric: correctness, faithfulness, completeness, reasoning,
    citation accuracy, tone; four error flags; a rationale."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field("judge", description="key of the judging LLM under the experiment's `llms:`")
        language: Literal["auto", "en", "ja", "ko"] = Field(
            "auto", description="prompt language; `auto` follows the question (Japanese, Korean, else English)"
        )
        template: str | None = Field(
            None,
            description="a prompt file of your own (placeholders {{question}}, {{reference}}, {{evidence}}, "
                        "{{answer}}, {{scale_min}}, {{scale_max}}); None = the bundled one for `language`",
        )
        scale_min: float = Field(1, description="lowest score")
        scale_max: float = Field(5, description="highest score")
        retries: int = Field(
            1,
            ge=0,
            description="times an unparsable reply is asked for again (with the reason) before it counts as a parse "
                        "failure",
        )
        max_evidence_chars: int = Field(
            6000, ge=200, description="evidence shown to the judge is cut at this many characters"
        )
        reference_fields: list[str] = Field(
            default_factory=lambda: list(REFERENCE_FIELDS),
            description="question fields holding the reference answer, first present wins",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        if params.scale_max <= params.scale_min:
            raise ValueError(f"scale_max ({params.scale_max}) must be above scale_min ({params.scale_min})")
        self.params = params
        self.llm = ctx.llm(params.llm)
        self.custom = ctx.resolve_path(params.template).read_text(encoding="utf-8") if params.template else None
        self.schema = rubric_schema(params.scale_min, params.scale_max)
        #: replies asked for, how many were constrained to the schema, how many did not parse
        self.stats = ParseStats()

    def prompt(self, question: Mapping[str, Any], answer: Answer) -> str:
        p = self.params
        text = str(question.get("question") or answer.question)
        language = p.language if p.language != "auto" else detect_language(text)
        template = self.custom or load_template(language if language in TEMPLATE_LANGUAGES else "en")
        reference = next((str(question[f]) for f in p.reference_fields if question.get(f)), "")
        evidence = "\n\n".join(f"[{e.get('number')}] {e.get('title', '')}\n{e.get('text', '')}"
                               for e in question.get("_evidence") or [])
        if not evidence and answer.citations:  # outside `eval run`: what was cited
            evidence = "\n\n".join(f"[{c.number}] {c.title}\n{c.text}" for c in answer.citations)
        evidence = evidence[: p.max_evidence_chars] or "(none: the assistant had no evidence)"
        shown = answer.text + (
            f"\n(The assistant declined to answer: {answer.refusal_reason}.)" if answer.refused else ""
        )
        values = {"question": text, "reference": reference or "(none)", "evidence": evidence, "answer": shown,
                  "scale_min": f"{p.scale_min:g}", "scale_max": f"{p.scale_max:g}"}
        for key, value in values.items():
            template = template.replace("{{" + key + "}}", value)
        return template

    def judge(self, question: Mapping[str, Any], answer: Answer) -> JudgeVerdict:
        prompt = self.prompt(question, answer)
        ask = prompt
        error = ""
        reply = ""
        for attempt in range(1, self.params.retries + 2):
            answered = complete_json(self.llm, ask, self.schema)
            reply = answered.text
            try:
                scores, flags, rationale = parse_reply(reply, self.params.scale_min, self.params.scale_max)
            except ParseError as exc:
                self.stats.record(constrained=answered.constrained, parsed=False)
                error = str(exc)
                ask = (f"{prompt}\n\nYour previous reply could not be used ({error}). Reply again with only "
                       "the JSON object, in exactly the shape shown above.")
                continue
            self.stats.record(constrained=answered.constrained, parsed=True)
            return JudgeVerdict(scores=scores, flags=flags, rationale=rationale, attempts=attempt)
        return JudgeVerdict(parse_failed=True, error=error, attempts=self.params.retries + 1, raw=reply[:500])
