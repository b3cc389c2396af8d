"""The README's promises: its library example runs as shown, in at most 15 lines, and CI
runs exactly the test command it gives."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_ci_runs_the_readme_test_command():
    command = re.search(r"^(bash scripts/install.sh test .*)$", README, re.MULTILINE).group(1)
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


@pytest.mark.real
def test_the_library_example_runs_as_shown(tmp_path):
    code = re.search(r"```python\n(.*?)```", README, re.DOTALL).group(1)
    assert len(code.strip().splitlines()) <= 15
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) >= 4 and re.match(r"\d\.\d\d ", lines[-1])
