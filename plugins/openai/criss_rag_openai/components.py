"""The ``openai`` plugin's components: their ``Params`` and factories.

This module stays light: the openai SDK (about 0.3 s to import) is imported by the factories, when
a pipeline really builds a client, so ``criss-rag plugins``, ``validate`` and ``explain`` (and
every pipeline without these components) do not pay for it. The clients live in
:mod:`criss_rag_openai.llm` and :mod:`criss_rag_openai.embedding`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY, http_url

if TYPE_CHECKING:
    from criss_rag_openai.embedding import GuardedOpenAIEmbedding
    from criss_rag_openai.llm import GuardedOpenAI, GuardedOpenAILike

OPENAI_API_BASE = "https://api.openai.com/v1"
#: Placeholder key for servers that want none: the SDK insists on a key, and without one
#: LlamaIndex would read OPENAI_API_KEY and send a real OpenAI key to a third-party server.
NO_KEY = "no-key"
#: Asks for token usage on the last chunk of a stream (LlamaIndex drops it for non-stream calls).
STREAM_USAGE = {"stream_options": {"include_usage": True}}
_RETRIES = ("retries after HTTP 408/409/429/5xx, connection errors and timeouts (exponential backoff from "
            "0.5 s, or the server's Retry-After)")


def _http_url(value: str) -> str:
    return http_url(value, "http://127.0.0.1:8080/v1")


def env_var_of(ctx: ComponentContext | None, param: str) -> str | None:
    """The environment variable that the YAML named for ``param`` (``{env: NAME}``), if any:
    error messages name it, never the value."""
    return ctx.env_ref(param) if ctx is not None else None


def _where(ctx: ComponentContext | None, name: str, model: str) -> str:
    """How error messages name the client: ``llms.<key> (<backend>, model '<model>')``."""
    return f"{getattr(ctx, 'stage', None) or name} ({name}, model {model!r})"


# -- llm `openai` --------------------------------------------------------------------------------------


class OpenAIParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field("gpt-4o", description="an OpenAI chat model name, e.g. gpt-4o or gpt-4o-mini")
    api_key: SecretStr = Field(description="the API key, written `{env: OPENAI_API_KEY}` (never inline)")
    api_base: str = Field(OPENAI_API_BASE, description="the API's base URL (a proxy or gateway in front of OpenAI)")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="sampling temperature")
    max_tokens: int = Field(1024, ge=1, description="the most tokens an answer may have")
    timeout: float = Field(60.0, gt=0, description="seconds to wait for each HTTP request")
    max_retries: int = Field(2, ge=0, description=_RETRIES)

    @field_validator("api_base")
    @classmethod
    def check_api_base(cls, value: str) -> str:
        return _http_url(value)


def openai_llm(params: OpenAIParams, ctx: ComponentContext) -> GuardedOpenAI:
    """OpenAI chat models (gpt-4o by default) through the OpenAI API; the key comes from an env var."""
    from criss_rag_openai.errors import Endpoint
    from criss_rag_openai.llm import GuardedOpenAI

    key = params.api_key.get_secret_value()
    llm = GuardedOpenAI(model=params.model, api_key=key, api_base=params.api_base,
                        temperature=params.temperature, max_tokens=params.max_tokens, timeout=params.timeout,
                        max_retries=params.max_retries, additional_kwargs=dict(STREAM_USAGE))
    try:
        llm.metadata  # noqa: B018 - LlamaIndex's OpenAI knows the context size of OpenAI's models only
    except ValueError:
        raise ConfigError(
            f"{getattr(ctx, 'stage', None) or 'llm'}: the `openai` backend does not know the model {params.model!r} "
            "(it accepts OpenAI's model names, e.g. gpt-4o, gpt-4o-mini). For a local or other OpenAI-compatible "
            "server use `name: openai-compatible` with its `api_base`."
        ) from None
    llm._endpoint = Endpoint(where=_where(ctx, "openai", params.model), url=params.api_base, model=params.model,
                             timeout=params.timeout, max_retries=params.max_retries,
                             key_env=env_var_of(ctx, "api_key"), secret=key)
    return llm


openai_llm.Params = OpenAIParams  # type: ignore[attr-defined]


# -- llm `openai-compatible` -------------------------------------------------------------------------------


class OpenAICompatibleParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="the model name the server serves (`GET <api_base>/models` lists them)")
    api_base: str = Field(description="the server's OpenAI API URL, ending in /v1, e.g. http://127.0.0.1:8080/v1 "
                                      "(llama.cpp) or http://127.0.0.1:8000/v1 (vLLM)")
    api_key: SecretStr | None = Field(None, description="the API key, if the server wants one, written "
                                                         "`{env: VAR_NAME}`; a placeholder is sent otherwise")
    is_chat_model: bool = Field(True, description="use /chat/completions (the server applies the model's chat "
                                                  "template); false: plain /completions")
    context_window: int = Field(8192, ge=256, description="the model's context size in tokens, as the server runs "
                                                          "it (llama.cpp -c, vLLM --max-model-len)")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="sampling temperature")
    max_tokens: int = Field(1024, ge=1, description="the most tokens an answer may have")
    timeout: float = Field(120.0, gt=0, description="seconds to wait for each HTTP request (local models can be slow)")
    max_retries: int = Field(2, ge=0, description=_RETRIES)
    stream_usage: bool = Field(False, description="ask for token usage on the last streamed chunk "
                                                  "(`stream_options.include_usage`; vLLM and LM Studio support it)")
    structured_output: Literal["off", "json_schema", "json_object"] = Field(
        "off", description="how the server is asked to constrain a reply to a JSON schema when a component wants "
                           "one (judges, llm-keywords, the llm reranker): `json_schema` sends OpenAI's "
                           "`response_format: {type: json_schema, ...}` (vLLM, llama.cpp's llama-server, LM Studio); "
                           "`json_object` sends `{type: json_object, schema: ...}` (llama-cpp-python's "
                           "llama_cpp.server); `off`: never (the components parse free text leniently)")

    @field_validator("api_base")
    @classmethod
    def check_api_base(cls, value: str) -> str:
        return _http_url(value)


def openai_compatible_llm(params: OpenAICompatibleParams, ctx: ComponentContext) -> GuardedOpenAILike:
    """Any OpenAI-compatible server (llama.cpp, vLLM, LM Studio, ...) at `api_base`, any model name."""
    from criss_rag_openai.errors import Endpoint
    from criss_rag_openai.llm import GuardedOpenAILike

    key = params.api_key.get_secret_value() if params.api_key is not None else None
    llm = GuardedOpenAILike(model=params.model, api_base=params.api_base, api_key=key or NO_KEY,
                            is_chat_model=params.is_chat_model, context_window=params.context_window,
                            temperature=params.temperature, max_tokens=params.max_tokens, timeout=params.timeout,
                            max_retries=params.max_retries,
                            additional_kwargs=dict(STREAM_USAGE) if params.stream_usage else {})
    llm._structured = params.structured_output
    llm._endpoint = Endpoint(where=_where(ctx, "openai-compatible", params.model), url=params.api_base,
                             model=params.model, timeout=params.timeout, max_retries=params.max_retries,
                             key_env=env_var_of(ctx, "api_key"), has_key=key is not None, secret=key)
    return llm


openai_compatible_llm.Params = OpenAICompatibleParams  # type: ignore[attr-defined]


# -- embedding `openai` ---------------------------------------------------------------------------------------


class OpenAIEmbeddingParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field("text-embedding-3-large", description="the embedding model, e.g. text-embedding-3-large, "
                                                             "text-embedding-3-small (any name an OpenAI-compatible "
                                                             "server at `api_base` serves)")
    dimensions: int | None = Field(None, ge=1, description="shorten the vectors to this many dimensions "
                                                           "(text-embedding-3 models only); null keeps the full size")
    api_key: SecretStr = Field(description="the API key, written `{env: OPENAI_API_KEY}` (never inline)")
    api_base: str = Field(OPENAI_API_BASE, description="the API's base URL, ending in /v1")
    batch_size: int = Field(
        100, ge=1, le=2048, description="texts per embeddings request", json_schema_extra=NOT_IN_INDEX_KEY
    )
    timeout: float = Field(
        60.0, gt=0, description="seconds to wait for each HTTP request", json_schema_extra=NOT_IN_INDEX_KEY
    )
    max_retries: int = Field(2, ge=0, description=_RETRIES, json_schema_extra=NOT_IN_INDEX_KEY)

    @field_validator("api_base")
    @classmethod
    def check_api_base(cls, value: str) -> str:
        return _http_url(value)


def openai_embedding(params: OpenAIEmbeddingParams, ctx: ComponentContext) -> GuardedOpenAIEmbedding:
    """OpenAI embeddings (text-embedding-3-large by default); the key comes from an env var."""
    from criss_rag_openai.embedding import GuardedOpenAIEmbedding
    from criss_rag_openai.errors import Endpoint

    key = params.api_key.get_secret_value()
    embedding = GuardedOpenAIEmbedding(
        # `model` must be one of LlamaIndex's known OpenAI names; `model_name` is what is sent, so
        # any model an OpenAI-compatible server serves works too
        model="text-embedding-3-large", model_name=params.model, dimensions=params.dimensions,
        api_key=key, api_base=params.api_base, embed_batch_size=params.batch_size, timeout=params.timeout,
        max_retries=params.max_retries,
    )
    embedding._endpoint = Endpoint(where=_where(ctx, "openai", params.model), url=params.api_base,
                                   model=params.model, timeout=params.timeout, max_retries=params.max_retries,
                                   key_env=env_var_of(ctx, "api_key"), secret=key)
    return embedding


openai_embedding.Params = OpenAIEmbeddingParams  # type: ignore[attr-defined]
