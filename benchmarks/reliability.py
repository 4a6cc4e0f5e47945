"""Reliability cases of issue 14, each run the way a user or an attacker would, with its result.

Prints one Markdown row per case: what was tried, what happened, how long it took. Every case
uses files in a temporary folder and servers on 127.0.0.1 only.

    OMP_NUM_THREADS=1 python benchmarks/reliability.py            # all cases (the 20 MB ingest takes minutes)
    OMP_NUM_THREADS=1 python benchmarks/reliability.py --skip-huge
    OMP_NUM_THREADS=1 python benchmarks/reliability.py --only huge
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROWS: list[tuple[str, str, float]] = []
LIMITED = ("import resource, sys; resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30)); "
           "from criss_rag.cli.main import main; sys.argv = ['criss-rag', *sys.argv[1:]]; main()")
PIPELINE = """\
name: reliability
loader: {name: jsonl, path: corpus.jsonl}
chunker: CHUNKER
retrievers: [{name: bm25, analyzer: standard}]
context: numbered
generator: extractive
"""


def case(what: str, result: str, seconds: float) -> None:
    ROWS.append((what, result, seconds))
    print(f"| {what} | {result} | {seconds:.1f} |", flush=True)


def cli(*args: str, cwd: Path, timeout: float = 600) -> tuple[subprocess.CompletedProcess | None, float]:
    started = time.monotonic()
    try:
        result = subprocess.run([sys.executable, "-c", LIMITED, *args], cwd=cwd, capture_output=True, text=True,
                                timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - started
    return result, time.monotonic() - started


def yaml_cases(tmp: Path) -> None:
    levels = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        levels.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 10) + "]")
    bomb = PIPELINE.replace("CHUNKER", "whole-document").replace(
        "retrievers: [{name: bm25, analyzer: standard}]",
        "retrievers:\n  - name: bm25\n    repeat_fields:\n" + textwrap.indent("\n".join(levels), "      "))
    (tmp / "bomb.yaml").write_text(bomb, encoding="utf-8")
    result, seconds = cli("validate", "bomb.yaml", cwd=tmp, timeout=300)
    out = (result.stdout + result.stderr).strip() if result else "(no end within 300 s)"
    case("alias bomb (10^9 values) under a retriever's `repeat_fields`: `criss-rag validate`",
         f"exit {result.returncode if result else 'killed'}, {len(out)}-character error: `{out[-110:]}`", seconds)
    result, seconds = cli("ingest", "bomb.yaml", cwd=tmp, timeout=300)
    case(
        "the same file: `criss-rag ingest`",
        f"exit {result.returncode if result else 'killed'}, "
        f"{len((result.stdout + result.stderr) if result else '')} characters",
        seconds,
    )
    (tmp / "recursive.yaml").write_text("name: &n [*n]\n", encoding="utf-8")
    result, seconds = cli("validate", "recursive.yaml", cwd=tmp)
    case(
        "recursive anchor `&n [*n]`",
        f"exit {result.returncode}: `{(result.stdout + result.stderr).strip()[-100:]}`",
        seconds,
    )
    for size in (5_000_000, 1_500_000):
        text = PIPELINE.replace("CHUNKER", "{name: sections, max_tokens: " + "9" * size + "x}")
        (tmp / "big.yaml").write_text(text, encoding="utf-8")
        result, seconds = cli("validate", "big.yaml", cwd=tmp)
        out = (result.stdout + result.stderr).strip()
        case(f"a {size / 1e6:g} MB wrong-typed value (`max_tokens`)", f"exit {result.returncode}, "
             f"{len(out)}-character error", seconds)


def crawl_cases(tmp: Path) -> None:
    from criss_rag_crawl.crawler import CrawlOptions, crawl
    from criss_rag_crawl.fetch import Fetcher, FetchSettings
    from criss_rag_crawl.testing import SitePage, SiteServer
    from criss_rag_crawl.urls import Scope

    body = "<p>" + "胸腺腫の手術と放射線治療、再発と予後、化学療法について説明します。" * 4 + "</p>"
    escapes = ["/guide/../outside.html", "/guide/%2e%2e/outside.html", "/guide/%2E%2E/outside.html",
               "/guide/sub/../../outside.html", "/guide/.%2e/outside.html", "/guide/..%2Foutside.html",
               "/guide/..\\outside.html", "r1.html", "r2.html", "r3.html"]
    pages = {"/guide/toc.html": SitePage.html("".join(f"<a href='{h}'>{i}</a>" for i, h in enumerate(escapes))),
             "/guide/r1.html": SitePage.redirect("/guide/../outside.html"),
             "/guide/r2.html": SitePage.redirect("/guide/%2e%2e/outside.html"),
             "/guide/r3.html": SitePage.redirect("/guide/ok.html"),
             "/guide/ok.html": SitePage.redirect("http://127.0.0.1:9/guide/x.html"),
             "/outside.html": SitePage.html(body)}
    settings = FetchSettings(user_agent="criss-rag-reliability/1.0", delay=0.0, timeout=5.0, retries=0)
    started = time.monotonic()
    with SiteServer(pages) as site:
        report = crawl(site.url + "/guide/toc.html", Fetcher(settings, Scope.of(site.url + "/guide/toc.html")),
                       CrawlOptions(progress=False))
        outside = [r.path for r in site.requests if r.path not in ("/robots.txt",) and not r.path.startswith("/guide/")]
    statuses = sorted({row.status for row in report.rows[1:]})
    case(f"crawl: {len(escapes) - 3} dot-segment / encoded-dot / backslash links and 3 redirect chains "
         "(2 escaping, 1 off-site at its second hop)",
         f"{len(outside)} requests outside the scope; row statuses {', '.join(statuses)}", time.monotonic() - started)

    slow = SitePage.html("<title>slow</title>" + body, trickle=1.0)  # one byte a second: each read is in time
    with SiteServer(
        {"/guide/toc.html": SitePage.html("<a href='slow.html'>slow</a>"), "/guide/slow.html": slow}
    ) as site:
        started = time.monotonic()
        report = crawl(
            site.url + "/guide/toc.html",
            Fetcher(settings.model_copy(update={"page_timeout": 10.0}), Scope.of(site.url + "/guide/toc.html")),
            CrawlOptions(progress=False),
        )
        held = time.monotonic() - started
    row = report.rows[1]
    case(f"crawl: a page sending 1 byte/s ({len(slow.body)} bytes), `--timeout 5 --page-timeout 10`",
         f"row `{row.status}` ({row.reason}); {slow.bytes_sent} bytes read", held)
    pages = {"/guide/toc.html": SitePage.html("".join(f"<a href='p{i}.html'>p</a>" for i in range(10)))}
    pages.update({f"/guide/p{i}.html": SitePage.html(body, delay=1.0) for i in range(10)})
    with SiteServer(pages) as site:
        started = time.monotonic()
        report = crawl(site.url + "/guide/toc.html", Fetcher(settings, Scope.of(site.url + "/guide/toc.html")),
                       CrawlOptions(progress=False, max_seconds=3.0))
        held = time.monotonic() - started
    counts: dict[str, int] = {}
    for row in report.rows[1:]:
        counts[row.status] = counts.get(row.status, 0) + 1
    case(
        "crawl: 10 pages of 1 s each, `--max-seconds 3`", ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), held
    )


def huge_case(tmp: Path) -> None:
    normal = [
        {"doc_id": f"n{i}", "title": f"Note {i}", "text": f"### Risk\nHepatitis B raises the risk of liver cancer {i}."}
        for i in range(3)
    ]
    sentence = "Radiation therapy uses high-energy rays to kill cancer cells and shrink tumours. "
    section = "<h2>Section</h2>\n<p>" + sentence * 50 + "</p>\n"  # a heading every ~4 KB of text
    huge = section * (20_000_000 // len(section)) + "<h1>unclosed " * 20_000
    docs = [*normal, {"doc_id": "huge", "title": "Export", "text": huge}]
    (tmp / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    (tmp / "huge.yaml").write_text(PIPELINE.replace("CHUNKER", "sections"), encoding="utf-8")
    result, seconds = cli("ingest", "huge.yaml", cwd=tmp, timeout=1200)
    out = (result.stdout if result else "").splitlines()
    case(
        f"ingest: a {len(huge.encode()) / 1e6:.0f} MB document (HTML export, 20,000 unclosed `<h1>`) among 3 normal "
        "ones, "
        "`sections` chunker + bm25",
        f"exit {result.returncode if result else 'killed'}: {out[0] if out else ''}",
        seconds,
    )


def concurrent_case(tmp: Path) -> None:
    docs = [{"doc_id": f"d{i}", "title": f"T{i}", "text": f"Document {i} covers screening and biopsy, code w{i}. " * 20}
            for i in range(4000)]
    (tmp / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    (tmp / "two.yaml").write_text(PIPELINE.replace("CHUNKER", "whole-document"), encoding="utf-8")
    started = time.monotonic()
    procs = [subprocess.Popen([sys.executable, "-c", LIMITED, "ingest", "two.yaml"], cwd=tmp, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=600) for p in procs]
    seconds = time.monotonic() - started
    root = tmp / ".criss_rag" / "index"
    versions = [p.name for p in root.iterdir() if "@v" in p.name]
    waited = sum("waiting for another ingest" in err for _, err in outs)
    modes = [("built" if "rebuilt whole" in out else "up to date" if "up to date" in out else "?") for out, _ in outs]
    case("two `criss-rag ingest` of one index started together (4,000 documents)",
         f"exit codes {[p.returncode for p in procs]}; {waited} waited with a note; results {modes}; "
         f"{len(versions)} version folder(s)", seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-huge", action="store_true", help="leave out the 20 MB ingest")
    parser.add_argument("--only", choices=["yaml", "crawl", "concurrent", "huge"], help="run one group of cases")
    args = parser.parse_args()
    print("| case | result | seconds |\n|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        steps = (yaml_cases, crawl_cases, concurrent_case, *(() if args.skip_huge else (huge_case,)))
        for step in steps:
            if args.only and not step.__name__.startswith(args.only):
                continue
            folder = tmp / step.__name__
            folder.mkdir()
            step(folder)


if __name__ == "__main__":
    os.environ.setdefault("CRISS_RAG_STRICT_PLUGINS", "1")
    main()
