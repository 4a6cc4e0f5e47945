"""Korean, Japanese and Chinese retrieval: pipelines and embeddings side by side, one `criss-rag
eval retrieval` command per row, scored from its per-question output (recall@1/3/5, MRR@10, hit@1).

    python benchmarks/cjk_retrieval.py                      # the example corpus, dev questions
    python benchmarks/cjk_retrieval.py --split test         # the held-out questions (no tuning on them)
    python benchmarks/cjk_retrieval.py --split test_b --only 0 8   # the second held-out set
    python benchmarks/cjk_retrieval.py --xling              # KO/JA translations of MedQuAD dev questions
                                                            # over the English MedQuAD corpus
    python benchmarks/cjk_retrieval.py --xling --split test # the held-out translations
    python benchmarks/cjk_retrieval.py --only 0 --questions examples/eval/zh_dev.jsonl \
        examples/eval/ko_para_dev.jsonl examples/eval/ja_para_dev.jsonl   # any question files
    python benchmarks/cjk_retrieval.py --xling --only 0 --questions examples/eval/medquad_xling_zh.jsonl

A question file's language is its rows' `lang`. Over the example corpus, a question whose gold
list names the same page in several languages (ncc-1-2-en, ncc-1-2-ko, ncc-1-2-ja) accepts that
page in any language, the Chinese one (ncc-1-2-zh) included.

Rows are printed as Markdown with the command of each; the question sets are in examples/eval/.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = (
    str(ROOT / ".venv" / "bin" / "criss-rag")
    if (ROOT / ".venv").is_dir()
    else (shutil.which("criss-rag") or "criss-rag")
)
BM25 = "{name: bm25, analyzer: standard, k1: 1.2, b: 0.75, repeat_fields: {title: 2}, top_k: 30}"
MINILM = "{name: faiss, top_k: 30}"
E5 = "{name: faiss, label: e5, embedding: {name: multilingual-e5}, top_k: 30}"
USE = "{name: faiss, label: use, embedding: {name: multilingual-use}, top_k: 30}"


def dense_only(retriever: str) -> list[str]:
    return [f"retrievers=[{retriever}]", "fusion=null"]


def hybrid(retriever: str) -> list[str]:
    label = retriever.split("label: ")[1].split(",")[0] if "label: " in retriever else "faiss"
    return [f"retrievers=[{BM25}, {retriever}]", f"fusion={{name: rrf, k: 60, weights: {{{label}: 1.5}}, top_k: 30}}"]


#: (row name, config, --set overrides); the intent boost of the default pipeline stays on
VARIANTS: list[tuple[str, str, list[str]]] = [
    ("default: BM25 + e5 (every language), RRF", "examples/default.yaml", []),
    (
        "previous default: BM25 + MiniLM (en) + e5 (ko/ja/zh), RRF",
        "examples/default.yaml",
        [
            "embedding={name: minilm}",
            f"retrievers=[{BM25}, {{name: faiss, top_k: 30, languages: [en]}}, "
            f"{{name: faiss, label: e5, embedding: {{name: multilingual-e5}}, top_k: 30, languages: [ko, ja, zh]}}]",
            "fusion={name: rrf, k: 60, weights: {faiss: 1.5, e5: 1.5}, top_k: 30}",
        ],
    ),
    ("BM25 alone", "examples/default.yaml", [f"retrievers=[{BM25}]", "fusion=null"]),
    ("dense only: MiniLM", "examples/default.yaml", ["embedding={name: minilm}", *dense_only(MINILM)]),
    ("dense only: e5", "examples/default.yaml", dense_only(E5)),
    ("dense only: USE", "examples/default.yaml", dense_only(USE)),
    ("BM25 + e5, RRF", "examples/default.yaml", hybrid(E5)),
    ("BM25 + USE, RRF", "examples/default.yaml", hybrid(USE)),
]
XLING_VARIANTS = [
    VARIANTS[0],
    ("default without cross-lingual-terms", "examples/default.yaml", ["query_transforms=null"]),
    VARIANTS[1],
    VARIANTS[4],
    VARIANTS[5],
]
NCC = ("examples/ncc.yaml (Korean documents only, dense e5, k = 5)", "examples/ncc.yaml", [])


def score(rows: list[dict]) -> dict[str, float]:
    ranks = [r["first_gold_rank"] for r in rows if r["gold"]]
    n = len(ranks)

    def within(k: int) -> float:
        return sum(1 for r in ranks if r is not None and r <= k) / n

    mrr = sum(1 / r for r in ranks if r is not None and r <= 10) / n
    return {"recall@1": within(1), "recall@3": within(3), "recall@5": within(5), "mrr@10": mrr, "n": n}


def any_language_gold(questions: Path, tmp: Path) -> Path:
    """``questions`` with each gold list that names one page in several languages extended to the
    page's other language versions (en, ko, ja, zh); the file itself when nothing changes."""
    rows = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    changed = False
    for row in rows:
        gold = row.get("gold_doc_ids") or []
        pages = {g.rsplit("-", 1)[0] for g in gold if g.startswith("ncc-")}
        if len(pages) == 1 and len(gold) > 1:
            page = pages.pop()
            row["gold_doc_ids"] = [f"{page}-{lang}" for lang in ("en", "ko", "ja", "zh")]
            changed = True
    if not changed:
        return questions
    out = tmp / questions.name
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return out


