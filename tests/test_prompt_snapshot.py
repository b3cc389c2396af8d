"""Every prompt the model reads is byte for byte the recorded one (tests/snapshot_prompts.py):
a refactor of the templates or the schemas changes no replay-cache key and no eval score.

After a deliberate change to a template, a schema or a phrase the model reads, regenerate the
snapshot:

    PYTHONPATH=$PWD python tests/snapshot_prompts.py
"""

from __future__ import annotations

import difflib
import json

from snapshot_prompts import SNAPSHOT, snapshot

REGENERATE = "PYTHONPATH=$PWD python tests/snapshot_prompts.py"


def _resolved(data: dict) -> dict[str, dict[str, str]]:
    shared = data["shared"]
    return {
        key: {**entry, "system": shared[entry["system"]], "schema": shared[entry["schema"]]}
        for key, entry in data["prompts"].items()
    }


def _difference(key: str, was: dict[str, str], now: dict[str, str]) -> str | None:
    for part in ("system", "user", "schema", "grammar"):
        if was[part] != now[part]:
            diff = difflib.unified_diff(
                was[part].splitlines(), now[part].splitlines(), "recorded", "now", lineterm=""
            )
            return f"{key}: its {part} changed (a deliberate change: {REGENERATE})\n" + "\n".join(
                diff
            )
    return None


def test_every_prompt_schema_and_grammar_is_as_recorded():
    recorded = _resolved(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    now = _resolved(snapshot())
    for key in sorted(recorded.keys() & now.keys()):
        found = _difference(key, recorded[key], now[key])
        assert found is None, found
    gone, new = sorted(recorded.keys() - now.keys()), sorted(now.keys() - recorded.keys())
    for key in gone:  # the town's requests are named by their hash: show what changed in one
        template = key.rsplit(" / ", 1)[0]
        like = next((k for k in new if k.startswith(template + " / ")), None)
        if like is not None:
            raise AssertionError(_difference(key, recorded[key], now[like]))
    assert not gone and not new, (
        f"other prompts than recorded: new {new}, gone {gone} (a deliberate change: {REGENERATE})"
    )
