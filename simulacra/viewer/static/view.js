// What the page shows: the step, how far towards the next one while playing, who is selected,
// whether it follows a live run, and whether the map needs drawing. The one owner of this
// state: other modules read the bindings (read-only where imported) and call the setters.

import { events } from "./run.js";
import { clamp } from "./util.js";

export let step = 0;
export let frac = 0; // 0..1 of the way to the next step, while playing
export let playing = false;
let stepsPerSecond = 5;
export let live = false; // following a run still being written
export let ready = false; // the first steps are in (or a live run has none yet)
export let selected = null; // a resident's name
export let dirty = true; // the map needs drawing

export function redraw() {
  dirty = true;
}

export function markDrawn() {
  dirty = false;
}

export function setReady() {
  ready = true;
  dirty = true;
}

export function setStep(n) {
  const last = events.length - 1;
  step = clamp(Math.round(n), 0, Math.max(0, last));
  frac = 0;
  dirty = true;
}

export function setPlaying(on) {
  playing = on && events.length > 1;
  if (playing && step >= events.length - 1 && !live) step = 0; // play again
  frac = 0;
}

export function setSpeed(perSecond) {
  stepsPerSecond = perSecond;
}

export function setLive(on) {
  live = on;
}

export function setSelected(name) {
  selected = name;
  dirty = true;
}

// Moves time on by `ms` of real time while playing.
export function advance(ms) {
  if (!playing) return;
  frac += (ms / 1000) * stepsPerSecond;
  while (frac >= 1) {
    if (step + 1 < events.length) {
      step += 1;
      frac -= 1;
    } else {
      frac = 0;
      if (!live) setPlaying(false); // a live run waits for the next steps
      break;
    }
  }
  dirty = true;
}
