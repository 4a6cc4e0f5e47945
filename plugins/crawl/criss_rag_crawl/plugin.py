"""The ``crawl`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_loaders(register):
    register("reviewed-urls", "criss_rag_crawl.loader:ReviewedUrlsLoader")


#: `criss-rag crawl`'s help, as its docstring says it (a test checks they agree)
CRAWL_HELP = (
    "Crawl a web guideline's table of contents into a review spreadsheet, or (--reviewed) write the pages "
    "a reviewer kept as a JSONL corpus."
)


@hookimpl
def register_commands(cli):
    from criss_rag.plugin_utils import LazyCommand

    # the command's module imports BeautifulSoup and requests: only `criss-rag crawl` needs them
    cli.add_command(LazyCommand("crawl", "criss_rag_crawl.cli:crawl_command", help=CRAWL_HELP))
