// simulacra viewer: replays a run directory, or follows one while `simulacra run` writes it.
// It talks only to the server it came from (simulacra/viewer/server.py).
//
// Sections: 1 helpers · 2 data: loading, indexes, following · 3 the state at a step
// 4 the map · 5 agents on the map · 6 side panels · 7 playback and controls
// 8 the read-only debug handle (window.viewer) · 9 start

// ---------------------------------------------------------------- 1. helpers

const $ = (id) => document.getElementById(id);

// Model-written text goes into the page as text, never as HTML.
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}

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

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
  "September", "October", "November", "December"];

// Game time is naive local time in the files ("2023-02-13T07:14:10"): read it as written.
function parseTime(iso) {
  const [date, time = "00:00:00"] = iso.split("T");
  const [y, m, d] = date.split("-").map(Number);
  return { y, m, d, hms: time.slice(0, 8), weekday: WEEKDAYS[new Date(y, m - 1, d).getDay()] };
}

function describeTime(iso) {
  const t = parseTime(iso);
  return `${t.weekday} ${MONTHS[t.m - 1]} ${t.d}, ${t.y} · ${t.hms}`;
}

function stepTime(step) {
  const e = S.events[step];
  if (e) return e.time;
  const start = new Date(S.meta.start + "Z").getTime();
  return new Date(start + step * S.meta.step_seconds * 1000).toISOString().slice(0, 19);
}

// Fonts without colour emoji draw an empty box: then a word stands in for the emoji.
const EMOJI_FONT = '"Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", sans-serif';
const emojiDrawable = new Map();

function canDrawEmoji(ch) {
  if (!ch) return false;
  if (emojiDrawable.has(ch)) return emojiDrawable.get(ch);
  const c = document.createElement("canvas");
  c.width = c.height = 40;
  const g = c.getContext("2d", { willReadFrequently: true });
  const ink = (s) => {
    g.clearRect(0, 0, 40, 40);
    g.font = `28px ${EMOJI_FONT}`;
    g.textBaseline = "top";
    g.fillStyle = "#000";
    g.fillText(s, 4, 4);
    return g.getImageData(0, 0, 40, 40).data;
  };
  const drawn = ink(ch);
  const missing = ink("\u{10FFFD}"); // a private-use code point no font draws
  let differs = false;
  let any = false;
  for (let i = 3; i < drawn.length; i += 4) {
    if (drawn[i] !== missing[i]) differs = true;
    if (drawn[i]) any = true;
  }
  const ok = any && differs;
  emojiDrawable.set(ch, ok);
  return ok;
}

// The bubble's content: the emoji, or the word the model chose it by.
function bubbleText(agent) {
  if (canDrawEmoji(agent.emoji)) return { text: agent.emoji, emoji: true };
  return { text: agent.emoji_word || agent.activity.split(" ")[0] || "…", emoji: false };
}

// ---------------------------------------------------------------- 2. data

const S = {
  meta: null,
  world: null,
  events: [], // by step
  available: 0, // whole event lines on the server
  total: 0, // steps the run is meant to have
  step: 0,
  frac: 0, // 0..1 of the way to the next step, while playing
  playing: false,
  stepsPerSecond: 5,
  selected: null,
  live: false,
  ready: false,
  tile: 12, // CSS pixels per tile
  fitTile: 12,
  zoom: 1,
  drawn: {}, // name -> where its avatar was last drawn
  drawnStep: null,
  dirty: true, // the map needs drawing
  panelsFor: null, // what the panels show, to redraw them only on change
  lastArrival: 0,
  error: null,
  player: null, // simulacra play: where the user's avatar was last drawn
};

const IX = {
  plans: new Map(), // name -> [[step, {day, blocks: [{start, end, activity}]}]]
  memories: new Map(), // name -> [[step, {kind, text}]]
  chats: [], // [[step, chat]]
  objectChanges: [], // [[step, {address: state}]]
  actions: [], // [[step, what the user did (simulacra play)]]
};

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

function push(map, key, value) {
  if (!map.has(key)) map.set(key, []);
  map.get(key).push(value);
}

function ingest(event) {
  const n = event.step;
  S.events[n] = event;
  for (const [name, plan] of Object.entries(event.plans || {})) push(IX.plans, name, [n, plan]);
  for (const [name, list] of Object.entries(event.memories || {})) {
    for (const memory of list) push(IX.memories, name, [n, memory]);
  }
  for (const chat of event.chats || []) IX.chats.push([n, chat]);
  if (event.objects) IX.objectChanges.push([n, event.objects]);
  for (const action of event.actions || []) IX.actions.push([n, action]);
}

function forgetEvents() {
  S.events = [];
  IX.plans.clear();
  IX.memories.clear();
  IX.chats = [];
  IX.objectChanges = [];
  IX.actions = [];
}

let fetching = null;

// Loads every event line the server has that the page has not; one request at a time.
function fetchMore() {
  if (!fetching) fetching = loadEvents().finally(() => (fetching = null));
  return fetching;
}

async function loadEvents() {
  try {
    for (;;) {
      const from = S.events.length;
      const page = await getJSON(`/api/events?from=${from}&limit=2000`);
      if (page.available < from) {
        // A resumed run cut its log back to its checkpoint: start over.
        forgetEvents();
        S.step = 0;
        continue;
      }
      S.available = page.available;
      S.total = page.total_steps;
      const atEdge = S.step >= from - 1;
      for (const event of page.events) ingest(event);
      if (page.events.length) onNewEvents(from, atEdge);
      S.error = null;
      if (!page.events.length || S.events.length >= page.available) break;
    }
  } catch (err) {
    S.error = `cannot reach the viewer server (${err.message})`;
  }
  updateStatus();
}

function onNewEvents(from, atEdge) {
  S.lastArrival = performance.now();
  const last = S.events.length - 1;
  $("scrubber").max = String(last);
  if (from === 0 && !S.ready) {
    S.ready = true;
    const asked = Number(new URLSearchParams(location.search).get("step"));
    setStep(S.live ? last : clamp(asked || 0, 0, last));
  } else if (S.live && atEdge) {
    setStep(last);
  }
  drawMarks();
  S.panelsFor = null;
  S.dirty = true;
}

