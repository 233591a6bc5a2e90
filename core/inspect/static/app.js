// funes ui: a small page over the JSON API served beside it. Transcripts hold anything, including
// HTML and instructions. Plain strings from the memory go into the page with textContent; the
// rendered blocks the server sends (Markdown with raw HTML off, highlighted code, terminal
// colours: funes/inspect/render.py) pass through safeFragment, which keeps only the few tags and
// attributes that rendering produces, before they are inserted.
"use strict";

const AGENT_COLOURS = {
  claude_code: "#d97757", codex: "#3b82f6", pi: "#10b981", hermes: "#a855f7",
  opencode: "#f59e0b", copilot: "#0ea5e9",
  parquet: "#64748b", unknown: "#94a3b8",
};
// Text blocks longer than this start folded, unless they hold the hit or the final answer.
const LONG_TEXT = 6000;
const PAGE_SIZE = 100;
// Words a query is made of that say nothing about where it matched: not marked.
const STOPWORDS = new Set(("a an and are as at be but by did do does for from had has have how i if " +
  "in is it its me my no not of on or our so that the their them then there these this to was we " +
  "were what when where which who why will with you your").split(" "));

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// -- rendered blocks ----------------------------------------------------------------------------

const SAFE_TAGS = new Set(["P", "H1", "H2", "H3", "H4", "H5", "H6", "EM", "STRONG", "S", "DEL",
  "CODE", "PRE", "A", "UL", "OL", "LI", "BLOCKQUOTE", "TABLE", "THEAD", "TBODY", "TR", "TH", "TD",
  "HR", "BR", "SPAN", "MARK"]);
const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

// The server's HTML as nodes of this page, keeping only SAFE_TAGS with a class (and a link's
// http(s)/mailto target); anything else becomes its text. The HTML is parsed in an inert
// <template>, where nothing runs or loads.
function safeFragment(html) {
  const template = document.createElement("template");
  template.innerHTML = html;
  clean(template.content);
  return document.importNode(template.content, true);
}

function clean(parent) {
  for (const node of [...parent.childNodes]) {
    if (node.nodeType === Node.TEXT_NODE) continue;
    if (node.nodeType !== Node.ELEMENT_NODE || !SAFE_TAGS.has(node.tagName)) {
      node.replaceWith(document.createTextNode(node.textContent || ""));
      continue;
    }
    for (const attr of [...node.attributes]) {
      const keep = (attr.name === "class" && /^[\w\- ]*$/.test(attr.value))
        || (node.tagName === "A" && attr.name === "href" && SAFE_LINK.test(attr.value.trim()));
      if (!keep) node.removeAttribute(attr.name);
    }
    if (node.tagName === "A") {
      node.setAttribute("rel", "noopener noreferrer");
      node.setAttribute("target", "_blank");
    }
    clean(node);
  }
}

// Wraps every match of `pattern` in the text under `root` in <mark class=cls>; returns the marks.
function markText(root, pattern, cls) {
  const marks = [];
  if (!pattern) return marks;
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode);
  for (const text of texts) {
    const value = text.nodeValue;
    pattern.lastIndex = 0;
    if (!pattern.test(value)) continue;
    pattern.lastIndex = 0;
    const pieces = [];
    let last = 0;
    for (const match of value.matchAll(pattern)) {
      if (!match[0]) break;
      pieces.push(value.slice(last, match.index));
      const mark = el("mark", { class: cls }, match[0]);
      marks.push(mark);
      pieces.push(mark);
      last = match.index + match[0].length;
    }
    pieces.push(value.slice(last));
    text.replaceWith(...pieces.filter((p) => p !== ""));
  }
  return marks;
}

function unmark(root, cls) {
  for (const mark of [...root.querySelectorAll(`mark.${cls}`)]) {
    mark.replaceWith(document.createTextNode(mark.textContent));
  }
  root.normalize();
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// The words of a search that are worth marking, as one pattern: each word and what starts with
// it (`cache` marks `cached`), case-insensitive.
function termsPattern(query) {
  const words = (query || "").toLowerCase().match(/[\p{L}\p{N}_]+/gu) || [];
  const kept = [...new Set(words.filter((w) => w.length > 1 && !STOPWORDS.has(w)))];
  if (!kept.length) return null;
  kept.sort((a, b) => b.length - a.length);
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${kept.map(escapeRegExp).join("|")})[\\p{L}\\p{N}_]*`, "giu");
}

function phrasePattern(phrase) {
  const trimmed = (phrase || "").trim();
  return trimmed ? new RegExp(escapeRegExp(trimmed), "gi") : null;
}

// -- small helpers --------------------------------------------------------------------------------

async function api(name, params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== "" && value !== null && value !== undefined) query.set(key, value);
  }
  const response = await fetch(`api/${name}?${query}`);
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
  return data;
}

function when(ts) {
  return ts ? ts.slice(0, 16).replace("T", " ") : "–";
}

// `text` on one line, at most `limit` characters, cut at a word boundary and marked with "…".
function short(text, limit) {
  const flat = (text || "").replace(/\s+/g, " ").trim();
  if (flat.length <= limit) return flat;
  const cut = flat.slice(0, limit - 1);
  const space = cut.lastIndexOf(" ");
  return (space > limit * 0.6 ? cut.slice(0, space) : cut) + "…";
}

// A first prompt as a title: its Markdown marks (`**`, backticks, leading #) left out.
function plainTitle(text) {
  return (text || "").replace(/^#+\s*/, "").replace(/(\*\*|__|`)/g, "");
}

