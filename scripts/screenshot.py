"""A picture of a run's town for the README: the viewer serves RUN, Debian's headless Chromium
(driven by playwright, as tests/test_viewer.py drives it) draws the page at one step, and the
PNG is written with a reduced palette so it stays small.

    python scripts/screenshot.py runs/smallville-3-... docs/town.png [--step N]

Without --step it shows the first step with a conversation (the middle step if there is none).
The run is only read. Needs `apt-get install chromium fonts-noto-color-emoji` and the test
extras (`pip install 'simulacra[test]'`, for playwright).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path
from urllib.parse import quote

from PIL import Image

from simulacra.errors import UserError
from simulacra.sim.eventlog import EVENTS_FILE
from simulacra.viewer.chromium import CHROMIUM, CHROMIUM_ARGS
from simulacra.viewer.server import ViewerServer

VIEWPORT = {"width": 1440, "height": 860}
COLOURS = 128  # a palette PNG of the page: a fifth of the bytes, no visible loss on flat tiles


def pick_step(run: Path, step: int | None) -> int:
    """STEP if the run has it; else the first step where residents talk, so the picture has
    speech bubbles in it (the middle step if nobody talks)."""
    lines = [line for line in (run / EVENTS_FILE).read_text("utf-8").splitlines() if line]
    if step is not None:
        if not 0 <= step < len(lines):
            raise UserError(
                f"the run has steps 0 to {len(lines) - 1}",
                file=run / EVENTS_FILE,
                field="--step",
                fix="give a step in that range",
            )
        return step
    for number, line in enumerate(lines):
        if json.loads(line).get("chats"):
            return number
    return len(lines) // 2


def shoot(server: ViewerServer, out: Path, step: int, agent: str | None) -> int:
    """Write the PNG of the served run's page at STEP to OUT; return its size in bytes."""
    from playwright.sync_api import sync_playwright

    query = f"?step={step}" + (f"&agent={quote(agent)}" if agent else "")
    server.start()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.goto(server.url + query)
            page.wait_for_function("() => window.viewer && window.viewer.ready", timeout=20_000)
            page.wait_for_function(
                f"() => window.viewer.worldLoaded && window.viewer.drawnStep === {step}",
                timeout=20_000,
            )
            page.mouse.move(1, VIEWPORT["height"] - 1)  # no tooltip over the town
            page.wait_for_timeout(300)  # the last animation frame after the mouse moved
            shot = page.screenshot()
        finally:
            browser.close()
    image = Image.open(io.BytesIO(shot)).convert("RGB")
    image = image.quantize(colors=COLOURS, method=Image.Quantize.MEDIANCUT, dither=Image.NONE)
    out.parent.mkdir(parents=True, exist_ok=True)
    image.save(out, optimize=True)
    return out.stat().st_size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run directory written by `simulacra run`")
    parser.add_argument("out", type=Path, help="the PNG to write")
    parser.add_argument("--step", type=int, help="the step to show (default: the first chat)")
    parser.add_argument("--agent", help="a resident to select, whose panel the page shows")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"error: {CHROMIUM} is missing; apt-get install chromium", file=sys.stderr)
        return 2
    try:
        with ViewerServer(args.run) as server:  # a clear error if RUN is not a town's run
            step = pick_step(args.run, args.step)
            size = shoot(server, args.out, step, args.agent)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out} (step {step}, {size // 1024} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
