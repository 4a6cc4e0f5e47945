"""An OpenAI-compatible face for the served pipeline: ``POST /v1/chat/completions`` (streaming and
not) and ``GET /v1/models``, so chat clients and libraries written for OpenAI's API talk to a
criss_rag pipeline as if it were a model.

- The pipeline is the one model: its id is the config's ``name`` (``GET /v1/models``).
- ``messages``: the last one is the question (role ``user``); earlier ``user``/``assistant`` turns are
  the conversation, so a follow-up is condensed into a standalone question as in ``/chat``.
  ``system`` messages are ignored: the pipeline's own prompts decide how it answers.
- ``choices[0].message.content`` is the answer text (or the refusal message) with its citation
  markers numbered 1..n as they first appear, followed by a numbered "Sources:" block (a readable
  title and the web address of each source; :mod:`criss_rag_serve.sources`), so a chat tool that
  shows only ``content`` shows where the answer comes from. ``--no-sources-in-content`` (or
  ``criss_rag: {"sources_in_content": false}`` in a request) leaves the block out. The extra field
  ``sources`` lists the same sources as data (``number`` as shown, ``evidence`` the Answer's
  citation number, ``title``, ``url``, ``doc_id``); ``criss_rag`` is the whole
  :class:`~criss_rag.types.Answer` as ``/ask`` returns it (``refused``, ``refusal_reason``,
  ``citations``, ``sentences``, ``context``, ``trace``; its numbers are the evidence numbers). A
  refusal also sets ``message.refusal``. In a stream, ``sources`` and ``criss_rag`` come with the
  last chunk and the content (answer, then block) is the same as without streaming.
- ``POST /v1/completions`` (the legacy text completion, which LlamaIndex's ``OpenAILike`` calls
  unless ``is_chat_model=True``) answers 404 naming ``/v1/chat/completions`` and that setting.
- A stream sends the role at once, then the answer **after** its citation check (a stream cannot
  take back text a client has shown, and an answer whose citations do not check out is withheld),
  cut at word boundaries; keep-alive comments flow while the pipeline works.
- Sampling fields (``temperature``, ``max_tokens``, ...) are accepted and ignored: the pipeline's
  config sets them. ``n`` must be 1. Request filters go in ``criss_rag: {"filters": {...}}``
  (``extra_body`` in the ``openai`` client).
- The bearer token of the server applies, as on every other endpoint.
"""

# no `from __future__ import annotations`: FastAPI reads the request models from the live annotations
import json
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from sse_starlette.sse import EventSourceResponse

from criss_rag import ChatSession, Engine
from criss_rag.plugin_utils import Exchange
from criss_rag.types import Answer, Trace
from criss_rag_serve.jobs import ApiError, run_job
from criss_rag_serve.schemas import FilterValue
from criss_rag_serve.settings import ServeSettings
from criss_rag_serve.sources import ShownSource, shown_answer, sources_block, without_sources_block

#: the ``owned_by`` of the model ``GET /v1/models`` lists
OWNER = "criss_rag"
#: where a stream cuts the checked answer: before each word that follows white space
_WORDS = re.compile(r"(?<=\s)(?=\S)")


class TextPart(BaseModel):
    model_config = ConfigDict(extra="allow")
    type: str
    text: str = ""


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: Literal["system", "developer", "user", "assistant", "tool", "function"]
    content: str | list[TextPart] | None = None

    def text(self) -> str:
        if isinstance(self.content, list):
            return "".join(part.text for part in self.content if part.type == "text")
        return self.content or ""


class Extra(BaseModel):
    model_config = ConfigDict(extra="forbid")
    filters: dict[str, FilterValue] = Field(default_factory=dict, max_length=20)
    sources_in_content: bool | None = None  # None: the server's --sources-in-content


class CompletionRequest(BaseModel):
    """The fields criss_rag reads; any other field of OpenAI's request is accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    model: str = Field(max_length=200)
    messages: list[Message] = Field(min_length=1, max_length=200)
    stream: bool = False
    n: int = 1
    criss_rag: Extra = Field(default_factory=Extra)


def served_model(engine: Engine) -> str:
    return engine.pipeline.config.name


def add_openai_routes(
    app: FastAPI,
    current: Callable[[], Engine],
    executor: ThreadPoolExecutor,
    settings: ServeSettings,
    dependencies: list[Any],
    request_id: Callable[[Request], str],
) -> None:
    """Add ``/v1/models`` and ``/v1/chat/completions`` to ``app`` (same token, workers and deadline);
    ``current()`` gives the engine a request answers with, from start to end."""
    model = served_model(current())

    @app.get("/v1/models", dependencies=dependencies, tags=["openai"])
    async def models() -> dict[str, Any]:
        """The served pipeline, as OpenAI's model list."""
        return {"object": "list", "data": [{"id": model, "object": "model", "created": 0, "owned_by": OWNER}]}

    @app.post("/v1/chat/completions", dependencies=dependencies, tags=["openai"], response_model=None)
    async def completions(body: CompletionRequest, request: Request) -> Any:
        """OpenAI's chat completion: the answer in choices[0].message.content, the whole Answer in
        `criss_rag`; with `stream: true`, chunks as server-sent events ending in `[DONE]`."""
        session, question = _session(current(), body, model, settings)
        rid = request_id(request)
        completion_id = f"chatcmpl-{secrets.token_hex(12)}"
        created = int(time.time())
        with_block = (settings.sources_in_content if body.criss_rag.sources_in_content is None
                      else body.criss_rag.sources_in_content)
        if not body.stream:
            answer = await run_job(executor, lambda: session.ask(question), settings.timeout_s, rid)
            return JSONResponse(_completion(answer, completion_id, created, model, with_block))
        return EventSourceResponse(_chunks(executor, session, question, settings.timeout_s, rid,
                                           completion_id, created, model, with_block), ping=5)

    @app.api_route("/v1/completions", methods=["GET", "POST"], dependencies=dependencies, tags=["openai"],
                   include_in_schema=False)
    async def text_completions() -> Any:
        raise ApiError(404, "not_found", "this server answers chat completions only: POST /v1/chat/completions. "
                                         "With LlamaIndex use OpenAILike(..., is_chat_model=True); its default "
                                         "(is_chat_model=False) calls /v1/completions")


