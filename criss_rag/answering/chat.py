"""Multi-turn chat: a session keeps the conversation, turns a follow-up ("and how is it treated?")
into a standalone question before retrieval, and answers every turn with citations.

- **Memory** is bounded by tokens (cl100k, counted offline): the newest turns that fit in
  ``memory_tokens`` are kept for condensing and are passed to the generator as ``Query.history``.
- **Condensing** uses the LLM that the config's ``chat: {condense_llm: KEY}`` names, or else an
  offline heuristic that carries the earlier turn's cancer (its topic) into the follow-up.
- The standalone question is what the engine answers; the trace's first stage, ``condense``,
  records the message as typed, the question asked and how it was made.
- A session is saved to and resumed from a JSON file (:meth:`ChatSession.save`, :meth:`ChatSession.load`).

Example::

    session = ChatSession(engine)
    session.ask("How is liver cancer diagnosed?")
    answer = session.ask("And how is it treated?")   # asks "How is liver cancer treated?"
    session.save("session.json")
"""

from __future__ import annotations

import json
import os
import re
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError

from criss_rag.config.model import ChatSettings
from criss_rag.errors import DataError
from criss_rag.language.chinese_script import chinese_script
from criss_rag.language.text import detect_language
from criss_rag.lexicon.cancer_names import EN_HEAD, cjk_head_pattern
from criss_rag.types import Answer, AnswerEvent, ChatTurn, StageTrace, StreamEvent

SESSION_FORMAT = "criss_rag.chat/1"


class Answers(Protocol):
    """What a session needs of its engine (:class:`criss_rag.engine.Engine` is the implementation;
    ``Engine.chat()`` makes a session, so this module does not import the engine back)."""

    pipeline: Any
    config_hash: str

    def ask(self, question: str, *, filters: Mapping[str, Any] | None = None,
            history: Iterable[ChatTurn] = ()) -> Answer: ...

    def ask_stream(self, question: str, *, filters: Mapping[str, Any] | None = None,
                   history: Iterable[ChatTurn] = (), progress: bool = False,
                   cancel: Any = None) -> Iterator[StreamEvent]: ...

# -- the topic of a turn: the cancer it is about ---------------------------------------------------

_EN_SKIP = {"the", "a", "an", "of", "for", "about", "is", "are", "what", "how", "and", "or", "my", "his", "her",
            "their", "your", "does", "do", "can", "with", "have", "has", "had", "in", "on", "to", "from", "that",
            "this", "it", "be", "been", "which", "who", "when", "why", "where", "will", "would", "should", "could",
            "get", "got", "treat", "treated", "treating", "diagnose", "diagnosed", "early", "late", "stage",
            "symptoms", "signs", "risk", "causes", "cause", "find", "found", "know", "if", "i", "me", "we", "you"}
_EN_TOPIC = re.compile(rf"((?:[A-Za-z][\w'-]*\s+){{0,3}}?)\b({EN_HEAD})\b", re.IGNORECASE)
_KO_TOPIC = re.compile(rf"[가-힣]*(?:{cjk_head_pattern('ko')})(?=[은는이가을를의에도과와만으로]|\s|$|[?.!,])")
_JA_TOPIC = re.compile(rf"[一-龥々ァ-ヶー]+(?:{cjk_head_pattern('ja')})|[一-龥々ァ-ヶー]*(?:がん|癌)")
_ZH_TOPIC = re.compile(rf"[一-龥]+(?:{cjk_head_pattern('zh')})")


def find_topic(text: str) -> str | None:
    """The cancer a question is about ("liver cancer", "간암", "肺がん", "肝癌"), or ``None``."""
    language = detect_language(text)
    if language == "ko":
        match = _KO_TOPIC.search(text)
        return match.group(0) if match else None
    if language == "ja":
        match = _JA_TOPIC.search(text)
        return match.group(0) if match else None
    if language == "zh":
        match = _ZH_TOPIC.search(text)
        return match.group(0) if match else None
    for match in _EN_TOPIC.finditer(text):
        words = match.group(1).split()
        while words and words[0].lower() in _EN_SKIP:  # keep "small cell lung", drop "is the"
            words = words[1:]
        return " ".join([*words, match.group(2)])
    return None


