"""Cross-lingual matching on real exam text: IgakuQA's Japanese question stems (cancer-related
Japanese medical licensing exam items) against their English versions. Each Japanese stem is the
query; the English stems of all items are the candidates; the item's own English version is the
one right answer. recall@1 / recall@5 / MRR per embedding (MiniLM as the English-only control).

    python benchmarks/igakuqa_crosslingual.py [--data ../shared/data/igakuqa-cancer/questions_dev.jsonl]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from timing import ROOT, table

from criss_rag.plugins import PluginHost

MODELS = ("minilm", "multilingual-e5", "multilingual-use")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "igakuqa-cancer" / "questions_dev.jsonl"))
    args = parser.parse_args()
    items = [json.loads(line) for line in open(args.data, encoding="utf-8") if line.strip()]
    items = [i for i in items if i.get("question") and i.get("question_en")]
    japanese = [i["question"] for i in items]
    english = [i["question_en"] for i in items]

    host = PluginHost()
    rows = []
    for name in MODELS:
        spec = host.registry.get("embedding", name, where="benchmark")
        model = spec.factory(spec.params_model.model_validate({}), None)
        started = time.perf_counter()
        candidates = np.asarray(model.get_text_embedding_batch(english))
        queries = np.asarray([model.get_query_embedding(q) for q in japanese])
        seconds = time.perf_counter() - started
        scores = queries @ candidates.T
        ranks = [int((scores[i] > scores[i, i]).sum()) + 1 for i in range(len(items))]
        rows.append([name, f"{np.mean([r == 1 for r in ranks]):.3f}", f"{np.mean([r <= 5 for r in ranks]):.3f}",
                     f"{np.mean([1 / r for r in ranks]):.3f}", f"{seconds:.0f}"])
    print(f"{len(items)} IgakuQA items ({args.data}): Japanese stem -> its English version among {len(items)}")
    print(table(["embedding", "recall@1", "recall@5", "MRR", "encode s"], rows))


if __name__ == "__main__":
    main()
