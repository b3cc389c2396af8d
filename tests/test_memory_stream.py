"""The memory stream: durable records (SQLite) and vectors (Chroma), retrieval, access times."""

from datetime import datetime, timedelta

import pytest

from simulacra.memory import Kind, MemoryStore, NewMemory
from simulacra.settings import RetrievalSettings

T0 = datetime(2023, 2, 13, 8, 0)


def open_stream(path, embedder, agent="Klaus Mueller"):
    store = MemoryStore(path)
    return store, store.stream(agent, embedder, RetrievalSettings())


def test_records_keep_their_fields_and_survive_reopening(tmp_path, word_embedder):
    store, stream = open_stream(tmp_path, word_embedder)
    first, second = stream.add(
        [
            NewMemory(
                "Klaus is reading about gentrification",
                importance=5,
                subject="Klaus Mueller",
                predicate="is reading",
                object="a book",
            ),
            NewMemory("Klaus is brushing his teeth", importance=1),
        ],
        T0,
    )
    (thought,) = stream.add(
        [
            NewMemory(
                "Klaus cares about his research",
                Kind.REFLECTION,
                importance=7,
                evidence=(first.id, second.id),
            )
        ],
        T0 + timedelta(hours=1),
    )
    store.commit()
    store.close()

    store, again = open_stream(tmp_path, word_embedder)
    assert len(again) == 3
    kept = again.get(first.id)
    assert (kept.description, kept.importance, kept.kind) == (
        first.description,
        5,
        Kind.OBSERVATION,
    )
    assert kept.keywords == ("klaus mueller", "a book")
    reflected = again.get(thought.id)
    assert reflected.evidence == (first.id, second.id) and reflected.depth == 1
    assert reflected.created == T0 + timedelta(hours=1)


def test_reflections_on_reflections_go_deeper(tmp_path, word_embedder):
    _, stream = open_stream(tmp_path, word_embedder)
    (fact,) = stream.add([NewMemory("a fact", importance=3)], T0)
    (one,) = stream.add([NewMemory("a thought", Kind.REFLECTION, 5, evidence=(fact.id,))], T0)
    (two,) = stream.add(
        [NewMemory("a deeper thought", Kind.REFLECTION, 5, evidence=(fact.id, one.id))], T0
    )
    assert (one.depth, two.depth) == (1, 2)


def test_uncommitted_memories_vanish_and_chroma_is_reconciled(tmp_path, word_embedder):
    store, stream = open_stream(tmp_path, word_embedder)
    stream.add([NewMemory("kept", importance=3)], T0)
    store.commit()
    stream.add([NewMemory("lost", importance=3)], T0)
    stream.flush()  # the vector reached Chroma, the record was never committed
    store.close()

    _, again = open_stream(tmp_path, word_embedder)
    assert [r.description for r in again] == ["kept"]
    assert again._vectors.count() == 1


def test_retrieval_ranks_and_updates_last_access(tmp_path, word_embedder):
    store, stream = open_stream(tmp_path, word_embedder)
    stream.add([NewMemory("Maria is studying physics", importance=6)], T0)
    stream.add([NewMemory("Wolfgang is eating cereal", importance=2)], T0 + timedelta(hours=1))
    later = T0 + timedelta(hours=5)
    (best, other) = stream.retrieve("physics with Maria", later, k=2)
    assert best.record.description == "Maria is studying physics"
    assert best.score > other.score
    assert best.relevance == 1.0 and best.importance == 1.0
    assert stream.get(best.record.id).last_accessed == later
    store.commit()
    store.close()
    _, again = open_stream(tmp_path, word_embedder)
    assert again.get(best.record.id).last_accessed == later


def test_looking_without_touching(tmp_path, word_embedder):
    _, stream = open_stream(tmp_path, word_embedder)
    (record,) = stream.add([NewMemory("a memory", importance=4)], T0)
    stream.retrieve("memory", T0 + timedelta(hours=3), touch=False)
    assert stream.get(record.id).last_accessed == T0


def test_kinds_filter_and_recent(tmp_path, word_embedder):
    _, stream = open_stream(tmp_path, word_embedder)
    for i in range(5):
        stream.add([NewMemory(f"event {i}", importance=2)], T0 + timedelta(minutes=i))
    stream.add([NewMemory("plan for the day", Kind.PLAN, importance=5)], T0)
    assert [h.record.kind for h in stream.retrieve("plan", T0, kinds=[Kind.PLAN])] == [Kind.PLAN]
    assert [r.description for r in stream.recent(2)] == ["event 3", "event 4"]


def test_importance_must_be_rated_first(tmp_path, word_embedder):
    _, stream = open_stream(tmp_path, word_embedder)
    with pytest.raises(ValueError, match="rate importance"):
        stream.add([NewMemory("unrated")], T0)


def test_agents_in_one_store_are_kept_apart(tmp_path, word_embedder):
    store = MemoryStore(tmp_path)
    klaus = store.stream("Klaus Mueller", word_embedder, RetrievalSettings())
    maria = store.stream("Maria Lopez", word_embedder, RetrievalSettings())
    klaus.add([NewMemory("Klaus thing", importance=3)], T0)
    maria.add([NewMemory("Maria thing", importance=3)], T0)
    assert [r.description for r in klaus] == ["Klaus thing"]
    assert [h.record.description for h in maria.retrieve("thing", T0)] == ["Maria thing"]
    store.commit()
    assert store.agents() == ["Klaus Mueller", "Maria Lopez"]


def test_an_unreadable_chroma_collection_is_rebuilt_from_the_records(
    tmp_path, word_embedder, monkeypatch
):
    store, stream = open_stream(tmp_path, word_embedder)
    stream.add([NewMemory("one", importance=3), NewMemory("two", importance=3)], T0)
    store.commit()
    store.close()

    from simulacra.memory.vectors import AgentVectors

    real_all = AgentVectors.all
    failures = iter([True])

    def flaky(self):
        if next(failures, False):
            raise RuntimeError("Error finding id")
        return real_all(self)

    monkeypatch.setattr(AgentVectors, "all", flaky)
    _, again = open_stream(tmp_path, word_embedder)
    assert again._vectors.count() == 2
    assert again.retrieve("two", T0, k=1)[0].record.description == "two"
