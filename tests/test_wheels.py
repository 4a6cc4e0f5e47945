"""criss_rag and every bundled plugin build as wheels that hold all their files, and a plugin
generated from the template installs into a fresh virtual environment from those wheels and passes
its own tests there, as a third party outside this repository would do it.

The wheels are built offline with ``pip wheel --no-deps --no-build-isolation`` (setuptools from the
test's venv) from a copy of the sources, so no ``build/`` or ``*.egg-info`` folder is left in the
repository and no stale ``build/lib`` file can slip into a wheel.

The fresh venv gets criss-rag and the plugin from the built wheels (``--find-links``; criss-rag is
on no package index, so the plugin's ``criss-rag>=0.1,<0.2`` must be met by the built wheel) and
their third-party dependencies (llama-index-core, pydantic, pytest, ...) from the configured pip
index (PyPI), through pip's cache: about 80 s the first time on a 2-core machine, less after. It
is not built over the project's venv: ``venv --system-site-packages`` exposes the base
interpreter's site-packages, not the project venv's, and a path to the project venv would expose
its editable criss-rag too, so the test would no longer show that the wheels are enough.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from test_plugin_template import generate

ROOT = Path(__file__).resolve().parents[1]
PROJECTS = {"criss-rag": ROOT, **{f"criss-rag-{p.parent.name}": p.parent
                                  for p in sorted((ROOT / "plugins").glob("*/pyproject.toml"))}}
JUNK = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".criss_rag", ".pytest_cache")
PIP_NOISE = "is ignored: it is neither a file nor a directory"  # a machine's pip.conf naming absent folders

pytestmark = pytest.mark.slow


def pip(python: Path | str, *args: str, timeout: int = 600) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV"}}
    result = subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", *args], env=env,
                            capture_output=True, text=True, timeout=timeout, check=False)
    result.stderr = "\n".join(line for line in result.stderr.splitlines() if PIP_NOISE not in line)
    return result


def package_dirs(project: Path) -> list[Path]:
    """The import packages a project's wheel must hold: its top-level folders with an ``__init__.py``."""
    return sorted(p.parent for p in project.glob("*/__init__.py") if p.parent.name != "tests")


def source_copy(name: str, project: Path, into: Path) -> Path:
    """The files a wheel is built from: pyproject.toml, README.md and the package folders."""
    target = into / name
    target.mkdir(parents=True)
    for file in ("pyproject.toml", "README.md"):
        if (project / file).is_file():
            shutil.copy2(project / file, target / file)
    for package in package_dirs(project):
        shutil.copytree(package, target / package.name, ignore=JUNK)
    return target


def wheel_metadata(wheel: Path) -> dict:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        message = Parser().parsestr(archive.read(metadata).decode("utf-8"))
    return {"name": message["Name"], "version": message["Version"], "files": set(names),
            "requires": [Requirement(r) for r in message.get_all("Requires-Dist") or []]}


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every project built into one folder of wheels, with each wheel's metadata by project name."""
    base = tmp_path_factory.mktemp("wheels")
    sources = [source_copy(name, project, base / "src") for name, project in PROJECTS.items()]
    dist = base / "dist"
    result = pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
                 "--wheel-dir", str(dist), *map(str, sources))
    assert result.returncode == 0, f"pip wheel failed:\n{result.stdout}\n{result.stderr}"
    wheels = {canonicalize_name(meta["name"]): meta | {"path": w}
              for w in sorted(dist.glob("*.whl")) if (meta := wheel_metadata(w))}
    return {"base": base, "dist": dist, "wheels": wheels}


def test_criss_rag_and_every_bundled_plugin_build_a_wheel_with_all_their_files(wheelhouse):
    wheels = wheelhouse["wheels"]
    assert sorted(wheels) == sorted(PROJECTS), "one wheel per project, named after its distribution"
    missing = []
    for name, project in PROJECTS.items():
        packages = package_dirs(project)
        assert packages, f"{name}: no package folder found in {project}"
        expected = {str(f.relative_to(project)).replace(os.sep, "/") for package in packages
                    for f in package.rglob("*") if f.is_file() and "__pycache__" not in f.parts}
        missing += [f"{name}: {f}" for f in sorted(expected - wheels[name]["files"])]
    assert not missing, "files of a package folder absent from its wheel (package-data?):\n" + "\n".join(missing)


def test_every_criss_rag_requirement_of_a_wheel_is_met_by_the_built_wheels(wheelhouse):
    wheels = wheelhouse["wheels"]
    unmet = [f"{name} requires {req}, built {wheels.get(canonicalize_name(req.name), {}).get('version')}"
             for name, meta in wheels.items() for req in meta["requires"]
             if canonicalize_name(req.name).startswith("criss-rag") and not req.marker
             and not (canonicalize_name(req.name) in wheels
                      and req.specifier.contains(wheels[canonicalize_name(req.name)]["version"]))]
    assert not unmet, "\n".join(unmet)
    assert all(any(canonicalize_name(r.name) == "criss-rag" for r in meta["requires"])
               for name, meta in wheels.items() if name != "criss-rag")


def test_a_template_plugin_installs_into_a_fresh_venv_from_the_wheels_and_passes_its_tests(wheelhouse, tmp_path):
    project = generate(tmp_path / "projects", "readability", "reranker")
    dist = wheelhouse["dist"]
    built = pip(sys.executable, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "--quiet",
                "--wheel-dir", str(tmp_path / "plugin-dist"), str(project))
    assert built.returncode == 0, f"pip wheel of the generated plugin failed:\n{built.stdout}\n{built.stderr}"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, capture_output=True, timeout=300)
    python = venv / "bin" / "python"
    # only the plugin is named: pip must find criss-rag itself, through the plugin's requirement
    installed = pip(
        python,
        "install",
        "--quiet",
        "--find-links",
        str(dist),
        "--find-links",
        str(tmp_path / "plugin-dist"),
        "criss-rag-readability[test]",
    )
    assert installed.returncode == 0, (
        f"pip install from the wheels failed (the dependencies come from the pip "
        f"index, PyPI):\n{installed.stdout}\n{installed.stderr}"
    )
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "CRISS_RAG_LOAD_PLUGINS", "VIRTUAL_ENV"}}
    env.update(CRISS_RAG_STRICT_PLUGINS="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    where = subprocess.run(
        [
            str(python),
            "-c",
            (
                "import importlib.metadata as m, criss_rag, criss_rag_readability; "
                "print(m.version('criss-rag')); print(criss_rag.__file__); print(criss_rag_readability.__file__)"
            ),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert where.returncode == 0, where.stderr
    version, core_file, plugin_file = where.stdout.split()
    assert version == wheelhouse["wheels"]["criss-rag"]["version"]
    assert Path(core_file).is_relative_to(venv) and Path(plugin_file).is_relative_to(venv), where.stdout
    # run from outside the project folder, so the tests import the installed plugin, not its sources
    tests = subprocess.run(
        [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", str(project / "tests")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert tests.returncode == 0, f"the plugin's tests failed in the fresh venv:\n{tests.stdout}\n{tests.stderr}"
    assert "4 passed" in tests.stdout, tests.stdout  # unit, pipeline, bad option, entry point