// A live page asks for new lines every second; the server reads only what was appended.
function follow() {
  if (S.live && S.ready) fetchMore();
}

// ---------------------------------------------------------------- 3. the state at a step

function agentsAt(step) {
  const e = S.events[step];
  return e ? e.agents : {};
}

function planOf(name, step) {
  const list = IX.plans.get(name) || [];
  const k = countUpTo(list, step);
  return k ? list[k - 1][1] : null;
}

function memoriesOf(name, step, count = 12) {
  const list = IX.memories.get(name) || [];
  const k = countUpTo(list, step);
  return list.slice(Math.max(0, k - count), k).reverse();
}

function chatsUpTo(step, count = 30) {
  const k = countUpTo(IX.chats, step);
  return IX.chats.slice(Math.max(0, k - count), k).reverse();
}

// Object states are the world's defaults with every change up to `step` applied
// ("idle" means back to the default).
function objectStatesAt(step) {
  const states = new Map();
  const k = countUpTo(IX.objectChanges, step);
  for (let i = 0; i < k; i++) {
    const [n, changes] = IX.objectChanges[i];
    for (const [address, state] of Object.entries(changes)) states.set(address, [state, n]);
  }
  const out = new Map();
  for (const [address, [state, n]] of states) {
    const obj = W.objectByAddress.get(address);
    const fallback = obj ? obj.state : "idle";
    const now = state === "idle" ? fallback : state;
    if (!obj || now !== obj.state) out.set(address, { state: now, since: n });
  }
  return out;
}

// Which block of a plan the clock is in (times are ISO strings, which sort as times do).
function blockIndexAt(blocks, iso) {
  return blocks.findIndex((b) => b.start <= iso && iso < b.end);
}

// ---------------------------------------------------------------- 4. the map

const W = {
  // Derived once from world.json.
  kinds: {},
  sectorHue: [],
  arenaShade: [],
  arenaBox: [], // arena id -> {x0, y0, x1, y1, n} over its floor and object tiles
  objectByAddress: new Map(),
  base: null, // the map without agents, drawn at the current tile size
};

const COLORS = {
  blocked: "#7aa866",
  blockedDark: "#6b9a58",
  street: "#dcd6c8",
  ground: "#cdbf8f",
  wall: "#4a4440",
  door: "#b8763a",
  label: "#ffffff",
};

function prepareWorld(world) {
  W.kinds = Object.fromEntries(world.kinds.map((k, i) => [k, i]));
  // Golden-angle hues: neighbouring sectors never look alike.
  W.sectorHue = world.sectors.map((s, i) => (25 + i * 137.508) % 360);
  const perSector = new Map();
  W.arenaShade = world.arenas.map((a) => {
    const k = perSector.get(a.sector) || 0;
    perSector.set(a.sector, k + 1);
    return k;
  });
  W.arenaBox = world.arenas.map(() => ({ x0: 1e9, y0: 1e9, x1: -1, y1: -1, n: 0 }));
  const { kind, arena } = world.tiles;
  for (let i = 0; i < kind.length; i++) {
    const a = arena[i];
    if (a < 0 || (kind[i] !== W.kinds.floor && kind[i] !== W.kinds.object)) continue;
    const x = i % world.width;
    const y = Math.floor(i / world.width);
    const b = W.arenaBox[a];
    b.x0 = Math.min(b.x0, x);
    b.y0 = Math.min(b.y0, y);
    b.x1 = Math.max(b.x1, x);
    b.y1 = Math.max(b.y1, y);
    b.n++;
  }
  W.objectByAddress = new Map(world.objects.map((o) => [o.address, o]));
}

function floorColor(i) {
  const world = S.world;
  const s = world.tiles.sector[i];
  const a = world.tiles.arena[i];
  if (s < 0) return COLORS.ground;
  const shade = a >= 0 ? W.arenaShade[a] % 3 : 0;
  return `hsl(${W.sectorHue[s]}, 46%, ${88 - shade * 6}%)`;
}

function objectColor(i) {
  const s = S.world.tiles.sector[i];
  return s < 0 ? "#9c8f6a" : `hsl(${W.sectorHue[s]}, 32%, 58%)`;
}

function fitTileSize() {
  const pane = $("map-pane");
  const w = (pane.clientWidth - 16) / S.world.width;
  const h = (pane.clientHeight - 16) / S.world.height;
  return clamp(Math.floor(Math.min(w, h)), 6, 48);
}

function layout() {
  if (!S.world) return;
  S.fitTile = fitTileSize();
  const tile = clamp(Math.round(S.fitTile * S.zoom), 4, 64);
  if (tile === S.tile && W.base) return;
  S.tile = tile;
  const canvas = $("map");
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(S.world.width * tile * dpr);
  canvas.height = Math.round(S.world.height * tile * dpr);
  canvas.style.width = `${S.world.width * tile}px`;
  canvas.style.height = `${S.world.height * tile}px`;
  W.base = drawBase(tile, dpr);
  S.dirty = true;
}

