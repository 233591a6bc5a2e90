// funes ui: a small page over the JSON API served beside it. Every piece of text that comes
// from the memory is put into the page with textContent (never as markup): transcripts hold
// anything, including HTML and instructions.
"use strict";

const AGENT_COLOURS = {
  claude_code: "#d97757", codex: "#3b82f6", pi: "#10b981", hermes: "#a855f7",
  opencode: "#f59e0b", copilot: "#0ea5e9",
  parquet: "#64748b", unknown: "#94a3b8",
};
const LONG_BLOCK = 1500; // characters: longer blocks start folded in a timeline

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

function short(text, limit) {
  const flat = (text || "").replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : flat.slice(0, limit - 1) + "…";
}

function project(workdir, repo) {
  const where = workdir || repo || "";
  const parts = where.replace(/\\/g, "/").split("/").filter(Boolean);
  return parts.slice(-2).join("/") || where || "–";
}

function agentBadge(harness) {
  const name = harness || "unknown";
  const known = name in AGENT_COLOURS ? name : "unknown";
  return el("span", { class: `agent agent-${known}` }, name);
}

function setStatus(id, text, isError) {
  const node = document.getElementById(id);
  node.textContent = text || "";
  node.classList.toggle("error", Boolean(isError));
}

function formParams(form) {
  return Object.fromEntries(new FormData(form).entries());
}

// -- views ---------------------------------------------------------------------------------

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

function route() {
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash.startsWith("session/")) {
    show("session");
    openSession(hash.slice("session/".length));
  } else if (hash === "sessions") {
    show("sessions");
    if (!document.querySelector("#sessions tbody tr")) listSessions();
  } else if (hash === "overview") {
    show("overview");
    loadOverview();
  } else {
    show("search");
    document.getElementById("q").focus();
  }
}

// -- search --------------------------------------------------------------------------------

async function search(event) {
  event.preventDefault();
  const params = formParams(event.target);
  const list = document.getElementById("hits");
  list.replaceChildren();
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
  for (const hit of data.hits) list.append(renderHit(hit));
}

function renderHit(hit) {
  const kind = hit.tool_name ? `${hit.block_type}:${hit.tool_name}` : hit.block_type;
  const turnBox = el("div", { class: "turn-box" });
  const item = el(
    "li",
    { class: "hit" },
    el(
      "div",
      { class: "provenance" },
      el("span", { class: "when" }, when(hit.ts)),
      agentBadge(hit.harness),
      el("span", { class: "where", title: hit.workdir || hit.repo || "" }, project(hit.workdir, hit.repo)),
      el("span", { class: "role" }, `${hit.role} ${kind}`),
      el("a", { href: `#session/${encodeURIComponent(hit.session_id)}`, class: "session-link" },
        `session ${hit.session_id.slice(0, 8)}`),
      el("span", { class: "score" }, `score ${hit.score.toFixed(3)}`),
    ),
    el("pre", { class: "passage" }, hit.text),
    hit.neighbours.length
      ? el("details", { class: "neighbours" },
          el("summary", {}, `${hit.neighbours.length} neighbouring chunk(s)`),
          hit.neighbours.map((n) => el("p", {}, el("span", { class: "muted" }, `[${n.role} ${n.block_type} seq${n.seq}] `), short(n.text, 400))))
      : null,
    el("div", { class: "actions" },
      el("button", {
        type: "button",
        class: "open-turn",
        onclick: (e) => openTurn(hit, turnBox, e.target),
      }, "Open the turn"),
      el("code", { class: "muted" }, `funes get ${hit.session_id} ${hit.turn_uuid}`)),
    turnBox,
  );
  return item;
}

async function openTurn(hit, box, button) {
  if (box.childElementCount) {
    box.replaceChildren();
    button.textContent = "Open the turn";
    return;
  }
  box.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const data = await api("turn", { session: hit.session_id, turn: hit.turn_uuid, window: 1 });
    box.replaceChildren(el("ol", { class: "timeline" }, data.turns.map((t) => renderTurn(t, t.turn_uuid === hit.turn_uuid))));
    button.textContent = "Close the turn";
  } catch (error) {
    box.replaceChildren(el("p", { class: "error" }, error.message));
  }
}

// -- sessions ------------------------------------------------------------------------------

