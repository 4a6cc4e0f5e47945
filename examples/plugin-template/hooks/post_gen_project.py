"""Keeps only the chosen kind's component and tests: ``_kinds/<kind>.py`` becomes
``<package>/<kind>.py`` and ``tests/test_<slug>.py``; the other kinds are removed."""

import shutil
from pathlib import Path

KIND = "{{ cookiecutter.component_kind }}"
PACKAGE = Path("{{ cookiecutter.package_name }}")
TESTS = Path("tests")

(PACKAGE / "_kinds" / f"{KIND}.py").replace(PACKAGE / f"{KIND}.py")
shutil.rmtree(PACKAGE / "_kinds")
(TESTS / "_kinds" / f"{KIND}.py").replace(TESTS / "test_{{ cookiecutter.plugin_slug }}.py")
shutil.rmtree(TESTS / "_kinds")
