"""Source titles that tell an answer's chunks apart: the document title, then the section (heading
path), the page, and "passage k of n" for a split section, in the API, `criss-rag ask` and (see
tests/test_serve_browser.py) the chat page."""

from __future__ import annotations

import json

from click.testing import CliRunner
from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.answering.source_titles import source_titles
from criss_rag.cli.main import build_cli
from criss_rag.plugins import PluginHost
from criss_rag.testing import replaced
from criss_rag.types import Context, Evidence, Hit

SURGERY = "Surgery removes the part of the liver that holds the tumour when the rest of the liver works well."
ABLATION = "Ablation destroys a small liver tumour with heat through a needle when surgery is not possible."
CORPUS = [{"doc_id": "liver-tx", "title": "Liver cancer: treatment",
           "text": f"### Surgery\n{SURGERY}\n### Ablation\n{ABLATION}"},
          {"doc_id": "lung", "title": "Lung cancer", "text": "Smoking causes most lung cancers."}]
PIPELINE = """\
name: titles
index: {dir: index}
loader: {name: jsonl, path: corpus.jsonl}
chunker: {name: sections, max_tokens: 256}
retrievers: [{name: bm25, analyzer: standard, top_k: 5}]
context: {name: numbered, max_evidence: 5}
generator: {name: extractive, max_sentences: 3}
"""


def evidence(number: int, node_id: str, **metadata) -> Evidence:
    hit = Hit(NodeWithScore(node=TextNode(id_=node_id, text="x", metadata=metadata), score=1.0))
    return Evidence(number, hit, "x")


def test_titles_add_section_page_and_passage_until_they_differ():
    context = Context(evidence=(
        evidence(1, "a#s0", title="Liver cancer: treatment", heading_path="Surgery"),
        evidence(2, "a#s1", title="Liver cancer: treatment", heading_path="Ablation"),
        evidence(3, "a#s2.0", title="Liver cancer: treatment", heading_path="Ablation", passage=1, passages=2),
        evidence(4, "m#p3", title="Staging manual", heading="Rule 4", page=12),
        evidence(5, "x1", title="Same"),
        evidence(6, "x2", title="Same"),
        evidence(7, "t", title="Liver cancer: treatment", section="treatment"),  # a section the title names already
        evidence(8, "k", title="갑상선암 - 개요", section="overview"),  # a category label, not a heading
    ), text="")
    assert source_titles(context) == {
        1: "Liver cancer: treatment › Surgery",
        2: "Liver cancer: treatment › Ablation",
        3: "Liver cancer: treatment › Ablation (passage 1 of 2)",
        4: "Staging manual › Rule 4, p. 12",
        5: "Same [x1]",
        6: "Same [x2]",
        7: "Liver cancer: treatment",
        8: "갑상선암 - 개요",
    }


def test_ask_shows_two_chunks_of_one_document_under_different_titles(tmp_path):
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in CORPUS) + "\n", encoding="utf-8")
    (tmp_path / "p.yaml").write_text(PIPELINE, encoding="utf-8")
    host = PluginHost(strict=True)
    cli = build_cli(host)
    question = "How is a liver tumour treated: surgery or ablation?"
    assert CliRunner().invoke(cli, ["ingest", str(tmp_path / "p.yaml")], obj={"host": host}).exit_code == 0
    shown = CliRunner().invoke(cli, ["ask", str(tmp_path / "p.yaml"), question], obj={"host": host})
    assert shown.exit_code == 0, shown.output
    sources = [line for line in shown.output.splitlines() if line.startswith("  [")]
    assert len(sources) == 2 and all("(doc liver-tx," in line for line in sources)
    assert "Liver cancer: treatment › Surgery" in shown.output and "Liver cancer: treatment › Ablation" in shown.output
    answer = json.loads(CliRunner().invoke(cli, ["ask", str(tmp_path / "p.yaml"), question, "--json"],
                                           obj={"host": host}).output)
    assert len({c["source_title"] for c in answer["citations"]}) == 2
    assert {item["source_title"] for item in answer["context"]} >= {c["source_title"] for c in answer["citations"]}


def test_a_split_section_names_its_passages(tmp_path):
    long_text = " ".join(f"Sentence {i} about liver surgery and recovery after the operation." for i in range(60))
    corpus = [{"doc_id": "long", "title": "Liver cancer: treatment", "text": f"### Surgery\n{long_text}"}]
    (tmp_path / "corpus.jsonl").write_text(json.dumps(corpus[0]) + "\n", encoding="utf-8")
    (tmp_path / "p.yaml").write_text(
        replaced(PIPELINE, "max_tokens: 256", "max_tokens: 64, overlap_tokens: 0"), encoding="utf-8"
    )
    host = PluginHost(strict=True)
    cli = build_cli(host)
    CliRunner().invoke(cli, ["ingest", str(tmp_path / "p.yaml")], obj={"host": host})
    out = (
        CliRunner()
        .invoke(
            cli,
            ["ask", str(tmp_path / "p.yaml"), "What happens in liver surgery recovery?", "--json"],
            obj={"host": host},
        )
        .output
    )
    titles = [item["source_title"] for item in json.loads(out)["context"]]
    assert len(titles) >= 2 and len(set(titles)) == len(titles)
    assert all(t.startswith("Liver cancer: treatment › Surgery (passage ") and " of " in t for t in titles)
