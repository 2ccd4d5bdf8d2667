"""``self-improve scan``: past Claude Code sessions recorded as the live hooks record them.

The transcripts are the real one of ``tests/data/claude_transcripts`` (Claude Code 2.1.328),
its project path, session and day substituted. The live side is the real hook entry point
(``hooks.run.run("post-bash")`` on a Claude Code payload), in-process so that entry IDs can be
pinned. ``scan`` is called through its own ``register``, in-process.
"""

from __future__ import annotations

import argparse
import io
import itertools
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from self_improve.commands import scan
from self_improve.errors import SelfImproveError, UsageError
from self_improve.harnesses.claude.history import TranscriptReader
from self_improve.hooks import run as hooks_run
from self_improve.store.scan_state import ScanState
from self_improve.store.store import Store
from tests.helpers import REPO, run_cli, tree_hash

FIXTURE = next((REPO / "tests" / "data" / "claude_transcripts").glob("*.jsonl"))
SESSION = FIXTURE.stem
DAY = "2026-12-01"
KEY = "deps.module-not-found/python:helpers"
FIX = "Last time: `cp helpers.example.py helpers.py`, then `python3 app.py` passed."
MARKDOWN = ("ERRORS.md", "LEARNINGS.md", "FEATURE_REQUESTS.md")


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR",
                 "CODEX_HOME", "SELF_IMPROVE_DEBUG", "SELF_IMPROVE_NOW"):
        monkeypatch.delenv(name, raising=False)
    pin_ids(monkeypatch)
    return home


def pin_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    """Entry IDs from a counter: the same sequence on either side of a comparison."""
    counter = itertools.count()

    def suffix(length: int) -> str:
        return f"{next(counter):0{length}d}"

    monkeypatch.setattr("self_improve.store.ids._random_suffix", suffix)


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    Store(root).init()
    return root


def transcript(project: Path, session: str = SESSION, day: str = DAY, lines: slice = slice(None)) -> str:
    """The fixture, as Claude Code would have written it for ``session`` in ``project`` on ``day``."""
    text = FIXTURE.read_text().replace("/PROJECT", str(project)).replace(SESSION, session)
    text = text.replace(f'"timestamp":"{DAY}T', f'"timestamp":"{day}T')
    return "".join(text.splitlines(keepends=True)[lines])


def write_transcript(home: Path, project: Path, text: str, session: str = SESSION) -> Path:
    folder = home / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text(text)
    return path


def run_scan(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser()
    scan.register(parser.add_subparsers())
    args = parser.parse_args(["scan", *argv])
    out = io.StringIO()
    saved, sys.stdout = sys.stdout, out
    try:
        code = scan.run(args)
    finally:
        sys.stdout = saved
    return code, out.getvalue()


def scan_json(*argv: str) -> dict[str, Any]:
    code, out = run_scan(*argv, "--json")
    assert code == 0
    report: dict[str, Any] = json.loads(out)
    return report


def live_post_bash(payload: dict[str, Any], when: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real hook entry point on one payload, its clock at ``when`` (as if it ran then)."""
    from self_improve.clock import utc_of

    monkeypatch.setenv("SELF_IMPROVE_NOW", utc_of(when).isoformat())
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(json.dumps(payload).encode())))
    out = io.StringIO()
    monkeypatch.setattr(sys, "stdout", out)
    assert hooks_run.run("post-bash") == 0
    monkeypatch.delenv("SELF_IMPROVE_NOW")
    monkeypatch.setattr(sys, "stdout", sys.__stdout__)


def payloads(text: str, path: Path) -> list[tuple[dict[str, Any], float]]:
    """The hook payloads of a transcript's Bash results (PostToolUse / PostToolUseFailure)."""
    path.write_text(text)
    out = []
    for event in TranscriptReader(str(path), 0, {}).events():
        result = event.result
        if result is None:
            continue
        base: dict[str, Any] = {"session_id": result.session, "cwd": result.cwd, "tool_name": "Bash", "tool_use_id": event.call_id,
                "tool_input": {"command": result.command, "description": "run"}}
        if result.exit_code == 0:
            base |= {"hook_event_name": "PostToolUse", "tool_response": {"stdout": result.output, "stderr": "",
                                                                         "interrupted": False, "isImage": False}}
        else:
            base |= {"hook_event_name": "PostToolUseFailure", "error": f"Exit code {result.exit_code}\n{result.output}",
                     "is_interrupt": False}
        out.append((base, event.when))
    return out


def entry(project: Path) -> Any:
    (found,) = Store(project).with_pattern_key("error", KEY)
    return found


def markdown(project: Path) -> dict[str, bytes]:
    return {name: (project / ".learnings" / name).read_bytes() for name in MARKDOWN}


def ledger(home: Path) -> dict[str, bytes]:
    folder = home / ".local" / "state" / "self-improve" / "provenance"
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())} if folder.is_dir() else {}


