// The conversation panel of a played town: interviews of any resident (the talk form) and the
// avatar's own conversations (the say form), with the memories each answer drew on. The one
// owner of this page's log of them.

import { act, guarded, onSubmit, town } from "./play.js";
import { $, el } from "./util.js";

const log = []; // {kind: "talk", ...} or {kind: "chat", with, lines, ended}

export function initInterview() {
  onSubmit("talk-form", async () => {
    const body = {
      resident: $("talk-to").value,
      persona: $("talk-as").value,
      question: $("talk-question").value,
      remember: $("talk-remember").checked,
    };
    const got = await act("talk", body);
    log.push({ kind: "talk", ...body, answer: got.answer, memories: got.memories });
    $("talk-question").value = "";
    renderTalkLog();
  });
  onSubmit("say-form", async () => {
    const body = { resident: $("say-to").value, text: $("say-text").value };
    const got = await act("say", body);
    let chat = log.findLast((e) => e.kind === "chat");
    if (!chat || chat.ended || chat.with !== body.resident) {
      chat = { kind: "chat", with: body.resident, lines: [] };
      log.push(chat);
    }
    chat.lines.push([town.avatar.name, body.text], [body.resident, got.reply]);
    if (got.ended) chat.ended = true;
    $("say-text").value = "";
    renderTalkLog();
  });
  $("say-end").addEventListener("click", () => guarded(async () => {
    await act("leave", {});
    const chat = log.findLast((e) => e.kind === "chat");
    if (chat) chat.ended = true;
    renderTalkLog();
  }));
  renderTalkLog();
}

function renderTalkLog() {
  const box = $("talk-log");
  box.replaceChildren();
  if (!log.length) {
    box.append(el("p", "empty", "ask a resident something, or enter and talk to one nearby"));
  }
  for (const entry of log) {
    const div = el("div", "entry");
    if (entry.kind === "talk") {
      const kept = entry.remember ? "remembered" : "not remembered";
      div.append(el("div", "head", `interview · ${entry.persona} → ${entry.resident} · ${kept}`));
      const q = el("p", "you");
      q.append(el("span", "speaker", "You: "), entry.question);
      const a = el("p");
      a.append(el("span", "speaker", `${entry.resident}: `), entry.answer);
      div.append(q, a);
      const more = el("details");
      more.append(el("summary", "", `memories used (${entry.memories.length})`));
      const ol = el("ol");
      for (const m of entry.memories) ol.append(el("li", "", m));
      more.append(ol);
      div.append(more);
    } else {
      const state = entry.ended ? `ended · ${entry.with} remembers it` : "talking";
      div.append(el("div", "head", `conversation with ${entry.with} · ${state}`));
      for (const [speaker, text] of entry.lines) {
        const p = el("p", speaker === entry.with ? "" : "you");
        p.append(el("span", "speaker", `${speaker}: `), text);
        div.append(p);
      }
    }
    box.append(div);
  }
  box.scrollTop = box.scrollHeight; // the latest at the bottom, as in a chat
}
