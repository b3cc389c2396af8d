"""Conversations of a kept run, said again: each is staged with its two speakers as they were
then and spoken afresh on the current code and model; every line is judged as the day judge
judges lines.

    python scripts/bench_talk.py runs/party-seed2r [--samples 2] [--limit 10] [--out F]
                                 [--since 2023-02-14T08:00]

Dialogue is where whole days now read worst (lines are the day judge's largest class), and a
party run, which judges it on whole days, takes two hours and turns on who met whom. Here a
prompt or code change for dialogue is heard on the run's own meetings in minutes: the same
two people, at the same hour and place, each with the memories it had made before it (see
simulacra/evaluation/staging.py). The report puts the run's lines beside the new ones, with
the items the judge finds in each; the party benchmark stays the last word. With the replay
cache (the default), a second run after a prompt change pays only for what the change
changed.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from benchrun import ROOT, report_to_out

from simulacra.cognition.dialogue import converse
from simulacra.embed import Embedder, open_embedder
from simulacra.errors import UserError
from simulacra.evaluation.day import judge_line
from simulacra.evaluation.daylog import Conversation
from simulacra.evaluation.records import eval_dir
from simulacra.evaluation.runview import read_run, run_settings
from simulacra.evaluation.staging import minds_at
from simulacra.llm import StructuredModel, open_model
from simulacra.settings import LLMSettings
from simulacra.sim.sandbox import setting_at

TALK_DIR = "talk"  # under RUN/eval: the staged calls' log


@dataclass
class Said:
    """One telling of a conversation, its lines judged."""

    lines: list[tuple[str, str]]
    faults: list[str | None] = field(default_factory=list)  # per line: why it reads broken

    @property
    def items(self) -> int:
        return sum(f is not None for f in self.faults)


@dataclass
class Staged:
    chat: Conversation
    setting: str
    original: Said
    again: list[Said]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("run", type=Path, help="a kept run (a party or morning benchmark's)")
    parser.add_argument("--samples", type=int, default=2, help="tellings of each conversation")
    parser.add_argument("--limit", type=int, default=0, help="the first N conversations (0: all)")
    parser.add_argument(
        "--since",
        type=datetime.fromisoformat,
        help="only conversations from this game time on (e.g. 2023-02-14T08:00, the party day)",
    )
    parser.add_argument("--model", type=Path, help="a GGUF file (default: the run's model)")
    parser.add_argument("--seed", type=int, help="the first telling's seed (default: the run's)")
    parser.add_argument("--no-cache", action="store_true", help="ask the model every time")
    parser.add_argument("--out", type=Path, help="default: scripts/results/talk-<RUN>.md")
    args = parser.parse_args()
    args.out = args.out or ROOT / "scripts" / "results" / f"talk-{args.run.resolve().name}.md"
    report_to_out(bench, args)


def bench(
    args: argparse.Namespace,
    model: StructuredModel | None = None,
    embedder: Embedder | None = None,
) -> str:
    """The report; ``model`` and ``embedder`` replace the run's own (tests pass stand-ins)."""
    overrides = LLMSettings(model=args.model) if args.model else None
    settings = run_settings(args.run, overrides)
    if args.no_cache:
        settings.llm.cache = False
    if args.seed is not None:
        settings.llm.seed = args.seed
    run = read_run(args.run)
    chats = [c for c in run.chats if c.lines and (args.since is None or c.time >= args.since)]
    chats = chats[: args.limit or None]
    if not chats:
        raise UserError(
            "the run has no conversation yet" + (f" from {args.since}" if args.since else ""),
            file=args.run,
            fix="give another run, or an earlier --since",
        )
    model = model or open_model(settings.llm, log_dir=eval_dir(args.run) / TALK_DIR)
    embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
    started = time.perf_counter()
    staged = []
    for n, chat in enumerate(chats, 1):
        first = chat.lines[0][0]
        setting = setting_at(run.world, chat.places.get(first))
        earlier = _earlier_lines(run.chats, chat)
        again: list[Said] = []
        states = None  # the first telling writes the two identities; the others reuse them
        for sample in range(args.samples):
            seeded = settings.model_copy(deep=True)
            seeded.llm.seed = settings.llm.seed + sample
            asked = StructuredModel(model.completer, seeded.llm, model.log, retries=model.retries)
            with minds_at(
                args.run,
                run.world,
                chat.between,
                chat.time,
                model=asked,
                embedder=embedder,
                settings=seeded,
                states=states,
            ) as minds:
                states = states or {name: mind.get_state() for name, mind in minds.items()}
                other = next(name for name in chat.between if name != first)
                lines = converse(
                    minds[first],
                    minds[other],
                    now=chat.time,
                    setting=setting,
                    max_utterances=seeded.conversation.max_utterances,
                    earlier=earlier,
                )
            again.append(_judged([(line.speaker, line.text) for line in lines], chat, earlier))
            print(
                f"[{n}/{len(chats)}] {chat.time:%a %H:%M} {' and '.join(chat.between)}: "
                f"telling {sample + 1}, {len(lines)} lines, {again[-1].items} items",
                flush=True,
            )
        staged.append(Staged(chat, setting, _judged(list(chat.lines), chat, earlier), again))
    return report(args, staged, time.perf_counter() - started, settings.llm.seed)