function shortId(id) {
  return id.startsWith("agent-") ? id.slice(0, 14) : id.slice(0, 8);
}

// The shortest prefixes (8 characters at least) that tell the ids apart: time-ordered ids
// (UUIDv7, Hermes's dates) share their first 8 characters.
function distinctIds(ids) {
  const shown = new Map();
  for (const id of ids) {
    let n = shortId(id).length;
    while (n < id.length && ids.some((other) => other !== id && other.startsWith(id.slice(0, n)))) n++;
    shown.set(id, id.slice(0, n));
  }
  return shown;
}

const HOME = /^(\/home\/[^/]+|\/Users\/[^/]+|\/root)(?=\/|$)/;

function pathParts(where) {
  return (where || "").replace(/\\/g, "/").replace(HOME, "~").split("/").filter(Boolean);
}

// Labels for paths that tell them apart: the last two folders, more where two paths share them.
function distinctLabels(paths) {
  const unique = [...new Set(paths.filter(Boolean))];
  const depth = new Map(unique.map((p) => [p, 2]));
  const label = (p) => {
    const parts = pathParts(p);
    // Hiding a single folder saves nothing: then the whole path is shown.
    const n = parts.length - depth.get(p) > 1 ? depth.get(p) : parts.length;
    return (parts.length > n ? "…/" : p.startsWith("/") && parts[0] !== "~" ? "/" : "") + parts.slice(-n).join("/");
  };
  for (let round = 0; round < 12; round++) {
    const byLabel = new Map();
    for (const p of unique) byLabel.set(label(p), [...(byLabel.get(label(p)) || []), p]);
    let grew = false;
    for (const group of byLabel.values()) {
      if (group.length < 2) continue;
      for (const p of group) {
        if (depth.get(p) < pathParts(p).length) { depth.set(p, depth.get(p) + 1); grew = true; }
      }
    }
    if (!grew) break;
  }
  return new Map(unique.map((p) => [p, label(p) || p]));
}

function whereOf(item) {
  return item.workdir || item.repo || "";
}

function projectCell(where, labels) {
  return el("span", { class: "where", title: where || "" }, (labels && labels.get(where)) || (where ? pathParts(where).slice(-2).join("/") : "–"));
}

const AGENT_NAMES = {
  claude_code: "Claude Code", codex: "Codex", pi: "pi", hermes: "Hermes", gemini: "Gemini CLI",
  qwen: "Qwen Code", opencode: "opencode", copilot: "Copilot", parquet: "Parquet",
};

function agentName(harness) {
  return AGENT_NAMES[harness] || harness || "unknown";
}

function agentBadge(harness) {
  const name = harness || "unknown";
  const known = name in AGENT_COLOURS ? name : "unknown";
  return el("span", { class: `agent agent-${known}`, title: name }, agentName(name));
}

function setStatus(id, text, isError) {
  const node = document.getElementById(id);
  node.textContent = text || "";
  node.classList.toggle("error", Boolean(isError));
}

