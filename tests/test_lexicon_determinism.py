"""The lexicon reads a text the same way in every run: the order of the Korean endings, Japanese
particles and Chinese function words it cuts does not follow the interpreter's hash seed."""

from __future__ import annotations

import os
import subprocess
import sys

TEXTS = [
    "밥을 먹었는데 잠이 오지 않습니다",  # 먹었는데 was 먹었 or 먹었느, 않습니다 않 or 않스, by the seed
    "수술을 받았는지 아직 모르겠어요",
    "手術を受けたのですが、まだ痛みが続いているのでしょうか",
    "做完手术以后还是觉得不太舒服怎么办",
]

PROGRAM = (
    "import sys, json\n"
    "from criss_rag.lexicon.equivalence import content_units, keys\n"
    "print(json.dumps([keys(content_units(t)) for t in json.loads(sys.argv[1])], ensure_ascii=False))\n"
)


def _read_with_seed(seed: str) -> str:
    import json

    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-c", PROGRAM, json.dumps(TEXTS, ensure_ascii=False)],
                          env=env, capture_output=True, text=True, check=True, timeout=120)
    return done.stdout


def test_the_same_texts_read_the_same_under_different_hash_seeds() -> None:
    readings = {_read_with_seed(seed) for seed in ("1", "2", "3", "4", "5", "6")}
    assert len(readings) == 1, readings
