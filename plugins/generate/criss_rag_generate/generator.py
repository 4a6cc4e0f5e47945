"""The ``llm`` generator: renders a prompt template, asks the pipeline's LLM, streams when asked.

The LLM is one of the config's ``llms:`` (``ctx.llm(key)``), so its backend, model, temperature,
output limit, timeout and retries are set there; the generator only decides what is sent. The
answer language follows the question's (the templates ask for it), the model is asked to cite
``[n]``, and an answer in which the model says the evidence is insufficient becomes a refusal
(``model_declined``).
"""

from __future__ import annotations

from collections.abc import Generator as Generator_
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from llama_index.core.llms import ChatMessage
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ComponentError
from criss_rag.plugin_utils import refers_to, split_thinking
from criss_rag.types import Context, Generation, Query, Refusal, ThinkingEvent
from criss_rag_generate.declines import BUILTIN_PHRASES, declined_phrase, may_still_decline, refusal_message
from criss_rag_generate.prompts import PRESETS, Message, load_prompt

USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


class LlmGenerator:
    """Answers with an LLM from `llms:`, using a prompt preset (ncc, jlcs, criss) or your own template file."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field(description="key of the LLM under the pipeline's `llms:` (it sets model, temperature, "
                                     "max_tokens, timeout, retries)", json_schema_extra=refers_to(names="llm"))
        prompt: str = Field("ncc", description=f"a preset ({', '.join(PRESETS)}) or the path of a YAML prompt "
                                               "template file, relative to the config")
        detect_refusal: bool = Field(True, description="turn an answer in which the model says the evidence is "
                                                       "insufficient into a refusal (reason `model_declined`)")
        refusal_phrases: list[str] = Field(
            default_factory=list,
            description="more phrases that mark such an answer, in any language (the template's `refusal` text "
                        "and a built-in list in en, ko, ja and zh are always used)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.template = load_prompt(params.prompt, ctx.base_dir)
        self.llm = ctx.llm(params.llm)  # a ConfigError naming the valid keys if `llms:` lacks it
        model = getattr(getattr(self.llm, "metadata", None), "model_name", "") or getattr(self.llm, "model", "")
        self.model = f"{model or 'llm'} (llms.{params.llm}, prompt {_short(self.template.name)})"
        self.phrases = [*self.template.refusal.values(), *self.template.no_evidence.values(), *BUILTIN_PHRASES,
                        *params.refusal_phrases]

    def messages(self, query: Query, context: Context) -> list[ChatMessage]:
        """What is sent for this question (the rendered template)."""
        return [_chat(m) for m in self.template.render(query, context)]

    def generate(self, query: Query, context: Context) -> Generation:
        with _unreadable_replies_explained():
            response = self.llm.chat(self.messages(query, context))
        text = str(response.message.content or "")
        return self._finish(text, _usage(getattr(response, "additional_kwargs", None)), context)

    def stream(self, query: Query, context: Context) -> Generator_[str | ThinkingEvent, None, Generation]:
        """Yield the answer as the model writes it; return the final :class:`Generation`."""
        pieces: list[str] = []
        usage: dict[str, int] = {}
        with _unreadable_replies_explained():
            for chunk in self.llm.stream_chat(self.messages(query, context)):
                extra = getattr(chunk, "additional_kwargs", None) or {}
                usage = _usage(extra) or usage  # reported on the last chunks
                if extra.get(
                    "thinking_delta"
                ):  # thinking the server sends apart (reasoning_content, Ollama's thinking)
                    yield ThinkingEvent(extra["thinking_delta"])
                if chunk.delta:
                    pieces.append(chunk.delta)
                    yield chunk.delta
        return self._finish("".join(pieces), usage, context)

    def may_decline(self, text: str, context: Context) -> bool:
        """Whether the answer streamed so far (``text``, thinking excluded) may still be turned into
        a refusal; the engine shows none of it until this is false."""
        if not self.params.detect_refusal:
            return False
        return may_still_decline(text, self.phrases, {e.number for e in context.evidence})

    def _finish(self, text: str, usage: dict[str, int], context: Context) -> Generation:
        refusal = None
        _, answer = split_thinking(text)  # a reasoning model's thinking may weigh "insufficient evidence"
        if self.params.detect_refusal:
            phrase = declined_phrase(answer, self.phrases, {e.number for e in context.evidence})
            if phrase is not None:
                refusal = Refusal("model_declined",
                                  f"the model ({self.model}) said the evidence does not answer the question "
                                  f"(matched {phrase!r})", refusal_message(answer) or phrase)
        return Generation(text=text, model=self.model, usage=usage, refusal=refusal)


@contextmanager
def _unreadable_replies_explained() -> Iterator[None]:
    """A reply the client could not parse (invalid JSON, missing fields) is a ComponentError from
    the backend that names the URL; add what to check, since the server did answer."""
    try:
        yield
    except ComponentError as exc:
        if isinstance(exc.__cause__, ValueError):  # JSONDecodeError, pydantic's ValidationError
            raise ComponentError(
                f"{str(exc).rstrip('.')}. The server answered, but not in its API's format: check that the LLM's "
                "`api_base` (or "
                "`base_url`) points at the right kind of server (OpenAI-compatible, or Ollama), and read its log."
            ) from exc
        raise


def _chat(message: Message) -> ChatMessage:
    return ChatMessage(role=message.role, content=message.content)


def _usage(extra: Any) -> dict[str, int]:
    if not isinstance(extra, dict):
        return {}
    return {key: int(extra[key]) for key in USAGE_KEYS if isinstance(extra.get(key), int)}


def _short(name: str) -> str:
    return name if "/" not in name and "\\" not in name else name.replace("\\", "/").rsplit("/", 1)[-1]
