"""A loopback stub server that speaks the OpenAI API under ``/v1`` (chat completions, completions,
embeddings, models; streaming as server-sent events)."""

from __future__ import annotations

import base64
import json
import struct
from collections.abc import Iterator
from typing import Any, ClassVar

from criss_rag.testing.stub_requests import RecordedRequest, count_words, stream_pieces
from criss_rag.testing.stub_server import Route, StubHandler, StubServer


class OpenAIStubServer(StubServer):
    """Speaks the OpenAI API under ``/v1``: chat completions, completions, embeddings, models.

    ``base_url`` (``http://127.0.0.1:<port>/v1``) is what an OpenAI client takes as ``api_base``.
    Streaming answers are ``text/event-stream`` chunks of ``data: {...}`` ending with
    ``data: [DONE]``; ``stream_options.include_usage`` adds the usage chunk. Embeddings honour
    ``dimensions`` and ``encoding_format: base64`` (what the openai SDK asks for by default).
    """

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/v1/completions"): self._completions,
            ("POST", "/v1/embeddings"): self._embeddings,
            ("GET", "/v1/models"): self._list_models,
        }

    _ERRORS: ClassVar[dict[int, tuple[str, str, str | None]]] = {
        400: ("Invalid request.", "invalid_request_error", None),
        401: ("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
              "invalid_request_error", "invalid_api_key"),
        403: ("You are not allowed to sample from this model.", "invalid_request_error", "model_not_allowed"),
        404: ("The model `{model}` does not exist or you do not have access to it.", "invalid_request_error",
              "model_not_found"),
        429: ("Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded"),
        500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
        502: ("Bad gateway.", "server_error", None),
        503: ("The server is overloaded or not ready yet.", "server_error", None),
    }

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        default, kind, code = self._ERRORS.get(status, (f"HTTP {status}", "server_error" if status >= 500 else
                                                        "invalid_request_error", None))
        text = message if message is not None else default.format(model=model)
        return {"error": {"message": text, "type": kind, "param": None, "code": code}}

    def _usage(self, request: RecordedRequest, text: str) -> dict[str, int]:
        prompt, completion = request.prompt_tokens, count_words(text)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _chat(self, handler: StubHandler, request: RecordedRequest) -> None:
        self._generate(handler, request, chat=True)

    def _completions(self, handler: StubHandler, request: RecordedRequest) -> None:
        self._generate(handler, request, chat=False)

    def _generate(self, handler: StubHandler, request: RecordedRequest, *, chat: bool) -> None:
        body = request.body or {}
        text = self.reply_for(request)
        model = body.get("model", "stub-model")
        head = {"id": "stub-1", "object": "chat.completion" if chat else "text_completion", "created": 0,
                "model": model}
        usage = self._usage(request, text)
        thinking = self.thinking_apart(request) if chat else None
        if not body.get("stream"):
            choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
                if thinking is not None:
                    choice["message"]["reasoning_content"] = thinking
            else:
                choice["text"] = text
            handler.send_json(200, {**head, "choices": [choice], "usage": usage})
            return
        head["object"] = "chat.completion.chunk" if chat else "text_completion"
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def events() -> Iterator[bytes]:
            for piece in stream_pieces(thinking) if thinking else ():
                yield _sse(
                    {**head, "choices": [{"index": 0, "delta": {"reasoning_content": piece}, "finish_reason": None}]}
                )
            for i, piece in enumerate(stream_pieces(text)):
                if self.keep_alive_every and i % self.keep_alive_every == 0:
                    yield b": keep-alive\n\n"
                if chat:
                    delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                    choice = {"index": 0, "delta": delta, "finish_reason": None}
                else:
                    choice = {"index": 0, "text": piece, "finish_reason": None}
                yield _sse({**head, "choices": [choice]})
            last = {"index": 0, "delta": {}, "finish_reason": "stop"} if chat else \
                {"index": 0, "text": "", "finish_reason": "stop"}
            yield _sse({**head, "choices": [last]})
            if include_usage:
                yield _sse({**head, "choices": [], "usage": usage})
            yield b"data: [DONE]\n\n"

        self.stream(handler, request, "text/event-stream", events())

    def stream_error(self, body: Any) -> bytes:
        return _sse(body)

    def _embeddings(self, handler: StubHandler, request: RecordedRequest) -> None:
        body = request.body or {}
        raw = body.get("input", "")
        if isinstance(raw, str):
            texts = [raw]
        elif raw and all(isinstance(t, int) for t in raw):
            texts = [" ".join(map(str, raw))]  # one input given as token ids
        else:
            texts = [t if isinstance(t, str) else " ".join(map(str, t)) for t in raw]
        vectors = self.vectors(texts, body.get("dimensions"))
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": i,
             "embedding": base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode("ascii") if as_base64 else v}
            for i, v in enumerate(vectors)
        ]
        tokens = sum(count_words(t) for t in texts)
        handler.send_json(200, {"object": "list", "data": data, "model": body.get("model", "stub-embedding"),
                                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _list_models(self, handler: StubHandler, request: RecordedRequest) -> None:
        names = self.models if self.models is not None else ["stub-model"]
        handler.send_json(200, {"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "stub"} for name in names]})


def _sse(payload: Any) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()
