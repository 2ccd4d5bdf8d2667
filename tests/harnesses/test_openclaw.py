"""The OpenClaw adapter against real transcript events (tests/data/openclaw/*.jsonl, copies of shared/openclaw)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from self_improve.harnesses import openclaw as openclaw
from self_improve.events import ToolResult

SHARED = Path(__file__).resolve().parents[1] / "data" / "openclaw"
FAILING = SHARED / "transcript-failing-exec.jsonl"
ANTHROPIC = SHARED / "transcript-anthropic-provider.jsonl"



def load_events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def results_of(events: list[dict[str, Any]], session: str) -> list[ToolResult]:
    commands: dict[str, str] = {}
    cwd = ""
    results = []
    for event in events:
        cwd = openclaw.session_cwd(event) or cwd
        commands.update({call.call_id: call.command for call in openclaw.shell_calls(event)})
        result = openclaw.tool_result(event, session, commands, cwd)
        if result is not None:
            results.append(result)
    return results


@pytest.mark.parametrize("path", [FAILING, ANTHROPIC], ids=["openai", "anthropic"])
def test_real_transcript_gives_one_failing_exec(path: Path) -> None:
    (result,) = results_of(load_events(path), "S")
    assert result == ToolResult(
        command="ls /nonexistent",
        output="ls: cannot access '/nonexistent': No such file or directory",
        exit_code=2,
        session="S",
        cwd="/tmp/ocx/ws",
        interrupted=False,
    )


def test_real_events_are_wrapped_messages_and_is_error_is_false() -> None:
    # The quirk the adapter exists for: a failing command says isError: false.
    events = load_events(FAILING)
    result_event = next(e for e in events if openclaw.shell_result_call_id(e))
    assert result_event["type"] == "message"
    assert result_event["message"]["isError"] is False
    assert result_event["message"]["details"]["exitCode"] == 2


def _result_event(text: str, details: dict[str, Any] | None = None, tool: str = "exec") -> dict[str, Any]:
    message: dict[str, Any] = {
        "role": "toolResult",
        "toolCallId": "c1",
        "toolName": tool,
        "content": [{"type": "text", "text": text}],
        "isError": False,
    }
    if details is not None:
        message["details"] = details
    return {"type": "message", "message": message}


def _call_event(command: str, tool: str = "exec", call_id: str = "c1") -> dict[str, Any]:
    part = {"type": "toolCall", "id": call_id, "name": tool, "arguments": {"command": command}}
    return {"type": "message", "message": {"role": "assistant", "content": [part]}}


def test_exit_code_falls_back_to_the_suffix_and_the_suffix_is_stripped() -> None:
    event = _result_event("boom\n\n(Command exited with code 127)", details={"cwd": "/p"})
    result = openclaw.tool_result(event, "S", {"c1": "nope"})
    assert result is not None
    assert (result.exit_code, result.output, result.command, result.cwd) == (127, "boom", "nope", "/p")


def test_details_exit_code_wins_over_the_suffix() -> None:
    event = _result_event("x\n\n(Command exited with code 3)", details={"exitCode": 4, "cwd": "/p"})
    result = openclaw.tool_result(event, "S", {})
    assert result is not None and result.exit_code == 4


def test_no_code_anywhere_is_none_not_zero() -> None:
    result = openclaw.tool_result(_result_event("done", details={"cwd": "/p"}), "S", {})
    assert result is not None and result.exit_code is None and result.output == "done"


def test_successful_exec_has_exit_code_zero() -> None:
    event = _result_event("ok", details={"exitCode": 0, "cwd": "/p", "status": "completed"})
    result = openclaw.tool_result(event, "S", {"c1": "true"})
    assert result is not None and result.exit_code == 0


def test_missing_details_cwd_uses_the_session_header() -> None:
    result = openclaw.tool_result(_result_event("x"), "S", {}, fallback_cwd="/ws")
    assert result is not None and result.cwd == "/ws"


def test_aggregated_is_used_when_content_is_empty() -> None:
    event = _result_event("", details={"aggregated": "agg\n\n(Command exited with code 1)", "cwd": "/p"})
    result = openclaw.tool_result(event, "S", {})
    assert result is not None and (result.output, result.exit_code) == ("agg", 1)


def test_suffix_in_the_middle_is_not_an_exit_code() -> None:
    text = "(Command exited with code 9)\nmore output"
    assert openclaw.split_exit_suffix(text) == (text, None)


def test_signal_means_interrupted() -> None:
    event = _result_event("x", details={"exitSignal": "SIGKILL", "exitReason": "signal", "cwd": "/p"})
    result = openclaw.tool_result(event, "S", {})
    assert result is not None and result.interrupted


def test_other_tools_are_ignored() -> None:
    assert openclaw.tool_result(_result_event("x", tool="read"), "S", {}) is None
    assert openclaw.shell_calls(_call_event("cat f", tool="read")) == []
    assert openclaw.tool_result({"type": "session", "cwd": "/x"}, "S", {}) is None


def test_bare_messages_are_accepted_too() -> None:
    bare = _call_event("make")["message"]
    assert openclaw.shell_calls(bare) == [openclaw.ShellCall("c1", "make")]


def test_several_calls_in_one_assistant_message() -> None:
    event = _call_event("a")
    event["message"]["content"].append(
        {"type": "toolCall", "id": "c2", "name": "exec", "arguments": {"command": "b"}}
    )
    event["message"]["content"].append({"type": "text", "text": "thinking"})
    assert [c.command for c in openclaw.shell_calls(event)] == ["a", "b"]


def test_state_dir_and_workspace_honour_the_environment(tmp_path: Path) -> None:
    env = {"OPENCLAW_STATE_DIR": str(tmp_path / "s"), "OPENCLAW_WORKSPACE_DIR": str(tmp_path / "w")}
    assert openclaw.state_dir(env) == tmp_path / "s"
    assert openclaw.default_workspace(env) == tmp_path / "w"
    assert openclaw.state_dir({}) == Path.home() / ".openclaw"
    assert openclaw.default_workspace({}) == Path.home() / ".openclaw" / "workspace"


def test_transcript_databases_lists_every_agent(tmp_path: Path) -> None:
    for agent in ("main", "work"):
        db = tmp_path / "agents" / agent / "agent" / "openclaw-agent.sqlite"
        db.parent.mkdir(parents=True)
        db.touch()
    (tmp_path / "agents" / "main" / "agent" / "openclaw-agent.sqlite-wal").touch()
    names = [p.parent.parent.name for p in openclaw.transcript_databases(tmp_path)]
    assert names == ["main", "work"]
    assert openclaw.transcript_databases(tmp_path / "missing") == []
