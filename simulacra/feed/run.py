"""A feed run: the board, the agents, and their wake-ups in game time, stepped by the engine
(sim/engine.py) under the feed's schedule (schedule.py).

Each wake-up an agent observes at most ``per_wake`` messages past its cursor. For each one it
decides (react or ignore); a reaction becomes a reply and the thread's facts become memories.
The decision and its reply commit to the board together, then the facts, the cursor and the
next wake-up commit to the agent's memory together; a run killed between the two finds the
decision on the board and does not ask again, so nothing is replied to twice or skipped.

Run directory::

    feed.toml               the world's name, start and rules (copied; edit to change rules)
    characters/*.toml       the agent characters (copied)
    feed.sqlite             the board: messages, decisions, the clock
    agents/<slug>/          each agent's memory (GenerativeAgent directory)
    calls.jsonl             every model call
"""

from __future__ import annotations

import math
import re
import shutil
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

from simulacra.embed import Embedder, open_embedder
from simulacra.errors import UserError
from simulacra.feed import steps
from simulacra.feed.agent import FeedAgent
from simulacra.feed.board import BOARD_FILE, Board, FeedDecision, Message
from simulacra.feed.schedule import FeedStepRecord, Schedule, WakeCount
from simulacra.feed.world import (
    CHARACTERS_DIR,
    FEED_FILE,
    Character,
    FeedInfo,
    load_character,
    load_world,
    read_toml,
    validated,
)
from simulacra.llm import LanguageModel, open_model
from simulacra.memory.record import Kind, NewMemory
from simulacra.settings import RetrievalSettings, Settings
from simulacra.sim.engine import Engine
from simulacra.text import check_free_text

AGENTS_DIR = "agents"
# The design's action step: the memories most similar to the thread, by cosine alone.
BY_RELEVANCE = RetrievalSettings(recency_weight=0.0, importance_weight=0.0, relevance_weight=1.0)

OnDecision = Callable[[FeedAgent, Message, FeedDecision], None]


def slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "agent"


def is_feed_run(directory: Path) -> bool:
    return (Path(directory) / BOARD_FILE).is_file() and (Path(directory) / FEED_FILE).is_file()


