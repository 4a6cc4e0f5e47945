"""The import graph of criss_rag/ and plugins/ has no circles: no module imports a module that
imports it back, directly or through others. Every import counts, wherever it is written (module
level, inside a function, under ``if TYPE_CHECKING:``), and so do the names ``criss_rag/__init__.py``
loads on first use (its ``_LAZY`` table)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def package_roots() -> list[Path]:
    return [ROOT / "criss_rag", *sorted(p for p in (ROOT / "plugins").glob("*/criss_rag_*") if p.is_dir())]


def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for base in package_roots():
        for path in base.rglob("*.py"):
            parts = list(path.relative_to(base.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imported_names(name: str, path: Path) -> set[str]:
    """Every dotted name the module imports (``from a import b`` gives ``a.b`` when that is a module, else ``a``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            names.update(f"{source}.{alias.name}" for alias in node.names)  # resolved in import_graph()
        elif (isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict)
              and any(isinstance(t, ast.Name) and t.id == "_LAZY" for t in
                      ([node.target] if isinstance(node, ast.AnnAssign) else node.targets))):
            names.update(v.value for v in node.value.values if isinstance(v, ast.Constant))
    return names


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        edges: set[str] = set()
        for imported in imported_names(name, path):
            if imported in known:
                edges.add(imported)
            elif imported.rpartition(".")[0] in known:  # `from a import b` where b is a name in module a
                edges.add(imported.rpartition(".")[0])
        edges.discard(name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_covers_core_and_every_bundled_plugin():
    graph = import_graph()
    assert {"criss_rag.engine", "criss_rag.pipeline", "criss_rag.context", "criss_rag.cli.commands",
            "criss_rag.cli.answer_commands", "criss_rag_serve.app", "criss_rag_basic.chunkers"} <= set(graph)
    # edges are found in every form the code uses
    assert "criss_rag.pipeline" in graph["criss_rag.engine"]            # from criss_rag.pipeline import Pipeline
    assert "criss_rag.api" in graph["criss_rag"]                        # the lazy table
    assert "criss_rag.hookspecs" in graph["criss_rag.plugins"]          # from criss_rag import hookspecs
    assert len(package_roots()) >= 20


def test_the_checker_finds_a_circle(tmp_path):
    """The control: a circle through three modules is reported, and imports under TYPE_CHECKING
    or inside a function are edges too (the circle context.py <-> pipeline.py was one)."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"f"}, "f": {"e"}}
    assert circles(graph) == [["a", "b", "c"], ["e", "f"]]
    module = tmp_path / "context.py"
    module.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from criss_rag.pipeline import Pipeline\n"
        "def f():\n    from . import engine\n",
        encoding="utf-8",
    )
    names = imported_names("criss_rag.context", module)
    assert {"criss_rag.pipeline.Pipeline", "criss_rag.engine"} <= names


def test_no_import_circles_in_criss_rag_and_plugins():
    assert circles(import_graph()) == []
