"""The paper's Klaus example (§4.2) through the real memory pipeline — real embedder, Chroma and
SQLite — with the scripted model standing in for the language model."""

from datetime import datetime, timedelta

import pytest

from simulacra import GenerativeAgent, Persona, Settings
from simulacra.memory import Kind, NewMemory

pytestmark = pytest.mark.real

T0 = datetime(2023, 2, 13, 7, 0)

KLAUS = Persona(
    name="Klaus Mueller",
    age=20,
    innate="kind, inquisitive, passionate",
    learned="Klaus Mueller is a sociology student at Oak Hill College; Klaus Mueller is writing "
    "a research paper on the effects of gentrification in low-income communities",
)

WOLFGANG = [
    "Wolfgang Schulz is eating breakfast in the dorm kitchen",
    "Klaus Mueller and Wolfgang Schulz are chatting about the weather",
    "Wolfgang Schulz is brushing his teeth",
    "Wolfgang Schulz is walking to class",
    "Wolfgang Schulz is watching television in the common room",
    "Wolfgang Schulz is making a sandwich",
    "Wolfgang Schulz said good morning to Klaus Mueller",
    "Wolfgang Schulz is doing his laundry",
]
RESEARCH = [
    "Klaus Mueller is reading a book about gentrification",
    "Klaus Mueller is taking notes on rising rents in low-income neighbourhoods",
    "Klaus Mueller is writing the introduction of his research paper",
    "Klaus Mueller is analysing interviews with long-time residents",
    "Klaus Mueller is searching the library for articles on urban displacement",
]
MARIA = [
    "Conversation with Maria Lopez: Maria told Klaus about her research on the physics of "
    "cities, and Klaus explained his research on gentrification",
    "Conversation with Maria Lopez: Maria and Klaus agreed that research is what excites them",
    "Conversation with Maria Lopez: Maria asked Klaus to read a draft of her research paper",
]


def rate(request):
    ratings = []
    for line in request.variables["memories"]:
        level = "important" if "Maria" in line else "minor" if "Wolfgang" in line else "notable"
        ratings.append({"level": level})
    return {"ratings": ratings}


def insights(request):
    statements = enumerate(request.variables["memories"], start=1)  # cited by number
    cited = [n for n, text in statements if "research" in text.lower()][:5] or [1]
    return {
        "insights": [
            {
                "insight": "Klaus Mueller is devoted to his research, a passion Maria Lopez shares",
                "because": cited,
            }
        ]
    }


def test_reflection_lets_klaus_see_who_shares_his_passion(tmp_path, scripted, real_embedder):
    model = scripted(
        {
            "importance": rate,
            "reflection_questions": {
                "questions": [
                    "What is Klaus Mueller passionate about?",
                    "Who does Klaus Mueller share his interests with?",
                    "How does Klaus Mueller spend his days?",
                ]
            },
            "reflection_insights": insights,
        }
    )
    klaus = GenerativeAgent.create(
        tmp_path / "klaus", KLAUS, at=T0, settings=Settings(), model=model, embedder=real_embedder
    )
    t = T0
    for day in range(3):  # 3 days of memories sum past the importance threshold of 150
        for text in WOLFGANG:
            t += timedelta(minutes=20)
            klaus.observe(text, t)
        for text in RESEARCH:
            t += timedelta(hours=1)
            klaus.observe(text, t)
        t += timedelta(hours=1)
        klaus.observe_many([NewMemory(MARIA[day], Kind.CHAT)], t)

    reflections = [r for r in klaus.stream if r.kind is Kind.REFLECTION]
    assert reflections, "the importance threshold was crossed, so Klaus reflected"
    for r in reflections:
        assert r.evidence and all(klaus.stream.get(i) for i in r.evidence)
        assert all("research" in klaus.stream.get(i).description.lower() for i in r.evidence)

    ranked = klaus.memories("who shares Klaus's passion for research?", k=len(klaus.stream))
    rank = {hit.record.id: i for i, hit in enumerate(ranked)}
    wolfgang = [r.id for r in klaus.stream if "Wolfgang" in r.description]
    maria = [r.id for r in klaus.stream if "Maria" in r.description and r.kind is Kind.CHAT]
    best_wolfgang = min(rank[i] for i in wolfgang)
    assert max(rank[r.id] for r in reflections) < best_wolfgang
    assert max(rank[i] for i in maria) < best_wolfgang
