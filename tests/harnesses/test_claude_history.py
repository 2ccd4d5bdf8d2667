"""Claude Code's transcripts read back (``harnesses/claude/history.py``), on a real one (2.1.328)."""

from __future__ import annotations

from pathlib import Path

from self_improve.harnesses.claude import history
from tests.helpers import REPO

FIXTURE = next((REPO / "tests" / "data" / "claude_transcripts").glob("*.jsonl"))
SESSION = FIXTURE.stem
ERROR = ("Traceback (most recent call last):\n  File \"/PROJECT/app.py\", line 1, in <module>\n    import helpers\n"
         "ModuleNotFoundError: No module named 'helpers'")


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


def test_the_real_transcript_gives_the_hooks_results() -> None:
    assert events(FIXTURE) == [
        ("prompt", "run the command", SESSION, "/PROJECT", 1796156066.122),
        ("toolu_mock0001", "python3 app.py", 1, ERROR, SESSION, "/PROJECT", False, 1796156066.301),
        # the tool_result says "(Bash completed with no output)"; toolUseResult's stdout is the output
        ("toolu_mock0002", "cp helpers.example.py helpers.py", 0, "", SESSION, "/PROJECT", False, 1796156066.426),
        ("toolu_mock0003", "python3 app.py", 0, "hello from helpers", SESSION, "/PROJECT", False, 1796156066.712),
        ("toolu_mock0004", "echo out; echo err >&2", 0, "out\nerr", SESSION, "/PROJECT", False, 1796156066.794),
        ("toolu_mock0005", "sh -c 'exit 3'", 3, "", SESSION, "/PROJECT", False, 1796156066.881),
    ]


def test_a_half_written_line_waits_and_a_pending_call_carries_over(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(lines[:7]) + lines[7][:50])  # the failure's result is being written
    reader = history.TranscriptReader(str(path), 0, {})
    assert [e.prompt.text for e in reader.events() if e.prompt] == ["run the command"]
    assert reader.position == sum(map(len, lines[:7]))
    assert reader.calls == {"toolu_mock0001": "python3 app.py"}
    path.write_bytes(b"".join(lines))
    assert [e[1] for e in events(path, reader.position, dict(reader.calls))][:2] == ["python3 app.py", "cp helpers.example.py helpers.py"]


def test_results_of_other_tools_and_unknown_calls_are_not_events(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(
        '{"type":"assistant","message":{"content":[{"type":"tool_use","id":"r1","name":"Read","input":{}}]}}\n'
        '{"type":"user","timestamp":"2026-12-01T00:00:00Z","sessionId":"s","cwd":"/p","message":{"content":'
        '[{"type":"tool_result","tool_use_id":"r1","content":"x"},{"type":"tool_result","tool_use_id":"zz","content":"y"}]}}\n'
        '{"type":"user","isMeta":true,"timestamp":"2026-12-01T00:00:00Z","sessionId":"s","cwd":"/p","message":{"content":"meta"}}\n'
        '{"type":"user","timestamp":"2026-12-01T00:00:00Z","sessionId":"s","cwd":"/p","message":{"content":"<command-name>/x"}}\n'
        'not json "user"\n'
    )
    assert events(path) == []


def test_where_the_transcripts_are(tmp_path: Path) -> None:
    assert history.projects_dir({"CLAUDE_CONFIG_DIR": "/cfg"}) == "/cfg/projects"
    folder = tmp_path / "projects"
    (folder / "a" / "s1" / "subagents").mkdir(parents=True)
    for name in ("a/s1.jsonl", "a/s1/subagents/agent-1.jsonl", "a/notes.txt"):
        (folder / name).write_text("")
    (folder / "a" / "link.jsonl").symlink_to(folder / "a" / "s1.jsonl")
    assert history.transcripts(str(folder)) == [str(folder / "a/s1.jsonl"), str(folder / "a/s1/subagents/agent-1.jsonl")]
    assert history.parse_time("2026-12-01T20:14:26.301Z") == 1796156066.301
    assert history.parse_time("2026-12-01T20:14:26") is None and history.parse_time(3) is None
