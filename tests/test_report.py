"""`simulacra report`: an HTML page with PNG plots of a recorded run."""

from __future__ import annotations

import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from simulacra.cli.app import cli
from simulacra.errors import UserError
from simulacra.viewer.report import conversation_pairs, density_series, read_run, write_report

ROOT = Path(__file__).resolve().parent.parent
RUN = Path(__file__).parent / "fixtures" / "run-smallville-3"
ARTIFACTS = ROOT / "test-artifacts" / "report"


@pytest.fixture
def run(tmp_path) -> Path:
    copy = tmp_path / "run"
    shutil.copytree(RUN, copy)
    return copy


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_report_writes_the_page_and_the_plots(run):
    done = CliRunner().invoke(cli, ["report", str(run)], catch_exceptions=False)
    assert done.exit_code == 0, done.output
    page = run / "report" / "index.html"
    assert done.output.strip() == str(page)
    html = page.read_text("utf-8")
    for name in ("timeline.png", "relationships.png", "density.png", "calls.png"):
        path = run / "report" / name
        width, height = png_size(path)
        assert width >= 500 and height >= 300 and path.stat().st_size > 10_000, name
        assert f"src='{name}'" in html
    # The conversation, escaped: model text never becomes markup.
    assert "I&#x27;m throwing a Valentine&#x27;s Day party" in html
    assert "Isabella Rodriguez" in html and "day_plan" in html
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for path in (run / "report").iterdir():
        shutil.copy(path, ARTIFACTS / path.name)


def test_who_talked_to_whom_and_density(run):
    data = read_run(run)
    assert data.steps == 180 and len(data.chats) == 1
    assert conversation_pairs(data) == {("Isabella Rodriguez", "Maria Lopez"): 1}
    series = density_series(data)
    assert series[0][1] == 0.0 and series[-1][1] == pytest.approx(1 / 3)
    assert series[1][0] == data.meta.step_time(data.chats[0][0])
    isabella = data.segments["Isabella Rodriguez"]
    assert [s.activity for s in isabella][:2] == [
        "working at the counter of Hobbs Cafe",
        "talking with Maria Lopez",
    ]
    assert isabella[0].start == 0 and isabella[-1].end == 180


def test_without_a_call_log_and_with_lines_cut_short(run, tmp_path):
    (run / "calls.jsonl").unlink()
    with (run / "events.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"step": 180, "time": "2023-02-13T07:3')  # killed mid-line
    out = tmp_path / "elsewhere"
    page = write_report(run, out)
    assert page == out / "index.html" and page.is_file()
    assert {p.name for p in out.iterdir()} == {
        "index.html",
        "timeline.png",
        "relationships.png",
        "density.png",
    }


def test_a_run_with_a_broken_call_log_line(run, tmp_path):
    with (run / "calls.jsonl").open("a", encoding="utf-8") as f:
        f.write('{"time": 1, "template": "act", "ag')
    assert (write_report(run, tmp_path / "r").parent / "calls.png").is_file()


def test_not_a_run(tmp_path):
    with pytest.raises(UserError, match="meta.json"):
        write_report(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "simulacra", "report", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("error: ") and len(done.stderr.strip().splitlines()) == 1


def test_a_run_without_events_yet(run):
    (run / "events.jsonl").unlink()
    with pytest.raises(UserError, match="no events"):
        write_report(run)