def run(
    config: str, questions: Path, overrides: list[str], corpus: str | None
) -> tuple[dict[str, float], float, list[str]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "rows.jsonl"
        asked = questions if corpus else any_language_gold(questions, Path(tmp))
        command = [CLI, "eval", "retrieval", config, "--questions", str(asked), "--k", "5", "--out", str(out)]
        if corpus:
            command += ["--corpus", corpus]
        for item in overrides:
            command += ["--set", item]
        started = time.perf_counter()
        done = subprocess.run(command + EXTRA_SETS, cwd=ROOT, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{done.stderr[-2000:]}")
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()]
    command[command.index("--questions") + 1] = str(questions)
    return score(rows), seconds, command


EXTRA_SETS: list[str] = []


def _language(path: Path) -> str:
    first = next(line for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return str(json.loads(first).get("lang", path.stem.split("_")[0]))


def shown(command: list[str]) -> str:
    """The command as one would type it in the repository root (no --out, relative paths)."""
    parts, skip = [], False
    for part in command:
        if skip:
            skip = False
            continue
        if part == "--out":
            skip = True
            continue
        part = part.replace(str(ROOT) + "/", "").replace(CLI, "criss-rag")
        parts.append(f"'{part}'" if " " in part or "{" in part else part)
    return " ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--split",
        choices=["dev", "test", "test_b"],
        default="dev",
        help="test_b: the second held-out example-corpus set (no --xling counterpart)",
    )
    parser.add_argument("--xling", action="store_true", help="KO/JA questions over the English MedQuAD corpus")
    data_root = Path(os.environ.get("DATA") or ROOT.parent / "shared" / "data")  # docs/benchmarks.md, Data
    parser.add_argument("--data", default=str(data_root / "medquad-cancergov"))
    parser.add_argument("--only", type=int, nargs="*", help="row numbers to run (0-based)")
    parser.add_argument(
        "--questions",
        type=Path,
        nargs="+",
        help="question files to run instead of the split's Korean and Japanese sets",
    )
    parser.add_argument(
        "--set",
        dest="extra_sets",
        action="append",
        default=[],
        help="a further --set for every command (e.g. index.dir=/tmp/index)",
    )
    args = parser.parse_args()
    EXTRA_SETS.extend(x for item in args.extra_sets for x in ("--set", item))

    if args.xling and args.split == "test_b":
        sys.exit("--xling has dev and test sets only")
    if args.xling:
        suffix = "_test" if args.split == "test" else ""  # _test: written after the dev figures, never tuned on
        sets = [(lang, ROOT / f"examples/eval/medquad_xling_{lang}{suffix}.jsonl") for lang in ("ko", "ja")]
        variants, corpus = XLING_VARIANTS, str((ROOT / args.data / "corpus.jsonl").resolve())
    else:
        sets = [(lang, ROOT / f"examples/eval/{lang}_{args.split}.jsonl") for lang in ("ko", "ja")]
        variants, corpus = [*VARIANTS, NCC], None
    if args.questions:
        sets = [(_language(path), path.resolve()) for path in args.questions]
    print("| variant | language | recall@1 (hit@1) | recall@3 | recall@5 | MRR@10 | n | wall s |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    commands = []
    for i, (name, config, overrides) in enumerate(variants):
        if args.only is not None and i not in args.only:
            continue
        for lang, questions in sets:
            if config.endswith("ncc.yaml") and lang != "ko":
                continue
            s, seconds, command = run(config, questions, overrides, corpus)
            print(
                f"| {name} | {lang} | {s['recall@1']:.3f} | {s['recall@3']:.3f} | {s['recall@5']:.3f} | "
                f"{s['mrr@10']:.3f} | {s['n']} | {seconds:.0f} |",
                flush=True,
            )
            commands.append(shown(command))
    print()
    for command in commands:
        print(f"    {command}")


if __name__ == "__main__":
    main()
