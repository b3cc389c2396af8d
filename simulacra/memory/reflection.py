"""Reflection (paper §4.2): when enough has happened, step back and think.

Once the importance of memories since the last reflection sums past a threshold (150), the
agent asks which high-level questions its 100 most recent memories can answer, retrieves
memories for each question, and infers insights that cite those memories by number. The
grammar only admits numbers that exist. Insights are stored as reflections pointing to their
evidence, so reflections on reflections form a tree.
"""

from __future__ import annotations

from datetime import datetime

from simulacra.llm.interface import LanguageModel
from simulacra.llm.templates import template_beside
from simulacra.memory import importance
from simulacra.memory.record import Kind, MemoryRecord, NewMemory
from simulacra.memory.stream import MemoryStream
from simulacra.settings import ReflectionSettings

QUESTIONS = template_beside(__file__, "reflection_questions")
INSIGHTS = template_beside(__file__, "reflection_insights")


def due(importance_since_last: int, settings: ReflectionSettings) -> bool:
    return importance_since_last >= settings.threshold


def reflect(
    model: LanguageModel,
    stream: MemoryStream,
    *,
    name: str,
    identity: str,
    now: datetime,
    settings: ReflectionSettings,
) -> list[MemoryRecord]:
    """One reflection: questions, evidence, insights; returns the stored reflections."""
    recent = stream.recent(settings.recent)
    if not recent:
        return []
    asked = QUESTIONS.ask(
        model,
        identity=identity,
        agent=name,
        name=name,
        count=settings.questions,
        memories=[r.description for r in recent],
    )
    evidence_sets = stream.retrieve_many(asked.questions, now, settings.evidence_per_question)
    insights: list[NewMemory] = []
    for question, evidence in zip(asked.questions, evidence_sets, strict=True):
        if not evidence:
            continue
        records = [hit.record for hit in evidence]
        answer = INSIGHTS.ask(
            model,
            identity=identity,
            agent=name,
            name=name,
            question=question,
            count=settings.insights_per_question,
            memories=[r.description for r in records],
        )
        for item in answer.insights:
            cited = tuple(dict.fromkeys(records[n - 1].id for n in item.because))
            insights.append(NewMemory(item.insight, Kind.REFLECTION, evidence=cited))
    rated = importance.rate(model, insights, name=name, identity=identity)
    return stream.add(rated, now)
