// simulacra viewer: replays a run directory, or follows one while `simulacra run` writes it.
// It talks only to the server it came from (simulacra/viewer/server.py). This module starts
// the page and runs its frame loop; the parts are ES modules beside it, each the one owner
// of its state (see docs/architecture.md, "The viewer page"):
//   run.js      the run's data: loading, indexes, the run at a step
//   view.js     the shown step, playback, selection, live, whether to redraw
//   map.js      the town's tiles and names, tile size and zoom
//   scene.js    one frame: residents, trail, the user's avatar; figures.js draws them
//   panels.js   residents, plan and memories, conversations, objects, your actions
//   controls.js buttons, scrubber, keys and the mouse on the map
//   play.js     simulacra play: the town's controls and actions; interview.js its talk log
//   status.js   the status line; debug.js the read-only window.viewer
//   util.js     helpers shared with the feed page (feed.js)

import { bindControls, drawMarks, setLive, syncControls } from "./controls.js";
import { exposeDebugHandle } from "./debug.js";
import { initInterview } from "./interview.js";
import { layout, prepareMap } from "./map.js";
import { refreshPanels, renderPanels } from "./panels.js";
import { initPlay } from "./play.js";
import { events, fetchMore, meta, openRun, watch, world } from "./run.js";
import { draw } from "./scene.js";
import { setError, updateStatus } from "./status.js";
import { $, clamp } from "./util.js";
import * as view from "./view.js";

// Steps from..events.length-1 came in.
function arrived(from) {
  const atEdge = view.step >= from - 1;
  const last = events.length - 1;
  $("scrubber").max = String(last);
  if (from === 0 && !view.ready) {
    view.setReady();
    const asked = Number(new URLSearchParams(location.search).get("step"));
    view.setStep(view.live ? last : clamp(asked || 0, 0, last));
  } else if (view.live && atEdge) {
    view.setStep(last);
  }
  drawMarks();
  refreshPanels();
  view.redraw();
}

watch({
  restart: () => view.setStep(0),
  arrived,
  settled(error) {
    setError(error);
    updateStatus();
  },
});

// A live page asks for new lines every second; the server reads only what was appended.
function follow() {
  if (view.live && view.ready) fetchMore();
}

let lastFrame = null;

function frame(now) {
  const dt = Math.min(now - (lastFrame ?? now), 250);
  lastFrame = now;
  view.advance(dt);
  if (world && view.dirty) {
    draw();
    view.markDrawn();
  }
  if (view.ready) {
    renderPanels();
    syncControls();
  }
  requestAnimationFrame(frame);
}

async function start() {
  bindControls();
  const params = new URLSearchParams(location.search);
  try {
    await openRun();
    prepareMap();
    $("world-name").textContent = world.name;
    $("run-info").textContent =
      `${meta.agents.length} residents · ${meta.step_seconds} s a step · seed ${meta.seed}`;
    document.title = `${world.name} · simulacra`;
    layout();
    if (meta.play) {
      initPlay();
      initInterview();
    }
    const following = params.has("follow") ? params.get("follow") !== "0" : meta.follow;
    setLive(Boolean(following));
    if (params.get("agent") && meta.agents.includes(params.get("agent"))) {
      view.setSelected(params.get("agent"));
    }
  } catch (err) {
    setError(`cannot load the run (${err.message})`);
    updateStatus();
    return;
  }
  requestAnimationFrame(frame);
  await fetchMore();
  if (!events.length) {
    // Nothing written yet: a live page waits for the first step.
    view.setReady();
  }
  setInterval(follow, 1000);
}

exposeDebugHandle();
start();