function formParams(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function sessionHash(sessionId, turnUuid, query) {
  let hash = `#session/${encodeURIComponent(sessionId)}`;
  if (turnUuid) hash += `&turn=${encodeURIComponent(turnUuid)}`;
  if (query) hash += `&q=${encodeURIComponent(query)}`;
  return hash;
}

// What kind of block, in words: the tool's name for a tool call or result.
function blockLabel(block) {
  if (block.block_type === "tool_use") return block.tool_name || "tool call";
  if (block.block_type === "tool_result") return `${block.tool_name || "tool"} output`;
  return block.block_type;
}

// Copies `text` to the clipboard; says so in the element `status`.
async function copyText(text, status) {
  try {
    await navigator.clipboard.writeText(text);
    if (status) status.textContent = "copied";
  } catch (error) {
    // No clipboard (a page not on localhost): the text is selected to copy by hand.
    if (status) status.textContent = "select and copy: " + text;
  }
}

// -- views ----------------------------------------------------------------------------------------

const VIEWS = ["search", "sessions", "session", "overview"];

function show(view) {
  for (const name of VIEWS) {
    document.getElementById(`view-${name}`).hidden = name !== view;
  }
  for (const name of ["search", "sessions", "overview"]) {
    const active = name === view || (view === "session" && name === "sessions");
    document.getElementById(`tab-${name}`).classList.toggle("active", active);
  }
}

function parseHash() {
  const [head, ...rest] = location.hash.slice(1).split("&");
  const params = {};
  for (const part of rest) {
    const at = part.indexOf("=");
    if (at > 0) params[part.slice(0, at)] = decodeURIComponent(part.slice(at + 1));
  }
  return { head: decodeURIComponent(head), params };
}

function route() {
  const { head, params } = parseHash();
  if (head.startsWith("session/")) {
    show("session");
    openSession(head.slice("session/".length), params.turn, params.q);
  } else if (head === "sessions") {
    show("sessions");
    // `#sessions&project=…` (the overview's links) fills the filters and lists.
    // A link with filters sets them all (those it does not name are cleared).
    const form = document.getElementById("sessions-form");
    const named = [...form.elements].some((f) => f.name && params[f.name] !== undefined);
    let changed = false;
    for (const field of form.elements) {
      const wanted = params[field.name] || "";
      if (named && field.name && field.value !== wanted) {
        field.value = wanted;
        changed = true;
      }
    }
    if (changed || !document.querySelector("#sessions tbody tr")) listSessions();
  } else if (head === "overview") {
    show("overview");
    loadOverview();
  } else {
    show("search");
    const form = document.getElementById("search-form");
    for (const field of form.elements) {
      if (field.name && params[field.name] !== undefined) field.value = params[field.name];
    }
    if (params.q) {
      if (searchKey(params) !== lastSearch) runSearch(params);
    } else {
      lastSearch = "";
      document.getElementById("hits").replaceChildren();
      setStatus("search-status", "");
      recentSessions();
      document.getElementById("q").focus();
    }
  }
}

// The newest sessions, on the landing page before anything is searched.
async function recentSessions() {
  const box = document.getElementById("recent");
  box.hidden = false;
  const list = document.getElementById("recent-list");
  if (list.childElementCount) return;
  try {
    const data = await api("sessions", { limit: 12 });
    const labels = distinctLabels(data.sessions.map(whereOf));
    list.replaceChildren(...data.sessions.filter((s) => !s.parent || s.stray).slice(0, 10).map((s) =>
      el("li", {},
        el("a", { href: sessionHash(s.session_id), class: "recent-link" }, short(plainTitle(s.first_prompt), 110) || s.session_id),
        " ", el("span", { class: "muted" }, when(s.start)), " ", agentBadge(s.harness), " ", projectCell(whereOf(s), labels))));
  } catch (error) {
    list.replaceChildren(el("li", { class: "error" }, error.message));
  }
}

// -- search ---------------------------------------------------------------------------------------

let lastSearch = "";

// The search form puts its query in the address (a reload, a bookmark and Back keep it).
function search(event) {
  event.preventDefault();
  const params = formParams(event.target);
  const parts = Object.entries(params).filter(([, v]) => v !== "" && v !== null)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`);
  const hash = `#search&${parts.join("&")}`;
  if (location.hash === hash) runSearch(params);
  else location.hash = hash;
}

// A search is its words and its filters: a new filter on the same words searches again.
function searchKey(params) {
  return Object.entries(params).filter(([, v]) => v !== "" && v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${v}`).sort().join("&");
}

async function runSearch(params) {
  lastSearch = searchKey(params);
  document.getElementById("recent").hidden = true;
  const list = document.getElementById("hits");
  const note = document.getElementById("weak-note");
  list.replaceChildren();
  note.hidden = true;
  setStatus("search-status", "recalling…");
  let data;
  try {
    data = await api("search", params);
  } catch (error) {
    setStatus("search-status", error.message, true);
    return;
  }
  const notes = (data.notes || []).map((n) => ` · note: ${n}`).join("");
  const count = data.hits.length ? `${data.hits.length} passage(s)` : "no results";
  setStatus("search-status", `${count} · second pass: ${data.second_pass}${notes}`);
  if (data.weak_note) {
    note.textContent = data.weak_note;
    note.hidden = false;
  }
  const labels = distinctLabels(data.hits.map(whereOf));
  const pattern = termsPattern(data.query);
  // Hits grouped by session (in the order of each session's best hit), a passage seen twice
  // in one turn shown once.
  const groups = new Map();
  const seen = new Set();
  for (const hit of data.hits) {
    const key = `${hit.turn_uuid}\u0000${hit.text}`;
    if (seen.has(key)) continue;
    seen.add(key);
    if (!groups.has(hit.session_id)) groups.set(hit.session_id, []);
    groups.get(hit.session_id).push(hit);
  }
  for (const [sessionId, hits] of groups) {
    const first = hits[0];
    list.append(el("li", { class: "hit-group" },
      el("div", { class: "group-head" },
        el("a", { href: sessionHash(sessionId, first.turn_uuid, data.query), class: "session-link" },
          `session ${shortId(sessionId)}`),
        agentBadge(first.harness), projectCell(whereOf(first), labels),
        el("span", { class: "muted" }, `${hits.length} passage(s)`)),
      el("ol", {}, hits.map((hit) => renderHit(hit, labels, pattern, data.query)))));
  }
}

function renderHit(hit, labels, pattern, query) {
  const turnBox = el("div", { class: "turn-box" });
  const prose = hit.block_type === "text" || hit.block_type === "thinking";
  const passage = el("div", { class: `passage${prose ? " md" : ""}` }, safeFragment(hit.html || ""));
  markText(passage, pattern, "term");
  // A tool's output is the tool's, whoever the transcript says carried it back.
  const kind = hit.block_type === "text" ? hit.role
    : hit.block_type === "tool_result" ? blockLabel(hit) : `${hit.role} · ${blockLabel(hit)}`;
  return el(
    "li",
    { class: "hit" },
    el("div", { class: "provenance" },
      el("span", { class: "when" }, when(hit.ts)),
      agentBadge(hit.harness),
      projectCell(whereOf(hit), labels),
      el("span", { class: "role" }, kind),
      el("a", { href: sessionHash(hit.session_id, hit.turn_uuid, query), class: "turn-in-session" },
        `seq ${hit.seq}`)),
    hit.starts_inside ? el("div", { class: "cut" }, "… the block goes on above") : null,
    passage,
    hit.ends_inside ? el("div", { class: "cut" }, "… and below") : null,
    hit.neighbours.length
      ? el("details", { class: "neighbours" },
          el("summary", {}, `${hit.neighbours.length} neighbouring passage(s)`),
          hit.neighbours.map((n) => el("p", {},
            el("span", { class: "muted" }, `[${n.role} ${n.block_type} seq${n.seq}] `), short(n.text, 400))))
      : null,
    el("div", { class: "actions" },
      el("button", { type: "button", class: "open-turn", onclick: (e) => openTurn(hit, turnBox, e.target, query) },
        "Open the turn"),
      el("a", { href: sessionHash(hit.session_id, hit.turn_uuid, query) }, "in its session"),
      el("code", { class: "muted get-line" }, hit.get_command || `funes get ${hit.session_id} ${hit.turn_uuid}`)),
    turnBox,
  );
}

async function openTurn(hit, box, button, query) {
  if (box.childElementCount) {
    box.replaceChildren();
    button.textContent = "Open the turn";
    return;
  }
  box.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const data = await api("turn", { session: hit.session_id, turn: hit.turn_uuid, window: 1 });
    const timeline = new Timeline(data.session_id, data.turns, hit.turn_uuid, query, false);
    box.replaceChildren(el("ol", { class: "timeline" }, timeline.render()));
    button.textContent = "Close the turn";
  } catch (error) {
    box.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

// -- sessions -------------------------------------------------------------------------------------

let sessionsOffset = 0;

async function listSessions(event, offset) {
  if (event) event.preventDefault();
  sessionsOffset = offset || 0;
  const params = { ...formParams(document.getElementById("sessions-form")), offset: sessionsOffset, limit: PAGE_SIZE };
  const body = document.querySelector("#sessions tbody");
  setStatus("sessions-status", "loading…");
  let data;
  try {
    data = await api("sessions", params);
  } catch (error) {
    body.replaceChildren();
    pager(null);
    setStatus("sessions-status", error.message, true);
    return;
  }
  const labels = distinctLabels(data.sessions.map(whereOf));
  const ids = distinctIds(data.sessions.map((s) => s.session_id));
  body.replaceChildren(...data.sessions.map((s) => sessionRow(s, labels, ids)));
  pager(data);
  if (!data.total) {
    setStatus("sessions-status", "no sessions match");
    return;
  }
  const first = data.offset + 1;
  const last = Math.min(data.offset + data.limit, data.total);
  const subagents = data.subagents ? `, and ${data.subagents} subagent session(s) under the sessions that started them` : "";
  const warmups = data.warmups ? ` · ${data.warmups} Claude Code warm-up subagent(s) left out` : "";
  setStatus("sessions-status", `sessions ${first}–${last} of ${data.total}${subagents} · newest first${warmups}`);
}

function pager(data) {
  const box = document.getElementById("sessions-pager");
  if (!data || data.total <= data.limit) {
    box.replaceChildren();
    return;
  }
  const older = data.offset + data.limit < data.total;
  box.replaceChildren(
    el("button", { type: "button", disabled: data.offset === 0, onclick: () => listSessions(null, Math.max(0, data.offset - data.limit)) }, "← newer"),
    el("span", { class: "muted" }, `page ${Math.floor(data.offset / data.limit) + 1} of ${Math.ceil(data.total / data.limit)}`),
    el("button", { type: "button", disabled: !older, onclick: () => listSessions(null, data.offset + data.limit) }, "older →"),
  );
}

// A row of the session list: its title is a link (open in a new tab, copy the address), the
// whole row opens it too.
function sessionRow(s, labels, ids) {
  const href = sessionHash(s.session_id);
  const sub = Boolean(s.parent);
  const title = short(plainTitle(s.first_prompt), 140) || "(nothing typed)";
  return el(
    "tr",
    { class: `session-row${sub ? " subagent-row" : ""}${s.stray ? " stray-row" : ""}`, "data-session": s.session_id,
      onclick: (e) => { if (!e.target.closest("a")) location.hash = href; } },
    el("td", { class: "when" }, when(s.start)),
    el("td", { class: "id", title: s.session_id }, sub ? "↳ " : "", ids.get(s.session_id)),
    el("td", { class: "agent-cell" }, agentBadge(s.harness)),
    el("td", { class: "project-cell" }, projectCell(whereOf(s), labels)),
    el("td", { class: "num" }, s.turns),
    el("td", { class: "prompt" },
      s.stray ? el("span", { class: "tag", title: `its parent session ${s.parent} is not in the memory` },
        `subagent of ${shortId(s.parent)} (not in memory)`)
        : sub ? el("span", { class: "tag" }, "subagent") : null,
      el("a", { href, class: "session-title" }, s.task ? `${s.task}: ${title}` : title),
      s.subagents && s.subagents.length ? el("span", { class: "tag" }, `+${s.subagents.length} subagent(s)`) : null),
  );
}

// -- one session ----------------------------------------------------------------------------------

let sessionFind = null;
let lastSession = null; // the session on screen, as the API answered

async function openSession(id, turnUuid, query) {
  const head = document.getElementById("session-head");
  const list = document.getElementById("timeline");
  head.replaceChildren(el("p", { class: "muted" }, "loading…"));
  list.replaceChildren();
  document.getElementById("find").value = "";
  setStatus("find-status", "");
  let data;
  try {
    // A link to another turn of the session on screen reuses what was read.
    data = lastSession && lastSession.session.session_id === id ? lastSession : await api("session", { id });
  } catch (error) {
    head.replaceChildren(el("p", { class: "error" }, error.message));
    return;
  }
  lastSession = data;
  const s = data.session;
  const family = [];
  if (s.parent) {
    family.push(el("p", { class: "family" }, "subagent of ",
      el("a", { href: sessionHash(s.parent), class: "parent-link" }, `session ${shortId(s.parent)}`)));
  }
  if (s.subagents && s.subagents.length) {
    family.push(el("p", { class: "family" }, `${s.subagents.length} subagent session(s): `,
      s.subagents.map((child) => el("a", { href: sessionHash(child), class: "subagent-link", title: child },
        (s.subagent_tasks || {})[child] || shortId(child)))));
  }
  if (s.task) {
    family.push(el("p", { class: "family task" }, "task: ", el("strong", {}, s.task)));
  }
  const actionStatus = el("span", { class: "muted action-status" });
  const actionBox = el("div", { class: "action-box" });
  head.replaceChildren(
    el("h2", {}, short(plainTitle(s.first_prompt), 120) || `session ${s.session_id}`),
    el("div", { class: "session-actions" },
      el("button", { type: "button", class: "resume-button", onclick: () => showResume(s.session_id, actionBox, actionStatus) }, "Resume"),
      el("button", { type: "button", class: "catchup-button", onclick: () => showCatchup(s.session_id, actionBox, actionStatus) }, "Catch-up"),
      el("button", { type: "button", class: "copy-id-button", onclick: () => copyText(s.session_id, actionStatus) }, "Copy id"),
      actionStatus),
    actionBox,
    el("p", { class: "provenance" },
      agentBadge(s.harness),
      el("span", { title: "working directory" }, whereOf(s) || "–"),
      el("span", { class: "when" }, `${when(s.start)} → ${when(s.end)}`),
      el("span", {}, `${s.turns} turns · ${s.chunks} chunks`),
      el("code", { class: "muted" }, s.session_id)),
    ...family,
    s.source_path ? el("p", { class: "muted" }, `source: ${s.source_path}`) : null,
  );
  const timeline = new Timeline(s.session_id, data.turns, turnUuid || "", query || "", true);
  list.replaceChildren(...timeline.render());
  sessionFind = timeline;
  document.getElementById("outline").replaceChildren(...timeline.outline());
  const target = turnUuid && timeline.anchors.get(turnUuid);
  if (target) {
    // Turns far from the screen are laid out late (content-visibility): the first scroll lands
    // on estimated heights, so it is repeated as the real ones come in.
    const land = () => target.scrollIntoView({ block: "start" });
    requestAnimationFrame(land);
    for (const delay of [120, 400, 900]) setTimeout(land, delay);
  } else if (turnUuid) {
    setStatus("find-status", `turn ${turnUuid} is not in this session`, true);
  }
}

// Resume: the command that reopens the session in its agent (the page runs nothing), to copy.
async function showResume(sessionId, box, status) {
  status.textContent = "";
  try {
    const plan = await api("resume", { id: sessionId });
    box.replaceChildren(el("div", { class: "resume-plan" },
      el("div", { class: "block-kind" }, "run in a terminal to resume this session"),
      el("pre", { class: "code resume-command" }, plan.command),
      el("button", { type: "button", onclick: () => copyText(plan.command, status) }, "Copy the command"),
      (plan.notes || []).map((n) => el("p", { class: "muted" }, n)),
      (plan.problems || []).map((p) => el("p", { class: "error" }, p))));
  } catch (error) {
    box.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

// Catch-up: the session's digest in its own words, to paste into a new session.
async function showCatchup(sessionId, box, status) {
  status.textContent = "";
  box.replaceChildren(el("p", { class: "muted" }, "reading the session…"));
  try {
    const data = await api("catchup", { id: sessionId });
    box.replaceChildren(el("div", { class: "catchup" },
      el("div", { class: "block-kind" }, "catch-up: paste it into a new session"),
      el("button", { type: "button", onclick: () => copyText(data.text, status) }, "Copy the catch-up"),
      el("pre", { class: "catchup-text" }, data.text)));
  } catch (error) {
    box.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

// A session's turns as the page shows them: each tool call and its result one folded unit named
// by the tool, reasoning folded, what was said open (the final answer and the asked turn always).
class Timeline {
  // `whole`: these are all the session's turns (then its last assistant text is the final answer).
  constructor(sessionId, turns, askedUuid, query, whole) {
    this.sessionId = sessionId;
    this.whole = whole;
    this.turns = turns;
    this.asked = askedUuid || "";
    this.pattern = termsPattern(query);
    this.anchors = new Map(); // turn uuid → the element a link to that turn scrolls to
    this.items = []; // {text, body, open()} for search within the session
  }

  render() {
    const units = this.pairTools();
    const final = this.whole ? this.finalAnswer() : null;
    const nodes = [];
    for (const turn of this.turns) {
      const blocks = turn.blocks.filter((b) => !units.paired.has(b));
      if (!blocks.length) continue; // every block is a result shown with its call
      const asked = turn.turn_uuid === this.asked;
      const node = el("li", { class: `turn role-${turn.role}${asked ? " asked" : ""}`, id: `turn-${turn.turn_uuid}` },
        el("div", { class: "turn-head" },
          el("span", { class: "when" }, when(turn.ts)),
          el("span", { class: "role" }, blocks.every((b) => b.block_type === "tool_result") ? "tool result" : turn.role || "–"),
          el("span", { class: "muted" }, `seq ${turn.seq}`),
          asked ? el("span", { class: "asked-mark" }, "← the hit") : null,
          el("a", { class: "turn-link", href: sessionHash(this.sessionId, turn.turn_uuid), title: "link to this turn" }, "#")),
        blocks.map((b) => {
          const unit = units.byCall.get(b);
          return unit ? this.toolUnit(unit, asked) : this.block(b, asked, b === final);
        }));
      this.anchors.set(turn.turn_uuid, node);
      nodes.push(node);
    }
    for (const unit of units.byCall.values()) {
      if (unit.resultTurn && !this.anchors.has(unit.resultTurn.turn_uuid)) {
        this.anchors.set(unit.resultTurn.turn_uuid, unit.node);
      }
    }
    if (this.asked && this.pattern) {
      const target = this.anchors.get(this.asked);
      if (target) markText(target, this.pattern, "term");
    }
    return nodes;
  }

  // Each tool result joins the earliest call before it that has no result yet, by tool name.
  pairTools() {
    const byCall = new Map();
    const paired = new Set();
    const waiting = [];
    for (const turn of this.turns) {
      for (const block of turn.blocks) {
        if (block.block_type === "tool_use") {
          const unit = { call: block, result: null, callTurn: turn, resultTurn: null, node: null };
          byCall.set(block, unit);
          waiting.push(unit);
        } else if (block.block_type === "tool_result") {
          const at = waiting.findIndex((u) => !block.tool_name || !u.call.tool_name || u.call.tool_name === block.tool_name);
          if (at < 0) continue;
          const [unit] = waiting.splice(at, 1);
          unit.result = block;
          unit.resultTurn = turn;
          paired.add(block);
        }
      }
    }
    return { byCall, paired };
  }

  finalAnswer() {
    for (let i = this.turns.length - 1; i >= 0; i--) {
      const turn = this.turns[i];
      if (turn.role !== "assistant") continue;
      const texts = turn.blocks.filter((b) => b.block_type === "text" && b.text.trim());
      if (texts.length) return texts[texts.length - 1];
    }
    return null;
  }

  block(block, asked, isFinal) {
    const cls = `block ${block.block_type}${isFinal ? " final" : ""}${block.compaction ? " compaction" : ""}`;
    const label = isFinal ? el("div", { class: "block-kind final-mark" }, "final answer")
      : block.compaction ? el("div", { class: "block-kind compaction-mark" }, "compaction summary: the conversation so far, as the agent summarised it")
      : null;
    if (block.block_type === "text") {
      const body = el("div", { class: "md" }, safeFragment(block.html));
      const node = el("div", { class: cls }, label, body);
      if (block.text.length > LONG_TEXT && !asked) {
        // A long answer opens at its start, with the rest one click away (not folded away).
        body.classList.add("clamped");
        const more = el("button", { type: "button", class: "show-more" }, "show more");
        const open = () => { body.classList.remove("clamped"); more.remove(); };
        more.addEventListener("click", open);
        node.append(more);
        this.items.push({ text: block.text, body, open });
      } else {
        this.items.push({ text: block.text, body, open: () => {} });
      }
      return node;
    }
    const summary = `${blockLabel(block)} · ${short(block.text, 140)}`;
    return this.folded(cls, summary, [block], asked);
  }

  // The turns that hold a prompt, in order (the targets of "next prompt").
  promptTurns() {
    return this.turns.filter((t) => t.role === "user" && t.blocks.some((b) => b.asked))
      .map((t) => this.anchors.get(t.turn_uuid)).filter(Boolean);
  }

  // The outline: each prompt, and the answer that closed it, as links into the timeline.
  outline() {
    const entries = [];
    let answer = null;
    const flush = () => { if (answer) entries.push(answer); answer = null; };
    for (const turn of this.turns) {
      for (const block of turn.blocks) {
        if (block.block_type !== "text" || !block.text.trim()) continue;
        if (turn.role === "user" && block.asked) {
          flush();
          entries.push({ kind: "prompt", turn, text: block.asked });
        } else if (turn.role === "assistant") {
          answer = { kind: "answer", turn, text: block.text };
        } else if (block.compaction) {
          flush();
          entries.push({ kind: "compaction", turn, text: "compaction summary" });
        }
      }
    }
    flush();
    return entries.map((e) => el("li", { class: `outline-${e.kind}` },
      el("a", { href: sessionHash(this.sessionId, e.turn.turn_uuid),
        onclick: (event) => {
          const node = this.anchors.get(e.turn.turn_uuid);
          if (!node) return;
          event.preventDefault();
          history.replaceState(null, "", sessionHash(this.sessionId, e.turn.turn_uuid));
          node.scrollIntoView({ block: "start" });
          setTimeout(() => node.scrollIntoView({ block: "start" }), 150);
        } },
        short(e.text, e.kind === "prompt" ? 90 : 70))));
  }

  toolUnit(unit, asked) {
    const blocks = unit.result ? [unit.call, unit.result] : [unit.call];
    const inResult = unit.resultTurn && unit.resultTurn.turn_uuid === this.asked;
    const lines = unit.result ? unit.result.text.split("\n").length : 0;
    const outcome = unit.result ? `${lines} line(s) of output` : "no result recorded";
    const sub = unit.call.subagent;
    const brief = sub && sub.task ? sub.task : short(unit.call.brief || unit.call.text, 110);
    const summary = [el("span", { class: "tool-name" }, unit.call.tool_name || "tool"), " ",
      el("code", { class: "tool-brief" }, brief), " ",
      el("span", { class: "muted" }, `· ${outcome}`)];
    const node = this.folded(`block tool-unit${inResult ? " asked" : ""}${sub ? " subagent-unit" : ""}`, summary, blocks, asked || inResult, true);
    if (sub && sub.session_id) {
      // The subagent's own transcript, named by its task, one click from the call.
      const link = el("a", { href: sessionHash(sub.session_id), class: "subagent-transcript" },
        `subagent transcript: ${sub.task || shortId(sub.session_id)} →`);
      node.querySelector("summary").append(" ", link);
    }
    unit.node = node;
    return node;
  }

  // A <details> whose body is rendered the first time it opens (most stay closed).
  folded(cls, summary, blocks, open, isTool) {
    const body = el("div", { class: "folded-body" });
    const details = el("details", { class: cls }, el("summary", {}, summary), body);
    const fill = () => {
      if (body.childElementCount) return;
      for (const block of blocks) {
        if (isTool) body.append(el("div", { class: "part-label" }, block.block_type === "tool_use" ? "call" : `${block.tool_name || "tool"} output`));
        const prose = block.block_type === "text" || block.block_type === "thinking"
          || /^(task|agent)$/i.test(block.tool_name || "");
        body.append(el("div", { class: prose ? "md" : "raw" }, safeFragment(block.html)));
      }
    };
    details.addEventListener("toggle", () => { if (details.open) fill(); });
    const item = { text: blocks.map((b) => b.text).join("\n"), body, open: () => { fill(); details.open = true; } };
    this.items.push(item);
    if (open) item.open();
    return details;
  }

  // Search within the session: opens what holds the phrase and marks it; returns the marks.
  find(phrase) {
    const pattern = phrasePattern(phrase);
    const wanted = (phrase || "").trim().toLowerCase();
    const marks = [];
    for (const item of this.items) {
      unmark(item.body, "find");
      if (!wanted || !item.text.toLowerCase().includes(wanted)) continue;
      item.open();
      marks.push(...markText(item.body, pattern, "find"));
    }
    return marks;
  }
}

let findMarks = [];
let findAt = -1;

function runFind() {
  if (!sessionFind) return;
  const phrase = document.getElementById("find").value;
  findMarks = sessionFind.find(phrase);
  findAt = -1;
  if (!phrase.trim()) {
    setStatus("find-status", "");
    return;
  }
  if (!findMarks.length) {
    setStatus("find-status", "not in this session");
    return;
  }
  stepFind(1);
}

function stepFind(direction) {
  if (!findMarks.length) return;
  if (findAt >= 0) findMarks[findAt].classList.remove("current");
  findAt = (findAt + direction + findMarks.length) % findMarks.length;
  const mark = findMarks[findAt];
  mark.classList.add("current");
  mark.scrollIntoView({ block: "center" });
  setStatus("find-status", `${findAt + 1} of ${findMarks.length}`);
}

// The session's prompts, in order: the turns the outline lists as asks.
function currentPromptView() {
  return !document.getElementById("view-session").hidden && sessionFind;
}

// Scrolls to the next (1) or previous (-1) prompt from where the page is.
function jumpPrompt(direction) {
  if (!sessionFind) return;
  const prompts = sessionFind.promptTurns();
  const top = document.getElementById("find-form").getBoundingClientRect().bottom + 4;
  const at = prompts.map((node) => node.getBoundingClientRect().top - top);
  const target = direction > 0
    // A prompt just jumped to sits a scroll margin below the bar: it is the current one.
    ? prompts[at.findIndex((y) => y > 48)]
    : prompts[at.map((y, i) => [y, i]).filter(([y]) => y < -2).map(([, i]) => i).pop()];
  if (target) {
    target.scrollIntoView({ block: "start" });
    setTimeout(() => target.scrollIntoView({ block: "start" }), 150);
  }
}

// -- overview -------------------------------------------------------------------------------------

let overviewLoaded = false;
let overviewRequest = null; // one count of the memory per page load, shared by header and tab

function overviewData() {
  overviewRequest = overviewRequest || api("overview");
  return overviewRequest;
}

async function loadOverview() {
  if (overviewLoaded) return;
  setStatus("overview-status", "counting…");
  let data, sync;
  try {
    [data, sync] = await Promise.all([overviewData(), api("sync")]);
  } catch (error) {
    overviewRequest = null;
    setStatus("overview-status", error.message, true);
    return;
  }
  overviewLoaded = true;
  setStatus("overview-status", (data.notes || []).join(" · "));
  document.getElementById("totals").replaceChildren(
    ...[["sessions", data.sessions], ["turns", data.turns], ["chunks", data.chunks],
      ["agents", Object.keys(data.agents).length], ["secrets redacted", Object.values(data.redactions).reduce((a, b) => a + b, 0)]]
      .map(([label, value]) => el("div", { class: "card" }, el("b", {}, value.toLocaleString()), el("span", {}, label))),
  );
  document.getElementById("activity-unit").textContent = `turns per ${data.activity_unit}`;
  document.getElementById("activity").replaceChildren(activityChart(data.activity, Object.keys(data.agents)));
  // Each agent and project opens its sessions.
  fillTable("agents", Object.entries(data.agents).map(([name, c]) => [
    el("a", { href: `#sessions&harness=${encodeURIComponent(name)}`, class: "overview-link" }, agentBadge(name)),
    c.sessions, c.turns, c.chunks]));
  const labels = distinctLabels(data.projects.map((p) => p.project));
  fillTable("projects", data.projects.map((p) => [
    el("a", { href: `#sessions&project=${encodeURIComponent(p.project)}`, class: "overview-link" }, projectCell(p.project, labels)),
    p.agents.map(agentName).join(", "), p.sessions, p.turns]));
  const kinds = Object.entries(data.redactions);
  fillTable("redactions", kinds.length ? kinds : [["none found", 0]]);
  fillTable("remotes", sync.remotes.length ? sync.remotes.map((r) => [
    r.uri,
    [r.bound_by.join(", "), r.read_by && r.read_by.length ? `${r.bound_by.length ? "; " : ""}read by ${r.read_by.join(", ")}` : ""].join(""),
    r.cached ? r.remote_chunks : "no copy yet",
    r.bound_by.length ? r.local_only : "read only",
    r.checked_at ? when(r.checked_at) : "never", r.last_push ? when(r.last_push) : "–"])
    : [[el("span", { class: "muted" }, "no agent is bound to a Hub memory (funes add AGENT ORG/REPO)"), "", "", "", "", ""]]);
}