# -- is it a follow-up? --------------------------------------------------------------------------

_EN_LEAD = re.compile(r"^\s*(?:(?:and|also|so|then|but|ok(?:ay)?|well)\b[\s,]*)+|^\s*(?:what|how)\s+about\b\s*",
                      re.IGNORECASE)
_EN_REFER = re.compile(r"\b(it|its|it's|they|them|their|this|these|those|the (?:cancer|disease|tumou?r|illness))\b",
                       re.IGNORECASE)
_EN_PRONOUN = re.compile(r"\b(it|this|they|them|the (?:cancer|disease|tumou?r|illness))\b", re.IGNORECASE)
_KO_LEAD = re.compile(r"^\s*(?:그럼|그러면|그리고|그런데|그럼요|또|그건|그것은|그렇다면)[\s,]*")
_KO_REFER = re.compile(r"그것|이것|그 암|이 암|그 병|이 병|그 종양")
_JA_LEAD = re.compile(r"^\s*(?:それでは|では|じゃあ|それで|あと|また|それなら)[、,\s]*")
_JA_REFER = re.compile(r"それ|その病気|このがん|そのがん|この病気")
_ZH_LEAD = re.compile(r"^\s*(?:那么|那麼|那|还有|還有|另外)[，,\s]*")
_ZH_REFER = re.compile(r"它|这种癌|這種癌|这种病|這種病|该病|該病")
_SHORT = {"en": 4, "ko": 12, "ja": 12, "zh": 8}  # words (en) or characters: shorter messages lean on context


def _is_follow_up(message: str, language: str) -> bool:
    lead, refer = {"ko": (_KO_LEAD, _KO_REFER), "ja": (_JA_LEAD, _JA_REFER), "zh": (_ZH_LEAD, _ZH_REFER)}.get(
        language, (_EN_LEAD, _EN_REFER))
    if _leads(lead, message) or refer.search(message):
        return True
    size = len(re.findall(r"[A-Za-z]+", message)) if language == "en" else len(re.sub(r"[\s?？.。!！,、]", "", message))
    return size <= _SHORT.get(language, 4)


def condense_offline(message: str, earlier_questions: list[str]) -> tuple[str, str | None]:
    """The heuristic: ``(standalone question, carried topic or None)``.

    A message that names its own cancer stands alone, unless it is nothing but a new topic
    ("What about stomach cancer?", "위암은요?"): then the previous question is asked again about
    it. A follow-up that names none (a pronoun, a leading "and", or a very short message) gets the
    topic of the latest earlier question that had one: "it" becomes the topic in English, and in
    Korean, Japanese and Chinese the topic is put in front.
    """
    message = message.strip()
    language = detect_language(message)
    previous = next(((q, t) for q in reversed(earlier_questions) if (t := find_topic(q))), None)
    own = find_topic(message)
    if own is not None:
        rest = _strip_lead(message, language).replace(own, "").strip(" ?？.。!！,、은는요이가はのを")
        if previous and not re.search(r"\w", rest):  # just a new topic: repeat the last question about it
            return previous[0].replace(previous[1], own, 1), own
        return message, None
    if previous is None or not _is_follow_up(message, language):
        return message, None
    topic = previous[1]
    body = _strip_lead(message, language)
    if language == "en":
        if _EN_PRONOUN.search(body):
            body = _EN_PRONOUN.sub(topic, body, count=1)
        else:
            body = re.sub(r"\s*\?*\s*$", "", body) + f" for {topic}?"
        return body[:1].upper() + body[1:], topic
    zh_about = "關於{t}，{b}" if chinese_script(message) == "zh-Hant" else "关于{t}，{b}"
    joiner = {"ko": "{t} {b}", "ja": "{t}について、{b}", "zh": zh_about}[language]
    refer = {"ko": _KO_REFER, "ja": _JA_REFER, "zh": _ZH_REFER}[language]
    if refer.search(body):
        return refer.sub(topic, body, count=1), topic
    return joiner.format(t=topic, b=body), topic


