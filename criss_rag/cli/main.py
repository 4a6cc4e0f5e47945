"""Entry point: builds the plugin host, adds plugin commands, runs click, prints errors plainly."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from criss_rag.errors import CrissRagError
from criss_rag.plugins import PluginHost
from criss_rag.version import __version__

DEBUG_ENV = "CRISS_RAG_DEBUG"


class UserError(click.ClickException):
    """A :class:`CrissRagError` shown as a message (exit status 2), never a traceback."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"error: {self.message}", err=True)


class CrissGroup(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CrissRagError as exc:
            raise UserError(str(exc)) from None
        except (click.ClickException, click.exceptions.Exit, click.Abort, KeyboardInterrupt):
            raise
        except Exception as exc:
            if os.environ.get(DEBUG_ENV):
                raise
            raise UserError(
                f"internal error: {type(exc).__name__}: {exc}\n"
                f"This is a bug; please report it. Set {DEBUG_ENV}=1 to see the traceback."
            ) from None


def new_root() -> click.Group:
    """A fresh root command (no module-level group is ever mutated by plugins)."""

    @click.group(cls=CrissGroup, context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name="criss-rag")
    @click.pass_context
    def cli(ctx: click.Context) -> None:
        """criss_rag: evidence-grounded cancer-information chatbots built from plugins.

        Pipelines are YAML files naming registered components; `criss-rag plugins` lists them.
        """
        ctx.ensure_object(dict)

    return cli


def build_cli(host: PluginHost) -> click.Group:
    """The root command: the core commands plus every plugin's commands."""
    from criss_rag.cli.commands import CORE_COMMANDS

    cli = new_root()
    for command in CORE_COMMANDS:
        cli.add_command(command)
    for impl in host.pm.hook.register_commands.get_hookimpls():
        try:
            impl.function(cli=cli)
            host._trace(f"{impl.plugin_name}.register_commands: called")
        except Exception as exc:  # a plugin's broken command must not take the CLI down
            if host.strict:
                raise
            click.echo(f"warning: plugin {impl.plugin_name!r} failed to add commands: {exc}", err=True)
    if host.strict:  # strict mode imports every reference at load, a lazily imported command's too
        from criss_rag.cli.lazy import LazyCommand

        for command in cli.commands.values():
            if isinstance(command, LazyCommand):
                command.command()
    return cli


def main(argv: list[str] | None = None) -> None:
    try:
        host = PluginHost()
    except CrissRagError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    host.report_failures(lambda line: click.echo(line, err=True))
    build_cli(host).main(args=argv, prog_name="criss-rag", obj={"host": host})
