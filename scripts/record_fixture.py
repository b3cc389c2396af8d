"""Re-record tests/fixtures/run-smallville-3: half an hour of smallville-3, with the scripted
town standing in for the model, as the viewer's tests load it.

    python scripts/record_fixture.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from conftest import WordEmbedder  # noqa: E402
from scripted_town import SCRIPTS, enum  # noqa: E402

from simulacra.llm import CALLS_FILE, CallLog, open_model  # noqa: E402
from simulacra.llm.scripted import ScriptedModel  # noqa: E402
from simulacra.settings import Settings  # noqa: E402
from simulacra.sim.simulation import Simulation  # noqa: E402

TARGET = ROOT / "tests" / "fixtures" / "run-smallville-3"
KEPT = ("meta.json", "world.json", "events.jsonl", "calls.jsonl")


def early_day_plan(request):
    plan = SCRIPTS["day_plan"](request)
    return {**plan, "wake_up": enum(request, "wake_up")[0]}  # up an hour early: busy morning


def main() -> None:
    settings = Settings()
    settings.llm.cache = False
    model = open_model(
        settings.llm, completer=ScriptedModel({**SCRIPTS, "day_plan": early_day_plan})
    )
    with tempfile.TemporaryDirectory() as tmp:
        run = Path(tmp) / "run"
        sim = Simulation.create(
            ROOT / "worlds" / "smallville-3",
            run,
            hours=0.5,
            settings=settings,
            model=model,
            embedder=WordEmbedder(),
        )
        model.log = CallLog(run / CALLS_FILE)  # after create: it wants an empty directory
        sim.run()
        sim.close()
        shutil.rmtree(TARGET, ignore_errors=True)
        TARGET.mkdir(parents=True)
        for name in KEPT:
            shutil.copy2(run / name, TARGET / name)
    print(f"recorded {TARGET}")


if __name__ == "__main__":
    main()