function fillTable(id, rows) {
  const body = document.querySelector(`#${id} tbody`);
  body.replaceChildren(...rows.map((cells) => el("tr", {}, cells.map((c) =>
    el("td", { class: typeof c === "number" ? "num" : null }, typeof c === "number" ? c.toLocaleString() : c)))));
}

function activityChart(bins, agents) {
  const width = 900, height = 180, left = 40, bottom = 22, top = 8;
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
    "aria-label": "activity over time" });
  if (!bins.length) {
    chart.append(svg("text", { x: width / 2, y: height / 2, "text-anchor": "middle", class: "axis" }, "no dated turns"));
    return chart;
  }
  const totals = bins.map((b) => agents.reduce((sum, a) => sum + (b[a] || 0), 0));
  const max = Math.max(1, ...totals);
  const slot = (width - left) / bins.length;
  const barWidth = Math.max(1, slot * 0.8);
  const scale = (height - bottom - top) / max;
  chart.append(svg("text", { x: left - 6, y: top + 8, "text-anchor": "end", class: "axis" }, String(max)));
  chart.append(svg("text", { x: left - 6, y: height - bottom, "text-anchor": "end", class: "axis" }, "0"));
  chart.append(svg("line", { x1: left, x2: width, y1: height - bottom, y2: height - bottom, class: "baseline" }));
  bins.forEach((bin, i) => {
    let y = height - bottom;
    for (const agent of agents) {
      const n = bin[agent] || 0;
      if (!n) continue;
      const h = n * scale;
      y -= h;
      const bar = svg("rect", { x: left + i * slot, y, width: barWidth, height: h,
        fill: AGENT_COLOURS[agent] || AGENT_COLOURS.unknown, class: "bar" },
        svg("title", {}, `${bin.period} · ${agent}: ${n} turn(s)`));
      // A bar opens the sessions of its period (`until` takes a day and includes it).
      bar.addEventListener("click", () => {
        const end = bins[i + 1] ? new Date(`${bins[i + 1].period}T00:00:00Z`) : null;
        if (end) end.setUTCDate(end.getUTCDate() - 1);
        const until = end ? `&until=${end.toISOString().slice(0, 10)}` : "";
        location.hash = `#sessions&since=${bin.period}${until}`;
      });
      chart.append(bar);
    }
  });
  const ticks = [...new Set([0, Math.floor(bins.length / 2), bins.length - 1])];
  for (const i of ticks) {
    // The first and last labels align inward so neither is cut at the chart's edge.
    const anchor = i === 0 ? "start" : i === bins.length - 1 ? "end" : "middle";
    const x = anchor === "start" ? left + i * slot : anchor === "end" ? left + i * slot + barWidth : left + i * slot + barWidth / 2;
    chart.append(svg("text", { x, y: height - 6, "text-anchor": anchor, class: "axis" }, bins[i].period));
  }
  const legend = el("div", { class: "legend" }, agents.map((a) => agentBadge(a)));
  return el("div", {}, chart, legend);
}