async function listSessions(event) {
  if (event) event.preventDefault();
  const params = formParams(document.getElementById("sessions-form"));
  const body = document.querySelector("#sessions tbody");
  setStatus("sessions-status", "loading…");
  let data;
  try {
    data = await api("sessions", params);
  } catch (error) {
    setStatus("sessions-status", error.message, true);
    return;
  }
  body.replaceChildren(...data.sessions.map((s) => el(
    "tr",
    { class: "session-row", tabindex: 0, "data-session": s.session_id,
      onclick: () => { location.hash = `session/${encodeURIComponent(s.session_id)}`; },
      onkeydown: (e) => { if (e.key === "Enter") location.hash = `session/${encodeURIComponent(s.session_id)}`; } },
    el("td", { class: "when", title: s.session_id }, when(s.start)),
    el("td", {}, agentBadge(s.harness)),
    el("td", { title: s.workdir || s.repo }, project(s.workdir, s.repo)),
    el("td", { class: "num" }, s.turns),
    el("td", { class: "num" }, s.chunks),
    el("td", { class: "prompt" }, short(s.first_prompt, 140) || "–"),
  )));
  const n = data.sessions.length;
  setStatus("sessions-status", n ? `${n} session(s), newest first` : "no sessions match");
}

async function openSession(id) {
  const head = document.getElementById("session-head");
  const list = document.getElementById("timeline");
  head.replaceChildren(el("p", { class: "muted" }, "loading…"));
  list.replaceChildren();
  let data;
  try {
    data = await api("session", { id });
  } catch (error) {
    head.replaceChildren(el("p", { class: "error" }, error.message));
    return;
  }
  const s = data.session;
  head.replaceChildren(
    el("h2", {}, short(s.first_prompt, 120) || `session ${s.session_id}`),
    el("p", { class: "provenance" },
      agentBadge(s.harness),
      el("span", {}, s.workdir || s.repo || "–"),
      el("span", { class: "when" }, `${when(s.start)} → ${when(s.end)}`),
      el("span", {}, `${s.turns} turns · ${s.chunks} chunks`),
      el("code", { class: "muted" }, s.session_id)),
    s.source_path ? el("p", { class: "muted" }, `source: ${s.source_path}`) : null,
  );
  list.replaceChildren(...data.turns.map((t) => renderTurn(t, false)));
}

function renderTurn(turn, asked) {
  return el(
    "li",
    { class: `turn role-${turn.role}${asked ? " asked" : ""}` },
    el("div", { class: "turn-head" },
      el("span", { class: "when" }, when(turn.ts)),
      el("span", { class: "role" }, turn.role || "–"),
      el("span", { class: "muted" }, `seq ${turn.seq}`),
      asked ? el("span", { class: "asked-mark" }, "← the hit") : null),
    turn.blocks.map(renderBlock),
  );
}

function renderBlock(block) {
  const label = block.block_type === "text" ? null
    : el("div", { class: "block-kind" }, block.tool_name ? `${block.block_type} · ${block.tool_name}` : block.block_type);
  const text = el("pre", { class: "block-text" }, block.text);
  if (block.text.length > LONG_BLOCK) {
    return el("div", { class: `block ${block.block_type}` }, label,
      el("details", {}, el("summary", {}, `${short(block.text, 160)} (${block.text.length} chars)`), text));
  }
  return el("div", { class: `block ${block.block_type}` }, label, text);
}

// -- overview ------------------------------------------------------------------------------

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
  fillTable("agents", Object.entries(data.agents).map(([name, c]) => [agentBadge(name), c.sessions, c.turns, c.chunks]));
  fillTable("projects", data.projects.map((p) => [
    el("span", { title: p.project }, project(p.project)), p.agents.join(", "), p.sessions, p.turns]));
  const kinds = Object.entries(data.redactions);
  fillTable("redactions", kinds.length ? kinds : [["none found", 0]]);
  fillTable("remotes", sync.remotes.length ? sync.remotes.map((r) => [
    r.uri, r.bound_by.join(", "), r.cached ? r.remote_chunks : "no copy yet", r.local_only,
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
      chart.append(svg("rect", { x: left + i * slot, y, width: barWidth, height: h,
        fill: AGENT_COLOURS[agent] || AGENT_COLOURS.unknown, class: "bar" },
        svg("title", {}, `${bin.period} · ${agent}: ${n} turn(s)`)));
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

// -- start ---------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  for (const select of document.querySelectorAll("select[data-choices]")) {
    select.append(document.getElementById(select.dataset.choices).content.cloneNode(true));
  }
  document.getElementById("search-form").addEventListener("submit", search);
  document.getElementById("sessions-form").addEventListener("submit", listSessions);
  window.addEventListener("hashchange", route);
  overviewData().then((data) => {
    document.getElementById("memory-label").textContent = `memory ${data.memory}`;
  }).catch((error) => {
    document.getElementById("memory-label").textContent = error.message;
  });
  route();
});
