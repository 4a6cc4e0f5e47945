"""The ``criss-rag crawl`` command: crawl a table of contents into a review spreadsheet, or turn
a reviewed spreadsheet into a JSONL corpus (``--reviewed``)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from criss_rag.errors import DataError
from criss_rag.plugin_utils import host_from
from criss_rag_crawl.cache import PageCache, cache_path_for
from criss_rag_crawl.classify import HeuristicSettings, LlmClassifier
from criss_rag_crawl.crawler import CrawlOptions, crawl
from criss_rag_crawl.fetch import Fetcher, FetchSettings
from criss_rag_crawl.langfilter import SCRIPTS, LanguageFilter
from criss_rag_crawl.page import DEFAULT_DROP_TAGS
from criss_rag_crawl.reviewed import ReviewedPages, ReviewSettings
from criss_rag_crawl.sheet import check_sheet_path, write_sheet
from criss_rag_crawl.urls import TRACKING_PARAMS, Scope, check_web_url

CRAWL_ONLY = (
    "scope",
    "depth",
    "sitemap",
    "max_pages",
    "max_seconds",
    "drop_param",
    "min_text_chars",
    "max_link_ratio",
    "min_medical_terms",
    "config",
    "llm_key",
)
REVIEW_ONLY = ("keep_language", "keep_chars", "no_digits", "no_punctuation", "unreviewed", "offline")


def _default(model: type, name: str) -> Any:
    return model.model_fields[name].default


@click.command("crawl")
@click.argument("toc_url", required=False)
@click.option("--out", type=click.Path(path_type=Path, dir_okay=False), required=True,
              help="crawl: the spreadsheet to write (.xlsx or .csv); --reviewed: the corpus to write (.jsonl)")
@click.option("--reviewed", type=click.Path(path_type=Path, dir_okay=False),
              help="a reviewed spreadsheet: write the pages marked keep=yes to --out as a JSONL corpus")
@click.option("--scope", help="URL prefix the crawl may fetch (default: the folder of TOC_URL)")
@click.option("--user-agent", default=_default(FetchSettings, "user_agent"), show_default=True,
              help="User-Agent of every request, matched against robots.txt")
@click.option("--delay", type=click.FloatRange(min=0), default=_default(FetchSettings, "delay"), show_default=True,
              help="least seconds between two requests (a longer robots.txt Crawl-delay wins)")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=_default(FetchSettings, "timeout"),
              show_default=True, help="seconds to wait for a connection and for each read")
@click.option("--page-timeout", type=click.FloatRange(min=0, min_open=True),
              default=_default(FetchSettings, "page_timeout"), show_default=True,
              help="seconds one page may take in all (attempts, redirects, the whole body); then its row is `timeout`")
@click.option("--retries", type=click.IntRange(min=0), default=_default(FetchSettings, "retries"), show_default=True,
              help="retries after a timeout, a dropped connection, HTTP 429 or 5xx")
@click.option("--backoff", type=click.FloatRange(min=0), default=_default(FetchSettings, "backoff"), show_default=True,
              help="seconds before the first retry (doubling)")
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=_default(FetchSettings, "max_bytes"),
    show_default=True,
    help="skip pages larger than this",
)
@click.option("--max-redirects", type=click.IntRange(min=0), default=_default(FetchSettings, "max_redirects"),
              show_default=True, help="redirects followed per page")
@click.option("--depth", type=click.IntRange(min=1), default=1, show_default=True,
              help="link levels to follow, breadth-first: 1 = the table of contents' links, 2 = also the links "
              "on those pages (e.g. a section's sidebar), ...; each page once")
@click.option("--sitemap", is_flag=True, help="also queue the pages listed by the scope's sitemap.xml (level 1)")
@click.option("--max-pages", type=click.IntRange(min=0), default=500, show_default=True,
              help="fetch at most this many pages in all (every level)")
@click.option(
    "--max-seconds",
    type=click.FloatRange(min=0, min_open=True),
    default=None,
    help="the crawl's total time budget: pages not started when it runs out are `not-fetched` (default: none)",
)
@click.option("--drop-param", multiple=True, help="a further query parameter to drop when normalising links "
              "(wildcards: ref_*); repeatable; the tracking parameters are always dropped")
@click.option("--drop-tag", multiple=True, help="an HTML element whose text is left out (repeatable; default: "
              f"{', '.join(DEFAULT_DROP_TAGS)}; `--drop-tag none` keeps all)")
@click.option("--min-text-chars", type=click.IntRange(min=0), default=_default(HeuristicSettings, "min_text_chars"),
              show_default=True, help="pages with less text are non-medical")
@click.option("--max-link-ratio", type=click.FloatRange(0, 1), default=_default(HeuristicSettings, "max_link_ratio"),
              show_default=True, help="pages with at least this share of link text are non-medical")
@click.option("--min-medical-terms", type=click.IntRange(min=1),
              default=_default(HeuristicSettings, "min_medical_terms"), show_default=True,
              help="distinct lexicon terms a medical page uses at least")
@click.option("--config", type=click.Path(path_type=Path, dir_okay=False, exists=True),
              help="a pipeline YAML whose `llms:` holds the LLM named by --llm")
@click.option("--llm", "llm_key", help="classify with this LLM (a key of the --config pipeline's `llms:`)")
@click.option("--cache", type=click.Path(path_type=Path, dir_okay=False),
              help="the page cache (default: beside the spreadsheet, urls.xlsx -> urls.pages.jsonl)")
@click.option("--keep-language", multiple=True, type=click.Choice(sorted(SCRIPTS)),
              help="--reviewed: keep only this language's script (repeatable), as the Japanese system did")
@click.option("--keep-chars", default="", help="--reviewed: further characters the language filter keeps")
@click.option("--no-digits", is_flag=True, help="--reviewed: the language filter removes digits too")
@click.option("--no-punctuation", is_flag=True, help="--reviewed: the language filter removes punctuation too")
@click.option("--unreviewed", type=click.Choice(["skip", "medical"]), default="skip", show_default=True,
              help="--reviewed: rows with an empty keep cell are skipped, or taken when classified medical")
@click.option("--offline", is_flag=True, help="--reviewed: never fetch; kept pages missing from the cache are skipped")
@click.option("--quiet", is_flag=True, help="no progress bar")
@click.pass_context
def crawl_command(ctx: click.Context, toc_url: str | None, out: Path, reviewed: Path | None, **options: Any) -> None:
    """Crawl a web guideline's table of contents into a review spreadsheet, or (--reviewed) write
    the pages a reviewer kept as a JSONL corpus.

    \b
    criss-rag crawl https://example.org/guideline/toc.html --out urls.xlsx
    criss-rag crawl https://example.org/docs/ --depth 3 --out urls.xlsx
    criss-rag crawl --reviewed urls.xlsx --out corpus.jsonl --keep-language ja
    """
    if (toc_url is None) == (reviewed is None):
        raise click.UsageError(
            "give either TOC_URL (crawl) or --reviewed SHEET (write the kept pages), not both or neither"
        )
    misplaced = [name for name in (REVIEW_ONLY if reviewed is None else CRAWL_ONLY)
                 if ctx.get_parameter_source(name) == ParameterSource.COMMANDLINE]
    if misplaced:
        flag = "--" + misplaced[0].replace("_key", "").replace("_", "-")
        raise click.UsageError(f"{flag} applies to {'--reviewed' if reviewed is None else 'crawling a TOC_URL'} only")
    fetch = FetchSettings(**{k: options[k] for k in FetchSettings.model_fields})
    drop_tags = (
        tuple(t for t in options["drop_tag"] if t.lower() != "none") if options["drop_tag"] else DEFAULT_DROP_TAGS
    )
    if reviewed is not None:
        _write_reviewed(reviewed, out, fetch, drop_tags, options)
    else:
        _crawl(ctx, toc_url or "", out, fetch, drop_tags, options)


def _crawl(ctx: click.Context, toc_url: str, out: Path, fetch: FetchSettings, drop_tags: tuple[str, ...],
           options: dict[str, Any]) -> None:
    check_sheet_path(out, "--out")
    check_web_url(toc_url, "TOC_URL")
    llm = _llm_classifier(ctx, options["config"], options["llm_key"])
    crawl_options = CrawlOptions(
        heuristic=HeuristicSettings(min_text_chars=options["min_text_chars"], max_link_ratio=options["max_link_ratio"],
                                    min_medical_terms=options["min_medical_terms"]),
        drop_params=TRACKING_PARAMS + tuple(options["drop_param"]), drop_tags=drop_tags,
        max_pages=options["max_pages"], max_seconds=options["max_seconds"], depth=options["depth"],
        sitemap=options["sitemap"], llm=llm, progress=not options["quiet"],
    )
    fetcher = Fetcher(fetch, Scope.of(toc_url, options["scope"]))
    cache = PageCache(options["cache"] or cache_path_for(out))
    report = crawl(toc_url, fetcher, crawl_options, cache)
    write_sheet(out, report.rows)
    click.echo(report.summary())
    click.echo(f"wrote {out} ({len(report.rows)} rows; pages cached in {cache.path}). Next: mark the `keep` "
               f"column yes/no, then: criss-rag crawl --reviewed {out} --out corpus.jsonl")


def _llm_classifier(ctx: click.Context, config: Path | None, key: str | None) -> LlmClassifier | None:
    if key is None and config is None:
        return None
    if key is None or config is None:
        raise click.UsageError("--llm KEY and --config PIPELINE.yaml go together (the LLM is a key of its `llms:`)")
    import criss_rag

    pipeline = criss_rag.load_pipeline(config, host=host_from(ctx))
    return LlmClassifier(pipeline.llm(key, requested_by="crawl --llm"), key)


def _write_reviewed(sheet: Path, out: Path, fetch: FetchSettings, drop_tags: tuple[str, ...],
                    options: dict[str, Any]) -> None:
    if out.suffix.lower() != ".jsonl":
        raise DataError(f"--out {out}: with --reviewed the output is a JSONL corpus; name it *.jsonl")
    settings = ReviewSettings(
        unreviewed=options["unreviewed"], offline=options["offline"], drop_tags=list(drop_tags), fetch=fetch,
        language_filter=LanguageFilter(keep=list(options["keep_language"]), digits=not options["no_digits"],
                                       punctuation=not options["no_punctuation"], extra=options["keep_chars"]),
    )
    pages = ReviewedPages(sheet, settings, options["cache"], progress=not options["quiet"])
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    written = cached = 0
    try:
        with open(tmp, "w", encoding="utf-8") as handle:
            for record in pages.records():
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                written += 1
                cached += record["page_source"] == "cache"
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    _print_skipped(pages.skipped)
    click.echo(f"wrote {written} documents to {out} ({cached} from the page cache, {pages.fetched} fetched); "
               f"skipped {len(pages.skipped)} rows. Load it with `loader: {{name: jsonl, path: {out.name}}}`, "
               f"or read {sheet.name} directly with `loader: {{name: reviewed-urls, path: {sheet.name}}}`")


def _print_skipped(skipped: list[tuple[str, str]], shown: int = 3) -> None:
    """One line per skipped row; a reason shared by many rows (``not reviewed``) once, with a count."""
    by_reason: dict[str, list[str]] = {}
    for url, reason in skipped:
        by_reason.setdefault(reason, []).append(url)
    for reason, urls in by_reason.items():
        if len(urls) <= shown:
            for url in urls:
                click.echo(f"skipped {url}: {reason}", err=True)
        else:
            more = f" and {len(urls) - shown} more"
            click.echo(f"skipped {len(urls)} rows: {reason}: {', '.join(urls[:shown])}{more}", err=True)
