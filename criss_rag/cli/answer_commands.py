"""Answer-side commands and their output: ``ask --stream``, ``chat [--session FILE]`` and
``eval answers``.

``criss_rag.cli.commands`` keeps the command definitions of ``ask`` and ``chat`` and calls into
here; ``eval answers`` is added to the ``eval`` group from there with one line.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from criss_rag.cli.render import render_answer, render_sources
from criss_rag.errors import CrissRagError

if TYPE_CHECKING:  # criss_rag.types imports LlamaIndex: `criss-rag --help` does not need it
    from criss_rag.types import Answer, StreamEvent


def echo_stream(events: Iterable[StreamEvent], echo: Callable[..., Any] = click.echo) -> Answer:
    """Print tokens as they come, then the sources and the sentence check (or the refusal).
    A model's thinking goes to stderr, apart from the answer. When the answer policy changed the
    streamed text (a sentence dropped, a marker added), the checked answer follows.

    Returns the final answer; an error event raises its :class:`CrissRagError` (the CLI prints it)."""
    from criss_rag.types import AnswerEvent, ErrorEvent, ProgressEvent, ThinkingEvent, TokenEvent

    streamed = False
    pieces: list[str] = []
    for event in events:
        if isinstance(event, ProgressEvent):
            echo(f"[{event.step}{': ' + event.detail if event.detail else ''}]", err=True)
        elif isinstance(event, ThinkingEvent):
            echo(f"[thinking] {event.text}", err=True, nl=False)
        elif isinstance(event, TokenEvent):
            echo(event.text, nl=False)
            sys.stdout.flush()
            pieces.append(event.text)
            streamed = True
        elif isinstance(event, ErrorEvent):
            if streamed:
                echo("")
            if isinstance(event.error, CrissRagError):
                raise event.error
            raise CrissRagError(event.message)
        elif isinstance(event, AnswerEvent):
            answer = event.answer
            if streamed:
                echo("")
            if answer.refused or not streamed:
                echo(render_answer(answer))
            elif answer.dropped or any(s.attributed for s in answer.sentences):
                echo("\nChecked answer (what the evidence supports):\n" + render_answer(answer))
            else:
                echo(render_sources(answer))
            return answer
    raise CrissRagError("the answer stream ended without an answer")  # pragma: no cover - the engine always ends it


# -- chat ---------------------------------------------------------------------------------------------


def run_chat(engine: Any, session_file: Path | None, filters: dict[str, Any], stream: bool = True) -> None:
    """The ``criss-rag chat`` loop: read a message, answer it (streamed), save the session."""
    from criss_rag.answering.chat import ChatSession

    if session_file is not None and session_file.exists():
        session = ChatSession.load(session_file, engine, filters=filters)
        click.echo(f"resumed {len(session.exchanges)} turn(s) from {session_file}")
    else:
        session = ChatSession(engine, filters=filters)
    how = f"llms.{session.settings.condense_llm}" if session.settings.condense_llm else "the offline heuristic"
    click.echo(f"criss-rag chat: {engine.pipeline.config.name} ({engine.manifest.chunks} chunks); follow-ups are "
               f"condensed by {how}. Type `exit` to leave.")
    interactive = sys.stdin.isatty()
    while True:
        try:
            # piped messages: no prompt waits on the line; each message is echoed as its own line instead
            message = input("you> " if interactive else "")
        except EOFError:
            if interactive:
                click.echo()
            return
        if not interactive:
            click.echo(f"you> {message}")
        if message.strip().lower() in {"exit", "quit"}:
            return
        if not message.strip():
            continue
        try:
            if stream:
                question, *_ = session.condense(message)
                if question != message.strip():
                    click.echo(f"(asking: {question})")
                echo_stream(session.ask_stream(message))
            else:
                click.echo(render_answer(session.ask(message)))
        except CrissRagError as exc:  # one failed turn does not end the conversation
            click.echo(f"error: {exc}", err=True)
            continue
        if session_file is not None:
            session.save(session_file)


# -- eval answers --------------------------------------------------------------------------------------


def answer_record(record: dict[str, Any], answer: Answer) -> dict[str, Any]:
    """One line of ``eval answers --out``."""
    return {
        "qid": str(record.get("qid")),
        "question": str(record["question"]),
        **({"expected": record["expected"]} if "expected" in record else {}),
        "answer": answer.text,
        "refused": answer.refused,
        "reason": answer.refusal_reason,
        "detail": answer.refusal_detail,
        "generator": answer.generator,
        "citations": [c.model_dump(mode="json") for c in answer.citations],
        "sentences": [s.model_dump(mode="json") for s in answer.sentences],
        "trace": answer.trace.model_dump(mode="json"),
    }


@click.command(name="answers")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--questions", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="JSONL with qid and question (other fields, e.g. expected, are copied or ignored).")
@click.option("--corpus", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Use this corpus instead of the config's (its own index, kept up to date like any other).")
@click.option("--loader", default=None, help="Loader for --corpus (default: the one registered for its file suffix).")
@click.option("--out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Write one JSON line per question here (answer, refusal, citations, sentence support, trace).")
@click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE",
              help="Override a config value, e.g. --set refusal.min_score=0.6 (repeatable).")
@click.pass_context
def eval_answers(ctx: click.Context, config: Path, questions: Path, corpus: Path | None, loader: str | None,
                 out: Path, overrides: tuple[str, ...]) -> None:
    """Answer every question with the full pipeline; the last line is `answered=N refused=N n=N`."""
    from tqdm import tqdm

    from criss_rag.cli.context import corpus_overrides, pipeline_from
    from criss_rag.engine import Engine
    from criss_rag.evaluation.retrieval import read_questions

    overrides = overrides + corpus_overrides(ctx, config, corpus, loader)
    from criss_rag.evaluation.experiment import without_cache
    from criss_rag.pipeline import Pipeline

    pipeline = pipeline_from(ctx, config, overrides, progress=True)
    # an evaluation answers every question afresh: a cached answer would replay an earlier run
    engine = Engine.open(
        Pipeline(without_cache(pipeline.config), pipeline.host, show_progress=True), build_if_missing=True
    )
    records = list(read_questions(questions))
    reasons: Counter[str] = Counter()
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as sink:
        for record in tqdm(records, desc="questions", unit="q", file=sys.stderr, disable=not records):
            answer = engine.ask(str(record["question"]))
            if answer.refused:
                reasons[str(answer.refusal_reason)] += 1
            sink.write(json.dumps(answer_record(record, answer), ensure_ascii=False) + "\n")
    refused = sum(reasons.values())
    if reasons:
        click.echo("refusals by reason: " + ", ".join(f"{k}={v}" for k, v in sorted(reasons.items())))
    click.echo(f"answered={len(records) - refused} refused={refused} n={len(records)}")