# ---- the same events, live or scanned -----------------------------------------------------------


def test_scan_writes_what_the_live_hooks_write(project: Path, home: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    three = transcript(project, lines=slice(0, 13))  # the prompt, then fail, cp, pass
    events = payloads(three, tmp_path / "events.jsonl")
    assert [(p["hook_event_name"], p["tool_input"]["command"]) for p, _ in events] == [
        ("PostToolUseFailure", "python3 app.py"), ("PostToolUse", "cp helpers.example.py helpers.py"),
        ("PostToolUse", "python3 app.py")]
    for payload, when in events:
        live_post_bash(payload, when, monkeypatch)
    live_files, live_ledger = markdown(project), ledger(home)
    assert entry(project).observed_fix == FIX

    # the same project afresh, a user who never had the hooks: the transcript, scanned
    import shutil

    shutil.rmtree(project / ".learnings")
    shutil.rmtree(home / ".local")
    Store(project).init()
    pin_ids(monkeypatch)
    write_transcript(home, project, three)
    report = scan_json("--project", str(project))
    assert (report["sessions"], report["mistakes"], report["observed_fixes"], report["live_sessions"]) == (1, 1, 1, 0)
    assert markdown(project) == live_files
    assert ledger(home) == live_ledger


# ---- the acceptance test of issue 16 -----------------------------------------------------------------


def test_three_past_sessions_then_a_rescan_then_a_live_one(project: Path, home: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for n, day in enumerate(("2026-11-20", "2026-11-22", "2026-11-24"), 1):
        session = f"0000000{n}-aaaa-4bbb-8ccc-dddddddddddd"
        write_transcript(home, project, transcript(project, session, day, slice(0, 13)), session)
    code, out = run_scan("--project", str(project))
    assert (code, out) == (0, "3 sessions in 1 project: 3 mistakes, 1 recurring, 1 observed fix; "
                              "run `self-improve review`\n")
    found = entry(project)
    assert (found.recurrence_count, found.observed_fix) == (3, FIX)
    assert [o.date for o in found.occurrences] == ["2026-11-20", "2026-11-22", "2026-11-24"]
    assert len({o.task for o in found.occurrences}) == 3

    review = run_cli("--root", str(project), "review", "--json", env={"HOME": str(home), "SELF_IMPROVE_NOW": "2026-11-25T12:00:00Z"})
    assert review.returncode == 0, review.stderr
    (proposed,) = json.loads(review.stdout)["promote"]
    assert (proposed["id"], proposed["tasks"], proposed["provenance"]["review_yes_promotes"]) == (found.id, 3, True)
    assert proposed["rule"] == f"deps.module-not-found (python:helpers): {FIX}"

    state = home / ".local" / "state"
    before = (tree_hash(project), tree_hash(state))
    assert scan_json("--project", str(project))["mistakes"] == 0
    assert (tree_hash(project), tree_hash(state)) == before

    failure = payloads(transcript(project, "0000000f-aaaa-4bbb-8ccc-dddddddddddd", "2026-11-26", slice(0, 8)),
                       project.parent / "new.jsonl")
    live_post_bash(*failure[0], monkeypatch=monkeypatch)
    assert entry(project).recurrence_count == 4


# ---- live and scanned events, each counted once -------------------------------------------------


def test_live_then_scan_counts_once(project: Path, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = transcript(project, lines=slice(0, 13))
    for payload, when in payloads(text, tmp_path / "events.jsonl"):
        live_post_bash(payload, when, monkeypatch)
    write_transcript(home, project, text)
    report = scan_json("--project", str(project))
    assert (report["sessions"], report["mistakes"], report["live_sessions"]) == (0, 0, 1)
    assert entry(project).recurrence_count == 1


def test_scan_then_live_in_the_resumed_session_counts_once(project: Path, home: Path, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    first = transcript(project, lines=slice(0, 13))
    path = write_transcript(home, project, first)
    assert scan_json("--project", str(project))["mistakes"] == 1
    # the session resumed with the hooks installed: a failure, recorded live, appended to its file
    again = transcript(project, lines=slice(5, 8))  # python3 app.py failing again
    (payload, when), = payloads(again, tmp_path / "again.jsonl")
    live_post_bash(payload, when + 60, monkeypatch)
    assert entry(project).recurrence_count == 2
    path.write_text(first + again)
    report = scan_json("--project", str(project))
    assert (report["mistakes"], report["live_sessions"]) == (0, 1)
    assert entry(project).recurrence_count == 2


def test_a_scan_of_one_project_then_of_all_takes_each_event_once(project: Path, home: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    Store(other).init()
    write_transcript(home, project, transcript(project, lines=slice(0, 13)))
    write_transcript(home, other, transcript(other, "11111111-aaaa-4bbb-8ccc-dddddddddddd", lines=slice(0, 13)),
                     "11111111-aaaa-4bbb-8ccc-dddddddddddd")
    assert scan_json("--project", str(project))["mistakes"] == 1
    report = scan_json("--all-projects")
    assert (report["mistakes"], report["projects"]) == (1, 1)
    assert entry(project).recurrence_count == 1 and entry(other).recurrence_count == 1
    assert scan_json("--all-projects")["mistakes"] == 0


def test_a_crash_after_the_journal_line_never_counts_twice(project: Path, home: Path) -> None:
    path = write_transcript(home, project, transcript(project, lines=slice(0, 13)))
    state = ScanState("claude")
    state.note(str(path), str(project), 3851, own=(str(project), SESSION))  # the failure's line, then a crash
    reloaded = ScanState("claude")
    assert reloaded.owns(str(project), SESSION)
    assert reloaded.files[str(path)].taken(str(project), 3851)
    assert not reloaded.files[str(path)].taken(str(project), 3852)


# ---- dry run, opt-in, refusals, progress ---------------------------------------------------------


def test_dry_run_records_nothing_and_says_what_it_would(project: Path, home: Path) -> None:
    write_transcript(home, project, transcript(project))
    before = (tree_hash(project), tree_hash(home))
    code, out = run_scan("--project", str(project), "--dry-run")
    assert code == 0
    assert out == (f"would record {KEY} in {project} ({DAY}, session {SESSION[:8]})\n"
                   f"would record generic.nonzero-exit/exit in {project} ({DAY}, session {SESSION[:8]})\n"
                   "1 session in 1 project: 2 mistakes would record (dry run: nothing written)\n")
    assert (tree_hash(project), tree_hash(home)) == before


def test_a_project_without_learnings_is_not_recorded(project: Path, home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    write_transcript(home, elsewhere, transcript(elsewhere))
    report = scan_json("--all-projects")
    assert (report["mistakes"], report["sessions"], report["outside_projects"]) == (0, 0, 6)
    assert not (elsewhere / ".learnings").exists()


def test_refusals_write_nothing(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    before = tree_hash(tmp_path)
    with pytest.raises(SelfImproveError) as refused:
        run_scan("--project", str(bare))
    assert str(refused.value) == f"no .learnings/ at or above {bare}: run `self-improve init` there, or pass --all-projects"
    with pytest.raises(UsageError) as openclaw:
        run_scan("--harness", "openclaw", "--all-projects")
    assert str(openclaw.value) == "--harness openclaw: its history is read by `self-improve sweep`"
    with pytest.raises(UsageError) as since:
        run_scan("--since", "last week", "--all-projects")
    assert str(since.value) == "--since: expected an ISO date such as 2026-11-01; got 'last week'"
    assert tree_hash(tmp_path) == before


def test_since_skips_older_events_and_marks_them_read(project: Path, home: Path) -> None:
    write_transcript(home, project, transcript(project, day="2026-10-01", lines=slice(0, 13)))
    report = scan_json("--project", str(project), "--since", "2026-11-01")
    assert (report["mistakes"], report["before_since"]) == (0, 4)
    assert scan_json("--project", str(project))["mistakes"] == 0  # read, not recorded later


def test_progress_line_only_on_a_terminal() -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal, pipe = Terminal(), io.StringIO()
    for stream in (terminal, pipe):
        progress = scan.Progress(stream)
        progress.start(2, 2_000_000)
        progress.done_file(1_000_000, 7)
        progress.finish()
    assert terminal.getvalue().startswith("\rscan: 1/2 files, 1/2 MB, 7 events, ETA ")
    assert terminal.getvalue().endswith("\r\x1b[K")
    assert pipe.getvalue() == ""


def test_a_past_correction_goes_to_the_queue_dated_when_it_was_said(project: Path, home: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from self_improve.store import correction_queue
    from self_improve.store.trust import StoreDir

    said = transcript(project, day="2026-11-03", lines=slice(0, 3)).replace('"content":"run the command"}',
                                                                          '"content":"No, I said use pnpm, not npm."}')
    write_transcript(home, project, said)
    report = scan_json("--project", str(project))
    assert (report["corrections"], report["mistakes"]) == (1, 0)
    (item,) = correction_queue.read(StoreDir(str(project / ".learnings")))
    assert (item.date, item.session) == ("2026-11-03", SESSION)
    assert "pnpm" not in (project / ".learnings" / "LEARNINGS.md").read_text()  # queued only, never an entry


# ---- Codex rollouts -------------------------------------------------------------------------------

CODEX_FIXTURE = next((REPO / "tests" / "data" / "codex_rollouts").glob("rollout-*.jsonl"))
CODEX_SESSION = "01a2334b-f9be-7392-a95a-fa75e1fc04a5"


def write_rollout(home: Path, project: Path, session: str = CODEX_SESSION, day: str = DAY) -> Path:
    """The real rollout, as Codex would have written it for ``session`` in ``project`` on ``day``."""
    text = CODEX_FIXTURE.read_text().replace("/PROJECT", str(project)).replace(CODEX_SESSION, session)
    text = text.replace(f'"timestamp":"{DAY}T', f'"timestamp":"{day}T')
    folder = home / ".codex" / "sessions" / day.replace("-", "/")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / CODEX_FIXTURE.name.replace(CODEX_SESSION, session).replace(DAY, day)
    path.write_text(text)
    return path


def counters_of(project: Path) -> dict[str, int]:
    counts: dict[str, int] = json.loads((project / ".learnings" / ".state" / "counters.json").read_text())
    return counts


def test_a_codex_rollout_is_scanned_as_the_hooks_would_have(project: Path, home: Path) -> None:
    write_rollout(home, project)
    code, out = run_scan("--harness", "codex", "--project", str(project))
    assert (code, out) == (0, "1 session in 1 project: 2 mistakes, 0 recurring, 1 observed fix; "
                              "run `self-improve review`\n")
    found = entry(project)
    assert (found.recurrence_count, found.observed_fix, [o.date for o in found.occurrences]) == (1, FIX, [DAY])
    # recorded by the hooks' step (errors_recorded, beside the ledger's hook occurrences), no nudge given
    assert counters_of(project) == {"errors_recorded": 2, "errors_scanned": 2}
    assert scan_json("--harness", "codex", "--project", str(project))["mistakes"] == 0


def test_all_reads_claude_and_codex(project: Path, home: Path) -> None:
    write_transcript(home, project, transcript(project, lines=slice(0, 13)))
    write_rollout(home, project)
    report = scan_json("--project", str(project))  # the default: --harness all
    assert (report["harness"], report["sessions"], report["files"], report["mistakes"]) == ("all", 2, 2, 3)
    found = entry(project)
    assert (found.recurrence_count, len({o.task for o in found.occurrences}), found.observed_fix) == (2, 2, FIX)


def codex_payload(project: Path, command: str, output: str) -> dict[str, Any]:
    """A PostToolUse payload as codex-cli 0.171.0 sends it (observed: ``harnesses/codex``)."""
    return {"session_id": CODEX_SESSION, "turn_id": "01a2334b-0000-7000-8000-000000000000", "cwd": str(project),
            "hook_event_name": "PostToolUse", "model": "gpt-mock", "permission_mode": "bypassPermissions",
            "tool_name": "Bash", "tool_input": {"command": command}, "tool_response": output,
            "tool_use_id": "call_mock0001", "transcript_path": "/dev/null"}


def test_a_session_the_live_codex_hooks_saw_is_left_to_them(project: Path, home: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    error = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'helpers'\n"
    live_post_bash(codex_payload(project, "python3 app.py", error), 1796156947.101, monkeypatch)
    assert entry(project).recurrence_count == 1
    write_rollout(home, project)
    report = scan_json("--harness", "codex", "--project", str(project))
    assert (report["sessions"], report["mistakes"], report["live_sessions"]) == (0, 0, 1)
    assert entry(project).recurrence_count == 1
    assert counters_of(project) == {"error_nudges": 1, "errors_recorded": 1}


def test_a_harness_without_history_leaves_no_state(project: Path, home: Path) -> None:
    write_transcript(home, project, transcript(project, lines=slice(0, 13)))
    assert scan_json("--project", str(project))["mistakes"] == 1  # --harness all: no ~/.codex here
    assert sorted(p.name for p in (home / ".local" / "state" / "self-improve" / "scan").iterdir()) == [
        "claude.json", "claude.lock"]
