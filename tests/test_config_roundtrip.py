"""Every registered component's config survives YAML: dump → load → equal. Secrets never appear in
a dump. The example pipelines round-trip as whole plans too."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
import yaml
from pydantic import BaseModel, SecretStr

from criss_rag.config import load_pipeline_config, parse_pipeline_text
from criss_rag.plugins import PluginHost
from criss_rag.testing import fake_plugin

ROOT = Path(__file__).resolve().parents[1]
HOST = PluginHost(strict=True, extra_plugins={"fake": fake_plugin})

# Values for params that have no default (or whose defaults alone fail a cross-field check).
EXAMPLES: dict[str, dict[str, typing.Any]] = {
    "loader:jsonl": {"path": "corpus.jsonl"},
    "loader:registry-jsonl": {"path": "corpus.jsonl"},
    "loader:ncc-json": {"path": "export.json", "fields": {"body": "html"}, "cancers": [1, "liver"]},
    "loader:csv": {"path": "corpus.csv", "text_field": ["summary", "body"], "encoding": "cp932", "delimiter": ";",
                   "metadata_fields": ["lang"], "on_invalid": "skip"},
    "loader:medquad-xml": {"path": "MedQuAD", "unit": "qtype", "id_prefix": "cgov-"},
    "loader:manual-pdf": {"manuals": [{"path": "rules.pdf", "name": "MP rules", "version": "2023", "years": "2018-2022",
                                       "metadata": {"algorithm": "mp"}}], "drop_lines": ["Page \\d+"]},
    "loader:manual-html": {"manuals": [{"path": "rules.html", "years": "2023+"}]},
    "loader:manual-markdown": {"manuals": [{"path": "rules.md", "years": 2021, "doc_id": "mp-2021"}]},
    "loader:manuals": {"manuals": [{"path": "a.md"}, {"path": "b.pdf", "years": "2018-"}]},
    "loader:reviewed-urls": {"path": "urls.xlsx", "unreviewed": "medical", "language_filter": {"keep": ["ja"]},
                             "fetch": {"user_agent": "team-crawler/1.0 (+mailto:team@example.org)", "delay": 2.0}},
    "filter:metadata": {"field": "lang", "values": ["en", "ko"]},
    "filter:fake-drop-doc": {"doc_id": "liver"},
    "reranker:metadata-boost": {"field": "section", "otherwise": "information", "cues": {"treatment": ["treat"]}},
    "reranker:llm": {"llm": "judge"},
    "reranker:pivot-language": {"pivot": "en", "group_by": ["cancer_id", "menu_id"]},
    "reranker:cross-encoder": {"model_path": "models/cross-encoder"},
    "query_transform:llm-keywords": {"llm": "kw"},
    "hop_policy:llm-judge": {"llm": "judge"},
    "generator:llm": {"llm": "gen", "prompt": "jlcs"},
    "verifier:llm-check": {"llm": "judge"},
    "refusal:evidence-threshold": {"signal": "faiss", "min_score": 0.55, "min_coverage": 0.3},
    "llm:openai": {"api_key": "sk-secret-value"},
    "llm:openai-compatible": {"api_base": "http://127.0.0.1:8080/v1", "model": "local"},
    "llm:ollama": {"model": "qwen2.5"},
    "embedding:openai": {"api_key": "sk-secret-value"},
    "embedding:ollama": {"model": "nomic-embed-text"},
    "retriever:milvus": {"uri": "http://127.0.0.1:19530", "token": "sk-secret-value", "index_type": "HNSW",
                         "index_params": {"M": 16}, "search_params": {"ef": 64}, "filters": [
                             {"request_key": "diagnosis_year", "field": "applicable_years", "match": "year_range"},
                             {"request_key": "cancer_type", "field": "암종", "match": "any_of", "separator": ","}]},
    "executor:ray": {"address": "ray://head:10001", "workers": 4, "runtime_env": {"env_vars": {"HF_HUB_OFFLINE": "1"}}},
}


def _secret_fields(model: type[BaseModel]) -> set[str]:
    return {name for name, info in model.model_fields.items()
            if info.annotation is SecretStr or SecretStr in typing.get_args(info.annotation)}


def _example(spec) -> dict[str, typing.Any]:
    key = f"{spec.kind}:{spec.name}"
    data = dict(EXAMPLES.get(key, {}))
    if spec.kind == "filter" and "field" in spec.params_model.model_fields and "field" not in data:
        data["field"] = "lang"
    return data


SPECS = [s for s in HOST.registry.specs()]


@pytest.mark.parametrize("spec", SPECS, ids=[f"{s.kind}:{s.name}" for s in SPECS])
def test_component_params_round_trip_through_yaml(spec):
    model = spec.params_model
    try:
        params = model.model_validate(_example(spec))
    except Exception as exc:  # noqa: BLE001 - the message says what to add
        pytest.fail(f"{spec.kind}:{spec.name} needs an example in EXAMPLES ({exc})")
    dumped = yaml.safe_dump(params.model_dump(mode="json"), allow_unicode=True, sort_keys=False)
    assert "sk-secret-value" not in dumped  # secrets never appear in a dump
    secrets = _secret_fields(model)
    loaded = yaml.safe_load(dumped)
    for name in secrets:  # a dumped secret is masked; a real config names an env var instead
        loaded[name] = params.model_dump()[name].get_secret_value() if params.model_dump()[name] else None
    again = model.model_validate(loaded)
    assert again == params


@pytest.mark.parametrize("name", ["default.yaml", "jlcs.yaml", "pii.yaml", "registry-manuals.yaml"])
def test_example_pipelines_round_trip_as_plans(name, monkeypatch):
    config = load_pipeline_config(ROOT / "examples" / name, HOST.registry)
    plan = config.plan()
    plan.pop("index")
    text = yaml.safe_dump(plan, allow_unicode=True, sort_keys=False)
    again = parse_pipeline_text(text, HOST.registry, base_dir=config.base_dir)
    plan_again = again.plan()
    plan_again.pop("index")
    assert plan_again == plan
    assert again.config_hash() == config.config_hash()


def test_secret_env_reference_round_trips_without_the_value(tmp_path, monkeypatch):
    monkeypatch.setenv("CRISS_TEST_OPENAI", "sk-secret-value")
    text = """\
name: remote
llms: {gpt: {name: openai, api_key: {env: CRISS_TEST_OPENAI}}}
loader: {name: fake-loader}
chunker: fake-chunker
retrievers: [fake-keyword]
context: fake-all
generator: fake-echo
"""
    config = parse_pipeline_text(text, HOST.registry, base_dir=tmp_path)
    dumped = yaml.safe_dump(config.plan(), allow_unicode=True)
    assert "sk-secret-value" not in dumped and "CRISS_TEST_OPENAI" in dumped
    again = parse_pipeline_text(dumped, HOST.registry, base_dir=tmp_path)
    assert again.plan() == config.plan()
    assert again.llms["gpt"].params.api_key.get_secret_value() == "sk-secret-value"
