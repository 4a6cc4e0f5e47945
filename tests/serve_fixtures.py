"""Shared by the serve tests: a small corpus (English, Korean, Japanese, and one passage carrying
HTML and script), a pipeline over it, and SSE parsing."""

from __future__ import annotations

import json
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced

CORPUS = [
    {
        "doc_id": "liver",
        "title": "Liver cancer",
        "url": "https://example.org/liver",
        "cancer_type": "liver",
        "text": "Hepatitis B infection raises the risk of liver cancer. Heavy drinking also raises the risk of liver "
                "cancer.",
    },
    {
        "doc_id": "breast",
        "title": "Breast cancer",
        "url": "https://example.org/breast",
        "cancer_type": "breast",
        "text": "Mammography screening finds breast cancer early. Obesity after menopause raises the risk of breast "
                "cancer.",
    },
    {
        "doc_id": "radon",
        "title": '<img src=x onerror="window.__pwned=1">Radon and lung cancer',
        "url": "javascript:window.__pwned=3",
        "cancer_type": "lung",
        "text": "Radon exposure <script>window.__pwned=2</script> raises the risk of lung cancer. "
        '<img src=x onerror="window.__pwned=4"> Radon is a colourless gas.',
    },
    {
        "doc_id": "liver-ko",
        "title": "간암",
        "url": "https://example.org/ko/liver",
        "cancer_type": "liver",
        "text": "간암은 간세포에서 시작되는 암입니다. B형 간염 바이러스에 감염되면 간암 위험이 높아집니다.",
    },
    {
        "doc_id": "lung-ja",
        "title": "肺がん",
        "url": "https://example.org/ja/lung",
        "cancer_type": "lung",
        "text": "肺がんは喫煙と強く関係しています。長引くせきは肺がんの症状のことがあります。",
    },
]
PIPELINE = """\
name: serve-test
index: {dir: index}
loader: {name: jsonl, path: corpus.jsonl}
chunker: whole-document
retrievers: [{name: bm25, analyzer: ANALYZER}]
filters: [{name: metadata, field: cancer_type}]
context: numbered
generator: GENERATOR
EXTRA
"""


def write_corpus(root: Path, corpus: list[dict] = CORPUS) -> None:
    lines = [json.dumps(d, ensure_ascii=False) for d in corpus]
    (root / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def engine_for(root: Path, generator: str = "extractive", extra: str = "cache: fake-cache",
               corpus: list[dict] = CORPUS, analyzer: str = "standard") -> Engine:
    """An engine over the corpus (the fake plugin and every installed plugin loaded)."""
    write_corpus(root, corpus)
    yaml_text = replaced(PIPELINE, "GENERATOR", generator, "EXTRA", extra, "ANALYZER", analyzer)
    return Engine.open(pipeline_from_yaml(yaml_text, root, plugin_host(entry_points=True)), build_if_missing=True)


def parse_sse(raw: str) -> list[tuple[str, dict]]:
    """``(event, data)`` of each server-sent event."""
    events = []
    for frame in raw.replace("\r\n", "\n").split("\n\n"):
        name, data = "message", []
        for line in frame.split("\n"):
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].removeprefix(" "))
        if data:
            events.append((name, json.loads("\n".join(data))))
    return events
