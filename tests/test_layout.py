"""The map of criss_rag/ in docs/index.md ("Where things live") names every module and subpackage
at the top of criss_rag/, and nothing that is not there."""

from __future__ import annotations

import re
from pathlib import Path

from criss_rag.testing import replaced

ROOT = Path(__file__).resolve().parents[1]


def map_paragraph() -> str:
    text = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    section = text.split("## Where things live", 1)[1]
    return section.strip().split("\n\n", 1)[0]


def named_in(paragraph: str) -> set[str]:
    """Backticked ``name.py`` and ``name/`` entries (the package itself, ``criss_rag/``, aside)."""
    return set(re.findall(r"`([a-z_]+(?:\.py|/))`", paragraph)) - {"criss_rag/"}


def top_level() -> set[str]:
    package = ROOT / "criss_rag"
    modules = {p.name for p in package.glob("*.py")}
    subpackages = {f"{p.name}/" for p in package.iterdir() if (p / "__init__.py").is_file()}
    return modules | subpackages


def test_the_map_in_docs_index_matches_the_tree():
    named, actual = named_in(map_paragraph()), top_level()
    assert {"engine.py", "answering/", "indexing/", "plugin_utils.py"} <= actual
    assert (sorted(actual - named), sorted(named - actual)) == ([], [])


def test_the_check_sees_a_missing_and_an_extra_entry():
    """The control: a map that leaves one module out and names one that does not exist differs."""
    paragraph = replaced(map_paragraph(), "`engine.py`", "`engines.py`")
    named = named_in(paragraph)
    assert "engine.py" in top_level() - named and "engines.py" in named - top_level()
