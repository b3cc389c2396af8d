"""Every tunable of simulacra in one place.

Defaults follow the paper (Park et al., 2023) where it gives a number, and the original
implementation ("Reverie") where only the code does; each says which. A TOML file with the
same sections overrides any of them (``simulacra --config FILE``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from simulacra.errors import UserError
from simulacra.textfile import parse_toml, read_text

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


def default_cache_dir() -> Path:
    """Where replay caches live unless a setting says otherwise."""
    if env := os.environ.get("SIMULACRA_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "simulacra"


# A town's saved KV states: one per resident for each template it asks every few minutes
# (act, event, importance, decide, respond, after_chat), about 20 MB each on the 1.5B (28 KB a
# token). At 512 MB for the 25 residents of worlds/smallville a state was dropped before its
# resident asked again: see docs/speed.md.
KV_MB_PER_AGENT = 128
KV_MB_LEAST = 512


class LLMSettings(_Section):
    model: Path | None = Field(
        None, description="GGUF file; else SIMULACRA_MODEL, a .gguf in models/, the embedded model"
    )
    # Below 2048 a day plan and its answer do not fit with a persona of full length.
    n_ctx: int = Field(4096, ge=2048, description="context window in tokens")
    n_threads: int | None = Field(None, ge=1, description="CPU threads; default: all cores")
    n_gpu_layers: int = Field(0, ge=-1, description="layers offloaded to a GPU; -1 = all")
    n_batch: int = Field(512, ge=1)
    seed: int = 42
    temperature: float = Field(0.6, ge=0.0, le=2.0)
    top_p: float = Field(0.95, gt=0.0, le=1.0)
    kv_cache_mb: int | None = Field(
        None,
        ge=0,
        description=f"RAM for saved KV states, one per agent and template; default: "
        f"{KV_MB_PER_AGENT} per agent, at least {KV_MB_LEAST}; 0 = off",
    )
    n_parallel: int = Field(
        4,
        ge=1,
        le=64,
        description="calls the in-process model decodes together, each with a context of n_ctx",
    )
    lookahead: int = Field(
        6,
        ge=0,
        le=32,
        description="tokens drafted from the prompt per pass where an answer copies it (the "
        "answer's fixed keys are drafted too); 0 = no drafting",
    )
    cache: bool = Field(True, description="record/replay cache of model answers")
    cache_dir: Path = Field(default_factory=default_cache_dir)
    server: str | None = Field(
        None,
        description="URL of an OpenAI-compatible model server (llama-server, vLLM) to use "
        "instead of llama.cpp in this process",
    )
    server_model: str | None = Field(
        None, description="the model to ask the server for; default: the first it lists"
    )
    server_timeout: float = Field(300.0, gt=0.0, description="seconds to wait for one answer")
    server_retries: int = Field(
        3, ge=0, le=5, description="extra tries after a refused, failed or garbled answer"
    )

    def kv_cache_mb_for(self, agents: int) -> int:
        """``kv_cache_mb``, or the default for a town of ``agents``."""
        if self.kv_cache_mb is not None:
            return self.kv_cache_mb
        return max(KV_MB_LEAST, KV_MB_PER_AGENT * agents)


class EmbedSettings(_Section):
    model: str | None = Field(
        None, description="a local sentence-transformers model dir; default: all-MiniLM-L6-v2"
    )
    batch_size: int = Field(64, ge=1)
    device: str = "cpu"


class VectorSettings(_Section):
    server: str | None = Field(
        None,
        description="URL of a Chroma server (`chroma run`) for memory vectors; default: "
        "Chroma embedded, on disk beside the memories",
    )


class RetrievalSettings(_Section):
    # Paper §4.1: all weights 1; recency decays by 0.995 per game hour since last access.
    recency_weight: float = Field(1.0, ge=0.0)
    importance_weight: float = Field(1.0, ge=0.0)
    relevance_weight: float = Field(1.0, ge=0.0)
    decay: float = Field(0.995, gt=0.0, le=1.0, description="recency factor per game hour")
    top_k: int = Field(10, ge=1, description="memories put in a prompt by default")

    @classmethod
    def preset(cls, name: Literal["paper", "reverie"]) -> RetrievalSettings:
        """``paper``: the published defaults; ``reverie``: the weights of the original code."""
        if name == "paper":
            return cls()
        if name == "reverie":
            return cls(recency_weight=0.5, relevance_weight=3.0, importance_weight=2.0, decay=0.99)
        raise UserError(f"unknown retrieval preset {name!r}", fix="use 'paper' or 'reverie'")


class ReflectionSettings(_Section):
    threshold: int = Field(150, ge=1, description="importance sum that triggers a reflection")
    recent: int = Field(100, ge=1, description="memories the questions are drawn from")
    questions: int = Field(3, ge=1, le=5)
    insights_per_question: int = Field(5, ge=1, le=5)
    evidence_per_question: int = Field(
        12, ge=1, le=30, description="memories retrieved per question and cited by index"
    )


class AgentSettings(_Section):
    summary_refresh_hours: float = Field(
        6.0, gt=0.0, description="game hours between refreshes of the agent summary"
    )
    inner_voice_importance: int = Field(9, ge=1, le=10)
    interview_memories: int = Field(
        12, ge=1, description="memories retrieved to answer an interview question"
    )
    summary_memories: int = Field(
        6, ge=1, description="memories retrieved per question of the agent summary"
    )


class PerceptionSettings(_Section):
    # Reverie: vision_r = 8, att_bandwidth = 8, retention = 8.
    vision_radius: int = Field(8, ge=1)
    attention_bandwidth: int = Field(8, ge=1)
    retention: int = Field(8, ge=1)


class ConversationSettings(_Section):
    max_utterances: int = Field(8, ge=2, description="Reverie allows 16; small models ramble")
    cooldown_minutes: int = Field(
        120, ge=0, description="game minutes before the same pair talks again (Reverie: ~800 steps)"
    )
    memories_about_partner: int = Field(8, ge=1)
    events_to_tell: int = Field(
        3, ge=0, description="events still to come that an opening may bring up (0: none)"
    )
    line_attempts: int = Field(
        3,
        ge=1,
        le=5,
        description="times a line is asked for (with other seeds) while it echoes one said "
        "before; a line that still echoes ends the conversation",
    )
    note_attempts: int = Field(
        2,
        ge=1,
        le=5,
        description="times the notes after a talk are asked for while the planning note names "
        "a place the talk did not, or says the prompt's words",
    )
    seconds_per_line: int = Field(
        20, ge=1, description="game seconds one line of a conversation takes to say"
    )


# A clock time as plans write them; compared as text, so "7:00" would sort after "10:00".
Clock = Annotated[str, Field(pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")]


class PlanSettings(_Section):
    decompose_minutes: int = Field(
        120, ge=30, description="how far ahead a block is cut into 5-15 minute actions"
    )
    place_choices: int = Field(
        8, ge=2, description="candidate places offered to the model when it places an action"
    )
    react_cooldown_minutes: int = Field(
        20, ge=0, description="game minutes before deciding again about the same person or thing"
    )
    react_memories: int = Field(
        5, ge=1, description="memories retrieved per question when deciding about an observation"
    )
    new_day_memories: int = Field(
        8, ge=1, description="memories retrieved per question when a new day revises the plans"
    )
    event_notes_days: int = Field(
        7, ge=0, description="days back that conversations' planning notes may name today's events"
    )
    events_max: int = Field(
        4, ge=0, le=12, description="events (sentences naming today's date) a day plan is shown"
    )
    # A habit, kept within half an hour: offered an hour either side, the 1.5B woke Klaus at
    # 06:00 in two morning runs and he left for the library before anyone else was up.
    wake_offsets_minutes: list[int] = Field(
        [-30, 0, 30],
        min_length=1,
        max_length=12,
        description="wake-up times offered, in minutes around the usual one",
    )
    day_plan_attempts: int = Field(
        3,
        ge=1,
        le=5,
        description="day plans asked for (with other seeds) until one starts within "
        "plan_start_hours of waking, goes to bed only at its end and has plan_min_activities "
        "different activities",
    )
    schedule_attempts: int = Field(
        2,
        ge=1,
        le=5,
        description="hourly schedules asked for (with other seeds) until one leaves no hour "
        'written as nothing to do ("nothing", "no activity")',
    )
    event_item_attempts: int = Field(
        2,
        ge=1,
        le=5,
        description="items for one of today's events asked for (with other seeds) while they "
        "make it the event of someone it names as a guest",
    )
    # Two: a block's steps that hold an event of another hour are one sample's drift.
    decompose_attempts: int = Field(
        2,
        ge=1,
        le=5,
        description="decompositions asked for (with other seeds) until none of their steps is "
        "one of today's events at another hour or names a place away from its block's",
    )
    # Two: Klaus's persona names two things he does (the library in the morning, Hobbs Cafe in
    # the afternoon), and at four his plan was asked for three times a day, the 1.5B filling
    # the other slots with "no events today" or repeats. One thing all day is still asked again.
    plan_min_activities: int = Field(
        2, ge=1, le=8, description="different activities a usable day plan has, the routine aside"
    )
    # 4, not 2: in the 25-resident hour a pharmacist who wakes at 06:00 and works from 09:00
    # had his plan asked again three times, and a poet who "writes poems before noon" began
    # at 11:30 (18 of 39 day plans asked again); the schedule fills the hours between from
    # the habits. A day begun at its evening event (the reason for the rule) is still refused.
    plan_start_hours: int = Field(
        4, ge=1, le=12, description="how long after waking a usable day plan begins"
    )
    # Off, every day is planned anew, as in the paper; on, a day like yesterday keeps its plan.
    keep_routine_days: bool = Field(
        True,
        description="a day like yesterday (nothing dated, resolved or newly up to, and of the "
        "same kind: weekday or weekend) keeps yesterday's plan without a model call",
    )
    # A morning run's plan had Klaus "having breakfast" at 15:00 and "having lunch" at 17:00.
    meal_hours: dict[str, tuple[Clock, Clock]] = Field(
        {
            "breakfast": ("04:00", "11:00"),
            "brunch": ("09:00", "13:00"),
            "lunch": ("11:00", "15:00"),
            "dinner": ("16:00", "23:59"),
            "supper": ("16:00", "23:59"),
        },
        description="when a day plan may have each meal (HH:MM from, to); a meal planned "
        "at another hour is left out and the item before it goes on",
    )
    # Models pick odd places when they know many (paper §7: lunch at the bar), so only the
    # best few by meaning are offered. Being in the room, or at home or work, tips close calls;
    # more than that keeps everyone at home, since small models take the first place offered.
    here_bonus: float = Field(0.05, ge=0.0, description="place ranking: the room one is in")
    home_or_work_bonus: float = Field(0.05, ge=0.0, description="place ranking: home or work")
    stay_in_building: bool = Field(
        True,
        description="the steps of one schedule block stay in the building it began in, "
        "unless they name another",
    )
    stay_at_place: bool = Field(
        True,
        description="a schedule block's later steps stay at the place of the step before, "
        "with no model call, unless they name another building, room or thing",
    )
    stay_margin: float = Field(
        0.15,
        ge=0.0,
        description="a later step that stays (plan.stay_at_place) is asked where a place "
        "in its building suits it better by meaning than where it is, by this much",
    )


class SimSettings(_Section):
    # The step length is the world's (its scenario.toml: 10 game seconds, as in Reverie).
    checkpoint_every: int = Field(60, ge=1, description="steps between checkpoints")


class EngineSettings(_Section):
    concurrency: int = Field(
        4,
        ge=1,
        le=64,
        description="model calls of different agents issued at once within a step: the "
        "in-process model decodes up to llm.n_parallel of them together, a server batches them",
    )


class LimitSettings(_Section):
    """Bounds on text a user hands in, checked at the door: a longer one is a one-line error,
    so no memory or object state can grow too big for a prompt."""

    memory_chars: int = Field(
        600,
        ge=20,
        le=2000,  # fitting.LONGEST_ITEM: longer memories are shortened in prompts
        description="longest whisper, observation or interview question (it becomes a memory)",
    )
    object_state_chars: int = Field(
        120, ge=10, le=1000, description="longest object state given to `simulacra set`"
    )


class Settings(_Section):
    llm: LLMSettings = Field(default_factory=LLMSettings)
    embed: EmbedSettings = Field(default_factory=EmbedSettings)
    vectors: VectorSettings = Field(default_factory=VectorSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    reflection: ReflectionSettings = Field(default_factory=ReflectionSettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    perception: PerceptionSettings = Field(default_factory=PerceptionSettings)
    conversation: ConversationSettings = Field(default_factory=ConversationSettings)
    plan: PlanSettings = Field(default_factory=PlanSettings)
    sim: SimSettings = Field(default_factory=SimSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    limits: LimitSettings = Field(default_factory=LimitSettings)

    @classmethod
    def load(cls, path: str | Path | None = None) -> Settings:
        """Defaults, overridden by a TOML file with the same sections when one is given."""
        if path is None:
            return cls()
        path = Path(path)
        try:
            data = parse_toml(read_text(path))
        except (FileNotFoundError, IsADirectoryError):
            raise UserError("no such settings file", file=path) from None
        except tomllib.TOMLDecodeError as e:
            raise UserError(f"not valid TOML: {e}", file=path) from None
        return cls.from_dict(data, source=path)

    @classmethod
    def from_dict(cls, data: dict, source: str | Path = "settings") -> Settings:
        try:
            return cls.model_validate(data)
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(p) for p in err["loc"])
            raise UserError(
                err["msg"], file=source, field=field, fix="see simulacra/settings.py"
            ) from None
