"""Reading, overriding and validating pipeline configs."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from criss_rag.config.model import ComponentConfig, PipelineConfig, parse_pipeline
from criss_rag.config.overrides import apply_overrides
from criss_rag.config.yaml_source import load_yaml, read_yaml_file
from criss_rag.registry import Registry

__all__ = ["ComponentConfig", "PipelineConfig", "load_pipeline_config", "parse_pipeline_text"]


def load_pipeline_config(path: str | Path, registry: Registry, overrides: Iterable[str] = ()) -> PipelineConfig:
    """Read a pipeline YAML file, apply ``--set`` overrides, validate it."""
    path = Path(path)
    raw = read_yaml_file(path)
    if isinstance(raw, dict):
        apply_overrides(raw, overrides)
    return parse_pipeline(raw, registry, source=str(path), base_dir=path.resolve().parent)


def parse_pipeline_text(
    text: str, registry: Registry, *, base_dir: Path, source: str = "<config>", overrides: Iterable[str] = ()
) -> PipelineConfig:
    """Validate pipeline YAML given as a string (relative paths resolve against ``base_dir``)."""
    raw = load_yaml(text, source)
    if isinstance(raw, dict):
        apply_overrides(raw, overrides)
    return parse_pipeline(raw, registry, source=source, base_dir=base_dir)
