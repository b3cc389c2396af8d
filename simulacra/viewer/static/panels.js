// The panels beside the map at the shown step: residents, the selected one's plan and
// memories, conversations, objects not at rest, and what the user did (simulacra play).
// They are rebuilt only when the step, the selection or the loaded steps change.

import { bubbleText } from "./emoji.js";
import { active } from "./play.js";
import {
  actionCount,
  actionsUpTo,
  agentColor,
  agentsAt,
  chatCount,
  chatsSoFar,
  chatsUpTo,
  events,
  memoriesOf,
  meta,
  objectStatesAt,
  planOf,
  stepTime,
} from "./run.js";
import { $, el, hhmm, hhmmss } from "./util.js";
import { selected, setSelected, step } from "./view.js";

let shownFor = null; // what the panels show, to rebuild them only on change

// Rebuild at the next frame even if step and selection are the same (new lines came in).
export function refreshPanels() {
  shownFor = null;
}

export function renderPanels() {
  const key = `${step}|${selected}|${events.length}`;
  if (shownFor === key) return;
  shownFor = key;
  renderAgentList();
  renderAgent();
  renderChats();
  renderObjects();
  if (actionCount() || active) renderActions();
}

export function select(name) {
  if (name && name !== selected) $("side").scrollTop = 0; // the details are on top
  setSelected(name);
  refreshPanels();
  const url = new URL(location.href);
  if (name) url.searchParams.set("agent", name);
  else url.searchParams.delete("agent");
  history.replaceState(null, "", url);
}

function emojiSpan(agent) {
  const content = bubbleText(agent);
  return el("span", "emoji", content.emoji ? `${content.text} ` : "");
}

function renderAgentList() {
  const list = $("agent-list");
  const agents = agentsAt(step);
  list.replaceChildren();
  for (const name of meta.agents) {
    const a = agents[name];
    const li = el("li", name === selected ? "selected" : "");
    li.dataset.agent = name;
    const dot = el("span", "dot");
    dot.style.background = agentColor(name);
    li.append(dot, el("span", "name", name));
    const doing = el("span", "doing");
    if (a) {
      doing.append(emojiSpan(a), a.activity);
      doing.title = a.description;
    }
    li.append(doing);
    li.addEventListener("click", () => select(name === selected ? null : name));
    list.append(li);
  }
}

// Which block of a plan the clock is in (times are ISO strings, which sort as times do).
function blockIndexAt(blocks, iso) {
  return blocks.findIndex((b) => b.start <= iso && iso < b.end);
}

function renderAgent() {
  const panel = $("agent-panel");
  const name = selected;
  const a = name && agentsAt(step)[name];
  if (!a) {
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  panel.dataset.agent = name;
  $("agent-dot").style.background = agentColor(name);
  $("agent-name").textContent = name;
  const content = bubbleText(a);
  $("agent-emoji").textContent = content.emoji ? content.text : "";
  $("agent-action").textContent = a.description;
  $("agent-place").textContent = `${a.place || "somewhere"} · tile ${a.tile[0]}, ${a.tile[1]}`;

  const plan = planOf(name, step);
  const ol = $("agent-plan");
  ol.replaceChildren();
  if (!plan) {
    $("agent-plan-title").textContent = "Plan for the day";
    ol.append(el("li", "empty", "no plan yet"));
  } else {
    $("agent-plan-title").textContent = `Plan for ${plan.day}`;
    const current = blockIndexAt(plan.blocks, stepTime(step));
    plan.blocks.forEach((b, i) => {
      const line = `${hhmm(b.start)}-${hhmm(b.end)} ${b.activity}`;
      ol.append(el("li", i === current ? "current" : i < current ? "past" : "", line));
    });
  }

  const ul = $("agent-memories");
  ul.replaceChildren();
  const memories = memoriesOf(name, step);
  if (!memories.length) ul.append(el("li", "empty", "nothing yet"));
  for (const [n, { kind, text }] of memories) {
    const li = el("li", kind);
    li.append(el("span", `kind kind-${kind}`, kind), text);
    li.append(el("span", "when", hhmm(stepTime(n))));
    ul.append(li);
  }
}

function renderChats() {
  const box = $("chats");
  const chats = chatsUpTo(step);
  box.replaceChildren();
  $("chat-count").textContent = chatCount() ? `${chatsSoFar(step)} so far` : "";
  if (!chats.length) box.append(el("p", "empty", "no conversation yet"));
  for (const [n, chat] of chats) {
    const div = el("div", n === step ? "chat current" : "chat");
    div.dataset.step = String(n);
    div.append(el("div", "head", `${hhmmss(stepTime(n))} · ${chat.between.join(" & ")}`));
    for (const { speaker, text } of chat.lines) {
      const p = el("p");
      p.append(el("span", "speaker", `${speaker}: `), text);
      div.append(p);
    }
    box.append(div);
  }
}

function renderObjects() {
  const ul = $("objects");
  const states = objectStatesAt(step);
  ul.replaceChildren();
  $("object-count").textContent = `${states.size} not at rest`;
  if (!states.size) ul.append(el("li", "empty", "every object is in its usual state"));
  for (const [address, { state, since }] of states) {
    const li = el("li");
    li.dataset.address = address;
    li.append(`${address} `, el("span", "state", state));
    li.append(el("span", "changed", ` since ${hhmmss(stepTime(since))}`));
    ul.append(li);
  }
}

const ACTION_WORDS = {
  talk: (a) => `${a.by} asked ${a.to}: “${a.text}” — “${a.answer}”` +
    (a.remembered ? " (remembered)" : ""),
  whisper: (a) => `inner voice to ${a.to}: “${a.text}”`,
  set: (a) => `${a.to} is now ${a.text}`,
  enter: (a) => `${a.by} entered the town`,
  move: (a) => `${a.by} walks to tile ${a.tile.join(", ")}`,
  say: (a) => `${a.by} to ${a.to}: “${a.text}” — ${a.to}: “${a.answer}”`,
  leave: (a) => `${a.by} ended the conversation with ${a.to}`,
};

// What the user did (simulacra play): shown while playing, and in a replay of a played run.
function renderActions() {
  $("action-panel").hidden = false;
  document.body.classList.add("has-actions");
  const ul = $("actions");
  const { shown, logged } = actionsUpTo(step);
  ul.replaceChildren();
  $("action-count").textContent = logged ? `${logged} logged` : "";
  if (!shown.length) {
    ul.append(el("li", "empty", "nothing yet: what you do is logged at the next step"));
  }
  for (const [n, action] of shown) {
    const li = el("li", `action action-${action.kind}`);
    li.append(el("span", "when", hhmmss(stepTime(n))), ACTION_WORDS[action.kind](action));
    ul.append(li);
  }
}
