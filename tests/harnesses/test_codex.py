"""Codex: payloads captured from codex-cli 0.171.0 (tests/fixtures/codex/), output, and install."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from self_improve.errors import UsageError
from self_improve.harnesses import claude as claude
from self_improve.harnesses import codex as codex
from self_improve.harnesses.codex import install as codex_install
from self_improve.harnesses import installer as inst
from tests.helpers import FIXTURES, REPO

CODEX = FIXTURES / "codex"
PY = "/opt/python/bin/python3"

# The shapes of Claude Code 2.1.328's payloads (shared/claude-code/), trimmed.
CLAUDE_POST = {
    "session_id": "a7aa", "transcript_path": "/t.jsonl", "cwd": "/home/dev/src/app", "prompt_id": "e7b2",
    "permission_mode": "default", "effort": {"level": "medium"}, "hook_event_name": "PostToolUse",
    "tool_name": "Bash", "tool_input": {"command": "echo ok", "description": "run"},
    "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": False},
    "tool_use_id": "toolu_01", "duration_ms": 551,
}
CLAUDE_FAILURE = {
    "session_id": "96ff", "cwd": "/home/dev/src/app", "hook_event_name": "PostToolUseFailure", "tool_name": "Bash",
    "tool_input": {"command": "false"}, "error": "Exit code 1\n", "is_interrupt": False,
}
CLAUDE_PROMPT = {"session_id": "a7aa", "cwd": "/x", "prompt_id": "e7", "hook_event_name": "UserPromptSubmit", "prompt": "hi"}


def fixture(name: str) -> dict[str, Any]:
    return json.loads((CODEX / name).read_text())


# --- payloads ----------------------------------------------------------------------------


def test_successful_command() -> None:
    result = codex.parse_tool_result(fixture("PostToolUse.json"))
    assert result is not None
    assert result.command == 'echo build ok; echo "warning: deprecated" >&2'
    assert result.output == "build ok\nwarning: deprecated\n"
    assert result.exit_code is None  # Codex does not say; never guess 0
    assert result.session == "01a22798-e50a-7253-b19e-d07f8646592e"
    assert result.cwd == "/home/dev/src/app"
    assert not result.interrupted


def test_failing_command_is_the_same_event() -> None:
    result = codex.parse_tool_result(fixture("PostToolUse-failure.json"))
    assert result is not None
    assert result.command == 'echo partial-out; python3 -c "import nosuchmod"'
    assert result.output.endswith("ModuleNotFoundError: No module named 'nosuchmod'\n")
    assert result.exit_code is None


def test_prompt() -> None:
    prompt = codex.parse_prompt(fixture("UserPromptSubmit.json"))
    assert prompt is not None and prompt.text == "run it" and prompt.cwd == "/home/dev/src/app"
    assert codex.parse_prompt(fixture("PostToolUse.json")) is None
    assert codex.parse_prompt({"hook_event_name": "UserPromptSubmit", "prompt": 3}) is None


def test_other_events_and_tools_are_ignored() -> None:
    assert codex.parse_tool_result(fixture("SessionStart.json")) is None
    assert codex.parse_tool_result(fixture("UserPromptSubmit.json")) is None
    apply_patch = dict(fixture("PostToolUse.json"), tool_name="apply_patch")
    assert codex.parse_tool_result(apply_patch) is None


def test_tolerates_odd_shapes() -> None:
    odd = dict(fixture("PostToolUse.json"), tool_input="ls", tool_response={"output": "o", "exit_code": 2})
    result = codex.parse_tool_result(odd)
    assert result is not None and result.command == "" and result.output == "o" and result.exit_code == 2
    assert codex.parse_tool_result(dict(odd, tool_response={"exit_code": True})).exit_code is None  # type: ignore[union-attr]
    assert codex.parse_tool_result(dict(odd, tool_response=None)).output == ""  # type: ignore[union-attr]


def test_matches_tells_codex_from_claude() -> None:
    for name in ("PostToolUse.json", "PostToolUse-failure.json", "UserPromptSubmit.json"):
        assert codex.matches(fixture(name)), name
    for payload in (CLAUDE_POST, CLAUDE_FAILURE, CLAUDE_PROMPT, {}, [], None):
        assert not codex.matches(payload), payload
    # Without turn_id, a string tool_response is still Codex's.
    bare = {k: v for k, v in fixture("PostToolUse.json").items() if k != "turn_id"}
    assert codex.matches(bare)


def test_claudes_parser_would_misread_a_codex_payload() -> None:
    """Why the hot path must ask codex.matches() first: Claude's parser accepts the shape."""
    misread = claude.parse_tool_result(fixture("PostToolUse-failure.json"))
    assert misread is not None and misread.exit_code == 0 and misread.output == ""


