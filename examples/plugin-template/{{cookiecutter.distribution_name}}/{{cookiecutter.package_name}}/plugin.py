"""The `{{ cookiecutter.plugin_slug }}` plugin: registration only (the entry point names this module).

Hooks only register; criss_rag calls the component directly for every question.
"""

from __future__ import annotations

from criss_rag import hookimpl

from {{ cookiecutter.package_name }}.{{ cookiecutter.component_kind }} import {{ cookiecutter.__class_name }}


@hookimpl
def {{ cookiecutter.__hook }}(register):
    register("{{ cookiecutter.component_name }}", {{ cookiecutter.__class_name }})
