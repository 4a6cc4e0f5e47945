"""Checks the answers before anything is written: the names must work as Python identifiers, as a
YAML component name and as a distribution name. (Free text such as the author is escaped where
pyproject.toml quotes it.)"""

import keyword
import re
import sys

answers = {
    "plugin_slug": "{{ cookiecutter.plugin_slug }}",
    "package_name": "{{ cookiecutter.package_name }}",
    "component_name": "{{ cookiecutter.component_name }}",
    "distribution_name": "{{ cookiecutter.distribution_name }}",
    "class_name": "{{ cookiecutter.__class_name }}",
}
problems = []
for key in ("plugin_slug", "package_name", "class_name"):
    value = answers[key]
    if not value.isidentifier() or keyword.iskeyword(value):
        problems.append(f"{key} {value!r} is not a Python identifier (use letters, digits and _ only)")
if not re.fullmatch(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*", answers["component_name"]):
    problems.append(
        f"component_name {answers['component_name']!r} should be lower-case words joined by '-', e.g. title-boost"
    )
if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", answers["distribution_name"]):
    problems.append(f"distribution_name {answers['distribution_name']!r} is not a valid distribution name")
if problems:
    print("criss_rag plugin template: " + "; ".join(problems), file=sys.stderr)
    sys.exit(1)
