// The status line under the page: how much of the run is loaded, or what went wrong. The one
// owner of the page's error: the last problem reported, until a load succeeds.

import { chatCount, events, total } from "./run.js";
import { $ } from "./util.js";
import { live } from "./view.js";

export let error = null;

export function setError(message) {
  error = message;
}

export function updateStatus() {
  const status = $("status");
  status.classList.toggle("error", Boolean(error));
  if (error) {
    status.textContent = error;
    return;
  }
  const loaded = events.length;
  const parts = [`${loaded} of ${total} steps recorded`];
  if (loaded < total) {
    parts.push(live ? "following the run: new steps appear as they are written"
      : "the run is not finished: tick “live” to follow it");
  } else if (total) parts.push("complete");
  parts.push(`${chatCount()} conversations`);
  status.textContent = parts.join(" · ");
}
