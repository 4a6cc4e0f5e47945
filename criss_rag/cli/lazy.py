"""A plugin command listed by ``criss-rag --help`` without importing its module.

Every ``criss-rag`` command loads every plugin, so a command module imported at registration is
paid by every other command (``crawl``'s BeautifulSoup and requests: a few tenths of a second). A
:class:`LazyCommand` carries the command's name and help text; the module is imported when the
command runs or its own ``--help`` is asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from criss_rag.errors import PluginError


class LazyCommand(click.Command):
    """Stands in for the ``click.Command`` at ``reference`` (``"module:attribute"``) in the root
    command's list; ``help`` is shown there (shortened as click shortens a command's docstring)."""

    def __init__(self, name: str, reference: str, help: str) -> None:  # noqa: A002 - click's own name
        super().__init__(name, help=help, add_help_option=False)
        self.reference = reference
        self._command: click.Command | None = None

    def command(self) -> click.Command:
        """The real command, imported on first use."""
        if self._command is None:
            module_name, _, attribute = self.reference.partition(":")
            try:
                target: Any = getattr(importlib.import_module(module_name), attribute)
            except (ImportError, AttributeError) as exc:
                raise PluginError(
                    f"command {self.name!r} is registered as {self.reference!r}, which cannot be imported "
                    f"({type(exc).__name__}: {exc}); reinstall the plugin that provides it"
                ) from None
            if not isinstance(target, click.Command):
                raise PluginError(f"command {self.name!r}: {self.reference!r} is not a click command")
            self._command = target
        return self._command

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        # the context (and so the command that is invoked) is the real command's
        return self.command().make_context(info_name, args, parent=parent, **extra)

    def get_params(self, ctx: click.Context) -> list[click.Parameter]:
        return self.command().get_params(ctx)

    def get_usage(self, ctx: click.Context) -> str:
        return self.command().get_usage(ctx)

    def get_help(self, ctx: click.Context) -> str:
        return self.command().get_help(ctx)

    def invoke(self, ctx: click.Context) -> Any:
        return self.command().invoke(ctx)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[Any]:
        return self.command().shell_complete(ctx, incomplete)
