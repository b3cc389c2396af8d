from simulacra.llm.completion import Request
from simulacra.llm.replay import ReplayCache
from simulacra.llm.scripted import ScriptedModel


def request(**changes):
    fields = dict(
        template="t",
        system="s",
        user="u",
        schema=None,
        max_tokens=10,
        temperature=0.5,
        top_p=0.9,
        seed=1,
    )
    fields.update(changes)
    return Request(**fields)


def test_a_repeated_request_is_served_from_disk(tmp_path):
    backend = ScriptedModel({"t": ["first", "second"]})
    cache = ReplayCache(backend, tmp_path / "replay.sqlite")
    one = cache.complete(request())
    two = cache.complete(request())
    assert (one.text, two.text) == ("first", "first")
    assert (one.cache_hit, two.cache_hit) == (False, True)
    assert len(backend.requests) == 1


def test_the_cache_survives_a_restart(tmp_path):
    ReplayCache(ScriptedModel({"t": "recorded"}), tmp_path / "r.sqlite").complete(request())
    backend = ScriptedModel({"t": "fresh"})
    again = ReplayCache(backend, tmp_path / "r.sqlite").complete(request())
    assert again.text == "recorded" and again.cache_hit and not backend.requests


def test_any_change_to_the_request_misses(tmp_path):
    backend = ScriptedModel()
    cache = ReplayCache(backend, tmp_path / "replay.sqlite")
    cache.complete(request())
    for change in (
        {"seed": 2},
        {"user": "other"},
        {"temperature": 0.1},
        {"template": "x"},
        {"schema": {"type": "string", "maxLength": 3}},
        {"system": "other"},
        {"presence_penalty": 0.5},
    ):
        assert not cache.complete(request(**change)).cache_hit
    assert len(backend.requests) == 8


def test_no_penalty_keeps_the_keys_recorded_before_it_existed():
    # The key as it was computed before Request had a presence_penalty field.
    assert request().key("m") == "05cb6f19fda6378f3f11bff1e0e0956dc92f1f9be2e4ead25baaf49141f3dbd3"
