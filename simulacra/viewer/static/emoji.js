// A bubble's content: the emoji the model chose, or, where the fonts cannot draw it (an empty
// box), the word it was chosen by.

export const EMOJI_FONT = '"Noto Color Emoji", "Apple Color Emoji", "Segoe UI Emoji", sans-serif';
const drawable = new Map(); // emoji -> whether this browser draws it

function canDrawEmoji(ch) {
  if (!ch) return false;
  if (drawable.has(ch)) return drawable.get(ch);
  const c = document.createElement("canvas");
  c.width = c.height = 40;
  const g = c.getContext("2d", { willReadFrequently: true });
  const ink = (s) => {
    g.clearRect(0, 0, 40, 40);
    g.font = `28px ${EMOJI_FONT}`;
    g.textBaseline = "top";
    g.fillStyle = "#000";
    g.fillText(s, 4, 4);
    return g.getImageData(0, 0, 40, 40).data;
  };
  const drawn = ink(ch);
  const missing = ink("\u{10FFFD}"); // a private-use code point no font draws
  let differs = false;
  let any = false;
  for (let i = 3; i < drawn.length; i += 4) {
    if (drawn[i] !== missing[i]) differs = true;
    if (drawn[i]) any = true;
  }
  const ok = any && differs;
  drawable.set(ch, ok);
  return ok;
}

// {text, emoji}: the emoji, or the word the model chose it by.
export function bubbleText(agent) {
  if (canDrawEmoji(agent.emoji)) return { text: agent.emoji, emoji: true };
  return { text: agent.emoji_word || agent.activity.split(" ")[0] || "…", emoji: false };
}