class FeedRun:
    def __init__(
        self,
        directory: Path,
        info: FeedInfo,
        characters: list[Character],
        agents: list[FeedAgent],
        board: Board,
        embedder: Embedder,
    ) -> None:
        self.directory = directory
        self.embedder = embedder
        self.info = info
        self.rules = info.rules
        self.characters = {c.name: c for c in characters}
        self.agents = agents
        self.board = board

    # -- creating and opening --------------------------------------------------------------

    @classmethod
    def create(
        cls,
        directory: Path,
        world_dir: Path,
        *,
        settings: Settings | None = None,
        model: LanguageModel | None = None,
        embedder: Embedder | None = None,
    ) -> FeedRun:
        world = load_world(world_dir)
        directory = Path(directory)
        if (directory / BOARD_FILE).exists():
            raise UserError(
                "a feed run is here already",
                file=directory,
                fix="pick a new directory, or continue this one with `simulacra feed run`",
            )
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copy(Path(world_dir) / FEED_FILE, directory / FEED_FILE)
        shutil.copytree(
            Path(world_dir) / CHARACTERS_DIR, directory / CHARACTERS_DIR, dirs_exist_ok=True
        )
        settings = settings or Settings()
        model = model or open_model(settings.llm, log_dir=directory)
        embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
        start = world.info.start
        agents = []
        for character in world.characters:
            agent = FeedAgent.create(
                directory / AGENTS_DIR / slug(character.name),
                character.persona,
                at=start,
                settings=settings,
                model=model,
                embedder=embedder,
            )
            agent.next_wake = start
            agent.commit()
            agents.append(agent)
        board = Board(directory)
        refs: dict[str, int] = {}
        for post in world.posts:
            parent = refs[post.reply_to] if post.reply_to else None
            message = board.post(post.author, post.text, post.at, reply_to=parent)
            if post.ref:
                refs[post.ref] = message.id
        board.set_now(start)  # the board's clock is set last: it marks a finished `new`
        return cls(directory, world.info, world.characters, agents, board, embedder)

    @classmethod
    def open(
        cls,
        directory: Path,
        *,
        settings: Settings | None = None,
        model: LanguageModel | None = None,
        embedder: Embedder | None = None,
    ) -> FeedRun:
        directory = Path(directory)
        if not is_feed_run(directory):
            raise UserError(
                "not a feed run",
                file=directory,
                fix="create one with `simulacra feed new DIR --world worlds/fan-feed`",
            )
        info = validated(FeedInfo, read_toml(directory / FEED_FILE), directory / FEED_FILE)
        files = sorted((directory / CHARACTERS_DIR).glob("*.toml"))
        characters = [load_character(f) for f in files]
        settings = settings or Settings()
        model = model or open_model(settings.llm, log_dir=directory)
        embedder = embedder or open_embedder(settings.embed, settings.llm.cache_dir)
        board = Board(directory)
        try:
            board.now  # noqa: B018
        except RuntimeError:
            raise UserError(
                "this feed run was not finished being created",
                file=directory,
                fix="delete the directory and run `simulacra feed new` again",
            ) from None
        agents = []
        for character in characters:
            agent = FeedAgent.open(
                directory / AGENTS_DIR / slug(character.name),
                settings=settings,
                model=model,
                embedder=embedder,
            )
            if agent.next_wake is None:
                agent.next_wake = info.start
            agents.append(agent)
        return cls(directory, info, characters, agents, board, embedder)

    def close(self) -> None:
        self.board.close()
        for agent in self.agents:
            agent.close()

    @property
    def now(self) -> datetime:
        return self.board.now

    def agent(self, name: str) -> FeedAgent:
        wanted = name.strip().lower()
        for agent in self.agents:
            if agent.name.lower() == wanted or agent.persona.first_name.lower() == wanted:
                return agent
        names = ", ".join(a.name for a in self.agents)
        raise UserError(f"no agent named {name!r}", fix=f"agents here: {names}")

    # -- people posting --------------------------------------------------------------------

    def post(self, author: str, text: str, reply_to: int | None = None) -> Message:
        return post_to(self.board, [a.name for a in self.agents], author, text, reply_to)

    # -- running -----------------------------------------------------------------------------

    def run(
        self,
        hours: float,
        on_decision: OnDecision | None = None,
        should_stop: Callable[[], bool] = lambda: False,
    ) -> int:
        """Advance the clock ``hours`` of game time, waking each agent on its cadence, in
        steps of that cadence; ``should_stop`` is polled between steps. Returns the number of
        wake-ups."""
        start = self.now
        until = start + timedelta(hours=hours)
        every = timedelta(minutes=self.rules.wake_every_minutes)
        schedule = Schedule(
            self.agents, self.board, partial(self.wake, on_decision=on_decision), until=until
        )
        steps = math.ceil((until - start) / every) + 1  # the first at the start, the last at until
        engine: Engine[FeedStepRecord] = Engine(
            start=start,
            step_seconds=int(every.total_seconds()),
            rules=schedule,
            checkpoint=schedule.checkpoint,
            checkpoint_every=max(steps, 1),  # each wake-up commits itself: the clock at the end
        )
        count = WakeCount()
        engine.run(count, until_step=steps, should_stop=should_stop)
        return count.wakes

    def wake(self, agent: FeedAgent, at: datetime, on_decision: OnDecision | None = None) -> None:
        """One wake-up: observe, then react, act and remember, message by message."""
        rules = self.rules
        character = self.characters[agent.name]
        messages = self.board.after(agent.cursor, at, skip_author=agent.name, limit=rules.per_wake)
        recent = ""
        if messages:
            agent.refresh_summary(at)
            recent = steps.observe(agent, agent.visible()[-rules.recent_memories :])
        for message in messages:
            decision = self.board.decision(agent.name, message.id)
            if decision is None:
                decision = self._decide(agent, character, message, at, recent)
            if on_decision is not None:
                on_decision(agent, message, decision)
            facts: list[str] = []
            if decision.reaction == steps.REACTING:
                chain = self.board.chain(decision.reply or message.id)
                facts = steps.insight(agent, [_said(m) for m in chain])
                self.board.set_facts(agent.name, message.id, facts)
            agent.remember([NewMemory(f) for f in facts], at)
            agent.cursor = message.cursor
            agent.commit()
        self._fold_if_due(agent, at)
        agent.next_wake = at + timedelta(minutes=rules.wake_every_minutes)
        agent.commit()

    def _near_interests(self, character: Character, said: list[steps.Said]) -> bool:
        """Whether the newest message, or the post its thread began with, comes near one of
        the character's interests in meaning. One batch; the run's embedder caches by text,
        so the interests and the root post are embedded once."""
        texts = list(dict.fromkeys([said[-1].text, said[0].text]))
        vectors = self.embedder.embed([*character.interests, *texts])
        n = len(character.interests)
        return float((vectors[n:] @ vectors[:n].T).max()) >= self.rules.interest_similarity

    def _decide(
        self, agent: FeedAgent, character: Character, message: Message, at: datetime, recent: str
    ) -> FeedDecision:
        chain = self.board.chain(message.id)
        said = [_said(m) for m in chain]
        if len(chain) > self.rules.max_chain:
            # A conversation this long has ended; the design says not to ask a model to judge
            # what a rule can.
            return self.board.record(
                FeedDecision(agent.name, message.id, at, "ignore", "the thread is long enough"),
                None,
            )
        if not self._near_interests(character, said):
            # Measured: small models asked "is it one of the interests?" say yes to a ramen
            # question and a lost charger. Meaning decides that, and costs no model call.
            return self.board.record(
                FeedDecision(agent.name, message.id, at, "ignore", "not about my interests"), None
            )
        # Replies go to a message of the chain, never to the agent's own.
        options = [m.id for m in chain if m.author != agent.name]
        answer = steps.react(
            agent,
            chain=said,
            options=options,
            interests=character.interests,
            recent=recent,
        )
        choice = answer.decision.value
        if choice == steps.IGNORING:
            return self.board.record(
                FeedDecision(agent.name, message.id, at, choice, answer.thought, recent=recent),
                None,
            )
        target = int(answer.target)
        query = "\n".join(f"{m.author}: {m.text}" for m in said)
        hits = agent.stream.retrieve(query, at, self.rules.similar_memories, weights=BY_RELEVANCE)
        memories = sorted((h.record for h in hits), key=lambda r: (r.created, r.id))
        target_said = next(s for s in said if s.id == target)
        reply = steps.action(
            agent,
            chain=said[: said.index(target_said) + 1],
            target=target_said,
            thought=answer.thought,
            memories=memories,
        )
        decision = FeedDecision(
            agent.name,
            message.id,
            at,
            choice,
            answer.thought,
            target=target,
            recent=recent,
            memories=[
                {"id": r.id, "created": r.created.isoformat(), "text": r.description}
                for r in memories
            ],
        )
        return self.board.record(decision, reply)

    def _fold_if_due(self, agent: FeedAgent, at: datetime) -> None:
        """Summarise: fold the oldest low-value memories into a statement or two, and leave
        the originals out of retrieval (they stay on record)."""
        low = [
            r
            for r in agent.visible()
            if r.importance <= self.rules.low_value and r.kind is not Kind.REFLECTION
        ]
        if len(low) < self.rules.fold_after:
            return
        batch = low[: self.rules.fold_after]
        statements = steps.summarise(agent, batch)
        evidence = tuple(r.id for r in batch)
        agent.remember([NewMemory(s, Kind.REFLECTION, evidence=evidence) for s in statements], at)
        agent.stream.hidden.update(evidence)
        agent.commit()