def test_format_context_is_exactly_the_schema() -> None:
    out = json.loads(codex.format_context("PostToolUse", "x" * 20_000))
    assert list(out) == ["hookSpecificOutput"]
    assert out["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert len(out["hookSpecificOutput"]["additionalContext"]) == codex.MAX_CONTEXT_CHARS
    assert json.loads(codex.format_context("UserPromptSubmit", "é"))["hookSpecificOutput"]["additionalContext"] == "é"


@pytest.mark.parametrize("text", ["", "plain", 'quote " backslash \\ tab \t newline \n', "\x00\x1f\x7f\u2028 é 😀",
                                  "lone \ud800 surrogate", "x" * 20_000])
def test_format_context_prints_what_json_dumps_prints(text: str) -> None:
    # Written without json (its import costs a failing hook ~5 ms), byte for byte json.dumps's text.
    for event in ("PostToolUseFailure", 'odd "event"'):
        body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text[: codex.MAX_CONTEXT_CHARS]}}
        assert codex.format_context(event, text) == json.dumps(body, ensure_ascii=False)


# --- install -------------------------------------------------------------------------------


def target(home: Path, scope: str = "user") -> inst.Target:
    return inst.Target(scope, home / "proj", home)


def test_install_writes_only_the_events_codex_has(tmp_path: Path) -> None:
    h = codex_install.installer(REPO, python=PY)
    (change,) = h.plan_install(target(tmp_path))
    change.apply()
    value = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    assert value == {
        "hooks": {
            "PostToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": f"SELF_IMPROVE_PYTHON={PY} {REPO}/hooks/post-bash", "timeout": 30}]}
            ],
            "PreToolUse": [
                {"matcher": "Bash", "hooks": [{"type": "command", "command": f"SELF_IMPROVE_PYTHON={PY} {REPO}/hooks/pre-bash", "timeout": 30}]}
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": f"SELF_IMPROVE_PYTHON={PY} {REPO}/hooks/prompt-submit", "timeout": 30}]}
            ],
        }
    }
    assert not h.plan_install(target(tmp_path))[0].changed
    (undo,) = h.plan_uninstall(target(tmp_path))
    undo.apply()
    assert not (tmp_path / ".codex" / "hooks.json").exists()


def test_install_keeps_a_users_codex_hooks(tmp_path: Path) -> None:
    original = '{\n  "hooks": {\n    "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]\n  }\n}\n'
    path = tmp_path / "proj" / ".codex" / "hooks.json"
    path.parent.mkdir(parents=True)
    path.write_text(original)
    h = codex_install.installer(REPO, python=PY)
    h.plan_install(target(tmp_path, "project"))[0].apply()
    assert json.loads(path.read_text())["hooks"]["Stop"] == json.loads(original)["hooks"]["Stop"]
    h.plan_uninstall(target(tmp_path, "project"))[0].apply()
    assert path.read_text() == original


def test_scopes_and_notes(tmp_path: Path) -> None:
    h = codex_install.installer(REPO)
    assert h.scope_for(None, project_given=False) == "user"
    assert h.scope_for(None, project_given=True) == "project"
    assert h.scope_for("local", project_given=True) == "project"
    with pytest.raises(UsageError):
        h.scope_for("system", project_given=False)
    assert h.hooks_path(target(tmp_path, "project")) == tmp_path / "proj" / ".codex" / "hooks.json"
    assert any("/hooks" in note for note in h.notes(target(tmp_path)))
    assert any("trusts the project" in note for note in h.notes(target(tmp_path, "project")))
    assert "not installed" in h.status(target(tmp_path))[0]


def test_the_hot_path_import_stays_light() -> None:
    import subprocess
    import sys

    code = "import sys, self_improve.harnesses.codex; print(sorted(m for m in sys.modules if m.startswith('self_improve')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert "installer" not in out and "jsonedit" not in out


def test_a_switched_off_feature_flag_is_reported(tmp_path: Path) -> None:
    h = codex_install.installer(REPO)
    config = tmp_path / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text('model = "o3"\n[features]\nhooks = true\n')
    assert not any("switched off" in note for note in h.notes(target(tmp_path)))
    config.write_text("[features]\ncodex_hooks = false\n")
    assert any("switched off" in note for note in h.notes(target(tmp_path)))
    config.write_text("not [toml")
    assert not codex_install.hooks_switched_off(config)
