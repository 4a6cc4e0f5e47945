// The criss_rag chat page. Everything that comes from documents or the model is put in the page as
// text (textContent, text nodes), never as HTML: evidence may contain markup or script.
"use strict";

const $ = (id) => document.getElementById(id);
const MARKER = /\[(\d+(?:\s*,\s*\d+)*)\]/g;
let sessionId = sessionStorage.getItem("criss-session") || null;
const READER = readerLanguage();  // page_text.js

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
  $("landing").hidden = true;
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

function openEvidence(citation, sentence, shown, lang) {
  $("ev-number").textContent = pageText(lang, "sourceN", { n: shown });
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
  $("ev-for").textContent = sentence ? pageText(lang, "citedFor", { s: sentence }) : "";
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
// Markers are shown with the numbers of the sources list (1..n in the order they first appear,
// `shown`: evidence number -> shown number, from the server's `sources`), never with gaps.
function withCitationLinks(parent, text, citations, sentence, shown, lang) {
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    parent.append(text.slice(last, match.index));
    for (const number of match[1].split(/\s*,\s*/).map(Number)) {
      const citation = citations.get(number);
      if (!citation || !shown.has(number)) continue;  // a marker that points at no source is not shown
      const link = el("a", "cite", `[${shown.get(number)}]`);
      link.href = "#";
      link.title = sourceTitle(citation);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        openEvidence(citation, sentence, shown.get(number), lang);
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
    item.steps.append(el("summary", "", pageText(item.questionLang || READER, "working")));
    item.prepend(item.steps);
  }
  return item.steps;
}

function showProgress(item, data) {
  stepsOf(item).append(el("span", "step", `${data.step}${data.detail ? `: ${data.detail}` : ""}`));
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

// What the checks removed or found: dropped sentences (never part of the answer) and relevance,
// under "How this answer was made" (`item` is that block).
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
    item.append(el("span", "step off-topic",
      `Off topic: ${Math.round(answer.relevance.score * 100)}% of the question's content words covered` +
      (answer.relevance.missing.length ? ` (not covered: ${answer.relevance.missing.join(", ")})` : "") + "."));
  }
}

// The technical account of a refusal or an answer: only ever inside "How this answer was made".
function renderTechnical(steps, answer) {
  if (answer.refused) {
    steps.append(el("span", "step", `refusal_reason: ${answer.refusal_reason}`));
    if (answer.refusal_detail) steps.append(el("span", "step", answer.refusal_detail));
    steps.append(el("span", "step", answer.text));
  }
  renderChecks(steps, answer);
  if (answer.cached) {
    steps.append(el("span", "step", `cache: similarity ${answer.cached.similarity.toFixed(3)} (${answer.cached.cache})`));
  }
}

function renderSources(item, answer, sources, citations, lang) {
  if (!sources.length) return;
  item.append(el("span", "sources-title", pageText(lang, "sources")));
  const list = el("ol", "sources");
  for (const source of sources) {
    const citation = citations.get(source.evidence);
    const entry = el("li");
    entry.value = source.number;
    const title = el("a", "source-title", source.title);
    title.href = "#";
    title.addEventListener("click", (event) => {
      event.preventDefault();
      openEvidence(citation, null, source.number, lang);
    });
    entry.append(title);
    const href = source.url ? safeUrl(source.url) : null;
    if (href) {
      const link = el("a", "source-link", pageText(lang, "openSource"));
      link.href = href;
      link.target = "_blank";
      link.rel = "noopener noreferrer";
      entry.append(" · ", link);
    }
    list.append(entry);
  }
  item.append(list);
}

function renderAnswer(item, data) {
  const answer = data.answer;
  const lang = item.questionLang || languageOf(answer.question);
  const steps = stepsOf(item);
  steps.querySelector("summary").textContent = pageText(lang, "howMade");
  item.replaceChildren();
  item.lang = lang;
  if (answer.refused) {
    item.className = "assistant refused";
    item.append(el("span", "plain", pageText(lang, "refused")), el("span", "next", pageText(lang, "refusedNext")));
    renderTechnical(steps, answer);
    item.append(steps);
    return;
  }
  item.lang = languageOf(answer.text);
  const citations = new Map(answer.citations.map((c) => [c.number, c]));
  const sources = data.sources || [];
  const shown = new Map(sources.map((s) => [s.evidence, s.number]));
  for (const piece of data.display) {
    const verdict = piece.sentence === null ? null : answer.sentences[piece.sentence];
    if (!verdict) {
      withCitationLinks(item, piece.text, citations, null, shown, lang);
      continue;
    }
    const span = el("span", verdict.supported ? "sentence" : "sentence unsupported");
    if (!verdict.supported) span.title = `Not supported by the cited evidence${whyOf(verdict)}`;
    withCitationLinks(span, piece.text, citations, verdict.text, shown, lang);
    item.append(span);
  }
  renderSources(item, answer, sources, citations, lang);
  const unsupported = answer.sentences.filter((s) => !s.supported).length;
  if (unsupported) item.append(el("span", "note", pageText(lang, "unsupported", { n: unsupported })));
  if (answer.cached) item.append(el("span", "note cached", pageText(lang, "cached", { q: answer.cached.original_question })));
  renderTechnical(steps, answer);
  item.append(steps);
}

function showError(item, message) {
  item.className = "assistant error";
  item.replaceChildren(el("span", "label", pageText(item.questionLang || READER, "error")), message);
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
  item.questionLang = languageOf(question);
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
    showError(item, pageText(item.questionLang, "unreachable", { e: error.message }));
  } finally {
    item.classList.remove("streaming");
    $("send").disabled = false;
  }
}

// -- the page's own words and the landing state --------------------------------------------------------
function speakReaderLanguage() {
  document.documentElement.lang = READER;
  for (const node of document.querySelectorAll("[data-text]")) node.textContent = pageText(READER, node.dataset.text);
  for (const node of document.querySelectorAll("[data-placeholder]")) {
    node.placeholder = pageText(READER, node.dataset.placeholder);
  }
  document.title = pageText(READER, "assistant");
}

function showLanding(info) {
  const corpus = info.corpus[READER] || info.corpus.en;
  $("pipeline").textContent = corpus;
  $("answers-from").textContent = pageText(READER, "answersFrom", { ...info, corpus });
  $("notice").textContent = info.notice[READER] || info.notice.en;
  const examples = info.examples[READER] || [];
  $("examples-title").hidden = !examples.length;
  $("examples").replaceChildren(...examples.map((question) => {
    const entry = el("li");
    const button = el("button", "example", question);
    button.type = "button";
    button.addEventListener("click", () => ask(question));
    entry.append(button);
    return entry;
  }));
}

document.addEventListener("DOMContentLoaded", () => {
  speakReaderLanguage();
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
    $("landing").hidden = false;
  });
  $("close-evidence").addEventListener("click", () => { $("evidence").hidden = true; });
  fetch("/page.json").then((r) => r.json()).then(showLanding).catch(() => {});
});
