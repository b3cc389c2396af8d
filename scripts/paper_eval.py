"""The paper's evaluation end to end: two game days of Smallville, then the interviews under
ablations and the town measures, then the report. Resumable at every stage: run it again
after a stop (Ctrl-C, a crash, a reboot) and it carries on where it was.

    python scripts/paper_eval.py --out runs/paper                       # 25 agents, 2 days
    python scripts/paper_eval.py --world worlds/smallville-3 --out runs/paper-3
    python scripts/paper_eval.py --out runs/paper -- --model models/qwen2.5-7b-instruct-q4_k_m.gguf

Everything after ``--`` goes to every `simulacra run` and `simulacra eval` command as is:
model options (--model, --gpu-layers, --n-ctx, --threads), or a model server option where
the installed simulacra has one. Each stage prints its wall time, and the run its seconds per
game-hour.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simulacra.evaluation.daylog import run_progress  # noqa: E402


def simulacra(*args: str) -> None:
    command = [sys.executable, "-m", "simulacra", *args]
    print("$ simulacra " + " ".join(args), flush=True)
    started = time.monotonic()
    done = subprocess.run(command, cwd=ROOT)
    print(f"  ({time.monotonic() - started:.0f} s)", flush=True)
    if done.returncode != 0:
        sys.exit(done.returncode)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="Any other option (--model, --gpu-layers, --n-ctx, --threads, a server option) "
        "goes to every `simulacra run` and `simulacra eval` command as is.",
    )
    parser.add_argument("--world", default="worlds/smallville")
    parser.add_argument("--out", type=Path, default=Path("runs/paper"))
    parser.add_argument("--hours", type=float, default=48.0, help="game hours (paper: 2 days)")
    parser.add_argument("--agents", help="residents taking part (default: the world's)")
    parser.add_argument("--interview-agents", help="residents interviewed (default: all)")
    parser.add_argument("--judge", help="GGUF file of the judge (default: the agents' model)")
    parser.add_argument("--no-density", action="store_true", help="skip n(n-1) questions")
    args, extra = parser.parse_known_args()
    extra = [a for a in extra if a != "--"]
    out = args.out if args.out.is_absolute() else ROOT / args.out

    # 1. The two game days.
    if not (out / "meta.json").is_file():
        run = ["run", args.world, "--hours", str(args.hours), "--out", str(out)]
        simulacra(*run, *(["--agents", args.agents] if args.agents else []), *extra)
    done, total, step_seconds = run_progress(out)
    while done < total:
        before = time.monotonic()
        simulacra("run", "--resume", str(out), *extra)
        after, total, _ = run_progress(out)
        if after == done:
            sys.exit("the run made no progress; see the messages above")
        game_hours = (after - done) * step_seconds / 3600
        print(f"  {(time.monotonic() - before) / game_hours:.0f} s per game-hour", flush=True)
        done = after

    # 2. The interviews under ablations, judged; 3. the town; 4. the report. Answers already
    # on file in RUN/eval/ are not asked again, so these resume too.
    interview = ["eval", "interview", str(out)]
    if args.interview_agents:
        interview += ["--agents", args.interview_agents]
    if args.judge:
        interview += ["--judge", args.judge]
    simulacra(*interview, *extra)
    simulacra("eval", "town", str(out), *(["--no-density"] if args.no_density else []), *extra)
    simulacra("report", str(out))


if __name__ == "__main__":
    main()
