"""A loopback stub server that speaks the Ollama API (``/api/chat``, ``/api/generate``,
``/api/embed``, ``/api/embeddings``, ``/api/show``, ``/api/tags``; streaming as NDJSON)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, ClassVar

from criss_rag.testing.stub_requests import RecordedRequest, Reply, count_words, hash_vector, stream_pieces
from criss_rag.testing.stub_server import Route, StubHandler, StubServer


class OllamaStubServer(StubServer):
    """Speaks the Ollama API: ``/api/chat``, ``/api/generate``, ``/api/embed``, the older
    ``/api/embeddings``, ``/api/show``, ``/api/tags`` and ``GET /`` ("Ollama is running").

    Streaming answers are NDJSON lines, the last one with ``"done": true`` and the token counts
    (``prompt_eval_count``, ``eval_count``). ``context_length`` is what ``/api/show`` reports.
    A model ``name`` also matches ``name:latest``, as in Ollama.
    """

    def __init__(self, reply: Reply = "Stub answer about cancer.", *, context_length: int = 8192,
                 **kwargs: Any) -> None:
        self.context_length = context_length
        super().__init__(reply, **kwargs)

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("GET", "/"): lambda handler, request: handler.send_text(200, "Ollama is running"),
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/generate"): self._generate,
            ("POST", "/api/embed"): self._embed,
            ("POST", "/api/embeddings"): self._embeddings,
            ("POST", "/api/show"): self._show,
            ("GET", "/api/tags"): self._tags,
        }

    def model_known(self, model: str) -> bool:
        return self.models is None or model in self.models or model.removesuffix(":latest") in self.models

    _ERRORS: ClassVar[dict[int, str]] = {
        400: "invalid request",
        401: "unauthorized",
        403: "forbidden",
        404: 'model "{model}" not found, try pulling it first',
        429: "too many requests",
        500: "llama runner process has terminated: exit status 2",
        503: "server busy, please try again.  maximum pending requests exceeded",
    }

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        text = message if message is not None else self._ERRORS.get(status, f"HTTP {status}").format(model=model)
        return {"error": text}

    def _final(self, request: RecordedRequest, text: str) -> dict[str, Any]:
        return {"done": True, "done_reason": "stop", "total_duration": 1000, "load_duration": 100,
                "prompt_eval_count": request.prompt_tokens, "prompt_eval_duration": 100,
                "eval_count": count_words(text), "eval_duration": 800}

    def _head(self, request: RecordedRequest) -> dict[str, Any]:
        return {"model": request.model or "stub", "created_at": "2025-01-01T00:00:00Z"}

    def thinking_apart(self, request: RecordedRequest) -> str | None:
        # Ollama separates a model's thinking when the request asks for it ("think": true)
        return self.think if self.think is not None and (request.body or {}).get("think") is True else None

    def _chat(self, handler: StubHandler, request: RecordedRequest) -> None:
        self._answer_text(handler, request, lambda piece: {"message": {"role": "assistant", "content": piece}})

    def _generate(self, handler: StubHandler, request: RecordedRequest) -> None:
        self._answer_text(handler, request, lambda piece: {"response": piece})

    def _answer_text(self, handler: StubHandler, request: RecordedRequest,
                     shape: Callable[[str], dict[str, Any]]) -> None:
        text = self.reply_for(request)
        head = self._head(request)
        thinking = self.thinking_apart(request)

        def with_thinking(part: dict[str, Any], thought: str) -> dict[str, Any]:
            if thought and "message" in part:
                return {**part, "message": {**part["message"], "thinking": thought}}
            return {**part, "thinking": thought} if thought else part  # /api/generate: a top-level field

        # Ollama streams unless the request says "stream": false
        if (request.body or {}).get("stream") is False:
            handler.send_json(200, {**head, **with_thinking(shape(text), thinking or ""), **self._final(request, text)})
            return

        def lines() -> Iterator[bytes]:
            for piece in stream_pieces(thinking) if thinking else ():
                yield (json.dumps({**head, **with_thinking(shape(""), piece), "done": False}) + "\n").encode()
            for piece in stream_pieces(text):
                yield (json.dumps({**head, **shape(piece), "done": False}) + "\n").encode()
            yield (json.dumps({**head, **shape(""), **self._final(request, text)}) + "\n").encode()

        self.stream(handler, request, "application/x-ndjson", lines())

    def stream_error(self, body: Any) -> bytes:
        return (json.dumps(body) + "\n").encode()

    def _embed(self, handler: StubHandler, request: RecordedRequest) -> None:
        body = request.body or {}
        raw = body.get("input", "")
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        handler.send_json(200, {"model": body.get("model"), "embeddings": self.vectors(texts, body.get("dimensions")),
                                "total_duration": 1000, "load_duration": 100,
                                "prompt_eval_count": sum(count_words(t) for t in texts)})

    def _embeddings(self, handler: StubHandler, request: RecordedRequest) -> None:
        prompt = (request.body or {}).get("prompt", "")
        handler.send_json(200, {"embedding": hash_vector(str(prompt), self.embedding_dim)})

    def _show(self, handler: StubHandler, request: RecordedRequest) -> None:
        handler.send_json(200, {
            "modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": "llama", "parameter_size": "7B", "quantization_level": "Q4_0"},
            "model_info": {"general.architecture": "llama", "llama.context_length": self.context_length},
            "capabilities": ["completion"],
        })

    def _tags(self, handler: StubHandler, request: RecordedRequest) -> None:
        names = self.models if self.models is not None else ["stub"]
        handler.send_json(200, {"models": [
            {"name": n, "model": n, "modified_at": "2025-01-01T00:00:00Z", "size": 0, "digest": "",
             "details": {"format": "gguf", "family": "llama"}} for n in names]})