function drawBase(T, dpr) {
  const world = S.world;
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(world.width * T * dpr);
  canvas.height = Math.round(world.height * T * dpr);
  const g = canvas.getContext("2d");
  g.scale(dpr, dpr);
  const { kind } = world.tiles;
  const K = W.kinds;
  const at = (x, y) => y * world.width + x;
  const inside = (x, y) => x >= 0 && y >= 0 && x < world.width && y < world.height;

  for (let y = 0; y < world.height; y++) {
    for (let x = 0; x < world.width; x++) {
      const i = at(x, y);
      const k = kind[i];
      let color = COLORS.street;
      if (k === K.blocked) color = (x * 7 + y * 13) % 5 === 0 ? COLORS.blockedDark : COLORS.blocked;
      else if (k === K.wall) color = COLORS.wall;
      else if (k === K.ground) color = COLORS.ground;
      else if (k === K.floor || k === K.object || k === K.door) color = floorColor(i);
      g.fillStyle = color;
      g.fillRect(x * T, y * T, T + 0.5, T + 0.5);
    }
  }

  // Doors: a gap in the wall with a wooden threshold.
  g.fillStyle = COLORS.door;
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] !== K.door) continue;
    const x = i % world.width;
    const y = Math.floor(i / world.width);
    const horizontal = inside(x - 1, y) && kind[at(x - 1, y)] === K.wall;
    if (horizontal) g.fillRect(x * T, y * T + T * 0.38, T, T * 0.24);
    else g.fillRect(x * T + T * 0.38, y * T, T * 0.24, T);
  }

  // Arena borders where two rooms meet without a wall.
  g.strokeStyle = "rgba(60, 50, 40, 0.35)";
  g.lineWidth = 1;
  g.beginPath();
  const arena = world.tiles.arena;
  for (let y = 0; y < world.height; y++) {
    for (let x = 0; x < world.width; x++) {
      const a = arena[at(x, y)];
      if (a < 0 || kind[at(x, y)] === K.wall) continue;
      if (x + 1 < world.width && arena[at(x + 1, y)] >= 0 && arena[at(x + 1, y)] !== a &&
          kind[at(x + 1, y)] !== K.wall) {
        g.moveTo((x + 1) * T + 0.5, y * T);
        g.lineTo((x + 1) * T + 0.5, (y + 1) * T);
      }
      if (y + 1 < world.height && arena[at(x, y + 1)] >= 0 && arena[at(x, y + 1)] !== a &&
          kind[at(x, y + 1)] !== K.wall) {
        g.moveTo(x * T, (y + 1) * T + 0.5);
        g.lineTo((x + 1) * T, (y + 1) * T + 0.5);
      }
    }
  }
  g.stroke();

  // Objects: furniture blocks, one outline around all the tiles of an object.
  const pad = Math.max(1, T * 0.12);
  for (const obj of world.objects) {
    const tiles = new Set(obj.tiles.map(([x, y]) => `${x},${y}`));
    const has = (x, y) => tiles.has(`${x},${y}`);
    for (const [x, y] of obj.tiles) {
      const l = has(x - 1, y) ? 0 : pad;
      const r = has(x + 1, y) ? 0 : pad;
      const t = has(x, y - 1) ? 0 : pad;
      const b = has(x, y + 1) ? 0 : pad;
      g.fillStyle = objectColor(at(x, y));
      g.fillRect(x * T + l, y * T + t, T - l - r, T - t - b);
    }
  }

  drawArenaLabels(g, T);
  drawSectorLabels(g, T);
  return canvas;
}

function wrapWords(g, text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(" ")) {
    const next = line ? `${line} ${word}` : word;
    if (g.measureText(next).width <= width || !line) line = next;
    else {
      lines.push(line);
      line = word;
    }
  }
  if (line) lines.push(line);
  return lines;
}

