"""The stand-ins :func:`criss_rag.component_helpers.llama_settings.guard_llama_settings` puts in
LlamaIndex's global ``Settings``: they fail loudly if any LlamaIndex code reaches for a default."""

from __future__ import annotations

from typing import Any

from llama_index.core import Settings
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback

from criss_rag.errors import ConfigError

_MESSAGE = (
    "LlamaIndex tried to use its global default {what}. criss_rag never falls back to a "
    "component the config does not name: name one in the pipeline YAML ({key})."
)


class UnconfiguredLLM(CustomLLM):
    """Raises instead of answering: stands in for LlamaIndex's default (OpenAI) LLM."""

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="criss-rag-unconfigured")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        raise ConfigError(_MESSAGE.format(what="LLM", key="generator:"))

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise ConfigError(_MESSAGE.format(what="LLM", key="generator:"))


class UnconfiguredEmbedding(BaseEmbedding):
    """Raises instead of embedding: stands in for LlamaIndex's default (OpenAI) embedding."""

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise ConfigError(_MESSAGE.format(what="embedding model", key="embedding:"))

    _get_query_embedding = _fail
    _get_text_embedding = _fail

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._fail()


def install_stand_ins() -> None:
    """Install the stand-ins (idempotent; explicit components are unaffected)."""
    if not isinstance(Settings._llm, UnconfiguredLLM):
        Settings.llm = UnconfiguredLLM()
    if not isinstance(Settings._embed_model, UnconfiguredEmbedding):
        Settings.embed_model = UnconfiguredEmbedding(model_name="criss-rag-unconfigured")
