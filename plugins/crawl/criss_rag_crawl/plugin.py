"""The ``crawl`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_loaders(register):
    register("reviewed-urls", "criss_rag_crawl.loader:ReviewedUrlsLoader")


@hookimpl
def register_commands(cli):
    from criss_rag_crawl.cli import crawl_command

    cli.add_command(crawl_command)
