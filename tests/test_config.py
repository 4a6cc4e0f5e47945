"""Pipeline YAML: validation errors name file, line, stage, component and key."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel, ConfigDict, SecretStr

from criss_rag import hookimpl
from criss_rag.config import load_pipeline_config, parse_pipeline_text
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, plugin_host, replaced


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pipe.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_valid_config_resolves_defaults(host, tmp_path):
    config = load_pipeline_config(write(tmp_path, FAKE_PIPELINE_YAML), host.registry)
    assert config.name == "fake"
    plan = config.plan()
    assert plan["retrievers"] == [
        {"name": "fake-keyword", "label": None, "top_k": 5, "languages": None, "dense": False}
    ]
    assert plan["refusal"] == {"name": "fake-min-score", "min_score": 1.0}
    assert config.index_dir == tmp_path / ".criss_rag/index"


def test_a_required_stage_is_its_component_and_a_missing_one_is_an_error(host, tmp_path):
    config = load_pipeline_config(write(tmp_path, FAKE_PIPELINE_YAML), host.registry)
    assert config.required("loader") is config.one("loader") is not None
    assert config.one("verifier") is None
    with pytest.raises(ConfigError, match=r"pipe\.yaml: stage 'verifier' is required"):
        config.required("verifier")


def test_unknown_component_lists_registered_names_with_file_and_line(host, tmp_path):
    path = write(tmp_path, replaced(FAKE_PIPELINE_YAML, "generator: {name: fake-echo}", "generator: {name: gpt-5}"))
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(path, host.registry)
    message = str(err.value)
    assert f"{path}:7" in message
    assert "stage generator" in message
    assert "unknown generator 'gpt-5'" in message
    assert "Registered generators: fake-echo" in message


def test_unknown_key_names_key_and_valid_keys(host, tmp_path):
    text = replaced(FAKE_PIPELINE_YAML, "{name: fake-min-score, min_score: 1}", "{name: fake-min-score, min_scor: 1}")
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(path, host.registry)
    message = str(err.value)
    assert f"{path}:5" in message
    assert "stage refusal, refusal 'fake-min-score', key 'min_scor': unknown key. Valid keys: min_score" in message


def test_wrong_type_is_reported_with_the_value(host, tmp_path):
    text = replaced(FAKE_PIPELINE_YAML, "min_score: 1}", "min_score: high}")
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(write(tmp_path, text), host.registry)
    assert "key 'min_score'" in str(err.value)
    assert "'high'" in str(err.value)


def test_unknown_top_level_key(host, tmp_path):
    with pytest.raises(ConfigError, match=r"pipe.yaml:8: unknown top-level key 'generatr'"):
        load_pipeline_config(write(tmp_path, FAKE_PIPELINE_YAML + "generatr: x\n"), host.registry)


def test_duplicate_yaml_key_is_an_error(host, tmp_path):
    with pytest.raises(ConfigError, match="key 'generator' appears twice"):
        load_pipeline_config(write(tmp_path, FAKE_PIPELINE_YAML + "generator: {name: fake-echo}\n"), host.registry)


def test_missing_required_stage(host, tmp_path):
    text = "\n".join(line for line in FAKE_PIPELINE_YAML.splitlines() if not line.startswith("generator"))
    with pytest.raises(ConfigError, match="stage 'generator' is required.*Registered generators: fake-echo"):
        load_pipeline_config(write(tmp_path, text), host.registry)


def test_two_retrievers_need_a_fusion(host, tmp_path):
    text = replaced(
        FAKE_PIPELINE_YAML,
        "retrievers: [{name: fake-keyword, top_k: 5}]",
        "retrievers: [{name: fake-keyword}, {name: fake-keyword, label: again}]",
    )
    with pytest.raises(ConfigError, match="2 retrievers but no `fusion:`.*fake-interleave"):
        load_pipeline_config(write(tmp_path, text), host.registry)


class _SecretParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    api_key: SecretStr
    model: str = "m"


class _KeyedGenerator:
    """Needs an API key."""

    Params = _SecretParams

    def __init__(self, params, ctx):
        self.params = params


class _SecretPlugin:
    @hookimpl
    def register_generators(self, register):
        register("keyed", _KeyedGenerator)


SECRET_YAML = replaced(
    FAKE_PIPELINE_YAML, "generator: {name: fake-echo}", "generator: {name: keyed, api_key: {env: CRISS_TEST_KEY}}"
)


def test_missing_env_var_names_the_variable(tmp_path, monkeypatch):
    monkeypatch.delenv("CRISS_TEST_KEY", raising=False)
    host = plugin_host({"secret": _SecretPlugin()})
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(write(tmp_path, SECRET_YAML), host.registry)
    assert "environment variable CRISS_TEST_KEY is not set" in str(err.value)
    assert "export CRISS_TEST_KEY=" in str(err.value)
    assert "pipe.yaml:7" in str(err.value)


def test_secret_resolved_from_env_and_never_in_plan(tmp_path, monkeypatch):
    monkeypatch.setenv("CRISS_TEST_KEY", "sk-very-secret")
    host = plugin_host({"secret": _SecretPlugin()})
    config = load_pipeline_config(write(tmp_path, SECRET_YAML), host.registry)
    assert config.one("generator").params.api_key.get_secret_value() == "sk-very-secret"
    assert config.plan()["generator"]["api_key"] == {"env": "CRISS_TEST_KEY"}
    assert "sk-very-secret" not in repr(config.plan()) + config.config_hash()


def test_inline_secret_is_rejected(tmp_path):
    host = plugin_host({"secret": _SecretPlugin()})
    text = replaced(SECRET_YAML, "{env: CRISS_TEST_KEY}", "sk-inline")
    with pytest.raises(ConfigError, match=r"key 'api_key' is a secret: write it as an environment reference"):
        load_pipeline_config(write(tmp_path, text), host.registry)


def test_overrides_by_label_index_and_plain_key(host, tmp_path):
    path = write(tmp_path, FAKE_PIPELINE_YAML)
    config = load_pipeline_config(path, host.registry, ["retrievers.fake-keyword.top_k=8", "refusal.min_score=0.5"])
    assert config.many("retrievers")[0].options["top_k"] == 8
    assert config.one("refusal").params.min_score == 0.5
    config = load_pipeline_config(path, host.registry, ["retrievers.0.dense=true", "embedding=fake-hash"])
    assert config.many("retrievers")[0].params.dense is True


def test_override_errors_are_clear(host, tmp_path):
    path = write(tmp_path, FAKE_PIPELINE_YAML)
    with pytest.raises(ConfigError, match="no item 'bm25' in this list; use an index or one of: fake-keyword"):
        load_pipeline_config(path, host.registry, ["retrievers.bm25.top_k=3"])
    with pytest.raises(ConfigError, match="expected KEY.PATH=VALUE"):
        load_pipeline_config(path, host.registry, ["retrievers"])


def test_invalid_yaml_reports_line(host, tmp_path):
    with pytest.raises(ConfigError, match=r"pipe.yaml:2: invalid YAML"):
        load_pipeline_config(write(tmp_path, "name: x\nloader: {name: a}}\nchunker: b\n"), host.registry)


def test_config_hash_changes_with_params(host, tmp_path):
    a = parse_pipeline_text(FAKE_PIPELINE_YAML, host.registry, base_dir=tmp_path)
    b = parse_pipeline_text(FAKE_PIPELINE_YAML, host.registry, base_dir=tmp_path, overrides=["refusal.min_score=2"])
    assert a.config_hash() != b.config_hash()
    assert a.ingest_signature() == b.ingest_signature()  # the refusal policy does not change the index


def test_same_component_twice_needs_labels(host, tmp_path):
    twice = FAKE_PIPELINE_YAML + "filters: [{name: fake-drop-doc, doc_id: a}, {name: fake-drop-doc, doc_id: b}]\n"
    with pytest.raises(ConfigError, match="two filters share the label 'fake-drop-doc'"):
        load_pipeline_config(write(tmp_path, twice), host.registry)
    labelled = replaced(twice, "doc_id: b}", "doc_id: b, label: drop-b}")
    config = load_pipeline_config(write(tmp_path, labelled), host.registry)
    assert [f.label for f in config.many("filters")] == ["fake-drop-doc", "drop-b"]


def test_config_hash_does_not_depend_on_where_the_index_lives(host, tmp_path):
    a = parse_pipeline_text(FAKE_PIPELINE_YAML, host.registry, base_dir=tmp_path / "one")
    b = parse_pipeline_text(FAKE_PIPELINE_YAML, host.registry, base_dir=tmp_path / "two")
    assert a.index_dir != b.index_dir and a.config_hash() == b.config_hash()
