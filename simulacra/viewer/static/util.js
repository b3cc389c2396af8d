// Helpers the viewer and the feed page share: DOM building, grouping, fetching, clock text.

export const $ = (id) => document.getElementById(id);

// Model-written text goes into the page as text, never as HTML.
export function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}

// Appends `value` to the list kept under `key` in a Map of lists.
export function groupInto(map, key, value) {
  if (!map.has(key)) map.set(key, []);
  map.get(key).push(value);
}

export async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

// Times in the files are naive ISO strings ("2023-02-13T07:14:10"): read them as written.
export const hhmm = (iso) => iso.slice(11, 16);
export const hhmmss = (iso) => iso.slice(11, 19);
