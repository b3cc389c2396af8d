// The header's controls (play, step, speed, scrubber with its conversation ticks, live, zoom),
// the mouse on the map (select a resident, walk the avatar, the tooltip) and the keys.

import { describeTime } from "./gametime.js";
import { layout, mapPoint, onMap, tileAt, zoomBy } from "./map.js";
import { select } from "./panels.js";
import { active, pickResident, playKey, walkTo, walking } from "./play.js";
import {
  agentsAt,
  chatSteps,
  events,
  fetchMore,
  objectStatesAt,
  stepTime,
  total,
  world,
} from "./run.js";
import { agentUnder, drawn } from "./scene.js";
import { updateStatus } from "./status.js";
import { $ } from "./util.js";
import * as view from "./view.js";

export function setLive(on) {
  view.setLive(on);
  $("live").checked = on;
  $("live").parentElement.classList.toggle("on", on);
  if (on && view.ready) fetchMore().then(() => view.setStep(events.length - 1));
  updateStatus();
}

// Brings the controls in line with the view, once a frame.
export function syncControls() {
  const scrubber = $("scrubber");
  if (document.activeElement !== scrubber || view.playing) scrubber.value = String(view.step);
  const all = Math.max(total, events.length);
  $("step-label").textContent = `step ${view.step} / ${Math.max(all - 1, 0)}`;
  $("clock").textContent = events.length ? describeTime(stepTime(view.step)) : "–";
  const button = $("play");
  const text = view.playing ? "❚❚ Pause" : "▶ Play";
  if (button.textContent !== text) button.textContent = text;
  button.classList.toggle("playing", view.playing);
}

// Ticks under the scrubber where conversations happened.
export function drawMarks() {
  const canvas = $("marks");
  const w = canvas.clientWidth;
  canvas.width = w;
  canvas.height = 8;
  const g = canvas.getContext("2d");
  const last = Math.max(1, events.length - 1);
  g.fillStyle = "#8fc7ff";
  for (const n of chatSteps()) g.fillRect(Math.round((n / last) * (w - 14)) + 6, 0, 3, 8);
}

function showTooltip(event) {
  const tip = $("tooltip");
  if (!world) return;
  const [px, py] = mapPoint(event);
  const [x, y] = tileAt(px, py);
  if (!onMap(x, y)) {
    tip.hidden = true;
    return;
  }
  const i = y * world.width + x;
  const t = world.tiles;
  const lines = [];
  const who = agentUnder(px, py);
  if (who) lines.push(`${who}: ${agentsAt(view.step)[who].activity}`);
  const o = t.object[i];
  const a = t.arena[i];
  const s = t.sector[i];
  if (o >= 0) {
    const obj = world.objects[o];
    const state = objectStatesAt(view.step).get(obj.address);
    lines.push(`${obj.address} (${state ? state.state : obj.state})`);
  } else if (a >= 0) lines.push(world.arenas[a].address);
  else if (s >= 0) lines.push(world.sectors[s].name);
  else lines.push(world.kinds[t.kind[i]]);
  lines.push(`tile ${x}, ${y}`);
  tip.textContent = lines.join("\n");
  const pane = $("map-pane");
  const box = pane.getBoundingClientRect();
  tip.style.left = `${event.clientX - box.left + pane.scrollLeft + 14}px`;
  tip.style.top = `${event.clientY - box.top + pane.scrollTop + 14}px`;
  tip.hidden = false;
}

function clickMap(event) {
  const [px, py] = mapPoint(event);
  const at = tileAt(px, py);
  let who = agentUnder(px, py);
  // With an avatar, a click on a free tile is where to walk, even right next to someone.
  if (who && walking() && String(drawn[who].tile) !== String(at)) who = null;
  if (who) {
    select(who);
    if (active) pickResident(who);
  } else if (walking()) {
    walkTo(...at);
  }
}

function onKey(event) {
  const tag = (event.target.tagName || "").toLowerCase();
  if (tag === "select" || tag === "textarea") return;
  if (tag === "input" && event.target.type !== "checkbox") return;
  if (active && playKey(event)) return;
  if (event.key === " ") {
    event.preventDefault();
    view.setPlaying(!view.playing);
  } else if (event.key === "ArrowLeft") view.setStep(view.step - 1);
  else if (event.key === "ArrowRight") view.setStep(view.step + 1);
  else if (event.key === "Escape") select(null);
}

export function bindControls() {
  $("play").addEventListener("click", () => view.setPlaying(!view.playing));
  $("back").addEventListener("click", () => view.setStep(view.step - 1));
  $("forward").addEventListener("click", () => view.setStep(view.step + 1));
  $("speed").addEventListener("change", (e) => view.setSpeed(Number(e.target.value)));
  $("scrubber").addEventListener("input", (e) => view.setStep(Number(e.target.value)));
  $("live").addEventListener("change", (e) => setLive(e.target.checked));
  $("agent-close").addEventListener("click", () => select(null));
  $("zoom-in").addEventListener("click", () => zoomBy(1.25));
  $("zoom-out").addEventListener("click", () => zoomBy(0.8));
  $("zoom-fit").addEventListener("click", () => zoomBy(0));
  const map = $("map");
  map.addEventListener("click", clickMap);
  map.addEventListener("mousemove", showTooltip);
  map.addEventListener("mouseleave", () => ($("tooltip").hidden = true));
  document.addEventListener("keydown", onKey);
  new ResizeObserver(() => {
    layout();
    drawMarks();
  }).observe($("map-pane"));
}