def _session(engine: Engine, body: CompletionRequest, model: str, settings: ServeSettings) -> tuple[ChatSession, str]:
    """A chat session holding the earlier turns of ``messages``, and the question (the last message)."""
    if body.model != model:
        raise ApiError(404, "model_not_found", f"this server serves one model, {model!r} (see GET /v1/models); "
                                               f"the request asked for {body.model!r}")
    if body.n != 1:
        raise ApiError(422, "invalid_request", "n: only one choice per request (n=1) is supported")
    turns = [m for m in body.messages if m.role in ("user", "assistant")]
    if not turns or turns[-1].role != "user" or body.messages[-1].role != "user":
        raise ApiError(422, "invalid_request", "messages: the last message must be the user's question")
    question = turns[-1].text()
    if not question.strip():
        raise ApiError(422, "invalid_request", "messages: the question is empty")
    if len(question) > settings.max_question_chars:
        raise ApiError(422, "invalid_request", f"messages: the question is longer than {settings.max_question_chars} "
                                               "characters")
    exchanges: list[Exchange] = []
    pending: str | None = None
    for turn in turns[:-1]:
        if turn.role == "user":
            pending = turn.text()
        elif pending is not None:  # an assistant reply to the user turn before it
            previous = Answer(
                question=pending, text=without_sources_block(turn.text()), trace=Trace(config_hash=engine.config_hash)
            )
            exchanges.append(Exchange(message=pending, question=pending, answer=previous))
            pending = None
    return ChatSession(engine, filters=dict(body.criss_rag.filters), exchanges=exchanges), question


def _content(answer: Answer, with_block: bool) -> tuple[str, list[ShownSource]]:
    """The shown text (markers renumbered 1..n) with the sources block when ``with_block``."""
    text, sources = shown_answer(answer)
    return (text + sources_block(sources, answer.text) if with_block else text), sources


def _message(answer: Answer, content: str) -> dict[str, Any]:
    return {"role": "assistant", "content": content, "refusal": answer.text if answer.refused else None}


def _usage(answer: Answer) -> dict[str, int] | None:
    """Token counts when the generator reported them (an extractive answer has none)."""
    stage = answer.trace.stage("generate")
    notes = stage.notes if stage else {}
    prompt, completion = notes.get("usage_prompt_tokens"), notes.get("usage_completion_tokens")
    if not isinstance(prompt, int) or not isinstance(completion, int):
        return None
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _completion(answer: Answer, completion_id: str, created: int, model: str, with_block: bool) -> dict[str, Any]:
    content, sources = _content(answer, with_block)
    body: dict[str, Any] = {
        "id": completion_id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": _message(answer, content), "finish_reason": "stop", "logprobs": None}],
        "sources": [s.as_dict() for s in sources], "criss_rag": answer.model_dump(mode="json"),
    }
    usage = _usage(answer)
    if usage is not None:
        body["usage"] = usage
    return body


def _chunk(completion_id: str, created: int, model: str, delta: dict[str, Any], finish: str | None = None,
           **extra: Any) -> dict[str, str]:
    payload = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}], **extra}
    return {"data": json.dumps(payload, ensure_ascii=False)}


async def _chunks(executor: ThreadPoolExecutor, session: ChatSession, question: str, timeout_s: float, rid: str,
                  completion_id: str, created: int, model: str, with_block: bool) -> AsyncIterator[dict[str, str]]:
    yield _chunk(completion_id, created, model, {"role": "assistant", "content": ""})
    try:
        answer = await run_job(executor, lambda: session.ask(question), timeout_s, rid)
    except ApiError as error:
        yield {"data": json.dumps({"error": {"code": error.code, "message": error.message, "request_id": rid}},
                                  ensure_ascii=False)}
        return
    content, sources = _content(answer, with_block)
    for piece in _WORDS.split(content):  # "".join(pieces) == content, as without streaming
        if piece:
            yield _chunk(completion_id, created, model, {"content": piece})
    extra: dict[str, Any] = {"sources": [s.as_dict() for s in sources], "criss_rag": answer.model_dump(mode="json")}
    usage = _usage(answer)
    if usage is not None:
        extra["usage"] = usage
    yield _chunk(completion_id, created, model, {"refusal": answer.text} if answer.refused else {}, "stop", **extra)
    yield {"data": "[DONE]"}
