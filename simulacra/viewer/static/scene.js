// One frame of the map: the town, the objects not at rest, the residents where the log puts
// them (moving smoothly towards the next step while playing), the selected one's trail, and
// the user's avatar. The one owner of where each figure was last drawn, for clicks and tests.

import { bubbleText } from "./emoji.js";
import {
  drawAvatar,
  drawBubble,
  drawDiamond,
  drawLabel,
  drawTarget,
  drawTrail,
} from "./figures.js";
import { base, drawObjectStates, tile } from "./map.js";
import { town } from "./play.js";
import { agentColor, agentsAt, events, meta, objectStatesAt } from "./run.js";
import { $, clamp } from "./util.js";
import { frac, playing, selected, step } from "./view.js";

export let drawn = {}; // name -> {cx, cy, r, tile: under the drawn disc, eventTile: the log's}
export let drawnStep = null;
export let player = null; // simulacra play: {name, tile, cx, cy} of the user's avatar as drawn

// Where each avatar goes, in CSS pixels of the map: the tile centre, moving smoothly towards
// the next step while playing.
function agentPositions() {
  const T = tile;
  const now = agentsAt(step);
  const next = playing && frac > 0 ? agentsAt(step + 1) : null;
  const out = {};
  const byTile = new Map();
  for (const name of meta.agents) {
    const a = now[name];
    if (!a) continue;
    let [x, y] = a.tile;
    const b = next && next[name];
    if (b && Math.abs(b.tile[0] - x) + Math.abs(b.tile[1] - y) <= 2) {
      x += (b.tile[0] - x) * frac;
      y += (b.tile[1] - y) * frac;
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

const label = (g, p, r, T, name) =>
  drawLabel(g, p, r, T, name, agentColor(name), name === selected);

export function draw() {
  const canvas = $("map");
  const g = canvas.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  const T = tile;
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, canvas.width, canvas.height);
  if (base) g.drawImage(base, 0, 0);
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  if (!events.length) return;

  drawObjectStates(g, T, objectStatesAt(step));
  const pos = agentPositions();
  const r = Math.max(6, T * 0.62);
  const order = meta.agents.filter((n) => pos[n] && n !== selected);
  if (selected && pos[selected]) {
    drawTrail(g, T, trail(selected), agentColor(selected));
    order.push(selected);
  }
  // Bubbles, then names, then avatars: no bubble or label ever hides a person.
  const now = {};
  for (const name of order) drawBubble(g, pos[name], r, T, bubbleText(pos[name].agent));
  for (const name of order) label(g, pos[name], r, T, name);
  for (const name of order) {
    const p = pos[name];
    drawAvatar(g, p, r, agentColor(name), name === selected);
    now[name] = {
      cx: p.cx,
      cy: p.cy,
      r,
      tile: [Math.floor(p.cx / T), Math.floor(p.cy / T)],
      eventTile: p.tile,
    };
  }
  drawn = now;
  drawnStep = step;
  drawPlayer(g, T, r);
}

// The selected agent's way over the last minutes of game time.
function trail(name) {
  const tiles = [];
  for (let n = Math.max(0, step - 60); n <= step; n++) {
    const a = agentsAt(n)[name];
    if (a) tiles.push(a.tile);
  }
  return tiles;
}

// The avatar: live where the page shows the latest step, else as the log has it.
function drawPlayer(g, T, r) {
  player = null;
  const latest = step >= events.length - 1;
  const live = town && town.avatar;
  const logged = events[step] && events[step].avatar;
  const a = latest && live ? live : logged;
  if (!a) return;
  const cx = (a.tile[0] + 0.5) * T;
  const cy = (a.tile[1] + 0.5) * T;
  if (latest && live && live.walking_to) drawTarget(g, T, live.walking_to);
  drawDiamond(g, cx, cy, r);
  // The name above: residents' names are below them, and the avatar is often next to one.
  const h = clamp(Math.round(T * 0.9), 10, 14) + 4;
  label(g, { cx, cy: cy - r * 1.25 - h - 6 }, 0, T, a.name);
  player = { name: a.name, tile: a.tile, cx, cy };
}

// The resident drawn at a point of the map (CSS pixels), or null.
export function agentUnder(px, py) {
  let best = null;
  let bestD = Infinity;
  for (const [name, d] of Object.entries(drawn)) {
    const dist = Math.hypot(px - d.cx, py - d.cy);
    if (dist <= d.r + 5 && dist < bestD) {
      best = name;
      bestD = dist;
    }
  }
  return best;
}
