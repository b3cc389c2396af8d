// The people on the map, drawn from explicit arguments: residents as discs with a name label
// and a bubble, the selected one's trail, and the user's avatar (simulacra play) as a diamond.
// p is a point in CSS pixels of the map ({cx, cy}); r the disc's radius; T the tile size.

import { FONT, roundRect } from "./canvas.js";
import { EMOJI_FONT } from "./emoji.js";
import { clamp } from "./util.js";

export function drawAvatar(g, p, r, color, selected) {
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
  g.fillStyle = color;
  g.fill();
  g.lineWidth = 2;
  g.strokeStyle = "#ffffff";
  g.stroke();
  g.restore();
}

// A name tag below the point: the whole name when selected, else the first name.
export function drawLabel(g, p, r, T, name, color, selected) {
  const text = selected ? name : name.split(" ")[0];
  const size = clamp(Math.round(T * 0.9), 10, 14);
  g.save();
  g.font = `600 ${size}px ${FONT}`;
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
  g.strokeStyle = color;
  g.stroke();
  g.fillStyle = "#1d1d1d";
  g.fillText(text, p.cx, y + h / 2 + 0.5);
  g.restore();
}

// content: {text, emoji} (see emoji.js).
export function drawBubble(g, p, r, T, content) {
  const size = content.emoji ? clamp(Math.round(T * 1.1), 12, 22) : clamp(Math.round(T), 10, 14);
  g.save();
  g.font = content.emoji ? `${size}px ${EMOJI_FONT}` : `italic ${size}px ${FONT}`;
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

// A dashed line through tile centres, oldest first.
export function drawTrail(g, T, tiles, color) {
  g.save();
  g.strokeStyle = color;
  g.globalAlpha = 0.55;
  g.lineWidth = 3;
  g.lineJoin = "round";
  g.setLineDash([4, 4]);
  g.beginPath();
  tiles.forEach(([x, y], k) => {
    if (k === 0) g.moveTo((x + 0.5) * T, (y + 0.5) * T);
    else g.lineTo((x + 0.5) * T, (y + 0.5) * T);
  });
  g.stroke();
  g.restore();
}

// A red cross on the tile the user's avatar walks to.
export function drawTarget(g, T, [gx, gy]) {
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

// The user's avatar: a yellow diamond, unlike any resident.
export function drawDiamond(g, cx, cy, r) {
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
}
