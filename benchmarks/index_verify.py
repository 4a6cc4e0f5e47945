"""What the index checksums cost: hashing a version folder's files (what ingest adds before it
writes the manifest) and verifying them (what opening an index adds), with sizes only for
comparison. Reads the folder only; writes nothing.

    .venv/bin/python benchmarks/index_verify.py <index.dir>/<key>@v<N>-<random> [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from criss_rag.indexing.index_integrity import file_digests, verify_files
from criss_rag.indexing.index_store import MANIFEST


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("version", type=Path, help="an index version folder (or the <key> link to one)")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    folder = args.version.resolve()
    timings: dict[str, list[float]] = {
        "hash (ingest)": [],
        "verify: sizes and SHA-256 (open)": [],
        "verify: sizes only": [],
    }
    files = {}
    for _ in range(args.repeat):
        started = time.perf_counter()
        files = file_digests(folder, skip=(MANIFEST,))
        timings["hash (ingest)"].append(time.perf_counter() - started)
        started = time.perf_counter()
        verify_files(folder, files)
        timings["verify: sizes and SHA-256 (open)"].append(time.perf_counter() - started)
        started = time.perf_counter()
        verify_files(folder, files, content=False)
        timings["verify: sizes only"].append(time.perf_counter() - started)
    total = sum(f["size"] for f in files.values())
    print(f"{folder.name}: {len(files)} files, {total / 2**20:.1f} MiB (best of {args.repeat}, warm page cache)")
    for what, seconds in timings.items():
        best = min(seconds)
        rate = f", {total / 2**20 / best:.0f} MiB/s" if "SHA" in what or "hash" in what else ""
        print(f"  {what:<36} {best * 1000:8.1f} ms{rate}")


if __name__ == "__main__":
    main()