function drawArenaLabels(g, T) {
  const size = clamp(Math.round(T * 0.82), 8, 13);
  g.font = `${size}px system-ui, "DejaVu Sans", sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  S.world.arenas.forEach((a, id) => {
    const b = W.arenaBox[id];
    if (!b.n) return;
    const width = (b.x1 - b.x0 + 1) * T - 4;
    const height = (b.y1 - b.y0 + 1) * T;
    const lines = wrapWords(g, a.name, width);
    if (lines.length * size * 1.1 > height || lines.some((l) => g.measureText(l).width > width)) {
      return; // too small a room: the tooltip names it
    }
    const cx = ((b.x0 + b.x1 + 1) / 2) * T;
    const cy = ((b.y0 + b.y1 + 1) / 2) * T;
    const top = cy - ((lines.length - 1) * size * 1.1) / 2;
    lines.forEach((line, k) => {
      const y = top + k * size * 1.1;
      g.lineWidth = 3;
      g.strokeStyle = "rgba(255, 255, 255, 0.75)";
      g.strokeText(line, cx, y);
      g.fillStyle = "rgba(40, 40, 40, 0.8)";
      g.fillText(line, cx, y);
    });
  });
}

// Sector names sit on the building's top wall, as the terminal map prints them.
function drawSectorLabels(g, T) {
  const size = clamp(Math.round(T * 0.95), 9, 15);
  g.font = `600 ${size}px system-ui, "DejaVu Sans", sans-serif`;
  g.textAlign = "left";
  g.textBaseline = "middle";
  for (const s of S.world.sectors) {
    const room = (s.width - 2) * T - 8;
    let name = s.name;
    while (name.length > 3 && g.measureText(name).width > room) name = name.slice(0, -2) + "…";
    const w = g.measureText(name).width + 8;
    const x = (s.x + 1) * T;
    const h = Math.max(T, size + 4);
    const y = s.y * T + T / 2 - h / 2;
    g.fillStyle = "rgba(36, 32, 30, 0.92)";
    roundRect(g, x, y, w, h, 3);
    g.fill();
    g.fillStyle = `hsl(${W.sectorHue[s.id]}, 70%, 82%)`;
    g.fillText(name, x + 4, y + h / 2 + 0.5);
  }
}

function roundRect(g, x, y, w, h, r) {
  g.beginPath();
  g.moveTo(x + r, y);
  g.arcTo(x + w, y, x + w, y + h, r);
  g.arcTo(x + w, y + h, x, y + h, r);
  g.arcTo(x, y + h, x, y, r);
  g.arcTo(x, y, x + w, y, r);
  g.closePath();
}

// Objects whose state is not their default glow, so a busy stove or bed stands out.
function drawObjectStates(g, T, states) {
  g.save();
  g.strokeStyle = "#f2b01e";
  g.fillStyle = "rgba(255, 200, 40, 0.35)";
  g.lineWidth = 2;
  for (const address of states.keys()) {
    const obj = W.objectByAddress.get(address);
    if (!obj) continue;
    for (const [x, y] of obj.tiles) {
      g.fillRect(x * T, y * T, T, T);
      g.strokeRect(x * T + 1, y * T + 1, T - 2, T - 2);
    }
  }
  g.restore();
}

// ---------------------------------------------------------------- 5. agents on the map

function agentColor(name) {
  return S.meta.agent_colors[name] || "#546e7a";
}

// Where each avatar goes, in CSS pixels of the map: the tile centre, moving smoothly towards
// the next step while playing.
function agentPositions() {
  const T = S.tile;
  const now = agentsAt(S.step);
  const next = S.playing && S.frac > 0 ? agentsAt(S.step + 1) : null;
  const out = {};
  const byTile = new Map();
  for (const name of S.meta.agents) {
    const a = now[name];
    if (!a) continue;
    let [x, y] = a.tile;
    const b = next && next[name];
    if (b && Math.abs(b.tile[0] - x) + Math.abs(b.tile[1] - y) <= 2) {
      x += (b.tile[0] - x) * S.frac;
      y += (b.tile[1] - y) * S.frac;
    }
    const key = a.tile.join(",");
    if (!byTile.has(key)) byTile.set(key, []);
    byTile.get(key).push(name);
    out[name] = { agent: a, tile: a.tile, cx: (x + 0.5) * T, cy: (y + 0.5) * T };
  }
  // Around the tile's centre, still inside the tile, so each stays where the log says.
  for (const names of byTile.values()) {
    if (names.length < 2) continue;
    names.forEach((name, k) => {
      const angle = Math.PI + (k * 2 * Math.PI) / names.length;
      out[name].cx += Math.cos(angle) * T * 0.4;
      out[name].cy += Math.sin(angle) * T * 0.4;
    });
  }
  return out;
}

function draw() {
  const canvas = $("map");
  const g = canvas.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  const T = S.tile;
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, canvas.width, canvas.height);
  if (W.base) g.drawImage(W.base, 0, 0);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (!S.events.length) return;

  drawObjectStates(g, T, objectStatesAt(S.step));
  const pos = agentPositions();
  const r = Math.max(6, T * 0.62);
  const order = S.meta.agents.filter((n) => pos[n] && n !== S.selected);
  if (S.selected && pos[S.selected]) {
    drawTrail(g, T, S.selected);
    order.push(S.selected);
  }
  // Bubbles, then names, then avatars: no bubble or label ever hides a person.
  const drawn = {};
  for (const name of order) drawBubble(g, pos[name], name, r, T);
  for (const name of order) drawLabel(g, pos[name], name, r, T);
  for (const name of order) {
    const p = pos[name];
    drawAvatar(g, p, name, r);
    drawn[name] = {
      cx: p.cx,
      cy: p.cy,
      r,
      tile: [Math.floor(p.cx / T), Math.floor(p.cy / T)],
      eventTile: p.tile,
    };
  }
  S.drawn = drawn;
  S.drawnStep = S.step;
  drawPlayer(g, T, r);
}

function drawAvatar(g, p, name, r) {
  const selected = name === S.selected;
  g.save();
  if (selected) {
    g.beginPath();
    g.arc(p.cx, p.cy, r + 5, 0, Math.PI * 2);
    g.fillStyle = "rgba(255, 196, 0, 0.55)";
    g.fill();
  }
  g.beginPath();
  g.arc(p.cx, p.cy + 1.5, r, 0, Math.PI * 2);
  g.fillStyle = "rgba(0, 0, 0, 0.3)";
  g.fill();
  g.beginPath();
  g.arc(p.cx, p.cy, r, 0, Math.PI * 2);
  g.fillStyle = agentColor(name);
  g.fill();
  g.lineWidth = 2;
  g.strokeStyle = "#ffffff";
  g.stroke();
  g.restore();
}

function drawLabel(g, p, name, r, T) {
  const selected = name === S.selected;
  const text = selected ? name : name.split(" ")[0];
  const size = clamp(Math.round(T * 0.9), 10, 14);
  g.save();
  g.font = `600 ${size}px system-ui, "DejaVu Sans", sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  const w = g.measureText(text).width + 8;
  const h = size + 4;
  const x = p.cx - w / 2;
  const y = p.cy + r + 3;
  g.fillStyle = selected ? "rgba(255, 236, 170, 0.97)" : "rgba(255, 255, 255, 0.9)";
  roundRect(g, x, y, w, h, 3);
  g.fill();
  g.lineWidth = 1;
  g.strokeStyle = agentColor(name);
  g.stroke();
  g.fillStyle = "#1d1d1d";
  g.fillText(text, p.cx, y + h / 2 + 0.5);
  g.restore();
}

function drawBubble(g, p, name, r, T) {
  const content = bubbleText(p.agent);
  const size = content.emoji ? clamp(Math.round(T * 1.1), 12, 22) : clamp(Math.round(T), 10, 14);
  g.save();
  g.font = content.emoji
    ? `${size}px ${EMOJI_FONT}`
    : `italic ${size}px system-ui, "DejaVu Sans", sans-serif`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  const w = Math.max(g.measureText(content.text).width + 10, size + 8);
  const h = size + 8;
  const x = p.cx - w / 2;
  const y = p.cy - r - 6 - h;
  g.fillStyle = "#ffffff";
  g.strokeStyle = "rgba(40, 40, 40, 0.6)";
  g.lineWidth = 1;
  roundRect(g, x, y, w, h, h / 2.5);
  g.fill();
  g.stroke();
  // The tail, pointing at the head.
  g.beginPath();
  g.moveTo(p.cx - 4, y + h - 0.5);
  g.lineTo(p.cx, y + h + 5);
  g.lineTo(p.cx + 4, y + h - 0.5);
  g.fill();
  g.stroke();
  g.fillRect(p.cx - 3.5, y + h - 2, 7, 2);
  g.fillStyle = "#1d1d1d";
  g.fillText(content.text, p.cx, y + h / 2 + 1);
  g.restore();
}

