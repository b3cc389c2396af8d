"""What the model reads, recorded: every template's [example] and [[case]] rendered (system
text, user text with its shape sentence, the answer's JSON schema and GBNF grammar), plus the
variants of the schemas that the examples do not reach. The replay cache keys on these bytes
and the prompt eval scored them, so a refactor must leave every one unchanged
(tests/test_prompt_snapshot.py compares).

A deliberate change to a template or a schema regenerates the snapshot:

    PYTHONPATH=$PWD python tests/snapshot_prompts.py
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

SNAPSHOT = Path(__file__).resolve().parent / "data" / "prompt_snapshot.json"

# Variables laid over a template's [example] for branches no example or case reaches.
VARIANTS: dict[str, dict[str, dict[str, Any]]] = {
    "decide": {"people": {"people": ["Maria Lopez", "Klaus Mueller"]}},
    "respond": {
        "no history": {"history": []},
        "a history": {
            "history": [
                {"speaker": "Isabella Rodriguez", "text": "Hello Maria! Will you come?"},
                {"speaker": "Maria Lopez", "text": "Of course, when is it?"},
            ]
        },
    },
    "day_plan": {"wake options": {"wake_options": ["06:30", "07:00", "07:30"]}},
}


def render(template: Any, variables: dict[str, Any]) -> dict[str, str]:
    from simulacra.llm.grammar import grammar_text
    from simulacra.llm.schema import json_schema
    from simulacra.llm.structured import StructuredModel

    variables = dict(variables)
    identity = variables.pop("identity", "")
    prompt = template.render(identity=identity, agent=variables.get("name"), **variables)
    spec = json_schema(template.schema(**variables))
    return {
        "system": prompt.system,
        "user": StructuredModel.full_user_text(prompt, spec),
        "schema": json.dumps(spec),  # as the replay cache's key holds it
        # The grammar is a function of the schema (and of llama.cpp's converter): its hash.
        "grammar": hashlib.sha256(grammar_text(spec).encode()).hexdigest(),
    }


def collect() -> dict[str, dict[str, str]]:
    from simulacra.llm.prompt_eval import cases_of
    from simulacra.llm.templates import all_templates

    found = {}
    for name, template in sorted(all_templates().items()):
        found[f"{name} / example"] = render(template, template.example)
        for i, case in enumerate(cases_of(template), start=1):
            found[f"{name} / case {i}: {case.name}"] = render(template, case.variables)
        for label, extra in VARIANTS.get(name, {}).items():
            found[f"{name} / variant: {label}"] = render(template, {**template.example, **extra})
    return found


def town_requests(hours: float = 1.5) -> dict[str, dict[str, str]]:
    """Every request of a scripted smallville-3 run, in a stable order (agents think in
    parallel, so the order of the calls is not)."""
    from conftest import WordEmbedder
    from scripted_town import SCRIPTS

    from simulacra.llm import open_model
    from simulacra.llm.grammar import grammar_text
    from simulacra.llm.scripted import ScriptedModel
    from simulacra.settings import Settings
    from simulacra.sim.simulation import Simulation

    settings = Settings()
    settings.llm.cache = False
    backend = ScriptedModel(SCRIPTS)
    model = open_model(settings.llm, completer=backend)
    world = Path(__file__).resolve().parent.parent / "worlds" / "smallville-3"
    with tempfile.TemporaryDirectory() as tmp:
        sim = Simulation.create(
            world,
            Path(tmp) / "run",
            hours=hours,
            settings=settings,
            model=model,
            embedder=WordEmbedder(),
        )
        sim.run()
    found = {}
    for r in backend.requests:
        text = {"system": r.system, "user": r.user, "schema": json.dumps(r.schema)}
        digest = hashlib.sha256(json.dumps(text, sort_keys=True).encode()).hexdigest()[:12]
        grammar = grammar_text(r.schema) if r.schema is not None else ""
        text["grammar"] = hashlib.sha256(grammar.encode()).hexdigest()
        found[f"town / {r.template} / {digest}"] = text
    return found


def snapshot() -> dict[str, Any]:
    """The prompts by name; a system text or schema many of them share is kept once, under
    its hash, in ``shared``."""
    shared: dict[str, str] = {}
    prompts = {}
    for key, entry in {**collect(), **town_requests()}.items():
        entry = dict(entry)
        for part in ("system", "schema"):
            digest = hashlib.sha256(entry[part].encode()).hexdigest()[:16]
            shared[digest] = entry[part]
            entry[part] = digest
        prompts[key] = entry
    return {"shared": shared, "prompts": prompts}


def main() -> None:
    SNAPSHOT.parent.mkdir(parents=True, exist_ok=True)
    found = snapshot()
    text = json.dumps(found, indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    SNAPSHOT.write_text(text, encoding="utf-8")
    print(f"{len(found['prompts'])} prompts written to {SNAPSHOT}", file=sys.stderr)


if __name__ == "__main__":
    main()
