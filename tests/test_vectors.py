"""Chroma round trip in a temporary directory (real Chroma, telemetry off)."""

import numpy as np

from simulacra.memory.vectors import VectorStore, collection_name


def unit(v):
    v = np.asarray(v, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_round_trip_survives_reopening(tmp_path):
    vectors = VectorStore(tmp_path / "chroma").collection("Isabella Rodriguez")
    data = np.stack([unit([1, 0, 0]), unit([0, 1, 0]), unit([1, 1, 0])])
    vectors.upsert([1, 2, 3], data)
    vectors.delete([2])

    reopened = VectorStore(tmp_path / "chroma").collection("Isabella Rodriguez")
    ids, stored = reopened.all()
    assert sorted(ids) == [1, 3]
    assert np.allclose(stored[ids.index(3)], data[2], atol=1e-6)
    nearest = reopened.nearest(unit([1, 0.1, 0]), 1)
    assert nearest[0][0] == 1 and nearest[0][1] > 0.9


def test_each_agent_has_its_own_collection(tmp_path):
    store = VectorStore(tmp_path / "chroma")
    store.collection("Klaus Mueller").upsert([1], unit([1, 0])[None, :])
    assert store.collection("Maria Lopez").count() == 0


def test_collection_names_follow_chroma_rules():
    name = collection_name("Isabella Rodriguez")
    assert name.startswith("isabella-rodriguez-") and len(name) <= 63
    assert collection_name("Zoë") != collection_name("Zoé")
    assert collection_name("A" * 200) == collection_name("A" * 200)
    assert len(collection_name("A" * 200)) <= 63


def test_batches_larger_than_chromas_limit_are_split(tmp_path):
    vectors = VectorStore(tmp_path / "chroma").collection("Klaus Mueller")
    many = np.tile(unit([1, 0, 0]), (7000, 1))
    vectors.upsert(list(range(7000)), many)
    assert vectors.count() == 7000
    vectors.delete(list(range(6500)))
    assert vectors.count() == 500


def test_server_urls_are_checked():
    import pytest

    from simulacra.errors import UserError
    from simulacra.memory.vectors import server_address

    assert server_address("http://127.0.0.1:8000") == ("127.0.0.1", 8000, False)
    assert server_address("https://chroma.lan:443/") == ("chroma.lan", 443, True)
    for bad in ("127.0.0.1:8000", "http://host", "ftp://h:1", "http://h:port"):
        with pytest.raises(UserError, match="not a Chroma server URL"):
            server_address(bad)


def test_each_store_has_its_own_namespace_on_a_server(tmp_path):
    import shutil

    from simulacra.memory import MemoryStore

    first = MemoryStore(tmp_path / "run")._namespace()
    assert MemoryStore(tmp_path / "run")._namespace() == first  # stable on reopening
    shutil.copytree(tmp_path / "run", tmp_path / "fork")
    assert MemoryStore(tmp_path / "fork")._namespace() != first  # a copy gets its own
    name = collection_name("A" * 200, first)
    assert name.startswith(first) and len(name) <= 63
    assert collection_name("Klaus Mueller") == collection_name("Klaus Mueller", "")


def test_a_chroma_url_that_is_not_one_is_a_one_line_error(tmp_path, capsys):
    import pytest

    from simulacra.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["run", "worlds/smallville-3", "--chroma", "localhost", "--out", str(tmp_path / "r")])
    assert exited.value.code == 2
    assert "not a Chroma server URL" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()