// -- start ----------------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  for (const select of document.querySelectorAll("select[data-choices]")) {
    select.append(document.getElementById(select.dataset.choices).content.cloneNode(true));
  }
  document.getElementById("search-form").addEventListener("submit", search);
  document.getElementById("sessions-form").addEventListener("submit", (e) => listSessions(e, 0));
  let findTimer = null;
  const find = document.getElementById("find");
  find.addEventListener("input", () => {
    clearTimeout(findTimer);
    findTimer = setTimeout(() => { findTimer = null; runFind(); }, 200);
  });
  find.addEventListener("keydown", (e) => {
    if (e.key !== "Enter") return;
    e.preventDefault();
    if (findTimer) { clearTimeout(findTimer); findTimer = null; runFind(); return; }
    stepFind(e.shiftKey ? -1 : 1);
  });
  for (const box of document.querySelectorAll("#type-filters input[type=checkbox]")) {
    box.addEventListener("change", () => {
      document.getElementById("timeline").classList.toggle(`hide-${box.value}`, !box.checked);
    });
  }
  document.getElementById("prev-prompt").addEventListener("click", () => jumpPrompt(-1));
  document.getElementById("next-prompt").addEventListener("click", () => jumpPrompt(1));
  document.addEventListener("keydown", (e) => {
    if (currentPromptView() && !e.target.closest("input, select, textarea") && !e.ctrlKey && !e.metaKey && !e.altKey) {
      if (e.key === "j") jumpPrompt(1);
      else if (e.key === "k") jumpPrompt(-1);
    }
  });
  document.getElementById("find-prev").addEventListener("click", () => stepFind(-1));
  document.getElementById("find-next").addEventListener("click", () => stepFind(1));
  window.addEventListener("hashchange", route);
  overviewData().then((data) => {
    document.getElementById("memory-label").textContent = `memory ${data.memory}`;
  }).catch((error) => {
    document.getElementById("memory-label").textContent = error.message;
  });
  route();
});
