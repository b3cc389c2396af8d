// The town without its people: tiles, doors, room borders, furniture and names, drawn once
// per tile size onto an offscreen canvas, and the objects whose state is not their default.
// The one owner of the map's scale (tile size, zoom) and of what is derived from world.json.

import { FONT, roundRect, wrapWords } from "./canvas.js";
import { objectByAddress, world } from "./run.js";
import { $, clamp } from "./util.js";
import { redraw } from "./view.js";

export let tile = 12; // CSS pixels per tile
let zoom = 1;
export let base = null; // the map without agents, drawn at the current tile size

const W = {
  // Derived once from world.json.
  kinds: {},
  sectorHue: [],
  arenaShade: [],
  arenaBox: [], // arena id -> {x0, y0, x1, y1, n} over its floor and object tiles
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

export function prepareMap() {
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
}

function floorColor(i) {
  const s = world.tiles.sector[i];
  const a = world.tiles.arena[i];
  if (s < 0) return COLORS.ground;
  const shade = a >= 0 ? W.arenaShade[a] % 3 : 0;
  return `hsl(${W.sectorHue[s]}, 46%, ${88 - shade * 6}%)`;
}

function objectColor(i) {
  const s = world.tiles.sector[i];
  return s < 0 ? "#9c8f6a" : `hsl(${W.sectorHue[s]}, 32%, 58%)`;
}

function fitTileSize() {
  const pane = $("map-pane");
  const w = (pane.clientWidth - 16) / world.width;
  const h = (pane.clientHeight - 16) / world.height;
  return clamp(Math.floor(Math.min(w, h)), 6, 48);
}

// Sizes the map canvas to the pane and the zoom; redraws the town if the tile size changed.
export function layout() {
  if (!world) return;
  const size = clamp(Math.round(fitTileSize() * zoom), 4, 64);
  if (size === tile && base) return;
  tile = size;
  const canvas = $("map");
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(world.width * tile * dpr);
  canvas.height = Math.round(world.height * tile * dpr);
  canvas.style.width = `${world.width * tile}px`;
  canvas.style.height = `${world.height * tile}px`;
  base = drawBase(tile, dpr);
  redraw();
}

// factor 0: back to fitting the pane.
export function zoomBy(factor) {
  zoom = factor ? clamp(zoom * factor, 0.5, 5) : 1;
  base = null;
  layout();
}

// A mouse event's point in CSS pixels of the map.
export function mapPoint(event) {
  const rect = $("map").getBoundingClientRect();
  return [event.clientX - rect.left, event.clientY - rect.top];
}

export const tileAt = (px, py) => [Math.floor(px / tile), Math.floor(py / tile)];

export function onMap(x, y) {
  return x >= 0 && y >= 0 && x < world.width && y < world.height;
}

function drawBase(T, dpr) {
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

function drawArenaLabels(g, T) {
  const size = clamp(Math.round(T * 0.82), 8, 13);
  g.font = `${size}px ${FONT}`;
  g.textAlign = "center";
  g.textBaseline = "middle";
  world.arenas.forEach((a, id) => {
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
  g.font = `600 ${size}px ${FONT}`;
  g.textAlign = "left";
  g.textBaseline = "middle";
  for (const s of world.sectors) {
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

// Objects whose state is not their default glow, so a busy stove or bed stands out.
export function drawObjectStates(g, T, states) {
  g.save();
  g.strokeStyle = "#f2b01e";
  g.fillStyle = "rgba(255, 200, 40, 0.35)";
  g.lineWidth = 2;
  for (const address of states.keys()) {
    const obj = objectByAddress.get(address);
    if (!obj) continue;
    for (const [x, y] of obj.tiles) {
      g.fillRect(x * T, y * T, T, T);
      g.strokeRect(x * T + 1, y * T + 1, T - 2, T - 2);
    }
  }
  g.restore();
}