def _leads(lead: re.Pattern[str], message: str) -> bool:
    match = lead.search(message)
    return bool(match and match.end() > match.start())


def _strip_lead(message: str, language: str) -> str:
    lead = {"ko": _KO_LEAD, "ja": _JA_LEAD, "zh": _ZH_LEAD}.get(language, _EN_LEAD)
    return lead.sub("", message, count=1).strip() or message.strip()


# -- the session -------------------------------------------------------------------------------------


class Exchange(BaseModel):
    """One turn of a session: what the user typed, the question asked, and the answer."""

    message: str
    question: str
    condensed_by: str = "none"  # "none", "heuristic" or "llms.<key>"
    answer: Answer


class SessionFile(BaseModel):
    """What :meth:`ChatSession.save` writes."""

    format: str = SESSION_FORMAT
    pipeline: str = ""
    config_hash: str = ""
    saved: str = ""
    exchanges: list[Exchange] = Field(default_factory=list)


class ChatSession:
    """A conversation with one :class:`~criss_rag.engine.Engine` (``engine.chat()`` makes one)."""

    def __init__(self, engine: Answers, *, settings: ChatSettings | None = None,
                 filters: Mapping[str, Any] | None = None, exchanges: list[Exchange] | None = None) -> None:
        self.engine = engine
        self.settings = settings or engine.pipeline.config.chat or ChatSettings()
        self.filters = dict(filters or {})
        self.exchanges: list[Exchange] = list(exchanges or [])
        key = self.settings.condense_llm
        self._llm = engine.pipeline.llm(key, requested_by="chat.condense_llm") if key else None
        self._condensed: tuple[tuple[str, int], tuple[str, str, dict[str, Any]]] | None = None

    # -- memory ----------------------------------------------------------------------------------
    def history(self) -> tuple[ChatTurn, ...]:
        """The newest earlier turns that fit in ``memory_tokens`` (user question, assistant answer)."""
        from llama_index.core.utils import get_tokenizer

        tokenizer = get_tokenizer()
        budget = self.settings.memory_tokens
        kept: list[ChatTurn] = []
        for exchange in reversed(self.exchanges):
            pair = [ChatTurn("user", exchange.question), ChatTurn("assistant", exchange.answer.text)]
            cost = sum(len(tokenizer(turn.text)) for turn in pair)
            if cost > budget:
                break
            budget -= cost
            kept[:0] = pair
        return tuple(kept)

    # -- condensing ----------------------------------------------------------------------------------
    def condense(self, message: str) -> tuple[str, str, dict[str, Any]]:
        """``(standalone question, how it was made, trace notes)`` for ``message`` (the next
        :meth:`ask` or :meth:`ask_stream` of the same message reuses it: no second LLM call)."""
        history = self.history()
        result = self._condense(message, history)
        self._condensed = ((message, len(self.exchanges)), result)
        return result

    def _condense(self, message: str, history: tuple[ChatTurn, ...]) -> tuple[str, str, dict[str, Any]]:
        if not history:
            return message.strip(), "none", {}
        if self._llm is not None:
            lines = "\n".join(f"{'User' if t.role == 'user' else 'Assistant'}: {t.text}" for t in history)
            prompt = self.settings.condense_prompt.format(history=lines, question=message.strip())
            from llama_index.core.llms import ChatMessage

            reply = str(self._llm.chat([ChatMessage(role="user", content=prompt)]).message.content or "")
            question = _first_question(reply)
            how = f"llms.{self.settings.condense_llm}"
            return (question or message.strip()), how, ({} if question else {"empty_reply": True})
        earlier = [t.text for t in history if t.role == "user"]
        question, topic = condense_offline(message, earlier)
        return question, "heuristic", ({"topic": topic} if topic else {})

    # -- asking ----------------------------------------------------------------------------------
    def ask(self, message: str) -> Answer:
        """Answer one chat message (errors raise, as with ``Engine.ask``)."""
        question, how, notes, started = self._prepare(message)
        answer = self.engine.ask(question, filters=self.filters, history=self.history())
        return self._record(message, question, how, notes, started, answer)

    def ask_stream(self, message: str, *, progress: bool = False, cancel: Any = None) -> Iterator[StreamEvent]:
        """Answer one chat message as a stream of events (see ``Engine.ask_stream``, also for ``cancel``)."""
        question, how, notes, started = self._prepare(message)
        events = self.engine.ask_stream(question, filters=self.filters, history=self.history(), progress=progress,
                                        cancel=cancel)
        try:
            for event in events:
                if isinstance(event, AnswerEvent):
                    event = AnswerEvent(self._record(message, question, how, notes, started, event.answer))
                yield event
        finally:  # a reader that stops early closes the engine's stream now
            close = getattr(events, "close", None)
            if callable(close):
                close()

    def _prepare(self, message: str) -> tuple[str, str, dict[str, Any], float]:
        started = time.perf_counter()
        if self._condensed is not None and self._condensed[0] == (message, len(self.exchanges)):
            question, how, notes = self._condensed[1]  # condense() already ran for this message
        else:
            question, how, notes = self.condense(message)
        self._condensed = None
        return question, how, notes, started

    def _record(self, message: str, question: str, how: str, notes: dict[str, Any], started: float,
                answer: Answer) -> Answer:
        stage = StageTrace(stage="condense", component=how, n_in=len(self.history()), n_out=0,
                           ms=round((time.perf_counter() - started) * 1000, 3),
                           notes={"message": message.strip(), "question": question, **notes})
        answer.trace.stages.insert(0, stage)
        self.exchanges.append(Exchange(message=message.strip(), question=question, condensed_by=how, answer=answer))
        return answer

    # -- saving and resuming ---------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the session to ``path`` as JSON (atomically: a crash keeps the previous file)."""
        path = Path(path)
        data = SessionFile(pipeline=self.engine.pipeline.config.name, config_hash=self.engine.config_hash,
                           saved=datetime.now(timezone.utc).isoformat(timespec="seconds"), exchanges=self.exchanges)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(data.model_dump_json(indent=2))
        os.replace(tmp, path)
        return path

    @classmethod
    def load(cls, path: str | Path, engine: Answers, **kwargs: Any) -> ChatSession:
        """Resume the session saved at ``path`` with ``engine``."""
        data = read_session(path)
        return cls(engine, exchanges=data.exchanges, **kwargs)


def read_session(path: str | Path) -> SessionFile:
    """A saved session file, validated."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(f"{path}: no such session file") from None
    except ValueError as exc:
        raise DataError(f"{path}: not a chat session file (invalid JSON: {exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != SESSION_FORMAT:
        raise DataError(f"{path}: not a chat session file (expected \"format\": \"{SESSION_FORMAT}\"); "
                        "use another --session file")
    try:
        return SessionFile.model_validate(raw)
    except ValidationError as exc:
        raise DataError(f"{path}: damaged chat session file: {exc.errors()[0]['msg']} at "
                        f"{'.'.join(map(str, exc.errors()[0]['loc']))}") from None


_LABEL = re.compile(r"^\s*(?:standalone question|question|rewritten question|質問|질문|问题)\s*[:：]\s*", re.IGNORECASE)


def _first_question(reply: str) -> str:
    for line in reply.splitlines():
        line = _LABEL.sub("", line.strip()).strip().strip("\"'“”「」`*").strip()
        if line:
            return line
    return ""
