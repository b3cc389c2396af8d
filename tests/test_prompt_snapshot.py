"""Every prompt the model reads is byte for byte the recorded one (tests/snapshot_prompts.py):
a refactor of the templates or the schemas changes no replay-cache key and no eval score.

After a deliberate change to a template or a schema, regenerate the snapshot:

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


def test_every_prompt_schema_and_grammar_is_as_recorded():
    recorded = _resolved(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    now = _resolved(snapshot())
    assert sorted(now) == sorted(recorded), (
        f"other prompts than recorded: new {sorted(set(now) - set(recorded))}, "
        f"gone {sorted(set(recorded) - set(now))} (a deliberate change: {REGENERATE})"
    )
    for key in sorted(recorded):
        for part in ("system", "user", "schema", "grammar"):
            was, got = recorded[key][part], now[key][part]
            if was != got:
                diff = "\n".join(
                    difflib.unified_diff(
                        was.splitlines(), got.splitlines(), "recorded", "now", lineterm=""
                    )
                )
                raise AssertionError(
                    f"{key}: its {part} changed (a deliberate change: {REGENERATE})\n{diff}"
                )
