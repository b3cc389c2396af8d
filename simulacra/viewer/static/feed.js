// The feed page: threads as nested replies, refreshed every two seconds while a run writes
// them; clicking a message shows what each agent decided about it, and for an agent's reply
// the thought, the memories it drew on and the facts it remembered. Text only, never HTML.

import { $, el, groupInto, hhmm } from "./util.js";

let board = null;
let selected = null;
let lastBody = "";

function render() {
  $("feed-name").textContent = board.name;
  $("feed-info").textContent =
    `${board.messages.length} messages · agents: ${board.agents.join(", ")}`;
  $("clock").textContent = board.clock.replace("T", " ").slice(0, 16);
  const children = new Map();
  for (const m of board.messages) {
    groupInto(children, m.parent ?? 0, m);
  }
  const about = new Map();
  for (const d of board.decisions) groupInto(about, d.message, d);
  const walk = (m) => {
    const box = el("div");
    const row = el("div", "msg" + (m.by_agent ? " agent" : "") + (m.id === selected ? " selected" : ""));
    row.append(el("span", "id", `#${m.id}`), el("span", "who", m.author),
      el("span", "when", hhmm(m.posted)), el("span", "text", m.text));
    const marks = (about.get(m.id) || []).map((d) => `${d.agent}: ${d.reaction}`);
    if (marks.length) row.append(el("span", "marks", `(${marks.join(", ")})`));
    row.addEventListener("click", () => { selected = m.id; render(); });
    box.append(row);
    const kids = children.get(m.id) || [];
    if (kids.length) {
      const sub = el("div", "replies");
      for (const k of kids) sub.append(walk(k));
      box.append(sub);
    }
    return box;
  };
  const threads = $("threads");
  threads.replaceChildren();
  for (const post of (children.get(0) || []).slice().reverse()) {
    const t = el("div", "thread");
    t.append(walk(post));
    threads.append(t);
  }
  renderDetail();
}

function renderDetail() {
  const pane = $("detail");
  if (selected === null) return;
  const m = board.messages.find((x) => x.id === selected);
  if (!m) return;
  pane.replaceChildren(el("h2", null, `#${m.id} ${m.author}`), el("p", null, m.text));
  // For an agent's reply: the decision that wrote it; for any message: decisions about it.
  const made = board.decisions.filter((d) => d.reply === m.id);
  const about = board.decisions.filter((d) => d.message === m.id);
  for (const d of made) pane.append(...decisionView(d, `Why ${d.agent} wrote this (about #${d.message})`));
  for (const d of about) pane.append(...decisionView(d, `${d.agent} on this message`));
  if (!made.length && !about.length) pane.append(el("p", "dim", "No agent has read this yet."));
}

function decisionView(d, title) {
  const parts = [el("h3", null, title)];
  const p = el("p");
  p.append(el("span", `choice-${d.reaction}`, d.reaction), ` at ${hhmm(d.at)}`);
  if (d.target !== null) p.append(` · target #${d.target}`);
  if (d.reply !== null) p.append(` · reply #${d.reply}`);
  parts.push(p, el("h3", null, "Thought process"), el("p", null, d.thought));
  if (d.recent) parts.push(el("h3", null, "On its mind (recent memories)"), el("p", null, d.recent));
  const list = (heading, items) => {
    if (!items.length) return;
    const ul = el("ul");
    for (const text of items) ul.append(el("li", null, text));
    parts.push(el("h3", null, heading), ul);
  };
  list("Memories used (most similar, by time)", d.memories.map((x) => `[${x.created.slice(5, 16).replace("T", " ")}] ${x.text}`));
  list("Facts remembered", d.facts);
  return parts;
}

async function refresh() {
  try {
    const response = await fetch("/api/feed", { cache: "no-store" });
    if (response.ok) {
      const body = await response.text();
      if (body !== lastBody) {
        lastBody = body;
        board = JSON.parse(body);
        render();
      }
    }
  } catch (e) {
    // The server went away (Ctrl-C): keep what is shown.
  }
  setTimeout(refresh, 2000);
}

refresh();
