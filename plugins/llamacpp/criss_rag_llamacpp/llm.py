"""The ``llama-cpp`` LLM: a thin LlamaIndex ``CustomLLM`` over an in-process llama.cpp model.

Why not ``llama-index-llms-llama-cpp``: its ``LlamaCPP`` formats chat turns with Python functions
(Llama-2 style unless you pass your own) instead of the chat template the GGUF carries, downloads a
model from a URL when no path is given, and has no way to pass a grammar. This class formats every
chat with the GGUF's own Jinja template (ChatML for SmolLM2), streams token by token, counts tokens,
checks the context size before it evaluates anything, and constrains decoding to a JSON schema or
a GBNF grammar when a component asks (:class:`criss_rag.component_helpers.structured_output.ConstrainedLLM`).

Token usage is in ``response.additional_kwargs`` (``prompt_tokens``, ``completion_tokens``,
``total_tokens``, and ``decode_s``, the seconds from the first to the last generated token); for
streams, on the last chunk.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from llama_index.core.base.llms.types import (
    ChatMessage,
    ChatResponse,
    ChatResponseGen,
    CompletionResponse,
    CompletionResponseGen,
    LLMMetadata,
    MessageRole,
)
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.llms.callbacks import llm_chat_callback, llm_completion_callback
from llama_index.core.llms.custom import CustomLLM

from criss_rag.errors import ComponentError
from criss_rag_llamacpp.model import LoadedModel


class LlamaCppLLM(CustomLLM):
    """A GGUF chat model run in-process by llama.cpp (the ``llama-cpp`` backend)."""

    model_name: str = Field(description="the GGUF file's name")
    temperature: float = Field(0.1)
    top_p: float = Field(0.95)
    repeat_penalty: float = Field(1.1)
    max_tokens: int = Field(512)
    seed: int = Field(13)
    prefix_cache: bool = Field(
        False, description="reuse the model's state for the prompt's start shared with the last call"
    )
    where: str = Field("llama-cpp", description="how error messages name this LLM")
    _model: LoadedModel | None = PrivateAttr(default=None)

    @classmethod
    def from_model(cls, model: LoadedModel, **kwargs: Any) -> LlamaCppLLM:
        llm = cls(model_name=model.path.name, **kwargs)
        llm._model = model
        return llm

    @property
    def model(self) -> LoadedModel:
        if self._model is None:
            raise ComponentError(f"{self.where}: no model loaded (build it with the `llama-cpp` factory)")
        return self._model

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(
            context_window=self.model.n_ctx, num_output=self.max_tokens, is_chat_model=True, model_name=self.model_name
        )

    #: constrained decoding is always available in-process (criss_rag.component_helpers.structured_output)
    supports_constrained: ClassVar[bool] = True

    # -- LlamaIndex's interface ---------------------------------------------------------------------
    @llm_chat_callback()
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponse:
        text, usage = self._generate(messages, grammar=kwargs.get("grammar"))
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text), additional_kwargs=usage)

    @llm_chat_callback()
    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatResponseGen:
        def gen() -> ChatResponseGen:
            text = ""
            for delta, usage in self._stream(messages, grammar=kwargs.get("grammar")):
                text += delta
                yield ChatResponse(
                    message=ChatMessage(role=MessageRole.ASSISTANT, content=text), delta=delta, additional_kwargs=usage
                )

        return gen()

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        text, usage = self._generate(
            [ChatMessage(role=MessageRole.USER, content=prompt)], grammar=kwargs.get("grammar")
        )
        return CompletionResponse(text=text, additional_kwargs=usage)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            text = ""
            for delta, usage in self._stream(
                [ChatMessage(role=MessageRole.USER, content=prompt)], grammar=kwargs.get("grammar")
            ):
                text += delta
                yield CompletionResponse(text=text, delta=delta, additional_kwargs=usage)

        return gen()

    # -- structured output (criss_rag.component_helpers.structured_output.ConstrainedLLM) ------------------------
    def complete_constrained(
        self, prompt: str, *, json_schema: dict[str, Any] | None = None, grammar: str | None = None
    ) -> CompletionResponse:
        """A reply that follows ``json_schema`` (or the GBNF ``grammar``): llama.cpp masks every token
        that would break it, so the reply parses (unless ``max_tokens`` cuts it short)."""
        if (json_schema is None) == (grammar is None):
            raise ValueError("give json_schema or grammar")
        return self.complete(prompt, grammar=self._grammar(json_schema, grammar))

    def _grammar(self, json_schema: dict[str, Any] | None, gbnf: str | None) -> Any:
        from llama_cpp import LlamaGrammar

        key = json.dumps(json_schema, sort_keys=True) if json_schema is not None else f"gbnf:{gbnf}"
        cache = self.model.grammars
        with self.model.lock:
            if key not in cache:
                try:
                    cache[key] = (
                        LlamaGrammar.from_json_schema(key, verbose=False)
                        if json_schema is not None
                        else LlamaGrammar.from_string(str(gbnf), verbose=False)
                    )
                except (ValueError, RuntimeError) as exc:
                    raise ComponentError(
                        f"{self.where}: llama.cpp cannot turn the requested "
                        f"{'JSON schema' if json_schema is not None else 'grammar'} into a "
                        f"grammar ({exc})"
                    ) from None
            return cache[key]

    # -- generation ---------------------------------------------------------------------------------
    def _prompt(self, messages: Sequence[ChatMessage]) -> tuple[list[int], Any]:
        m = self.model
        formatted = m.formatter(
            messages=[{"role": _role(msg.role), "content": str(msg.content or "")} for msg in messages]
        )
        tokens = m.tokens(formatted.prompt, add_bos=not formatted.added_special)
        if len(tokens) + self.max_tokens > m.n_ctx:
            raise ComponentError(
                f"{self.where}: the prompt is {len(tokens)} tokens and up to {self.max_tokens} may be generated, "
                f"but the context holds {m.n_ctx} (`n_ctx`). Raise `n_ctx` (the model was trained with "
                f"{m.n_ctx_train}), lower `max_tokens`, or send less evidence (the context builder's "
                "`max_evidence`, a judge's `max_evidence_chars`)."
            )
        return tokens, formatted

    def _kwargs(self, formatted: Any, grammar: Any) -> dict[str, Any]:
        return {
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "repeat_penalty": self.repeat_penalty,
            "seed": self.seed,
            "stop": formatted.stop or [],
            "stopping_criteria": formatted.stopping_criteria,
            "grammar": grammar,
        }

    def _generate(self, messages: Sequence[ChatMessage], grammar: Any = None) -> tuple[str, dict[str, Any]]:
        parts: list[str] = []
        usage: dict[str, Any] = {}
        for delta, step_usage in self._stream(messages, grammar=grammar):
            parts.append(delta)
            usage = step_usage
        return "".join(parts), usage

    def _stream(self, messages: Sequence[ChatMessage], grammar: Any = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """(delta, usage) pairs; usage is filled on the last one. Holds the model's lock throughout."""
        m = self.model
        with m.lock:
            tokens, formatted = self._prompt(messages)
            m.calls += 1
            if not self.prefix_cache:
                m.llama.reset()  # no KV-cache reuse across calls: the whole prompt is evaluated every time
            # else llama-cpp-python evaluates only the tokens after the prefix this prompt shares with
            # the state left by the previous call (the system prompt and the instructions)
            started = time.perf_counter()
            first: float | None = None
            generated = 0
            try:
                stream = m.llama.create_completion(tokens, stream=True, **self._kwargs(formatted, grammar))
                for chunk in stream:
                    choice = chunk["choices"][0]
                    text = choice.get("text") or ""
                    generated += choice.get("finish_reason") is None  # one chunk per token, then the finish
                    if first is None:
                        first = time.perf_counter()
                    if text:
                        yield text, {}
            except ValueError as exc:  # llama-cpp-python's own checks (context size)
                raise ComponentError(f"{self.where}: {exc}") from None
            ended = time.perf_counter()
            usage = {
                "prompt_tokens": len(tokens),
                "completion_tokens": generated,
                "total_tokens": len(tokens) + generated,
                "prefill_s": round((first or ended) - started, 4),
                "decode_s": round(ended - (first or ended), 4),
            }
            m.last_usage = usage
        yield "", dict(usage)


def _role(role: MessageRole | str) -> str:
    value = role.value if isinstance(role, MessageRole) else str(role)
    return value if value in ("system", "user", "assistant") else "user"
