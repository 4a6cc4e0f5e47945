"""The plugin surface: bundled plugins, the example plugin and the plugin template import only the
public modules of criss_rag (docs/plugin-utilities.md), every name ``criss_rag.plugin_utils``
offers resolves, and the import paths modules had before they moved into subpackages still import."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

import criss_rag
import criss_rag.plugin_utils as plugin_utils

ROOT = Path(__file__).resolve().parents[1]

#: the modules a plugin may import from criss_rag (a dotted name, or a package and all below it)
PUBLIC_MODULES = {"criss_rag", "criss_rag.types", "criss_rag.errors", "criss_rag.context", "criss_rag.protocols",
                  "criss_rag.plugin_utils"}
PUBLIC_PACKAGES = {"criss_rag.testing", "criss_rag.lexicon"}


def is_public(module: str) -> bool:
    return module in PUBLIC_MODULES or any(module == p or module.startswith(p + ".") for p in PUBLIC_PACKAGES)


def plugin_files() -> list[Path]:
    """Every Python file a plugin author reads as an example: plugins/*, the example plugin, the
    tutorial plugin and the plugin template."""
    bases = [ROOT / "plugins", ROOT / "examples", ROOT / "tests" / "plugins"]
    return sorted(p for base in bases for p in base.rglob("*.py") if "__pycache__" not in p.parts)


def core_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of a criss_rag module (not criss_rag_* plugin packages)."""
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text, str(path))
    except SyntaxError:  # a template file with {{ }} outside strings: read its import lines
        return [(n, m.group(1)) for n, line in enumerate(text.splitlines(), 1)
                if (m := re.match(r"\s*(?:from|import)\s+(criss_rag(?:\.\w+)*)\b", line))]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            if node.module == "criss_rag":  # `from criss_rag import engine` imports a module too
                found += [(node.lineno, f"criss_rag.{a.name}") for a in node.names
                          if importlib.util.find_spec(f"criss_rag.{a.name}") is not None]
    return [(line, name) for line, name in found if name == "criss_rag" or name.startswith("criss_rag.")]


def private_imports(paths: list[Path]) -> list[str]:
    return [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}:{line}: {module}"
            for path in paths for line, module in core_imports(path) if not is_public(module)]


def test_every_plugin_file_imports_only_public_modules():
    files = plugin_files()
    assert len(files) > 150 and any("criss_rag_serve" in str(p) for p in files)
    assert private_imports(files) == []


def test_the_check_finds_an_internal_import(tmp_path):
    """The control: a plugin reaching into the engine, the support module or the pipeline is named,
    in every import form; the public modules, criss_rag_* packages and lexicon are not."""
    plugin = tmp_path / "criss_rag_fake" / "plugin.py"
    plugin.parent.mkdir()
    plugin.write_text("import criss_rag.engine\nfrom criss_rag.pipeline import Pipeline\n"
                      "from criss_rag import hookimpl, engine\n"
                      "def later():\n    from criss_rag.answering.sentence_check import strip_markers\n"
                      "from criss_rag.types import Hit\nfrom criss_rag.lexicon.facets import extract\n"
                      "from criss_rag_basic.ranking import RrfFusion\nfrom criss_rag.plugin_utils import "
                      "detect_language\n",
                      encoding="utf-8")
    found = private_imports([plugin])
    assert [line.split(": ", 1)[1] for line in found] == [
        "criss_rag.engine", "criss_rag.pipeline", "criss_rag.engine", "criss_rag.answering.sentence_check"]


def test_every_plugin_utility_resolves_and_is_documented():
    page = (ROOT / "docs" / "plugin-utilities.md").read_text(encoding="utf-8")
    missing = [name for name in plugin_utils.__all__ if getattr(plugin_utils, name, None) is None]
    undocumented = [name for name in plugin_utils.__all__ if not re.search(rf"`{name}[`(]", page)]
    assert (missing, undocumented) == ([], [])
    with pytest.raises(AttributeError, match="no attribute 'engine'"):
        plugin_utils.engine  # noqa: B018


def test_importing_plugin_utils_loads_no_other_criss_rag_module():
    code = ("import sys, criss_rag.plugin_utils\n"
            "print(sorted(m for m in sys.modules if m.startswith('criss_rag')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['criss_rag', 'criss_rag.llama_deferred', 'criss_rag.plugin_utils', 'criss_rag.version']"


@pytest.mark.parametrize(("old", "new"), sorted(criss_rag.MOVED_MODULES.items()))
def test_a_moved_module_imports_under_its_old_path(old, new):
    module = importlib.import_module(old)
    assert module is importlib.import_module(new)
    assert getattr(criss_rag, old.rpartition(".")[2]) is module  # `criss_rag.text` after `import criss_rag.text`


def test_the_documented_old_paths_import():
    """Every ``from criss_rag.X import Y`` the docs showed before the moves still runs."""
    from criss_rag.chinese_script import chinese_script, message_for  # noqa: F401
    from criss_rag.engine import Engine, verify_citations  # noqa: F401
    from criss_rag.indexing import StaleIndexError, ingest  # noqa: F401
    from criss_rag.meaning import MeaningSupport
    from criss_rag.relevance import RelevanceCheck, RelevancePolicy  # noqa: F401
    from criss_rag.sources import make_document  # noqa: F401
    from criss_rag.support import LexicalSupport, answer_sentences  # noqa: F401
    from criss_rag.text import detect_language, split_sentences  # noqa: F401

    assert MeaningSupport.__module__ == "criss_rag.answering.meaning_check" and callable(ingest)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        importlib.import_module("criss_rag.indexing").nothing  # noqa: B018
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("criss_rag.never_was")


def doc_imports() -> list[tuple[str, str, list[str]]]:
    """(page:line, module, names) of every ``from criss_rag... import ...`` and ``import criss_rag...``
    line in the docs and the README (code blocks of any kind)."""
    found = []
    for page in [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{page.relative_to(ROOT)}:{n}"
            if m := re.match(r"\s*from (criss_rag(?:\.\w+)*) import ([\w, ]+?)\s*(?:#.*)?$", line):
                found.append((where, m.group(1), [n.split(" as ")[0].strip() for n in m.group(2).split(",")]))
            elif m := re.match(r"\s*import (criss_rag(?:\.\w+)*)(?: as \w+)?\s*(?:#.*)?$", line):
                found.append((where, m.group(1), []))
    return found


def test_every_import_the_docs_show_runs():
    """Every ``criss_rag`` import line in the docs names a module that imports and names it holds,
    old paths of moved modules included."""
    imports = doc_imports()
    assert len(imports) > 50
    broken = []
    for where, module, names in imports:
        try:
            loaded = importlib.import_module(module)
        except ImportError as exc:
            broken.append(f"{where}: {module} ({exc})")
            continue
        broken += [f"{where}: {module}.{name}" for name in names if not hasattr(loaded, name)]
    assert broken == []
