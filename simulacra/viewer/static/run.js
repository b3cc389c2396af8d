// The run as the server has it: meta.json, world.json and the step records loaded so far,
// with indexes by step. The one owner of this data; other modules read the bindings and ask
// the functions below. Loading talks only to the server the page came from (server.py).

import { getJSON, groupInto } from "./util.js";

export let meta = null;
export let world = null;
export let events = []; // by step
export let total = 0; // steps the run is meant to have
export let objectByAddress = new Map(); // the world's objects

const index = {
  plans: new Map(), // name -> [[step, {day, blocks: [{start, end, activity}]}]]
  memories: new Map(), // name -> [[step, {kind, text}]]
  chats: [], // [[step, chat]]
  objectChanges: [], // [[step, {address: state}]]
  actions: [], // [[step, what the user did (simulacra play)]]
};

// What the page does when lines arrive: set once by the page (app.js).
let handlers = {
  restart() {}, // the run was cut back: every step is gone
  arrived(from) {}, // steps from..events.length-1 came in
  settled(error) {}, // a load ended: null, or what went wrong
};

export function watch(given) {
  handlers = { ...handlers, ...given };
}

export async function openRun() {
  [meta, world] = await Promise.all([getJSON("/api/meta"), getJSON("/api/world")]);
  total = meta.total_steps;
  objectByAddress = new Map(world.objects.map((o) => [o.address, o]));
}

function ingest(event) {
  const n = event.step;
  events[n] = event;
  for (const [name, plan] of Object.entries(event.plans || {})) {
    groupInto(index.plans, name, [n, plan]);
  }
  for (const [name, list] of Object.entries(event.memories || {})) {
    for (const memory of list) groupInto(index.memories, name, [n, memory]);
  }
  for (const chat of event.chats || []) index.chats.push([n, chat]);
  if (event.objects) index.objectChanges.push([n, event.objects]);
  for (const action of event.actions || []) index.actions.push([n, action]);
}

function forgetEvents() {
  events = [];
  index.plans.clear();
  index.memories.clear();
  index.chats = [];
  index.objectChanges = [];
  index.actions = [];
}

let fetching = null;

// Loads every event line the server has that the page has not; one request at a time.
export function fetchMore() {
  if (!fetching) fetching = loadEvents().finally(() => (fetching = null));
  return fetching;
}

async function loadEvents() {
  let error = null;
  try {
    for (;;) {
      const from = events.length;
      const page = await getJSON(`/api/events?from=${from}&limit=2000`);
      if (page.available < from) {
        // A resumed run cut its log back to its checkpoint: start over.
        forgetEvents();
        handlers.restart();
        continue;
      }
      total = page.total_steps;
      for (const event of page.events) ingest(event);
      if (page.events.length) handlers.arrived(from);
      error = null;
      if (!page.events.length || events.length >= page.available) break;
    }
  } catch (err) {
    error = `cannot reach the viewer server (${err.message})`;
  }
  handlers.settled(error);
}

// ---------------------------------------------------------------- the run at a step

// How many entries of a list sorted by step (entry[0]) are at or before `step`.
function countUpTo(list, step) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid][0] <= step) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function stepTime(step) {
  const e = events[step];
  if (e) return e.time;
  const start = new Date(meta.start + "Z").getTime();
  return new Date(start + step * meta.step_seconds * 1000).toISOString().slice(0, 19);
}

export function agentColor(name) {
  return meta.agent_colors[name] || "#546e7a";
}

export function agentsAt(step) {
  const e = events[step];
  return e ? e.agents : {};
}

export function planOf(name, step) {
  const list = index.plans.get(name) || [];
  const k = countUpTo(list, step);
  return k ? list[k - 1][1] : null;
}

export function memoriesOf(name, step, count = 12) {
  const list = index.memories.get(name) || [];
  const k = countUpTo(list, step);
  return list.slice(Math.max(0, k - count), k).reverse();
}

export const chatCount = () => index.chats.length;
export const chatsSoFar = (step) => countUpTo(index.chats, step);
export const chatSteps = () => index.chats.map(([n]) => n);

export function chatsUpTo(step, count = 30) {
  const k = countUpTo(index.chats, step);
  return index.chats.slice(Math.max(0, k - count), k).reverse();
}

export const actionCount = () => index.actions.length;

// {shown: the latest `count` actions up to `step`, newest first, logged: how many so far}.
export function actionsUpTo(step, count = 40) {
  const k = countUpTo(index.actions, step);
  return { shown: index.actions.slice(Math.max(0, k - count), k).reverse(), logged: k };
}

// Object states are the world's defaults with every change up to `step` applied
// ("idle" means back to the default).
export function objectStatesAt(step) {
  const states = new Map();
  const k = countUpTo(index.objectChanges, step);
  for (let i = 0; i < k; i++) {
    const [n, changes] = index.objectChanges[i];
    for (const [address, state] of Object.entries(changes)) states.set(address, [state, n]);
  }
  const out = new Map();
  for (const [address, [state, n]] of states) {
    const obj = objectByAddress.get(address);
    const fallback = obj ? obj.state : "idle";
    const now = state === "idle" ? fallback : state;
    if (!obj || now !== obj.state) out.set(address, { state: now, since: n });
  }
  return out;
}