// The selected agent's way over the last minutes of game time.
function drawTrail(g, T, name) {
  const from = Math.max(0, S.step - 60);
  g.save();
  g.strokeStyle = agentColor(name);
  g.globalAlpha = 0.55;
  g.lineWidth = 3;
  g.lineJoin = "round";
  g.setLineDash([4, 4]);
  g.beginPath();
  for (let n = from; n <= S.step; n++) {
    const a = agentsAt(n)[name];
    if (!a) continue;
    const [x, y] = a.tile;
    if (n === from) g.moveTo((x + 0.5) * T, (y + 0.5) * T);
    else g.lineTo((x + 0.5) * T, (y + 0.5) * T);
  }
  g.stroke();
  g.restore();
}

function agentUnder(px, py) {
  let best = null;
  let bestD = Infinity;
  for (const [name, d] of Object.entries(S.drawn)) {
    const dist = Math.hypot(px - d.cx, py - d.cy);
    if (dist <= d.r + 5 && dist < bestD) {
      best = name;
      bestD = dist;
    }
  }
  return best;
}

// ---------------------------------------------------------------- 6. side panels

function renderPanels() {
  const key = `${S.step}|${S.selected}|${S.events.length}`;
  if (S.panelsFor === key) return;
  S.panelsFor = key;
  renderAgentList();
  renderAgent();
  renderChats();
  renderObjects();
  if (IX.actions.length || P.on) renderActions();
}

function emojiSpan(agent) {
  const content = bubbleText(agent);
  return el("span", "emoji", content.emoji ? `${content.text} ` : "");
}

function renderAgentList() {
  const list = $("agent-list");
  const agents = agentsAt(S.step);
  list.replaceChildren();
  for (const name of S.meta.agents) {
    const a = agents[name];
    const li = el("li", name === S.selected ? "selected" : "");
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
    li.addEventListener("click", () => select(name === S.selected ? null : name));
    list.append(li);
  }
}

function renderAgent() {
  const panel = $("agent-panel");
  const name = S.selected;
  const a = name && agentsAt(S.step)[name];
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

  const plan = planOf(name, S.step);
  const ol = $("agent-plan");
  ol.replaceChildren();
  if (!plan) {
    $("agent-plan-title").textContent = "Plan for the day";
    ol.append(el("li", "empty", "no plan yet"));
  } else {
    $("agent-plan-title").textContent = `Plan for ${plan.day}`;
    const current = blockIndexAt(plan.blocks, stepTime(S.step));
    plan.blocks.forEach((b, i) => {
      const line = `${b.start.slice(11, 16)}-${b.end.slice(11, 16)} ${b.activity}`;
      ol.append(el("li", i === current ? "current" : i < current ? "past" : "", line));
    });
  }

  const ul = $("agent-memories");
  ul.replaceChildren();
  const memories = memoriesOf(name, S.step);
  if (!memories.length) ul.append(el("li", "empty", "nothing yet"));
  for (const [n, { kind, text }] of memories) {
    const li = el("li", kind);
    li.append(el("span", `kind kind-${kind}`, kind), text);
    li.append(el("span", "when", stepTime(n).slice(11, 16)));
    ul.append(li);
  }
}

