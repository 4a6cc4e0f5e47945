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

# The body is the template's working example of the kind, whatever the component is called: say so
EXAMPLE = {"reranker": "boosts candidates sharing the question's words, option `weight`",
           "filter": "drops candidates shorter than `min_chars`",
           "retriever": "scores chunks by the question's words, option `min_word_length`",
           "query_transform": "appends synonyms from a table, option `max_added`",
           "refusal": "refuses with fewer than `min_hits` candidates",
           "context": "numbers the best candidates, option `max_evidence`",
           "generator": "quotes the first sentence of each passage, option `max_quotes`"}
print(f"Created {{ cookiecutter.distribution_name }}: {PACKAGE / (KIND + '.py')} holds a working example {KIND} "
      f"({EXAMPLE.get(KIND, 'see its docstring')}), and tests/test_{{ cookiecutter.plugin_slug }}.py its tests. "
      f"Replace the body and its Params with what `{{ cookiecutter.component_name }}` does, then adapt the tests.")
