"""bench/replay.py on a shortened trace (4 sessions, 9 simulated days): exact figures, no file touched."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "bench" / "replay.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_replay", BENCH)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need their module registered
    spec.loader.exec_module(module)
    return module


replay = _load_bench()


@pytest.fixture(scope="module")
def results() -> dict:
    done = subprocess.run([sys.executable, str(BENCH), "--sessions", "4", "--json"], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ours_on_four_sessions(results: dict) -> None:
    ours = results["ours"]
    assert results["sessions"] == 4
    assert ours["problems"] == []
    assert (ours["failures_run"], ours["error_nudges"], ours["false_alarms"]) == (12, 12, 0)
    assert (ours["known_fixes"], ours["retries_passed"]) == (2, 1)
    assert (ours["corrections"], ours["corrections_nudged"], ours["logged"]) == (3, 3, 13)
    assert (ours["promoted"], ours["promoted_on_time"], ours["retired"], ours["archived"]) == (3, 3, 0, 0)
    assert [event.split(": ", 1)[1] for event in ours["events"]] == [
        "promoted deps.module-not-found (3 occurrences in 2 sessions so far)",
        "the retry of `python3 report.py` passed with the injected fix",
        "promoted vcs.push-rejected (3 occurrences in 3 sessions so far)",
        "promoted test.failures (3 occurrences in 2 sessions so far)",
    ]


def test_reference_on_four_sessions(results: dict) -> None:
    shipped, stdin = results["reference_shipped"], results["reference_stdin"]
    assert (shipped["error_nudges"], shipped["false_alarms"], shipped["error_tokens"], shipped["logged"]) == (0, 0, 0, 0)
    # PostToolUse only: the 13 failures all exit non-zero (PostToolUseFailure), so it sees none of them.
    assert (stdin["failures_run"], stdin["error_nudges"], stdin["false_alarms"], stdin["logged"]) == (13, 0, 9, 9)
    for result in (shipped, stdin):
        assert (result["promoted"], result["retired"], result["known_fixes"], result["corrections_nudged"]) == (0, 0, 0, 0)
    assert results["ours"]["reminder_tokens"] + results["ours"]["error_tokens"] < shipped["reminder_tokens"]


def test_no_file_touched(results: dict) -> None:
    for name in ("ours", "reference_shipped", "reference_stdin"):
        assert results[name]["files_touched"] == [], name


def test_files_touched_ignores_only_learnings_and_our_block(tmp_path: Path) -> None:
    project = replay.make_project(tmp_path)
    before = replay.snapshot(project)
    (project / ".learnings").mkdir()
    (project / ".learnings" / "ERRORS.md").write_text("# Errors\n")
    claude = project / "CLAUDE.md"
    block = "<!-- self-improve:begin (managed) -->\n## Learned rules\n- Use pnpm. <!-- LRN-20250303-abc -->\n<!-- self-improve:end -->\n"
    claude.write_text(claude.read_text() + "\n" + block)
    (project / "AGENTS.md").write_text(block)
    assert replay.touched(before, replay.snapshot(project)) == []
    claude.write_text(claude.read_text().replace("Keep functions small.", "Keep functions tiny."))
    (project / "src" / "new.js").write_text("\n")
    assert replay.touched(before, replay.snapshot(project)) == ["CLAUDE.md", "src/new.js"]
