// With `simulacra play` the town runs while the page watches, and the page can act on it
// through /api/play/... (see simulacra/viewer/play_api.py): run and pause it, enter and walk
// an avatar, whisper, change objects. Every request carries the session's token from the
// page's <meta>; the server refuses any other. The one owner of the town's status as the
// server last said it.

import { onMap } from "./map.js";
import { fetchMore, meta, world } from "./run.js";
import { setError, updateStatus } from "./status.js";
import { $, getJSON } from "./util.js";
import { redraw } from "./view.js";

export let active = false; // this page plays a live town
export let town = null; // GET /api/play: paused, speed, step, avatar, error
let token = "";

export function initPlay() {
  active = true;
  token = document.querySelector('meta[name="simulacra-token"]').content;
  for (const id of ["play", "back", "forward"]) $(id).hidden = true;
  $("speed").parentElement.hidden = true;
  $("live").parentElement.hidden = true;
  $("town-controls").hidden = false;
  $("play-panel").hidden = false;
  for (const id of ["talk-to", "say-to", "whisper-to"]) {
    $(id).replaceChildren(...meta.agents.map((name) => new Option(name, name)));
  }
  const names = world.objects.map((o) => new Option(o.address));
  $("object-names").replaceChildren(...names);
  $("town-run").addEventListener("click", () => control({ paused: !town.paused }));
  $("town-speed").addEventListener("change", (e) => control({ speed: Number(e.target.value) }));
  onSubmit("enter-form", async () => {
    await act("enter", { name: $("avatar-name").value });
  });
  onSubmit("whisper-form", async () => {
    await act("whisper", { resident: $("whisper-to").value, statement: $("whisper-text").value });
    $("whisper-text").value = "";
  });
  onSubmit("set-form", async () => {
    await act("set", { object: $("set-object").value, state: $("set-state").value });
    $("set-state").value = "";
  });
  pollPlay();
  setInterval(pollPlay, 1000);
}

export function onSubmit(id, handler) {
  $(id).addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(handler);
  });
}

// Runs an action, showing its error (a 400's one line) under the forms.
export async function guarded(handler) {
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

export async function act(action, body) {
  const response = await fetch(`/api/play/${action}`, {
    method: "POST",
    cache: "no-store",
    headers: { "Content-Type": "application/json", "X-Simulacra-Token": token },
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
    setError(`cannot reach the town (${err.message})`);
    updateStatus();
  }
}

function showPlay(status) {
  town = status;
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
    setError(status.error);
    updateStatus();
  }
  redraw();
}

export const walking = () => Boolean(active && town && town.avatar);

export function pickResident(name) {
  for (const id of ["talk-to", "say-to", "whisper-to"]) $(id).value = name;
}

export function walkTo(x, y) {
  if (!onMap(x, y)) return;
  guarded(() => act("move", { x, y }));
}

const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

// Keys while playing: space pauses the town, the arrows walk the avatar. True if handled.
export function playKey(event) {
  if (event.key === " ") {
    event.preventDefault();
    control({ paused: !town.paused });
    return true;
  }
  const arrow = ARROWS[event.key];
  if (!arrow || !town || !town.avatar) return false;
  event.preventDefault();
  guarded(() => act("step", { dx: arrow[0], dy: arrow[1] }));
  return true;
}
