"""Names a config refers to: every one must name something the config has.

A component param that names another part of the pipeline (a retriever label, a score signal, an
LLM key, a question language) is marked so, and :func:`check_references` checks it when the config
is read (``criss-rag validate`` and every command that loads a pipeline). A misspelt name is an
error with the valid names and a did-you-mean, never a check that silently stops applying::

    signal: str | dict[str, str] | None = Field(None, json_schema_extra=refers_to(names="signal", keys="language"))
    weights: dict[str, float] = Field(default_factory=dict, json_schema_extra=refers_to(keys="retriever"))

Kinds of name:

``retriever``  a retriever's label (its ``label:``, else its name)
``signal``     a score a candidate carries: a retriever's label, or a signal a fusion, filter or
               reranker records (its class attribute ``SIGNALS``, or the value of a param marked
               :data:`DECLARES_SIGNAL`)
``filter``, ``reranker``, ``query_transform``  a label in that stage
``llm``        a key under ``llms:``
``language``   a question language code (:data:`LANGUAGES`)
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

from criss_rag.errors import ConfigError

# the config types (criss_rag.config.model, which imports this module) are written as Any here
ComponentConfig = Any
PipelineConfig = Any

#: the question languages ``criss_rag.language.text.detect_language`` tells apart
LANGUAGES = ("en", "ko", "ja", "zh")
#: Mark a param whose value is the name of a signal the component records on its candidates.
DECLARES_SIGNAL: dict[str, Any] = {"declares": "signal"}
KINDS = ("retriever", "signal", "filter", "reranker", "query_transform", "llm", "language")


def refers_to(*, names: str | None = None, keys: str | None = None) -> dict[str, Any]:
    """``json_schema_extra`` for a param that refers to other names: its value (a string, the items
    of a list, the values of a mapping) are ``names`` of that kind; a mapping's keys are ``keys``."""
    for kind in (names, keys):
        if kind is not None and kind not in KINDS:
            raise ValueError(f"unknown kind of name {kind!r}; one of {', '.join(KINDS)}")
    return {"refers_to": {"names": names, "keys": keys}}


def declared_signals(cc: ComponentConfig) -> list[str]:
    """The signals component ``cc`` records: its class's ``SIGNALS`` and its params marked
    :data:`DECLARES_SIGNAL`."""
    out = [str(s) for s in getattr(cc.spec.factory, "SIGNALS", ())]
    for name, info in type(cc.params).model_fields.items():
        extra = info.json_schema_extra
        if isinstance(extra, dict) and extra.get("declares") == "signal":
            value = getattr(cc.params, name)
            if isinstance(value, str) and value:
                out.append(value)
    return out


def known_names(config: PipelineConfig) -> dict[str, dict[str, str]]:
    """Every name of each kind this config has, with what it is (for error messages)."""
    known: dict[str, dict[str, str]] = {kind: {} for kind in KINDS}
    for cc in config.many("retrievers"):
        known["retriever"][cc.label] = f"retriever {cc.name}"
        known["signal"][cc.label] = f"score of retriever {cc.name}"
    for stage in ("fusion", "filters", "rerankers"):
        items = config.many(stage) if stage != "fusion" else [c for c in [config.one("fusion")] if c is not None]
        for cc in items:
            for signal in declared_signals(cc):
                known["signal"].setdefault(signal, f"recorded by {cc.stage} ({cc.name})")
    for stage, kind in (("filters", "filter"), ("rerankers", "reranker"), ("query_transforms", "query_transform")):
        for cc in config.many(stage):
            known[kind][cc.label] = cc.name
    for key, cc in config.llms.items():
        known["llm"][key] = cc.name
    for language in LANGUAGES:
        known["language"][language] = "question language"
    known["language"]["zh-Hant"] = "a Chinese question written in Traditional characters (messages)"
    return known


def check_references(config: PipelineConfig, where: Callable[[tuple[Any, ...]], str]) -> None:
    """Raise a :class:`ConfigError` for the first name a component refers to that the config lacks."""
    known = known_names(config)
    for cc in config.all_components():
        path = _path(cc.stage)
        languages = cc.options.get("languages") if cc.stage.startswith("retrievers[") else None
        for code in languages or ():
            _check(known, "language", code, path + ("languages",), where, f"stage {cc.stage}, key 'languages'")
        for field_name, info in type(cc.params).model_fields.items():
            extra = info.json_schema_extra
            if not isinstance(extra, dict) or not isinstance(extra.get("refers_to"), dict):
                continue
            kinds = extra["refers_to"]
            value = getattr(cc.params, field_name)
            label = f"stage {cc.stage}, {cc.kind} {cc.name!r}, key {field_name!r}"
            here = path + (field_name,)
            if isinstance(value, dict):
                for key, item in value.items():
                    if kinds.get("keys"):
                        _check(known, kinds["keys"], key, here + (key,), where, label)
                    if kinds.get("names"):
                        for name in _names(item):
                            _check(known, kinds["names"], name, here + (key,), where, label)
            elif kinds.get("names"):
                for name in _names(value):
                    _check(known, kinds["names"], name, here, where, label)


def _names(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple | set | frozenset):
        return [str(v) for v in value if isinstance(v, str)]
    return []


def _check(known: dict[str, dict[str, str]], kind: str, name: Any, path: tuple[Any, ...],
           where: Callable[[tuple[Any, ...]], str], label: str) -> None:
    names = known[kind]
    if name in names:
        return
    valid = ", ".join(f"{n} ({what})" for n, what in names.items()) or "(none in this config)"
    close = difflib.get_close_matches(str(name), list(names), n=1, cutoff=0.6)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    extra = ""
    if kind == "signal":
        extra = (" A signal is a retriever's label or a score a fusion, filter or reranker records "
                 "(docs/yaml-reference.md, \"Names a config refers to\").")
    raise ConfigError(f"{where(path)}: {label}: {name!r} names no {kind.replace('_', ' ')} of this config: "
                      f"the check that reads it would never apply. Valid: {valid}.{hint}{extra}")


def _path(stage: str) -> tuple[Any, ...]:
    """``retrievers[1]`` -> ``("retrievers", 1)``; ``llms.local`` -> ``("llms", "local")``."""
    if stage.startswith("llms."):
        return ("llms", stage[len("llms."):])
    if "[" in stage:
        head, index = stage[:-1].split("[", 1)
        return (head, int(index))
    return (stage,)