def _earlier_lines(chats: list[Conversation], chat: Conversation) -> list[str]:
    """What the pair had said to each other that day before ``chat``: an echo of it counts."""
    return [
        text
        for c in chats
        if c.time < chat.time
        and c.time.date() == chat.time.date()
        and set(c.between) == set(chat.between)
        for _, text in c.lines
    ]


def _judged(lines: list[tuple[str, str]], chat: Conversation, earlier: list[str]) -> Said:
    said = Said(lines)
    heard = list(earlier)
    for speaker, text in lines:
        partners = [n for n in chat.between if n != speaker]
        said.faults.append(judge_line(text, speaker, partners, heard)[1])
        heard.append(text)
    return said


def report(args: argparse.Namespace, staged: list[Staged], seconds: float, seed: int) -> str:
    tellings = [s for st in staged for s in st.again]
    run_lines = sum(len(st.original.lines) for st in staged)
    run_items = sum(st.original.items for st in staged)
    new_lines = sum(len(s.lines) for s in tellings)
    new_items = sum(s.items for s in tellings)
    out = [
        f"# Conversations of `{args.run.name}`, said again",
        "",
        f"`python scripts/bench_talk.py {args.run} --samples {args.samples}"
        + (f" --limit {args.limit}" if args.limit else "")
        + f"`: {len(staged)} conversations, {args.samples} tellings each from seed {seed}, "
        f"{datetime.now():%Y-%m-%d %H:%M}, {seconds / 60:.1f} minutes.",
        "",
        "| | conversations | lines | lines a talk | items (day judge) | items a talk |",
        "|---|---|---|---|---|---|",
        _row("the run", len(staged), run_lines, run_items),
        _row("said again", len(tellings), new_lines, new_items),
        "",
    ]
    for st in staged:
        chat = st.chat
        out += [f"## {chat.time:%a %H:%M} {' and '.join(chat.between)}, {st.setting}", ""]
        for title, said in [("In the run", st.original)] + [
            (f"Telling {i}", s) for i, s in enumerate(st.again, 1)
        ]:
            out.append(f"{title} ({said.items} items):")
            out.append("")
            for (speaker, text), fault in zip(said.lines, said.faults, strict=True):
                mark = f" **[{fault}]**" if fault else ""
                out.append(f"- {speaker}: {text}{mark}")
            out.append("")
    return "\n".join(out)


def _row(what: str, talks: int, lines: int, items: int) -> str:
    per = lines / talks if talks else 0
    return f"| {what} | {talks} | {lines} | {per:.1f} | {items} | {items / max(talks, 1):.2f} |"


if __name__ == "__main__":
    main()