def open_board(directory: Path) -> tuple[Board, list[str]]:
    """The board and the agents' names, without loading any model: enough to post."""
    directory = Path(directory)
    if not is_feed_run(directory):
        raise UserError(
            "not a feed run",
            file=directory,
            fix="create one with `simulacra feed new DIR --world worlds/fan-feed`",
        )
    names = [load_character(f).name for f in sorted((directory / CHARACTERS_DIR).glob("*.toml"))]
    return Board(directory), names


def post_to(
    board: Board, agents: list[str], author: str, text: str, reply_to: int | None = None
) -> Message:
    """A person's post or reply, at the board's current game time."""
    author, text = " ".join(author.split()), text.strip()
    if not author or not text:
        raise UserError("a post needs an author and some text", field="--as / TEXT")
    for value, field, one_line in ((author, "--as", True), (text, "TEXT", False)):
        try:
            check_free_text(value, one_line=one_line)
        except ValueError as e:
            raise UserError(str(e), field=field, fix="remove it") from None
    parent = board.find(reply_to) if reply_to is not None else None
    if reply_to is not None and (parent is None or parent.posted > board.now):
        # A scheduled post of the world that the feed's clock has not reached is not out yet.
        raise UserError(
            f"no message #{reply_to} on the feed yet",
            field="--reply-to",
            fix="see the ids with `simulacra feed show DIR`",
        )
    if author.lower() in {a.lower() for a in agents}:
        raise UserError(
            f"{author} is an agent of this feed",
            field="--as",
            fix="post as a person; agents write their own replies",
        )
    return board.post(author, text, board.now, reply_to=reply_to)


def _said(message: Message) -> steps.Said:
    return steps.Said(message.id, message.author, message.text)
