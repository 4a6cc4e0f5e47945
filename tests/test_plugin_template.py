"""The cookiecutter template in examples/plugin-template generates plugins that install, pass their
own tests and are found through their entry point.

Each generated distribution is installed with ``pip install --no-deps --no-build-isolation --target``
into a folder under tmp_path (offline; the shared venv is never touched) and used through
``PYTHONPATH``, in subprocesses, exactly as an installed third-party plugin would be.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from cookiecutter.exceptions import FailedHookException
from cookiecutter.main import cookiecutter

from criss_rag.testing import replaced

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "examples" / "plugin-template"
TIMEOUT = 180

# kind -> (plugin_name as a user would type it, the component name, entry-point name, distribution)
FULL = {
    "reranker": ("readability", "readability", "readability", "criss-rag-readability"),
    "filter": ("Short Passages", "short-passages", "short_passages", "criss-rag-short-passages"),
}
# the other kinds the template supports: generated, installed and tested together in one run
OTHERS = {
    "retriever": "word-share",
    "query_transform": "synonyms",
    "refusal": "min-hits",
    "context": "one-per-doc",
    "generator": "lead-quotes",
}


def generate(output_dir: Path, plugin_name: str, kind: str) -> Path:
    # cookiecutter copies each hook script to a temporary .py file it never deletes: put those in a
    # folder of our own, removed afterwards, not in the system's temporary folder
    with tempfile.TemporaryDirectory(prefix="criss-rag-hooks-") as scratch:
        saved, tempfile.tempdir = tempfile.tempdir, scratch
        try:
            project = cookiecutter(str(TEMPLATE), no_input=True, output_dir=str(output_dir), extra_context={
                "plugin_name": plugin_name, "component_kind": kind, "author": "Test Author"})
        finally:
            tempfile.tempdir = saved
    return Path(project)


def install(site: Path, *projects: Path) -> None:
    """Build and install offline into ``site`` (setuptools from the venv, no dependencies)."""
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index",
         "--no-cache-dir", "--disable-pip-version-check", "--quiet", "--target", str(site), *map(str, projects)],
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )
    assert result.returncode == 0, f"pip install failed:\n{result.stdout}\n{result.stderr}"


def env_with(site: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"CRISS_RAG_LOAD_PLUGINS", "PYTHONPATH"}}
    env.update(PYTHONPATH=str(site), CRISS_RAG_STRICT_PLUGINS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return env


def run_tests(site: Path, cwd: Path, *test_dirs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *map(str, test_dirs)],
        cwd=cwd, env=env_with(site), capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )


def passed(result: subprocess.CompletedProcess[str]) -> int:
    match = re.search(r"(\d+) passed", result.stdout)
    return int(match.group(1)) if match else 0


@pytest.fixture(scope="module")
def full_plugins(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The reranker and the filter plugin, generated, installed into one site folder, and the
    output of ``python -m criss_rag plugins --json`` with that folder on PYTHONPATH."""
    base = tmp_path_factory.mktemp("template")
    projects = {kind: generate(base / "projects", name, kind) for kind, (name, *_rest) in FULL.items()}
    site = base / "site"
    install(site, *projects.values())
    listing = subprocess.run([sys.executable, "-m", "criss_rag", "plugins", "--json"], cwd=base,
                             env=env_with(site), capture_output=True, text=True, timeout=TIMEOUT, check=False)
    assert listing.returncode == 0, f"criss_rag plugins failed:\n{listing.stdout}\n{listing.stderr}"
    return {"base": base, "site": site, "projects": projects, "listing": json.loads(listing.stdout)}


@pytest.mark.parametrize("kind", sorted(FULL))
def test_the_generated_plugin_has_the_promised_layout(full_plugins, kind):
    _, component, slug, distribution = FULL[kind]
    project = full_plugins["projects"][kind]
    package = f"criss_rag_{slug}"
    assert project.name == distribution
    files = sorted(str(p.relative_to(project)) for p in project.rglob("*")
                   if p.is_file() and "egg-info" not in str(p) and "build" not in p.parts)
    assert files == sorted(["README.md", "pyproject.toml", f"{package}/__init__.py", f"{package}/plugin.py",
                            f"{package}/{kind}.py", f"tests/test_{slug}.py", f"tests/test_{slug}_entry_point.py"])
    pyproject = (project / "pyproject.toml").read_text(encoding="utf-8")
    assert f'name = "{distribution}"' in pyproject
    assert 'dependencies = ["criss-rag>=0.1,<0.2"]' in pyproject
    assert f'[project.entry-points.criss_rag]\n{slug} = "{package}.plugin"' in pyproject
    component_code = (project / package / f"{kind}.py").read_text(encoding="utf-8")
    assert 'ConfigDict(extra="forbid")' in component_code and "Field(" in component_code
    assert "{{" not in component_code and "cookiecutter" not in component_code  # fully rendered
    readme = (project / "README.md").read_text(encoding="utf-8")
    assert "pip install -e ." in readme and f"name: {component}" in readme and "pytest" in readme


