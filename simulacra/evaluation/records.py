"""What the evaluation writes into RUN/eval/: one JSON line per answer or judgment, appended
as each is made, so an evaluation stopped at any moment resumes where it was and nothing
already paid for is asked again. Lines record the run step they saw and the model that
answered; after the run has gone on, or with another model, older lines stay in the file but
no longer count."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from simulacra.evaluation.checks import Check, Verdict

EVAL_DIR = "eval"
INTERVIEW_FILE = "interview.jsonl"
JUDGMENTS_FILE = "judgments.jsonl"
TOWN_FILE = "town.jsonl"
INTERVIEW_SUMMARY = "interview.json"
TOWN_SUMMARY = "town.json"
DAY_SUMMARY = "day.json"  # the day judge's counts and findings

R = TypeVar("R", bound=BaseModel)


class EvalRecord(BaseModel):
    """What the evaluation writes: strict and unchangeable once made."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class UsedMemory(EvalRecord):
    id: int
    kind: str
    description: str
    score: float


class InterviewRecord(EvalRecord):
    step: int  # the run's step when asked
    model: str  # the answering model's identity (file name and fingerprint)
    agent: str
    question_id: str
    category: str
    question: str
    condition: str
    answer: str
    memories: list[UsedMemory]
    check: Check
    verdict: Verdict

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.agent, self.question_id, self.condition)


class Judgment(EvalRecord):
    step: int
    model: str  # the judge's
    agent: str
    question_id: str
    question: str
    shown: list[str]  # conditions in the order the judge saw them (labelled A, B, ...)
    ranking: list[str]  # conditions, most believable first

    @property
    def key(self) -> tuple[str, str]:
        return (self.agent, self.question_id)


class TownRecord(EvalRecord):
    step: int
    model: str
    moment: str  # "start": the agents' memories as the run began; "end": at its last step
    kind: str  # "fact" or "knows"
    agent: str
    about: str  # a fact's name, or the person asked about
    question: str
    answer: str
    memory: str = ""  # the memory the answer named first as telling of its subject, if any
    claims: bool  # the agent says it knows
    supported: bool  # its memory holds it
    verdict: Verdict

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.moment, self.kind, self.agent, self.about)


def eval_dir(run_dir: Path) -> Path:
    path = run_dir / EVAL_DIR
    path.mkdir(parents=True, exist_ok=True)
    return path


def model_identity(model: object) -> str:
    """Which model answered: its file's name and fingerprint (what the replay cache keys by)."""
    completer = getattr(model, "completer", model)
    return str(getattr(completer, "identity", type(completer).__name__))


def read_records(
    path: Path, kind: type[R], step: int | None = None, model: str | None = None
) -> list[R]:
    """Every whole, valid line (a line cut short by a kill is skipped), of ``step`` and
    ``model`` if given."""
    found: list[R] = []
    if not path.is_file():
        return found
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.endswith("\n"):
                break
            try:
                record = kind.model_validate_json(line)
            except ValidationError:
                continue
            if step is not None and getattr(record, "step", None) != step:
                continue
            if model is not None and getattr(record, "model", None) != model:
                continue
            found.append(record)
    return found


class Appender:
    """Appends records to a JSONL file, each made durable before the next is asked."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("a", encoding="utf-8")

    def write(self, record: BaseModel) -> None:
        self._file.write(record.model_dump_json() + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        self._file.close()


def write_summary(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, path)


def read_summary(path: Path) -> dict | None:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError:
        return None
