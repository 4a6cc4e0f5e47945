"""Prompt templates: YAML files of chat messages whose contents are Jinja templates.

A template file (a bundled preset, or the user's own file named by path) looks like this::

    description: one line saying what the prompt does
    refusal:                 # the model's fixed "I cannot answer" reply, per language (en, ko, ja, zh, zh-Hant);
      en: Insufficient evidence   # also how a declined answer is recognised
    no_evidence:             # optional: what the template shows when no passage was retrieved
      en: No references
    messages:
      - role: system
        content: |
          Answer only from the evidence. If it does not answer, reply "{{ refusal }}".
      - history              # optional: earlier chat turns go here, as user/assistant messages
      - role: user
        content: |
          Evidence:
          {{ evidence }}
          Question: {{ question }}

Templates run in Jinja's sandbox with strict undefined variables; a template that names an
unknown variable is rejected when the pipeline starts, not at the first question.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError, UndefinedError
from jinja2.sandbox import SandboxedEnvironment

from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import chinese_script, detect_language, strip_markers
from criss_rag.types import ChatTurn, Context, Query

PRESETS = ("ncc", "jlcs", "criss")
ROLES = ("system", "user", "assistant")
LANGUAGE_NAMES = {"en": "English", "ko": "Korean", "ja": "Japanese", "zh": "Chinese"}
#: The variables every template may use.
VARIABLES = {
    "question": "the question, as asked",
    "language": "the question's language code: en, ko, ja or zh",
    "language_name": "the question's language in English: English, Korean, Japanese, Chinese (Simplified, or "
                     "a question whose script cannot be told) or Traditional Chinese",
    "evidence": "the numbered evidence as the context builder rendered it ([1] title / text ...)",
    "passages": "the evidence as a list of {number, title, text, location}",
    "has_evidence": "true when at least one passage was retrieved",
    "refusal": "the template's `refusal` text in the question's language",
    "no_evidence": "the template's `no_evidence` text in the question's language",
    "history": "earlier chat turns, a list of {role, text} (answers without their [n] markers)",
}
_ENV = SandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)


@dataclass(frozen=True)
class Message:
    """One rendered chat message."""

    role: str
    content: str


@dataclass(frozen=True)
class PromptTemplate:
    """A loaded template: its messages (``None`` marks where chat history goes) and its phrases."""

    name: str  # the preset name, or the file's path
    description: str
    refusal: dict[str, str]
    no_evidence: dict[str, str]
    parts: tuple[tuple[str, Any] | None, ...]  # (role, compiled Jinja template), or None for history

    def phrase(self, table: dict[str, str], language: str, question: str = "") -> str:
        """The table's text for the question's language (``zh-Hant`` for a question in Traditional
        Chinese when the table has it), else its ``en`` text, else its first."""
        if language == "zh" and "zh-Hant" in table and chinese_script(question) == "zh-Hant":
            return table["zh-Hant"]
        return table.get(language) or table.get("en") or next(iter(table.values()), "")

    def variables(self, query: Query, context: Context) -> dict[str, Any]:
        language = detect_language(query.text)
        script = chinese_script(query.text) if language == "zh" else None
        return {
            "question": query.text,
            "language": language,
            "language_name": "Traditional Chinese" if script == "zh-Hant" else LANGUAGE_NAMES.get(language, "English"),
            "evidence": context.text,
            "passages": [
                {"number": e.number, "title": str(e.hit.metadata.get("title", "")), "text": e.text,
                 "location": str(e.hit.metadata.get("url") or e.hit.metadata.get("source") or "")}
                for e in context.evidence
            ],
            "has_evidence": bool(context.evidence),
            "refusal": self.phrase(self.refusal, language, query.text),
            "no_evidence": self.phrase(self.no_evidence, language, query.text),
            "history": [{"role": t.role, "text": _turn_text(t)} for t in query.history],
        }

    def render(self, query: Query, context: Context) -> list[Message]:
        """The chat messages for one question: the template's messages, with the earlier turns at
        the ``history`` place (left out when the template has none)."""
        values = self.variables(query, context)
        messages: list[Message] = []
        for part in self.parts:
            if part is None:
                messages.extend(Message("assistant" if t.role == "assistant" else "user", _turn_text(t))
                                for t in query.history)
                continue
            role, template = part
            try:
                content = template.render(values).strip()
            except UndefinedError as exc:
                raise ConfigError(f"prompt {self.name!r}, {role} message: {exc.message}. Variables a template may "
                                  f"use: {', '.join(VARIABLES)}") from None
            messages.append(Message(role, content))
        return messages


def _turn_text(turn: ChatTurn) -> str:
    # an earlier answer's [n] pointed at that turn's evidence: left in, the model would cite them now
    return strip_markers(turn.text) if turn.role == "assistant" else turn.text


def load_prompt(spec: str, base_dir: Path) -> PromptTemplate:
    """The preset named ``spec`` (``ncc``, ``jlcs``, ``criss``), or the YAML file at ``spec``
    (relative to ``base_dir``, the config's folder)."""
    if spec in PRESETS:
        text = resources.files("criss_rag_generate").joinpath("presets", f"{spec}.yaml").read_text(encoding="utf-8")
        return parse_prompt(text, spec)
    path = Path(spec).expanduser()
    path = path if path.is_absolute() else base_dir / path
    if not path.is_file():
        raise ConfigError(
            f"prompt {spec!r}: no preset of that name and no file at {path}. Presets: {', '.join(PRESETS)}; "
            "or give the path of a YAML template file, relative to the config (see docs/plugins/generate.md)"
        )
    return parse_prompt(path.read_text(encoding="utf-8"), str(path))


def parse_prompt(text: str, name: str) -> PromptTemplate:
    """Validate and compile a template file's text (``name`` is used in error messages)."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"prompt {name}: not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"prompt {name}: a prompt file is a YAML mapping with `messages:` (a list of "
                          "{role, content}), `refusal:` and optionally `description:` and `no_evidence:`")
    unknown = sorted(set(data) - {"description", "refusal", "no_evidence", "messages"})
    if unknown:
        raise ConfigError(f"prompt {name}: unknown key {unknown[0]!r}. Valid keys: description, messages, "
                          "no_evidence, refusal")
    refusal = _phrases(data.get("refusal"), name, "refusal", required=True)
    no_evidence = _phrases(data.get("no_evidence"), name, "no_evidence", required=False) or dict(refusal)
    raw = data.get("messages")
    if not isinstance(raw, list) or not raw:
        raise ConfigError(f"prompt {name}: `messages:` must be a list of {{role, content}} mappings (and "
                          "optionally the word `history`)")
    parts: list[tuple[str, Any] | None] = []
    for i, item in enumerate(raw, start=1):
        if item == "history":
            parts.append(None)
            continue
        if not isinstance(item, dict) or set(item) != {"role", "content"} or item["role"] not in ROLES \
                or not isinstance(item["content"], str):
            raise ConfigError(f"prompt {name}: message {i} must be `{{role: system|user|assistant, content: "
                              f"TEXT}}` or the word `history` (got {item!r})")
        try:
            parts.append((item["role"], _ENV.from_string(item["content"])))
        except TemplateSyntaxError as exc:
            raise ConfigError(f"prompt {name}: message {i} ({item['role']}), line {exc.lineno} of its content: "
                              f"{exc.message}") from None
    if not any(p is not None and p[0] == "user" for p in parts):
        raise ConfigError(f"prompt {name}: no `user` message; the question must reach the model in one")
    template = PromptTemplate(name, str(data.get("description", "")), refusal, no_evidence, tuple(parts))
    _dry_run(template)
    return template


def _phrases(value: Any, name: str, key: str, *, required: bool) -> dict[str, str]:
    if value is None and not required:
        return {}
    if isinstance(value, str):
        return {"en": value}
    if not isinstance(value, dict) or not value or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                                          for k, v in value.items()):
        raise ConfigError(f"prompt {name}: `{key}:` must map language codes to text, e.g. "
                          f"`{key}: {{en: Insufficient evidence, ko: 근거 부족}}`")
    return {k: v.strip() for k, v in value.items()}


def _dry_run(template: PromptTemplate) -> None:
    """Render once with sample values, so a template naming an unknown variable fails at start-up."""
    from llama_index.core.schema import NodeWithScore

    from criss_rag.types import Evidence, Hit, text_node

    hit = Hit(NodeWithScore(node=text_node("sample", "Sample passage.", title="Sample"), score=1.0))
    sample = Context((Evidence(1, hit, "Sample passage."),), "[1] Sample\nSample passage.")
    try:
        template.render(Query(text="Sample question?", history=(ChatTurn("user", "Earlier question?"),)), sample)
        template.render(Query(text="Sample question?"), Context((), ""))
    except ConfigError:
        raise
    except TemplateError as exc:
        raise ConfigError(f"prompt {template.name}: {exc}") from None
