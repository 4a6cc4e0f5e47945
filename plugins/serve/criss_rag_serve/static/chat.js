// The criss_rag chat page. Everything that comes from documents or the model is put in the page as
// text (textContent, text nodes), never as HTML: evidence may contain markup or script.
"use strict";

const $ = (id) => document.getElementById(id);
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
let sessionId = sessionStorage.getItem("criss-session") || null;

function languageOf(text) {
  if (/[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]/.test(text)) return "ko";
  if (/[\u3040-\u30ff]/.test(text)) return "ja";
  if (/[\u4e00-\u9fff]/.test(text)) return "zh";
  return "en";
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function addMessage(role, text) {
  const item = el("li", role);
  if (text !== undefined) {
    item.textContent = text;
    item.lang = languageOf(text);
  }
  $("log").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

// -- the evidence panel ------------------------------------------------------------------------------
function safeUrl(location) {
  try {
    const url = new URL(location);
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
  } catch {
    return null;
  }
}

// the title that tells an answer's sources apart (section, page, passage), else the document's
function sourceTitle(citation) {
  return citation.source_title || citation.title || citation.doc_id;
}

function openEvidence(citation, sentence) {
  $("ev-number").textContent = `Source [${citation.number}]`;
  $("ev-title").textContent = sourceTitle(citation);
  $("ev-title").lang = languageOf(sourceTitle(citation));
  const source = $("ev-source");
  source.replaceChildren();
  const href = safeUrl(citation.location || "");
  if (href) {
    const link = el("a", "", citation.location);
    link.href = href;
    link.target = "_blank";
    link.rel = "noopener noreferrer";
    source.append(link);
  } else {
    source.textContent = citation.location || citation.doc_id;
  }
  $("ev-for").textContent = sentence ? `Cited for: “${sentence}”` : "";
  const quote = $("ev-text");
  quote.replaceChildren();
  quote.lang = languageOf(citation.text);
  // highlight the sentence the answer quoted when the passage contains it, else the whole passage
  const at = sentence ? citation.text.indexOf(sentence.replace(/\s*[.。]$/, "")) : -1;
  if (at >= 0) {
    const end = at + sentence.replace(/\s*[.。]$/, "").length;
    quote.append(citation.text.slice(0, at), el("mark", "", citation.text.slice(at, end)), citation.text.slice(end));
  } else {
    quote.append(el("mark", "", citation.text));
  }
  $("evidence").hidden = false;
}

// -- rendering the final answer -----------------------------------------------------------------------
function withCitationLinks(parent, text, citations, sentence) {
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    parent.append(text.slice(last, match.index));
    for (const number of match[1].split(/\s*,\s*/).map(Number)) {
      const citation = citations.get(number);
      if (!citation) {
        parent.append(`[${number}]`);
        continue;
      }
      const link = el("a", "cite", `[${number}]`);
      link.href = "#";
      link.title = sourceTitle(citation);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        openEvidence(citation, sentence);
      });
      parent.append(link);
    }
    last = match.index + match[0].length;
  }
  parent.append(text.slice(last));
}

// Progress and a reasoning model's thinking: one collapsed block per answer, never in its text.
function stepsOf(item) {
  if (!item.steps) {
    item.steps = el("details", "steps");
    item.steps.append(el("summary", "", "Working…"));
    item.prepend(item.steps);
  }
  return item.steps;
}

function showProgress(item, data) {
  const steps = stepsOf(item);
  steps.querySelector("summary").textContent = `Working: ${data.step}${data.detail ? ` (${data.detail})` : ""}`;
  steps.append(el("span", "step", `${data.step}${data.detail ? `: ${data.detail}` : ""}`));
}

function showThinking(item, data) {
  const steps = stepsOf(item);
  if (!item.thinking) {
    item.thinking = el("pre", "thinking");
    steps.append(el("span", "step", "thinking:"), item.thinking);
  }
  item.thinking.append(data.text);
}

// Why the sentence check did not accept a sentence ("; number: 30% — evidence [2] says 70%").
function whyOf(verdict) {
  const problems = verdict.problems || [];
  return problems.length ? `; ${problems.map((p) => p.message).join("; ")}` : "";
}

// What the checks removed or found: dropped sentences (never part of the answer) and relevance.
function renderChecks(item, answer) {
  if (answer.dropped && answer.dropped.length) {
    const box = el("details", "dropped");
    box.append(el("summary", "", `${answer.dropped.length} sentence(s) removed: not supported by the evidence`));
    const list = el("ul");
    for (const s of answer.dropped) list.append(el("li", "", `${s.text} (score ${s.score.toFixed(2)}${whyOf(s)})`));
    box.append(list);
    item.append(box);
  }
  if (answer.relevance && !answer.relevance.relevant) {
    item.append(el("span", "note off-topic",
      `Off topic: ${Math.round(answer.relevance.score * 100)}% of the question's content words covered` +
      (answer.relevance.missing.length ? ` (not covered: ${answer.relevance.missing.join(", ")})` : "") + "."));
  }
}

