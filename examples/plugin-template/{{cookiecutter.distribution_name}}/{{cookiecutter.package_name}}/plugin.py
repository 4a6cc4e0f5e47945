"""The `{{ cookiecutter.plugin_slug }}` plugin: registration only (the entry point names this module).

Hooks only register; criss_rag calls the component directly for every question. The component is
registered by its "module:Class" reference: criss_rag imports it the first time a pipeline names it,
so that loading the plugin keeps every `criss-rag` command quick.
"""

from __future__ import annotations

from criss_rag import hookimpl

@hookimpl
def {{ cookiecutter.__hook }}(register):
    register("{{ cookiecutter.component_name }}", "{{ cookiecutter.package_name }}.{{ cookiecutter.component_kind }}:{{ cookiecutter.__class_name }}")
