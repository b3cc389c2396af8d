"""The README's promises: CI runs exactly the test command it gives, it stays a front page
(small, with its picture, every link leading somewhere), and the library example of
docs/library.md runs as shown, in at most 15 lines."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
LIBRARY = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "models" / "README.md"]


def test_ci_runs_the_readme_test_command():
    command = re.search(r"^(bash scripts/install.sh test .*)$", README, re.MULTILINE).group(1)
    assert command in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_the_readme_is_a_front_page():
    assert len(README.encode("utf-8")) <= 10_240
    picture = ROOT / "docs" / "town.png"
    assert "](docs/town.png)" in README and picture.stat().st_size < 300_000
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_of_the_docs_leads_to_a_file(page):
    text = page.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    missing = [t for t in targets if "://" not in t and not (page.parent / t).exists()]
    assert not missing, f"{page.name} links to missing files: {missing}"


@pytest.mark.real
def test_the_library_example_runs_as_shown(tmp_path):
    code = re.search(r"```python\n(.*?)```", LIBRARY, re.DOTALL).group(1)
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
