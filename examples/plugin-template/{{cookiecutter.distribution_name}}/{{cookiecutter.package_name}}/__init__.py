"""{{ cookiecutter.description }}

The component lives in :mod:`{{ cookiecutter.package_name }}.{{ cookiecutter.component_kind }}`;
:mod:`{{ cookiecutter.package_name }}.plugin` only registers it.
"""

from {{ cookiecutter.package_name }}.{{ cookiecutter.component_kind }} import {{ cookiecutter.__class_name }}

__version__ = "{{ cookiecutter.version }}"
__all__ = ["{{ cookiecutter.__class_name }}", "__version__"]
