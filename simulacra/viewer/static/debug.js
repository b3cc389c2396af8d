// window.viewer: a read-only handle on what the page shows, for tests, the screenshot script
// and curious people; nothing can be changed through it.

import { base, tile } from "./map.js";
import { active, town } from "./play.js";
import { agentColor, events, stepTime, total, world } from "./run.js";
import { drawn, drawnStep, player as drawnPlayer } from "./scene.js";
import { error } from "./status.js";
import { $ } from "./util.js";
import * as view from "./view.js";

export function exposeDebugHandle() {
  window.viewer = Object.freeze({
    get ready() { return view.ready; },
    get worldLoaded() { return Boolean(world && base); },
    get step() { return view.step; },
    // The step the map shows: the map is drawn on the next animation frame after a change.
    get drawnStep() { return view.dirty ? null : drawnStep; },
    get loaded() { return events.length; },
    get total() { return total; },
    get playing() { return view.playing; },
    get live() { return view.live; },
    get selected() { return view.selected; },
    get time() { return events.length ? stepTime(view.step) : null; },
    get tileSize() { return tile; },
    get error() { return error; },
    // simulacra play: the town's state as the server last said it, and the user's avatar as
    // drawn ({name, tile, x, y} in the viewport), or null.
    get play() { return active ? town : null; },
    player() {
      if (!drawnPlayer) return null;
      const rect = $("map").getBoundingClientRect();
      const { name, tile: at, cx, cy } = drawnPlayer;
      return { name, tile: [...at], x: rect.left + cx, y: rect.top + cy };
    },
    // The viewport point of a tile's centre (to click a destination).
    tilePoint(x, y) {
      const rect = $("map").getBoundingClientRect();
      return { x: rect.left + (x + 0.5) * tile, y: rect.top + (y + 0.5) * tile };
    },
    // name -> {tile: the tile under the drawn avatar, eventTile, x, y: its centre in the
    // viewport (for a mouse click), color}
    avatars() {
      const rect = $("map").getBoundingClientRect();
      const out = {};
      for (const [name, d] of Object.entries(drawn)) {
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
}
