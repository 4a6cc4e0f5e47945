"""The installed distribution is found through its `criss_rag` entry point, like any plugin.

This needs the plugin installed (``pip install -e .``); run it with CRISS_RAG_STRICT_PLUGINS=1 in CI.
"""

from criss_rag import PluginHost


def test_the_plugin_is_found_through_its_entry_point():
    # only=...: load just this plugin from the installed entry points (strict: any failure raises)
    host = PluginHost(strict=True, only=["{{ cookiecutter.plugin_slug }}"])
    info = host.plugins["{{ cookiecutter.plugin_slug }}"]
    assert info.components == {"{{ cookiecutter.component_kind }}": ["{{ cookiecutter.component_name }}"]}
    assert info.hooks == ["{{ cookiecutter.__hook }}"]
    spec = host.registry.get("{{ cookiecutter.component_kind }}", "{{ cookiecutter.component_name }}")
    assert spec.plugin == "{{ cookiecutter.plugin_slug }}"
    assert spec.summary  # the first docstring line of the component class
