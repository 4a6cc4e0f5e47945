"""Train the intent model (criss_rag_domain.intent_model) on questions whose right pages are known.

    python benchmarks/train_intent_model.py examples/default.yaml SETS... --out model.npz
    python benchmarks/train_intent_model.py examples/default.yaml SETS... --cross-validate

Each question's intent is its gold pages' section (the config's corpus, field ``menu_name`` or
``section``) read with the intent lexicon: Overview, 개요 and 概述 are ``overview``, "Prevention and
risk factors" is ``prevention``. A question whose gold pages sit in sections of different intents
is left out. Questions are embedded with the config's embedding, as ``intent-boost`` embeds them.
``--cross-validate`` reports accuracy with each question set's family (``blind7``, ``ko``...) held
out in turn, beside the cue lexicon's, and writes nothing.

The built-in model is ``plugins/domain/criss_rag_domain/intent_model.npz``; `make intent-model`
rebuilds it from the sets the Makefile names.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import numpy as np
from tqdm import tqdm

import criss_rag
from criss_rag_domain.intent_model import train
from criss_rag_domain.intents import IntentLexicon

SECTION_FIELDS = ("section", "menu_name")


def labelled_questions(engine: criss_rag.Engine, sets: list[Path]) -> list[tuple[str, str, str]]:
    """(question, intent, family) for each question whose gold pages share one intent."""
    lexicon = IntentLexicon()
    section_intent: dict[str, str] = {}
    for node in engine.docstore.docs.values():
        section = next((node.metadata[f] for f in SECTION_FIELDS if node.metadata.get(f)), None)
        found = lexicon.detect(str(section)) if section else []
        if found:
            section_intent[node.metadata.get("doc_id") or node.ref_doc_id] = found[0]
    rows = []
    for path in sets:
        family = path.stem.split("_")[0]
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            intents = {section_intent.get(doc_id) for doc_id in record.get("gold_doc_ids") or []}
            if len(intents) == 1 and None not in intents:
                rows.append((record["question"], intents.pop(), family))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("sets", nargs="+", type=Path, help="question files (JSONL with question, gold_doc_ids)")
    parser.add_argument("--out", type=Path, help="where to write the model (.npz)")
    parser.add_argument("--strength", type=float, default=10.0, help="inverse L2 penalty (scikit-learn's C)")
    parser.add_argument("--cross-validate", action="store_true", help="report held-out accuracy per family")
    args = parser.parse_args()
    if not args.out and not args.cross_validate:
        parser.error("give --out PATH to write a model, or --cross-validate")
    engine = criss_rag.open(args.config)
    rows = labelled_questions(engine, args.sets)
    pipeline = engine.pipeline
    embedding = pipeline.embedding(requested_by="train_intent_model")
    vectors = np.array([pipeline.embed_query(q, requested_by="train_intent_model")
                        for q, _, _ in tqdm(rows, desc="embedding questions", unit="question")])
    labels = [intent for _, intent, _ in rows]
    print(f"{len(rows)} questions: " + ", ".join(f"{k} {n}" for k, n in sorted(Counter(labels).items())))
    if args.cross_validate:
        cross_validate(rows, vectors, labels, embedding.model_name, args.strength)
        return
    sets = ", ".join(sorted({family for _, _, family in rows}))
    model = train(vectors, labels, embedding=embedding.model_name, strength=args.strength,
                  trained_on=f"{len(rows)} questions of {sets}")
    model.save(args.out)
    print(f"wrote {args.out}: {', '.join(model.classes)}")


def cross_validate(rows: list[tuple[str, str, str]], vectors: np.ndarray, labels: list[str],
                   embedding: str, strength: float) -> None:
    lexicon = IntentLexicon()
    families = sorted({family for _, _, family in rows})
    right_model = right_cues = 0
    print("| held out | n | model | cues |\n|---|---:|---:|---:|")
    for family in families:
        test = [i for i, row in enumerate(rows) if row[2] == family]
        fit = [i for i, row in enumerate(rows) if row[2] != family]
        model = train(vectors[fit], [labels[i] for i in fit], embedding=embedding, strength=strength)
        model_right = sum(model.likeliest(vectors[i])[0] == labels[i] for i in test)
        cue_right = sum((lexicon.detect(rows[i][0]) or [None])[0] == labels[i] for i in test)
        right_model, right_cues = right_model + model_right, right_cues + cue_right
        print(f"| {family} | {len(test)} | {model_right / len(test):.3f} | {cue_right / len(test):.3f} |")
    print(f"| all | {len(rows)} | {right_model / len(rows):.3f} | {right_cues / len(rows):.3f} |")


if __name__ == "__main__":
    main()
