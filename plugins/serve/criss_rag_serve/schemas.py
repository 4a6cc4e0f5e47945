"""Request and response bodies of the HTTP API (pydantic: validated, and published in OpenAPI)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

from criss_rag.types import Answer

FilterValue = str | int | float | bool | list[str | int]
_FILTER_KEY = r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"


class AskBase(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: str
    filters: dict[str, FilterValue] = Field(
        default_factory=dict, max_length=20,
        description="request filters the pipeline's filter components read, e.g. "
                    '{"cancer_type": "breast", "diagnosis_year": 2018}')

    @field_validator("question")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the question is empty")
        return value

    @field_validator("filters")
    @classmethod
    def _keys(cls, value: dict[str, Any]) -> dict[str, Any]:
        import re

        bad = [key for key in value if not re.match(_FILTER_KEY, key)]
        if bad:
            raise ValueError(f"filter key {bad[0]!r} is not a name (letters, digits, _ . -; up to 64)")
        return value


class ChatBase(AskBase):
    session_id: str | None = Field(None, max_length=64,
                                   description="the conversation to continue; omit it to start a new one")


def request_models(max_question_chars: int) -> tuple[type[AskBase], type[ChatBase]]:
    """The request bodies with this server's question length limit (it shows in OpenAPI)."""
    question = (str, Field(min_length=1, max_length=max_question_chars, description="the question"))
    ask = create_model("AskRequest", __base__=AskBase, question=question)
    chat = create_model("ChatRequest", __base__=ChatBase, question=question)
    return ask, chat


class ChatResponse(BaseModel):
    session_id: str = Field(description="send it with the next message to continue the conversation")
    turn: int = Field(description="1 for the first message of the session")
    answer: Answer


class ErrorBody(BaseModel):
    code: str = Field(description="machine-readable: invalid_request, unauthorized, not_found, session_busy, "
                                  "request_too_large, timeout, pipeline_error, internal_error, ...")
    message: str = Field(description="what went wrong and what to do")
    request_id: str = ""
    details: list[dict[str, Any]] = Field(default_factory=list, description="per-field problems of an invalid request")


class ErrorResponse(BaseModel):
    error: ErrorBody


class Health(BaseModel):
    status: str
    index_loaded: bool
    pipeline: str
    config_hash: str
    index_key: str
    corpus_version: str
    documents: int
    chunks: int
    components: dict[str, Any]
    cache: str | None
    sessions: int
    warm_up_s: dict[str, float] = Field(default_factory=dict, description="seconds each stage took to start before "
                                        "the server began listening (models loaded then, not on the first question)")
    index_version: str = Field("", description="the index version folder new requests are answered from")
    index_version_on_disk: str | None = Field(None, description="the version the index points at now (after a "
                                              "re-ingest: the next one, until it is loaded)")
    reload: str = Field("current", description="current | loading | pending | failed | restart needed (--no-reload)")
    reload_error: str | None = Field(None, description="why the newest version did not open (the old one still serves)")
    reloads: int = Field(0, description="versions loaded since the server started")
    in_flight: int = Field(0, description="answers being worked on now, in worker threads (a client that went away "
                                          "mid-answer stops its worker at the next event)")
    answer_threads: int = Field(0, description="worker threads alive (at most --workers)")