@pytest.mark.parametrize("kind", sorted(FULL))
def test_the_generated_plugin_passes_its_own_tests(full_plugins, kind):
    project = full_plugins["projects"][kind]
    result = run_tests(full_plugins["site"], full_plugins["base"], project / "tests")
    assert result.returncode == 0, f"generated {kind} plugin's tests failed:\n{result.stdout}\n{result.stderr}"
    assert passed(result) == 4, result.stdout  # unit, pipeline, bad option, entry point


@pytest.mark.parametrize("kind", sorted(FULL))
def test_criss_rag_plugins_lists_the_generated_plugin(full_plugins, kind):
    _, component, slug, distribution = FULL[kind]
    listing = full_plugins["listing"]
    found = {p["name"]: p for p in listing["plugins"]}
    assert slug in found, f"{slug} not listed; plugins: {sorted(found)}"
    assert found[slug]["components"] == {kind: [component]}
    assert found[slug]["distribution"] == distribution
    assert found[slug]["version"] == "0.1.0"
    assert not [f for f in listing["failures"] if f["name"] == slug]


def test_the_generated_tests_fail_when_the_component_is_broken(full_plugins, tmp_path):
    """The generated tests test something: a reranker that no longer re-ranks fails them."""
    project = full_plugins["projects"]["reranker"]
    broken = tmp_path / "site"
    shutil.copytree(full_plugins["site"], broken)
    module = broken / "criss_rag_readability" / "reranker.py"
    code = module.read_text(encoding="utf-8")
    assert "return sorted(" in code
    module.write_text(replaced(code, "return sorted(", "return hits or sorted("), encoding="utf-8")
    result = run_tests(broken, tmp_path, project / "tests")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "test_a_candidate_that_matches_the_question_moves_up" in result.stdout
    assert "test_runs_in_a_pipeline" in result.stdout
    assert passed(result) == 2, result.stdout  # the bad-option and entry-point tests still pass


def test_every_other_kind_generates_a_plugin_that_passes_its_own_tests(tmp_path):
    projects = [generate(tmp_path / "projects", name, kind) for kind, name in OTHERS.items()]
    site = tmp_path / "site"
    install(site, *projects)
    result = run_tests(site, tmp_path, *(p / "tests" for p in projects))
    assert result.returncode == 0, f"generated plugins' tests failed:\n{result.stdout}\n{result.stderr}"
    assert passed(result) == 4 * len(OTHERS), result.stdout


def test_every_kind_in_the_template_is_tested_here():
    choices = json.loads((TEMPLATE / "cookiecutter.json").read_text(encoding="utf-8"))["component_kind"]
    assert sorted(choices) == sorted([*FULL, *OTHERS])
    kinds_dir = TEMPLATE / "{{cookiecutter.distribution_name}}" / "{{cookiecutter.package_name}}" / "_kinds"
    assert sorted(p.stem for p in kinds_dir.glob("*.py")) == sorted(choices)


@pytest.mark.parametrize("plugin_name, problem", [
    ("1st-plugin", "is not a Python identifier"),
    ("class", "is not a Python identifier"),
    ("ok.name", "is not a Python identifier"),
])
def test_a_bad_name_stops_generation(tmp_path, capfd, plugin_name, problem):
    with pytest.raises(FailedHookException):
        generate(tmp_path, plugin_name, "reranker")
    assert problem in capfd.readouterr().err
    assert not any(tmp_path.iterdir())  # nothing was written


# -- docs/testing-your-plugin.md: every python example runs as it is ------------------------------------


# (the page's python blocks run in tests/test_docs.py::test_every_python_block_runs, with every page)


def test_the_testing_page_covers_the_kit():
    text = (ROOT / "docs" / "testing-your-plugin.md").read_text(encoding="utf-8")
    import criss_rag.testing as kit
    import criss_rag.testing.servers as servers

    named = ["plugin_host", "registered_plugin", "pipeline_from_yaml", "run_pipeline", "FAKE_PIPELINE_YAML",
             "TINY_CORPUS", "FakeLLM", "CRISS_RAG_STRICT_PLUGINS", "OpenAIStubServer", "OllamaStubServer",
             "examples/plugin-template", "cookiecutter"]
    assert not [name for name in named if name not in text]
    assert all(hasattr(kit, name) for name in named[:7])
    assert all(hasattr(servers, name) for name in ("OpenAIStubServer", "OllamaStubServer", "unused_port"))
    # every fake the fake plugin registers is in the table, with its kind's name
    host = kit.plugin_host()
    fakes = [spec.name for spec in host.registry.specs() if spec.plugin == "fake"]
    assert len(fakes) >= 16
    assert not [name for name in fakes if f"`{name}`" not in text]