function renderChats() {
  const box = $("chats");
  const chats = chatsUpTo(S.step);
  box.replaceChildren();
  $("chat-count").textContent = IX.chats.length ? `${countUpTo(IX.chats, S.step)} so far` : "";
  if (!chats.length) box.append(el("p", "empty", "no conversation yet"));
  for (const [n, chat] of chats) {
    const div = el("div", n === S.step ? "chat current" : "chat");
    div.dataset.step = String(n);
    div.append(el("div", "head", `${stepTime(n).slice(11, 19)} · ${chat.between.join(" & ")}`));
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
  const states = objectStatesAt(S.step);
  ul.replaceChildren();
  $("object-count").textContent = `${states.size} not at rest`;
  if (!states.size) ul.append(el("li", "empty", "every object is in its usual state"));
  for (const [address, { state, since }] of states) {
    const li = el("li");
    li.dataset.address = address;
    li.append(`${address} `, el("span", "state", state));
    li.append(el("span", "changed", ` since ${stepTime(since).slice(11, 19)}`));
    ul.append(li);
  }
}

function select(name) {
  if (name && name !== S.selected) $("side").scrollTop = 0; // the details are on top
  S.selected = name;
  S.panelsFor = null;
  S.dirty = true;
  const url = new URL(location.href);
  if (name) url.searchParams.set("agent", name);
  else url.searchParams.delete("agent");
  history.replaceState(null, "", url);
}

// ---------------------------------------------------------------- 7. playback and controls

function setStep(n) {
  const last = S.events.length - 1;
  S.step = clamp(Math.round(n), 0, Math.max(0, last));
  S.frac = 0;
  S.dirty = true;
}

function setPlaying(on) {
  S.playing = on && S.events.length > 1;
  if (S.playing && S.step >= S.events.length - 1 && !S.live) S.step = 0; // play again
  S.frac = 0;
  const button = $("play");
  button.textContent = S.playing ? "❚❚ Pause" : "▶ Play";
  button.classList.toggle("playing", S.playing);
}

function setLive(on) {
  S.live = on;
  $("live").checked = on;
  $("live").parentElement.classList.toggle("on", on);
  if (on && S.ready) fetchMore().then(() => setStep(S.events.length - 1));
  updateStatus();
}

function syncControls() {
  const scrubber = $("scrubber");
  if (document.activeElement !== scrubber || S.playing) scrubber.value = String(S.step);
  const total = Math.max(S.total, S.events.length);
  $("step-label").textContent = `step ${S.step} / ${Math.max(total - 1, 0)}`;
  $("clock").textContent = S.events.length ? describeTime(stepTime(S.step)) : "–";
}

// Ticks under the scrubber where conversations happened.
function drawMarks() {
  const canvas = $("marks");
  const w = canvas.clientWidth;
  canvas.width = w;
  canvas.height = 8;
  const g = canvas.getContext("2d");
  const last = Math.max(1, S.events.length - 1);
  g.fillStyle = "#8fc7ff";
  for (const [n] of IX.chats) g.fillRect(Math.round((n / last) * (w - 14)) + 6, 0, 3, 8);
}

function updateStatus() {
  const status = $("status");
  status.classList.toggle("error", Boolean(S.error));
  if (S.error) {
    status.textContent = S.error;
    return;
  }
  const loaded = S.events.length;
  const parts = [`${loaded} of ${S.total} steps recorded`];
  if (loaded < S.total) {
    parts.push(S.live ? "following the run: new steps appear as they are written"
      : "the run is not finished: tick “live” to follow it");
  } else if (S.total) parts.push("complete");
  parts.push(`${IX.chats.length} conversations`);
  status.textContent = parts.join(" · ");
}

function frame(now) {
  const dt = Math.min(now - (frame.last || now), 250);
  frame.last = now;
  if (S.playing) {
    S.frac += (dt / 1000) * S.stepsPerSecond;
    while (S.frac >= 1) {
      if (S.step + 1 < S.events.length) {
        S.step += 1;
        S.frac -= 1;
      } else {
        S.frac = 0;
        if (!S.live) setPlaying(false); // a live run waits for the next steps
        break;
      }
    }
    S.dirty = true;
  }
  if (S.world && S.dirty) {
    draw();
    S.dirty = false;
  }
  if (S.ready) {
    renderPanels();
    syncControls();
  }
  requestAnimationFrame(frame);
}

function mapPoint(event) {
  const rect = $("map").getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

function showTooltip(event) {
  const tip = $("tooltip");
  if (!S.world) return;
  const [px, py] = mapPoint(event);
  const x = Math.floor(px / S.tile);
  const y = Math.floor(py / S.tile);
  if (x < 0 || y < 0 || x >= S.world.width || y >= S.world.height) {
    tip.hidden = true;
    return;
  }
  const i = y * S.world.width + x;
  const t = S.world.tiles;
  const lines = [];
  const who = agentUnder(px, py);
  if (who) lines.push(`${who}: ${agentsAt(S.step)[who].activity}`);
  const o = t.object[i];
  const a = t.arena[i];
  const s = t.sector[i];
  if (o >= 0) {
    const obj = S.world.objects[o];
    const state = objectStatesAt(S.step).get(obj.address);
    lines.push(`${obj.address} (${state ? state.state : obj.state})`);
  } else if (a >= 0) lines.push(S.world.arenas[a].address);
  else if (s >= 0) lines.push(S.world.sectors[s].name);
  else lines.push(S.world.kinds[t.kind[i]]);
  lines.push(`tile ${x}, ${y}`);
  tip.textContent = lines.join("\n");
  const pane = $("map-pane");
  const box = pane.getBoundingClientRect();
  tip.style.left = `${event.clientX - box.left + pane.scrollLeft + 14}px`;
  tip.style.top = `${event.clientY - box.top + pane.scrollTop + 14}px`;
  tip.hidden = false;
}

function bindControls() {
  $("play").addEventListener("click", () => setPlaying(!S.playing));
  $("back").addEventListener("click", () => setStep(S.step - 1));
  $("forward").addEventListener("click", () => setStep(S.step + 1));
  $("speed").addEventListener("change", (e) => (S.stepsPerSecond = Number(e.target.value)));
  $("scrubber").addEventListener("input", (e) => setStep(Number(e.target.value)));
  $("live").addEventListener("change", (e) => setLive(e.target.checked));
  $("agent-close").addEventListener("click", () => select(null));
  $("zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("zoom-fit").addEventListener("click", () => zoomBy(0));
  const map = $("map");
  map.addEventListener("click", (event) => {
    const [px, py] = mapPoint(event);
    const tile = [Math.floor(px / S.tile), Math.floor(py / S.tile)];
    let who = agentUnder(px, py);
    const walking = P.on && P.status && P.status.avatar;
    // With an avatar, a click on a free tile is where to walk, even right next to someone.
    if (who && walking && String(S.drawn[who].tile) !== String(tile)) who = null;
    if (who) {
      select(who);
      if (P.on) pickResident(who);
    } else if (walking) {
      walkTo(...tile);
    }
  });
  map.addEventListener("mousemove", showTooltip);
  map.addEventListener("mouseleave", () => ($("tooltip").hidden = true));
  document.addEventListener("keydown", (event) => {
    const tag = (event.target.tagName || "").toLowerCase();
    if (tag === "select" || tag === "textarea") return;
    if (tag === "input" && event.target.type !== "checkbox") return;
    if (P.on && playKey(event)) return;
    if (event.key === " ") {
      event.preventDefault();
      setPlaying(!S.playing);
    } else if (event.key === "ArrowLeft") setStep(S.step - 1);
    else if (event.key === "ArrowRight") setStep(S.step + 1);
    else if (event.key === "Escape") select(null);
  });
  new ResizeObserver(() => {
    layout();
    drawMarks();
  }).observe($("map-pane"));
}

function zoomBy(factor) {
  S.zoom = factor ? clamp(S.zoom * factor, 0.5, 5) : 1;
  W.base = null;
  layout();
}

// ---------------------------------------------------------------- 8. debug handle

// Read-only: tests and curious people can see what the page shows, not change it.
window.viewer = Object.freeze({
  get ready() { return S.ready; },
  get worldLoaded() { return Boolean(S.world && W.base); },
  get step() { return S.step; },
  // The step the map shows: the map is drawn on the next animation frame after a change.
  get drawnStep() { return S.dirty ? null : S.drawnStep; },
  get loaded() { return S.events.length; },
  get total() { return S.total; },
  get playing() { return S.playing; },
  get live() { return S.live; },
  get selected() { return S.selected; },
  get time() { return S.events.length ? stepTime(S.step) : null; },
  get tileSize() { return S.tile; },
  get error() { return S.error; },
  // simulacra play: the town's state as the server last said it, and the user's avatar as
  // drawn ({name, tile, x, y} in the viewport), or null.
  get play() { return P.on ? P.status : null; },
  player() {
    if (!S.player) return null;
    const rect = $("map").getBoundingClientRect();
    const d = S.player;
    return { name: d.name, tile: [...d.tile], x: rect.left + d.cx, y: rect.top + d.cy };
  },
  // The viewport point of a tile's centre (to click a destination).
  tilePoint(x, y) {
    const rect = $("map").getBoundingClientRect();
    return { x: rect.left + (x + 0.5) * S.tile, y: rect.top + (y + 0.5) * S.tile };
  },
  // name -> {tile: the tile under the drawn avatar, eventTile, x, y: its centre in the
  // viewport (for a mouse click), color}
  avatars() {
    const rect = $("map").getBoundingClientRect();
    const out = {};
    for (const [name, d] of Object.entries(S.drawn)) {
      out[name] = {
        tile: [...d.tile],
        eventTile: [...d.eventTile],
        x: rect.left + d.cx,
        y: rect.top + d.cy,
        color: agentColor(name),
      };
    }
    return out;
  },
  // The colour drawn on the map canvas at a viewport point, as [r, g, b, a].
  pixel(clientX, clientY) {
    const canvas = $("map");
    const rect = canvas.getBoundingClientRect();
    const dpr = canvas.width / rect.width;
    const g = canvas.getContext("2d");
    const x = Math.floor((clientX - rect.left) * dpr);
    const y = Math.floor((clientY - rect.top) * dpr);
    return Array.from(g.getImageData(x, y, 1, 1).data);
  },
});

// ---------------------------------------------------------------- 9. play

// With `simulacra play` the town runs while the page watches, and the page can act on it
// through /api/play/... (see simulacra/viewer/play_api.py). Every request carries the
// session's token from the page's <meta>; the server refuses any other.

const P = {
  on: false,
  token: "",
  status: null, // GET /api/play: paused, speed, step, avatar, error
  log: [], // this page's conversation panel: interviews and the avatar's conversations
};

function initPlay() {
  P.on = true;
  P.token = document.querySelector('meta[name="simulacra-token"]').content;
  for (const id of ["play", "back", "forward"]) $(id).hidden = true;
  $("speed").parentElement.hidden = true;
  $("live").parentElement.hidden = true;
  $("town-controls").hidden = false;
  $("play-panel").hidden = false;
  for (const id of ["talk-to", "say-to", "whisper-to"]) {
    $(id).replaceChildren(...S.meta.agents.map((name) => new Option(name, name)));
  }
  const names = S.world.objects.map((o) => new Option(o.address));
  $("object-names").replaceChildren(...names);
  $("town-run").addEventListener("click", () => control({ paused: !P.status.paused }));
  $("town-speed").addEventListener("change", (e) => control({ speed: Number(e.target.value) }));
  onSubmit("enter-form", async () => {
    await act("enter", { name: $("avatar-name").value });
  });
  onSubmit("talk-form", async () => {
    const body = {
      resident: $("talk-to").value,
      persona: $("talk-as").value,
      question: $("talk-question").value,
      remember: $("talk-remember").checked,
    };
    const got = await act("talk", body);
    P.log.push({ kind: "talk", ...body, answer: got.answer, memories: got.memories });
    $("talk-question").value = "";
    renderTalkLog();
  });
  onSubmit("say-form", async () => {
    const body = { resident: $("say-to").value, text: $("say-text").value };
    const got = await act("say", body);
    let chat = P.log.findLast((e) => e.kind === "chat");
    if (!chat || chat.ended || chat.with !== body.resident) {
      chat = { kind: "chat", with: body.resident, lines: [] };
      P.log.push(chat);
    }
    chat.lines.push([P.status.avatar.name, body.text], [body.resident, got.reply]);
    if (got.ended) chat.ended = true;
    $("say-text").value = "";
    renderTalkLog();
  });
  $("say-end").addEventListener("click", () => guarded(async () => {
    await act("leave", {});
    const chat = P.log.findLast((e) => e.kind === "chat");
    if (chat) chat.ended = true;
    renderTalkLog();
  }));
  onSubmit("whisper-form", async () => {
    await act("whisper", { resident: $("whisper-to").value, statement: $("whisper-text").value });
    $("whisper-text").value = "";
  });
  onSubmit("set-form", async () => {
    await act("set", { object: $("set-object").value, state: $("set-state").value });
    $("set-state").value = "";
  });
  renderTalkLog();
  pollPlay();
  setInterval(pollPlay, 1000);
}

function onSubmit(id, handler) {
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(handler);
  });
}

// Runs an action, showing its error (a 400's one line) under the forms.
async function guarded(handler) {
  const box = $("play-error");
  box.hidden = true;
  document.body.classList.add("busy");
  try {
    await handler();
  } catch (err) {
    box.textContent = err.message;
    box.hidden = false;
  } finally {
    document.body.classList.remove("busy");
  }
}

async function act(action, body) {
  const response = await fetch(`/api/play/${action}`, {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json", "X-Simulacra-Token": P.token },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let data;
  try {
    data = JSON.parse(text);
  } catch {
    data = { error: text.trim() };
  }
  if (!response.ok) throw new Error(data.error || `${action}: ${response.status}`);
  if (data.status) showPlay(data.status);
  fetchMore();
  return data;
}

function control(change) {
  return guarded(() => act("control", change));
}

async function pollPlay() {
  try {
    showPlay(await getJSON("/api/play"));
  } catch (err) {
    S.error = `cannot reach the town (${err.message})`;
    updateStatus();
  }
}

function showPlay(status) {
  P.status = status;
  const run = $("town-run");
  run.textContent = status.paused ? "▶ Run town" : "❚❚ Pause town";
  run.classList.toggle("paused", status.paused);
  const speed = $("town-speed");
  if (document.activeElement !== speed) speed.value = String(status.speed);
  const avatar = status.avatar;
  $("enter-form").hidden = Boolean(avatar);
  $("say-form").hidden = !avatar;
  const info = $("avatar-info");
  info.hidden = !avatar;
  if (avatar) {
    info.textContent = `${avatar.description}. Click the map or use the arrow keys to walk.`;
  }
  if (status.error) {
    S.error = status.error;
    updateStatus();
  }
  S.dirty = true;
}

function pickResident(name) {
  for (const id of ["talk-to", "say-to", "whisper-to"]) $(id).value = name;
}

function walkTo(x, y) {
  if (x < 0 || y < 0 || x >= S.world.width || y >= S.world.height) return;
  guarded(() => act("move", { x, y }));
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// Keys while playing: space pauses the town, the arrows walk the avatar.
function playKey(event) {
  if (event.key === " ") {
    event.preventDefault();
    control({ paused: !P.status.paused });
    return true;
  }
  const arrow = ARROWS[event.key];
  if (!arrow || !P.status || !P.status.avatar) return false;
  event.preventDefault();
  guarded(() => act("step", { dx: arrow[0], dy: arrow[1] }));
  return true;
}

// The avatar: live where the page shows the latest step, else as the log has it.
function drawPlayer(g, T, r) {
  S.player = null;
  const latest = S.step >= S.events.length - 1;
  const live = P.status && P.status.avatar;
  const logged = S.events[S.step] && S.events[S.step].avatar;
  const a = latest && live ? live : logged;
  if (!a) return;
  const cx = (a.tile[0] + 0.5) * T;
  const cy = (a.tile[1] + 0.5) * T;
  if (latest && live && live.walking_to) {
    const [gx, gy] = live.walking_to;
    g.save();
    g.strokeStyle = "#c62828";
    g.lineWidth = 2.5;
    const d = T * 0.35;
    g.beginPath();
    g.moveTo((gx + 0.5) * T - d, (gy + 0.5) * T - d);
    g.lineTo((gx + 0.5) * T + d, (gy + 0.5) * T + d);
    g.moveTo((gx + 0.5) * T + d, (gy + 0.5) * T - d);
    g.lineTo((gx + 0.5) * T - d, (gy + 0.5) * T + d);
    g.stroke();
    g.restore();
  }
  g.save();
  g.beginPath();
  g.moveTo(cx, cy - r * 1.25);
  g.lineTo(cx + r * 1.05, cy);
  g.lineTo(cx, cy + r * 1.25);
  g.lineTo(cx - r * 1.05, cy);
  g.closePath();
  g.fillStyle = "#ffc400";
  g.fill();
  g.lineWidth = 2.5;
  g.strokeStyle = "#3b2a00";
  g.stroke();
  g.restore();
  // The name above: residents' names are below them, and the avatar is often next to one.
  const h = clamp(Math.round(T * 0.9), 10, 14) + 4;
  drawLabel(g, { cx, cy: cy - r * 1.25 - h - 6 }, a.name, 0, T);
  S.player = { name: a.name, tile: a.tile, cx, cy };
}

function renderTalkLog() {
  const box = $("talk-log");
  box.replaceChildren();
  if (!P.log.length) {
    box.append(el("p", "empty", "ask a resident something, or enter and talk to one nearby"));
  }
  for (const entry of P.log) {
    const div = el("div", "entry");
    if (entry.kind === "talk") {
      const kept = entry.remember ? "remembered" : "not remembered";
      div.append(el("div", "head", `interview · ${entry.persona} → ${entry.resident} · ${kept}`));
      const q = el("p", "you");
      q.append(el("span", "speaker", "You: "), entry.question);
      const a = el("p");
      a.append(el("span", "speaker", `${entry.resident}: `), entry.answer);
      div.append(q, a);
      const more = el("details");
      more.append(el("summary", "", `memories used (${entry.memories.length})`));
      const ol = el("ol");
      for (const m of entry.memories) ol.append(el("li", "", m));
      more.append(ol);
      div.append(more);
    } else {
      const state = entry.ended ? `ended · ${entry.with} remembers it` : "talking";
      div.append(el("div", "head", `conversation with ${entry.with} · ${state}`));
      for (const [speaker, text] of entry.lines) {
        const p = el("p", speaker === entry.with ? "" : "you");
        p.append(el("span", "speaker", `${speaker}: `), text);
        div.append(p);
      }
    }
    box.append(div);
  }
  box.scrollTop = box.scrollHeight; // the latest at the bottom, as in a chat
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
  const k = countUpTo(IX.actions, S.step);
  const shown = IX.actions.slice(Math.max(0, k - 40), k).reverse();
  ul.replaceChildren();
  $("action-count").textContent = k ? `${k} logged` : "";
  if (!shown.length) ul.append(el("li", "empty", "nothing yet: what you do is logged at the next step"));
  for (const [n, action] of shown) {
    const li = el("li", `action action-${action.kind}`);
    li.append(el("span", "when", stepTime(n).slice(11, 19)), ACTION_WORDS[action.kind](action));
    ul.append(li);
  }
}

// ---------------------------------------------------------------- 10. start

async function start() {
  bindControls();
  const params = new URLSearchParams(location.search);
  try {
    const [meta, world] = await Promise.all([getJSON("/api/meta"), getJSON("/api/world")]);
    S.meta = meta;
    S.world = world;
    S.total = meta.total_steps;
    S.available = meta.available;
    prepareWorld(world);
    $("world-name").textContent = world.name;
    $("run-info").textContent =
      `${meta.agents.length} residents · ${meta.step_seconds} s a step · seed ${meta.seed}`;
    document.title = `${world.name} · simulacra`;
    layout();
    if (meta.play) initPlay();
    const follow = params.has("follow") ? params.get("follow") !== "0" : meta.follow;
    setLive(Boolean(follow));
    if (params.get("agent") && meta.agents.includes(params.get("agent"))) {
      S.selected = params.get("agent");
    }
  } catch (err) {
    S.error = `cannot load the run (${err.message})`;
    updateStatus();
    return;
  }
  requestAnimationFrame(frame);
  await fetchMore();
  if (!S.events.length) {
    // Nothing written yet: a live page waits for the first step.
    S.ready = true;
    S.dirty = true;
  }
  setInterval(follow, 1000);
}

start();
