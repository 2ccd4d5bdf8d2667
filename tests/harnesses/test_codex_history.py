"""Codex's rollouts read back (``harnesses/codex/history.py``), on a real one (codex-cli 0.171.0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.harnesses.codex import history
from tests.helpers import REPO

FIXTURE = next((REPO / "tests" / "data" / "codex_rollouts").glob("rollout-*.jsonl"))
SESSION = "01a2334b-f9be-7392-a95a-fa75e1fc04a5"
ERROR = ("Traceback (most recent call last):\n  File \"/PROJECT/app.py\", line 1, in <module>\n    import helpers\n"
         "ModuleNotFoundError: No module named 'helpers'\n")
EVENTS = [
    ("prompt", "run the command", SESSION, "/PROJECT", 1796156946.965),
    ("call_mock0001", "python3 app.py", 1, ERROR, SESSION, "/PROJECT", False, 1796156947.101),
    ("call_mock0002", "cp helpers.example.py helpers.py", 0, "", SESSION, "/PROJECT", False, 1796156947.163),
    ("call_mock0003", "python3 app.py", 0, "hello from helpers\n", SESSION, "/PROJECT", False, 1796156947.235),
    ("call_mock0004", "echo out; echo err >&2", 0, "out\nerr\n", SESSION, "/PROJECT", False, 1796156947.287),
    ("call_mock0005", "sh -c 'exit 3'", 3, "", SESSION, "/PROJECT", False, 1796156947.337),
]


def events(path: Path, offset: int = 0, calls: dict[str, str] | None = None) -> list[tuple[object, ...]]:
    reader = history.TranscriptReader(str(path), offset, {} if calls is None else calls)
    out: list[tuple[object, ...]] = []
    for event in reader.events():
        if event.result is not None:
            r = event.result
            out.append((event.call_id, r.command, r.exit_code, r.output, r.session, r.cwd, r.interrupted, event.when))
        else:
            assert event.prompt is not None
            out.append(("prompt", event.prompt.text, event.prompt.session, event.prompt.cwd, event.when))
    return out


def test_the_real_rollout_gives_the_hooks_results() -> None:
    # command: the call's ``cmd`` (the hooks' tool_input.command); output: aggregated_output (their
    # tool_response); session: the thread id (their session_id); the exit code, which they lack
    assert FIXTURE.name.endswith(f"-{SESSION}.jsonl")
    assert events(FIXTURE) == EVENTS


def test_without_command_items_the_call_outputs_give_the_same_results(tmp_path: Path) -> None:
    """A rollout that persists no ``CommandExecution`` items: the ``function_call_output`` header
    gives the exit code, ``session_meta`` the session, ``turn_context`` the cwd."""
    lines = [line for line in FIXTURE.read_text().splitlines(keepends=True) if '"CommandExecution"' not in line]
    path = tmp_path / FIXTURE.name
    path.write_text("".join(lines))
    assert events(path) == [(*event[:-1], when) for event, when in zip(EVENTS, (
        1796156946.965, 1796156947.104, 1796156947.166, 1796156947.239, 1796156947.29, 1796156947.34), strict=True)]


def test_a_rescan_from_an_offset_keeps_the_pending_call_and_the_session(tmp_path: Path) -> None:
    text = FIXTURE.read_bytes()
    lines = text.splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"function_call"' in line) + 1  # just past the first call
    first = history.TranscriptReader(str(FIXTURE), 0, {}, stop=sum(map(len, lines[:cut])))
    assert [e.prompt.text for e in first.events() if e.prompt is not None] == ["run the command"]
    assert first.calls == {":session": SESSION, ":cwd": "/PROJECT", "call_mock0001": "python3 app.py"}
    assert events(FIXTURE, first.position, dict(first.calls)) == EVENTS[1:]


def test_a_half_written_last_line_is_left_for_the_next_scan(tmp_path: Path) -> None:
    text = FIXTURE.read_bytes()
    path = tmp_path / "rollout-x.jsonl"
    path.write_bytes(text[:-1])  # the final newline is not there yet
    reader = history.TranscriptReader(str(path), 0, {})
    assert len(list(reader.events())) == len(EVENTS)
    assert reader.position == text[:-1].rfind(b"\n") + 1


@pytest.mark.parametrize(("url", "path"), [
    ("file:///PROJECT", "/PROJECT"), ("file:///tmp/a%20b", "/tmp/a b"), ("/plain/dir", "/plain/dir"),
    ("file://elsewhere/x", ""), ("relative", ""), (None, ""),
])
def test_cwd_urls(url: object, path: str) -> None:
    assert history.file_url_path(url) == path


def test_exit_code_header_and_commands() -> None:
    output = "Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 127\nOriginal token count: 3\nOutput:\nsh: x: not found\n"
    assert history.split_output(output) == (127, "sh: x: not found\n")
    assert history.split_output("no header") == (None, "no header")
    assert history.argv_command(["/bin/bash", "-lc", "make test"]) == "make test"
    assert history.argv_command(["git", "status"]) == "git status"
    call = {"name": "exec_command", "arguments": json.dumps({"cmd": "ls -la", "workdir": "/x"})}
    assert history.call_command(call) == "ls -la"
    assert history.call_command({"name": "shell", "arguments": json.dumps({"command": ["bash", "-lc", "pwd"]})}) == "pwd"
    assert history.call_command({"name": "apply_patch", "arguments": "{}"}) is None


def test_where_the_rollouts_are(tmp_path: Path) -> None:
    assert history.history_dir({"CODEX_HOME": "/opt/codex"}) == "/opt/codex/sessions"
    assert history.history_dir({"CODEX_HOME": "relative", "HOME": "/h"}).endswith("/.codex/sessions")
    day = tmp_path / "2026" / "12" / "01"
    day.mkdir(parents=True)
    for name in ("rollout-b.jsonl", "rollout-a.jsonl", "notes.jsonl", "rollout-c.json"):
        (day / name).write_text("")
    (day / "rollout-link.jsonl").symlink_to(day / "rollout-a.jsonl")
    assert history.transcripts(str(tmp_path)) == [str(day / "rollout-a.jsonl"), str(day / "rollout-b.jsonl")]
