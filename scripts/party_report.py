"""The party benchmark's report (scripts/results/party.md), written from a run's records, the
town evaluation and the day judge: who learned of Isabella's party, when and from whom; whose
Feb 14 plan holds it; who was at Hobbs Cafe during it; the conversations of each resident-day
and what they were about; the day judge's counts; calls and seconds. No model is asked here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from benchrun import cell as _cell
from benchrun import cost_rows, judge_section

from simulacra.cognition import dialogue
from simulacra.evaluation.checks import contains_words
from simulacra.evaluation.day import DayResult
from simulacra.evaluation.daylog import Conversation, DayLog, PlannedStretch
from simulacra.evaluation.facts import Fact
from simulacra.evaluation.town import TownResult
from simulacra.llm.calllog import read_calls, summarise
from simulacra.llm.phrases import phrases_beside
from simulacra.sim.stats import RunStats
from simulacra.world.tree import split_address

_DIALOGUE = phrases_beside(dialogue.__file__, "dialogue")


@dataclass(frozen=True)
class Learned:
    """How one resident came to know of the party: the line that told them, and the first
    memory of theirs that holds it (the fact's keywords in one memory, as `eval town` counts)."""

    resident: str
    told_at: datetime | None = None
    told_by: str = ""
    line: str = ""
    remembered_at: datetime | None = None
    memory: str = ""


def mentions(text: str, fact: Fact) -> bool:
    """Any of the fact's words: "the party" in a talk that is about it."""
    return any(contains_words(text, k) for k in fact.keywords)


def about_the_party(chat: Conversation, fact: Fact) -> bool:
    return fact.held_in(" ".join(text for _, text in chat.lines))


def learned(log: DayLog, fact: Fact) -> list[Learned]:
    found = []
    for name in log.agents:
        if name == fact.source:
            continue
        told = next(
            (
                (chat.time, speaker, text)
                for chat in log.conversations
                if name in chat.between and about_the_party(chat, fact)
                for speaker, text in chat.lines
                if speaker != name and mentions(text, fact)
            ),
            None,
        )
        memory = next((m for m in log.memories.get(name, []) if fact.held_in(m.text)), None)
        found.append(
            Learned(
                name,
                *(told or (None, "", "")),
                memory.time if memory else None,
                f"{memory.kind}: {memory.text}" if memory else "",
            )
        )
    return found


def holds(stretch: PlannedStretch, fact: Fact) -> bool:
    """Whether a plan's item or block speaks of the party, or goes to its place at its hours:
    Maria's "17:00 going to Hobbs Cafe on February 14th from 17:00 to 19:00 with Isabella
    Rodriguez" (party seed 2x)."""
    if mentions(stretch.activity, fact):
        return True
    if not (
        fact.place and fact.start and fact.end and contains_words(stretch.activity, fact.place)
    ):
        return False
    end = stretch.end or stretch.start + timedelta(hours=1)  # an item: at least its hour
    return stretch.start < fact.end and end > fact.start


def plan_items(log: DayLog, name: str, day: date, fact: Fact) -> list[str]:
    """The items of ``name``'s plans for ``day`` that speak of the party (broad strokes and
    hourly blocks)."""
    items: list[PlannedStretch] = log.outlines.get(name, {}).get(day, [])
    blocks: list[PlannedStretch] = log.schedules.get(name, {}).get(day, [])
    shown = [f"{i.start:%H:%M} {i.activity}" for i in items if holds(i, fact)]
    shown += [
        f"{b.start:%H:%M}-{b.end:%H:%M} {b.activity}" for b in blocks if b.end and holds(b, fact)
    ]
    return list(dict.fromkeys(shown))


def at_its_hour(log: DayLog, name: str, fact: Fact) -> bool:
    """A block of the party's day that speaks of it overlaps the party's hours."""
    blocks = log.schedules.get(name, {}).get(fact.start.date(), [])
    return any(
        b.end and b.start < fact.end and b.end > fact.start and holds(b, fact) for b in blocks
    )


def inside(address: str, place: str) -> bool:
    a, p = split_address(address.lower()), split_address(place.lower())
    return a[: len(p)] == p


def present(log: DayLog, name: str, place: str, start: datetime, end: datetime) -> str:
    """When ``name`` was at ``place`` within [start, end): "17:05-19:00 (cafe)", or ""."""
    stays = [s for s in log.stays_within(name, start, end) if s.place and inside(s.place, place)]
    if not stays:
        return ""
    rooms = dict.fromkeys(split_address(s.place)[1] if ":" in s.place else s.place for s in stays)
    first, last = min(s.start for s in stays), max(s.end for s in stays)
    return f"{first:%H:%M}-{last:%H:%M} ({', '.join(rooms)})"


def memo(log: DayLog, chat: Conversation, name: str) -> str:
    """What ``name`` noted after ``chat`` (the memo the dialogue leaves), if logged within the
    hour after it began."""
    partners = [p for p in chat.between if p != name]
    if not partners:
        return ""
    prefix = _DIALOGUE.text("memo", name=name, partner=partners[0], memo="\x00").split("\x00")[0]
    for m in log.memories.get(name, []):
        if chat.time <= m.time <= chat.time + timedelta(hours=1) and m.text.startswith(prefix):
            return m.text[len(prefix) :].strip()
    return ""


def write_report(
    log: DayLog,
    *,
    fact: Fact,
    town: TownResult | None,
    day: DayResult,
    stats: RunStats,
    seconds: float,
    town_seconds: float,
    model: str,
    seed: int,
) -> str:
    lines = [
        f"# Isabella's party in {log.directory.name}",
        "",
        f"Model `{model}`, seed {seed}, no replay cache: {log.start:%a %d %b %H:%M} to "
        f"{log.now:%a %d %b %H:%M} ({stats.game_hours:.1f} game hours, {stats.steps} steps). "
        f"The party: {fact.statement or fact.title}. Written by `scripts/bench_party.py`.",
        "",
        *_learned_section(log, fact, town),
        *_plans_section(log, fact),
        *_presence_section(log, fact),
        *_conversations_section(log, fact),
        *judge_section(day),
        *_town_section(town),
        *_totals(log, stats, seconds, town_seconds),
    ]
    return "\n".join(lines)


def _learned_section(log: DayLog, fact: Fact, town: TownResult | None) -> list[str]:
    diffusion = next((d for d in town.diffusion if d.fact == fact.name), None) if town else None
    lines = [
        "## Who learned of the party",
        "",
        "The first line that spoke of it to them (in a conversation about it), and their first "
        "memory holding it; at the end, what they said when asked (`eval town`).",
        "",
        "| resident | told | by | the line | first memory holding it | by its start | "
        "says so at the end |",
        "|---|---|---|---|---|---|---|",
    ]
    if fact.source in log.agents:
        says = "—"
        if diffusion is not None:
            says = "yes" if fact.source in diffusion.claimed else "no"
        lines.append(f"| {fact.source} | the host | — | — | from the start | yes | {says} |")
    for who in learned(log, fact):
        told = f"{who.told_at:%a %H:%M}" if who.told_at else "never"
        remembered = (
            f"{who.remembered_at:%a %H:%M} ({_cell(who.memory, 100)})"
            if who.remembered_at
            else "none"
        )
        knew = "yes" if who.remembered_at and who.remembered_at < fact.start else "no"
        says = "—"
        if diffusion is not None:
            says = "yes" if who.resident in diffusion.claimed else "no"
            says += " (memory holds it)" if who.resident in diffusion.in_memory else ""
        lines.append(
            f"| {who.resident} | {told} | {who.told_by or '—'} | {_cell(who.line) or '—'} | "
            f"{remembered} | {knew} | {says} |"
        )
    return [*lines, ""]


def _plans_section(log: DayLog, fact: Fact) -> list[str]:
    day = fact.start.date()
    lines = [
        "## Whose plans hold it",
        "",
        f"Plan items that speak of the party, on its day ({day:%a %d %b}) and the day before "
        "(where it is a day early).",
        "",
        f"| resident | {day:%a %d %b} | at {fact.start:%H:%M}-{fact.end:%H:%M} | the day before |",
        "|---|---|---|---|",
    ]
    for name in log.agents:
        on_day = plan_items(log, name, day, fact)
        before = plan_items(log, name, day - timedelta(days=1), fact)
        hour = "yes" if at_its_hour(log, name, fact) else "no"
        lines.append(
            f"| {name} | {_cell('; '.join(on_day)) or '—'} | {hour} | "
            f"{_cell('; '.join(before)) or '—'} |"
        )
    return [*lines, ""]


def _presence_section(log: DayLog, fact: Fact) -> list[str]:
    early = (fact.start - timedelta(days=1), fact.end - timedelta(days=1))
    lines = [
        f"## Who was at {fact.place}",
        "",
        f"| resident | during the party ({fact.start:%a %H:%M}-{fact.end:%H:%M}) | "
        f"the day before ({early[0]:%a %H:%M}-{early[1]:%H:%M}) |",
        "|---|---|---|",
    ]
    for name in log.agents:
        during = present(log, name, fact.place, fact.start, fact.end) or "no"
        before = present(log, name, fact.place, *early) or "no"
        during = during if log.now > fact.start else "not reached"
        before = before if log.start < early[1] and log.now > early[0] else "not in the run"
        lines.append(f"| {name} | {during} | {before} |")
    return [*lines, ""]


def _conversations_section(log: DayLog, fact: Fact) -> list[str]:
    days = sorted({c.time.date() for c in log.conversations})
    lines = [
        "## Conversations",
        "",
        "| resident | day | conversations | with | about the party |",
        "|---|---|---|---|---|",
    ]
    for d in days:
        for name in log.agents:
            mine = [c for c in log.conversations if c.time.date() == d and name in c.between]
            partners = {p for c in mine for p in c.between if p != name}
            party = sum(about_the_party(c, fact) for c in mine)
            lines.append(
                f"| {name} | {d:%a %d %b} | {len(mine)} | {', '.join(sorted(partners)) or '—'} "
                f"| {party} |"
            )
    if not log.conversations:
        lines = ["## Conversations", "", "None."]
    lines.append("")
    for chat in log.conversations:
        party = " (the party)" if about_the_party(chat, fact) else ""
        lines.append(
            f"- {chat.time:%a %H:%M} {' and '.join(chat.between)}, {len(chat.lines)} lines{party}:"
        )
        for speaker, text in chat.lines[:2]:
            lines.append(f"  - {speaker}: {_cell(text, 200)}")
        if len(chat.lines) > 2:
            lines.append(f"  - … {len(chat.lines) - 2} more")
        for name in chat.between:
            if note := memo(log, chat, name):
                lines.append(f"  - {name}'s memo: {_cell(note, 200)}")
    return [*lines, ""]


def _town_section(town: TownResult | None) -> list[str]:
    lines = ["## The town (`simulacra eval town`)", ""]
    if town is None:
        return [*lines, "Not run.", ""]
    lines += [
        f"Asked at {town.time:%a %d %b %H:%M}.",
        "",
        "| measure | start | end | paper |",
        "|---|---|---|---|",
    ]
    n = len(town.agents)
    for d in town.diffusion:
        paper = f"{d.paper.start:.0%} → {d.paper.end:.0%}" if d.paper else "—"
        lines.append(
            f"| knows of {d.label} | {len(d.start)}/{n} | {len(d.end)}/{n} "
            f"(says so {len(d.claimed)}, memory {len(d.in_memory)}) | {paper} |"
        )
    if town.density is not None:
        dn = town.density
        lines.append(
            f"| network density | {dn.start:.3f} | {dn.end:.3f} | "
            f"{dn.paper_start:.3f} → {dn.paper_end:.2f} |"
        )
    for c in town.coordination:
        came = ", ".join(c.came) or "no one"
        value = (
            f"{len([a for a in c.came if a in c.knew])} of {len(c.knew)} who knew (came: {came})"
        )
        paper = f"{c.paper.came} of {c.paper.invited}" if c.paper and c.paper.came else "—"
        lines.append(f"| came to {c.label} | | {value if c.logged else 'not reached'} | {paper} |")
    lines.append(f"| hallucinated answers | | {town.hallucinated}/{town.answers} | 6/453 |")
    return [*lines, ""]


def _totals(log: DayLog, stats: RunStats, seconds: float, town_seconds: float) -> list[str]:
    reflections = sum(m.kind == "reflection" for ms in log.memories.values() for m in ms)
    lines = [
        "## Totals",
        "",
        "| measure | value |",
        "|---|---|",
        f"| conversations | {len(log.conversations)} |",
        f"| reflections | {reflections} |",
        *cost_rows(stats, seconds),
    ]
    calls = log.directory / "eval" / "calls.jsonl"
    if calls.is_file():
        total = summarise(read_calls(calls)).total
        lines.append(
            f"| evaluation model calls (`eval town`) | {total.calls} "
            f"({timedelta(seconds=round(town_seconds))} this time) |"
        )
    return [*lines, ""]