function renderAnswer(item, data) {
  const answer = data.answer;
  const steps = item.steps;
  item.replaceChildren();
  if (steps) {
    steps.querySelector("summary").textContent = "How this answer was made";
    item.append(steps);
  }
  item.lang = languageOf(answer.text);
  if (answer.refused) {
    item.className = "assistant refused";
    item.append(el("span", "label", `Not answered: ${answer.refusal_reason}`), answer.text);
    if (answer.refusal_detail) item.append(el("span", "note", answer.refusal_detail));
    renderChecks(item, answer);
    return;
  }
  const citations = new Map(answer.citations.map((c) => [c.number, c]));
  for (const piece of data.display) {
    const verdict = piece.sentence === null ? null : answer.sentences[piece.sentence];
    if (!verdict) {
      withCitationLinks(item, piece.text, citations, null);
      continue;
    }
    const span = el("span", verdict.supported ? "sentence" : "sentence unsupported");
    if (!verdict.supported) span.title = `Not supported by the cited evidence (score ${verdict.score.toFixed(2)}${whyOf(verdict)})`;
    withCitationLinks(span, piece.text, citations, verdict.text);
    item.append(span);
  }
  const sources = el("ol", "sources");
  for (const citation of answer.citations) {
    const entry = el("li");
    entry.value = citation.number;
    const link = el("a", "", sourceTitle(citation));
    link.href = "#";
    link.addEventListener("click", (event) => {
      event.preventDefault();
      openEvidence(citation, null);
    });
    entry.append(link);
    sources.append(entry);
  }
  item.append(sources);
  const unsupported = answer.sentences.filter((s) => !s.supported).length;
  if (unsupported) item.append(el("span", "note", `${unsupported} sentence(s) not supported by the cited evidence (underlined).`));
  renderChecks(item, answer);
  if (answer.cached) {
    item.append(el("span", "note cached",
      `Answered from the cache (similarity ${answer.cached.similarity.toFixed(3)}; first asked as “${answer.cached.original_question}”).`));
  }
}

function showError(item, message) {
  item.className = "assistant error";
  item.replaceChildren(el("span", "label", "Error"), message);
}

// -- talking to the server ---------------------------------------------------------------------------
function requestBody(question) {
  const filters = {};
  for (const key of ["cancer_type", "diagnosis_year"]) {
    const value = $(`f-${key}`).value.trim();
    if (value) filters[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  return JSON.stringify({ question, filters, session_id: sessionId });
}

function headers() {
  const result = { "Content-Type": "application/json", Accept: "text/event-stream" };
  const token = $("token").value.trim();
  if (token) result.Authorization = `Bearer ${token}`;
  return result;
}

// Server-sent events over a POST response; the decoder keeps multi-byte characters split across
// chunks (Korean, Japanese) whole.
async function* readEvents(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder("utf-8");
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
    const frames = buffer.split(/\r?\n\r?\n/);
    buffer = done ? "" : frames.pop();
    for (const frame of frames) {
      let event = "message";
      const data = [];
      for (const line of frame.split(/\r?\n/)) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      if (data.length) yield { event, data: JSON.parse(data.join("\n")) };
    }
    if (done) return;
  }
}

async function ask(question) {
  addMessage("user", question);
  const item = addMessage("assistant");
  item.classList.add("streaming");
  $("send").disabled = true;
  try {
    const response = await fetch("/chat/stream", { method: "POST", headers: headers(), body: requestBody(question) });
    if (!response.ok) {
      const body = await response.json().catch(() => ({ error: { message: response.statusText } }));
      if (response.status === 401) $("token-row").hidden = false;
      if (body.error && body.error.code === "session_not_found") {
        sessionId = null;
        sessionStorage.removeItem("criss-session");
      }
      showError(item, body.error ? body.error.message : response.statusText);
      return;
    }
    for await (const { event, data } of readEvents(response)) {
      if (event === "token") {
        item.append(data.text);
        item.answerText = (item.answerText || "") + data.text;
        item.lang = languageOf(item.answerText);
      } else if (event === "progress") {
        showProgress(item, data);
      } else if (event === "thinking") {
        showThinking(item, data);
      } else if (event === "done") {
        sessionId = data.session_id;
        sessionStorage.setItem("criss-session", sessionId);
        renderAnswer(item, data);
      } else if (event === "error") {
        showError(item, data.message);
      }
    }
  } catch (error) {
    showError(item, `The server could not be reached (${error.message}).`);
  } finally {
    item.classList.remove("streaming");
    $("send").disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("question").value.trim();
    if (!question) return;
    $("question").value = "";
    ask(question);
  });
  $("question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {  // not while composing Hangul/kana
      event.preventDefault();
      $("ask").requestSubmit();
    }
  });
  $("new-chat").addEventListener("click", () => {
    sessionId = null;
    sessionStorage.removeItem("criss-session");
    $("log").replaceChildren();
    $("evidence").hidden = true;
  });
  $("close-evidence").addEventListener("click", () => { $("evidence").hidden = true; });
  fetch("/health").then((r) => r.json()).then((h) => {
    $("pipeline").textContent = `${h.pipeline} · ${h.documents} documents`;
  }).catch(() => {});
});
