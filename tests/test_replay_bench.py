"""bench/replay.py on a shortened trace (4 sessions, 9 simulated days): exact figures, no file touched.
The mixed-subject trace's scoring and its agent's reading of a nudge, on hand-made inputs."""

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
    done = subprocess.run([sys.executable, str(BENCH), "--trace", "main", "--sessions", "4", "--json"], check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_ours_on_four_sessions(results: dict) -> None:
    ours = results["ours"]
    assert results["sessions"] == 4
    assert ours["problems"] == []
    assert (ours["failures_run"], ours["error_nudges"], ours["false_alarms"]) == (12, 12, 0)
    assert (ours["known_fixes"], ours["retries_passed"]) == (5, 1)  # a logged fix is recalled the next time
    assert (ours["corrections"], ours["corrections_nudged"], ours["logged"]) == (3, 3, 10)  # no log where a fix was shown
    # Three different red tests (c014, c041, c095) are three mistakes now: no "test.failures" rule.
    assert (ours["promoted"], ours["promoted_on_time"], ours["retired"], ours["archived"]) == (2, 2, 0, 0)
    assert [event.split(": ", 1)[1] for event in ours["events"]] == [
        "the retry of `python3 report.py` passed with the injected fix",
        "promoted vcs.push-rejected/main:fetch-first+fca509dc (3 occurrences in 3 sessions so far)",
        "promoted deps.module-not-found/python:pandas (3 occurrences in 2 sessions so far)",
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


# ---- the mixed-subject trace: scoring on hand-made turns -------------------------------------------

FIXES = {"yaml": "pip install pyyaml", "numpy": "pip install numpy", "uv": "pipx install uv"}


def log_nudge(key: str = "deps.module-not-found/python:yaml") -> str:
    return (f"<error-detected>\n{key}: Module or package not found. First time here.\nOnce fixed, record the fix:\n"
            f'self-improve log error --pattern-key {key} --action "<fix>" "<one-line summary>"\n</error-detected>')


def fix_nudge(text: str) -> str:
    return (f"<error-detected>\ndeps.module-not-found: Module or package not found. Seen 2x in 2 session(s).\n"
            f"Known fix (from ERR-20250303-abc logged 2025-03-03 in this repo): {text}\n</error-detected>")


def turn(mistake: str, context: str, logged: bool = False) -> object:
    return replay.Turn(mistake, context, logged, "session 1")


def test_a_siblings_fix_counts_as_wrong_and_as_a_miss() -> None:
    score = replay.score_mixed([
        turn("yaml", log_nudge(), logged=True),
        turn("numpy", fix_nudge("pip install pyyaml")),  # first numpy: a sibling's fix
        turn("yaml", fix_nudge("pip install pyyaml")),  # right
        turn("numpy", log_nudge(), logged=True),
        turn("numpy", fix_nudge("pip install pyyaml")),  # numpy's fix is known now: wrong and a miss
    ], FIXES)
    assert (score.occurrences, score.nudged, score.repeats, score.repeats_known) == (5, 5, 3, 2)
    assert (score.right, score.wrong, score.missed_wrong_fix, score.missed_no_fix, score.logged) == (1, 2, 1, 0, 2)
    assert score.wrong_details == ["session 1: numpy was given yaml's fix", "session 1: numpy was given yaml's fix"]


def test_a_repeat_without_a_fix_is_a_miss_only_once_its_fix_was_logged() -> None:
    score = replay.score_mixed([
        turn("uv", log_nudge("shell.command-not-found/uv")),  # nudged, but the agent logged nothing
        turn("uv", log_nudge("shell.command-not-found/uv"), logged=True),  # a repeat, no fix known yet
        turn("uv", log_nudge("shell.command-not-found/uv")),  # known now, none given: a miss
        turn("uv", ""),  # not even nudged: a miss too
    ], FIXES)
    assert (score.repeats, score.repeats_known, score.right, score.wrong) == (3, 2, 0, 0)
    assert (score.missed_no_fix, score.missed_wrong_fix, score.nudged, score.logged) == (2, 0, 3, 1)


def test_recalled_text_is_matched_to_its_mistake() -> None:
    assert replay.fix_owner("pip  install\tnumpy", FIXES) == "numpy"
    assert replay.fix_owner("pipx inst…", FIXES) == "uv"  # cut by the hook's length cap
    assert replay.fix_owner("pip install", FIXES) is None  # a prefix without the ellipsis is another text
    assert replay.fix_owner("…", FIXES) is None
    score = replay.score_mixed([turn("yaml", log_nudge(), logged=True), turn("yaml", fix_nudge("reinstall python"))], FIXES)
    assert (score.right, score.wrong, score.missed_wrong_fix) == (0, 1, 1)
    assert score.wrong_details == ["session 1: yaml was given a fix of no mistake's: 'reinstall python'"]


def test_the_agent_runs_the_printed_command_with_a_fingerprint() -> None:
    placeholders = {"<fix>": "pip install pyyaml", "<one-line summary>": "yaml missing"}
    nudge = log_nudge().replace("self-improve log", "/opt/si/bin/self-improve log")
    assert replay.printed_log_command(nudge, placeholders) == [
        "/opt/si/bin/self-improve", "log", "error", "--pattern-key", "deps.module-not-found/python:yaml",
        "--action", "pip install pyyaml", "yaml missing",
    ]
    assert replay.printed_log_command(fix_nudge("pip install pyyaml"), placeholders) is None


def test_the_mixed_trace_is_well_formed() -> None:
    trace = replay.mixed_trace
    rows = replay.corpus(replay.MIXED_ROWS)
    steps = [(index, step) for index, session in enumerate(trace.SESSIONS) for step in session.steps]
    assert {step.row for _, step in steps} <= rows.keys()
    assert {step.mistake for _, step in steps} == trace.MISTAKES.keys()
    for name in trace.MISTAKES:
        sessions = [index for index, step in steps if step.mistake == name]
        assert 2 <= len(sessions) <= 4 and len(set(sessions)) == len(sessions), name  # 2-4 times, across sessions
    fixes = [mistake.fix for mistake in trace.MISTAKES.values()]
    assert len(set(fixes)) == len(fixes)
    assert not any(ch in fix for fix in fixes for ch in "<>")  # the sanitiser would change such a fix
    for row in rows.values():
        event = "PostToolUseFailure" if row["exit_code"] else "PostToolUse"
        assert row["payload"]["hook_event_name"] == event and row["payload"]["tool_input"]["command"] == row["command"]
