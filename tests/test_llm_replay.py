import pytest

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


def test_a_call_whose_answers_never_parsed_is_asked_again(tmp_path):
    """Tries before an answer that parsed replay (a rerun is exact); tries of a call that
    failed are forgotten, so a resumed run asks again instead of failing the same way."""
    from simulacra.llm import ModelOutputError, Prompt, open_model
    from simulacra.llm.schema import Answer, one_of
    from simulacra.settings import LLMSettings

    class Mood(Answer):
        mood: one_of(["calm", "busy"])

    cut, calm = '{"mood": "ca', '{"mood": "calm"}'
    prompt = Prompt(template="t", system="s", user="u")
    settings = LLMSettings(cache_dir=tmp_path)

    def model(answers):
        return open_model(settings, completer=ScriptedModel({"t": answers}), retries=1)

    once = model([cut, calm])
    assert once.generate(prompt, Mood).mood == "calm"
    rerun = model(["unused"])
    assert rerun.generate(prompt, Mood).mood == "calm"
    assert rerun.log.totals.cache_hits == 2 and rerun.log.totals.parse_failures == 1
    assert not rerun.completer.inner.requests  # both tries replayed

    other = Prompt(template="t", system="s", user="other")
    with pytest.raises(ModelOutputError):
        model([cut, cut]).generate(other, Mood)
    resumed = model([calm])
    assert resumed.generate(other, Mood).mood == "calm"
    assert len(resumed.completer.inner.requests) == 1  # asked again
