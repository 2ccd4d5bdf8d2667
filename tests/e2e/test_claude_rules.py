"""End-to-end: what the real Claude Code client (2.1.328) does with ``.claude/rules/*.md`` and with a
hook's ``systemMessage`` — evidence for where promoted rules and a review nudge can go.

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_rules.py -rs

Each test is one ``claude -p`` turn (about 1 s) against the loopback mock; the model's side is read
from the mock's request log. What the client showed (each test pins it, so a new client version
that behaves differently fails here):

- Rules without ``paths:`` — the project's ``.claude/rules/*.md`` and the user's
  ``~/.claude/rules/*.md`` — reach the model in the FIRST request, not in the ``system`` field but
  in the first user message's first ``<system-reminder>`` ("Codebase and user instructions are
  shown below…"), each as ``Contents of <absolute path> (<scope label>):\\n\\n<text>``; user rules
  before project rules. Of our managed block, the marker lines (``<!-- self-improve:begin … -->``
  and ``<!-- self-improve:end -->``, HTML comments on lines of their own) are dropped; the inline
  ``<!-- ID -->`` after each rule bullet reaches the model (CLAUDE.md is treated the same way).
  Started in a subdirectory, the client still finds the project's ``.claude/rules/``.
- A rule with ``paths:`` frontmatter is absent from the first request. After a tool call that
  touches a matching file (Read, Write, or a Bash ``cat`` of it), the NEXT request carries it as a
  ``<system-reminder>\\nContents of <path>:\\n\\n<text>`` block right after that call's
  ``tool_result`` (frontmatter stripped), once per session: a second read adds nothing. A
  non-matching file, or a Bash command that only runs the file (``python3 src/api/x.py``), loads
  nothing. The same holds for ``paths:`` rules in ``~/.claude/rules/`` (matched against the
  project's files).
- A hook's ``{"systemMessage": ...}`` is accepted (debug log: "Successfully parsed and validated
  hook JSON output") and is never sent to the model (no request carries it). In ``-p`` text
  mode it is not printed at all; with ``--output-format stream-json --verbose`` a SessionStart one
  is only visible inside the raw ``hook_response`` event (its stdout), while a UserPromptSubmit one
  becomes a ``{"type": "system", "subtype": "informational", "content": "UserPromptSubmit says:
  <text>", "level": "notice"}`` event. The interactive TUI shows the SessionStart one under the
  prompt box as ``SessionStart:startup says: <text>`` before any model request is made.
"""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.claude_client import ClaudeInstall, ClaudeRun, claude_env, prepare_home
from tests.e2e.conftest import CLAUDE, Timings
from tests.e2e.mock_anthropic import (
    LoggedRequest,
    MockAnthropicCalls,
    ToolCall,
    tool_results,
)
from tests.e2e.scenario import RunTurn, turn_requests, why

pytestmark = pytest.mark.e2e

PROJECT_RULE = "RULE-PROJECT-ALWAYS: use pnpm, not npm."
USER_RULE = "RULE-USER-ALWAYS: answer in British English."
API_RULE = "RULE-PROJECT-API: validate every request body."
USER_API_RULE = "RULE-USER-API: log the request id."
SCOPED = '---\npaths:\n  - "src/api/**"\n---\n'
# What `self-improve review` writes into an instruction file (review/block_grammar.py).
MANAGED_BLOCK = (
    "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) sha:d38661c2 -->\n"
    "- RULE-MANAGED: run the tests with `make test`. <!-- LRN-20261129-a7b -->\n"
    "<!-- self-improve:end -->\n"
)
INSTRUCTIONS_HEADER = "Codebase and user instructions are shown below."
NUDGE = "self-improve: 2 lessons ready, run /self-improve:review"
PROMPT_NOTICE = "self-improve: 1 correction queued"


@pytest.fixture
def mock_anthropic() -> Iterator[MockAnthropicCalls]:
    """Overrides conftest's: the ``claude`` fixture then talks to a mock that can call any tool."""
    with MockAnthropicCalls() as mock:
        yield mock


@pytest.fixture
def project(tmp_path: Path, claude_home: Path) -> Path:
    """A project with one unscoped and one ``src/api/**`` rule, and the same two in the user's HOME."""
    root = tmp_path / "project"
    (root / ".claude" / "rules").mkdir(parents=True)
    (root / "src" / "api").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "src" / "api" / "x.py").write_text("print('api')\n")
    (root / "docs" / "guide.md").write_text("# Guide\n")
    (root / ".claude" / "rules" / "always.md").write_text(PROJECT_RULE + "\n")
    (root / ".claude" / "rules" / "api.md").write_text(SCOPED + API_RULE + "\n")
    (root / ".claude" / "rules" / "self-improve.md").write_text(MANAGED_BLOCK)
    user_rules = claude_home / ".claude" / "rules"
    user_rules.mkdir(parents=True)
    (user_rules / "mine.md").write_text(USER_RULE + "\n")
    (user_rules / "user-api.md").write_text(SCOPED + USER_API_RULE + "\n")
    return root


def message_blocks(request: LoggedRequest) -> list[tuple[int, str, dict]]:
    """(message index, role, block) for every content block of the request's messages."""
    out = []
    for index, message in enumerate(request.body.get("messages") or []):
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        out.extend((index, message.get("role", ""), block) for block in blocks if isinstance(block, dict))
    return out


def system_text(request: LoggedRequest) -> str:
    system = request.body.get("system")
    if isinstance(system, str):
        return system
    return "\n".join(block.get("text", "") for block in system or [] if isinstance(block, dict))


def texts_after_last_result(request: LoggedRequest) -> list[str]:
    """The text blocks of the message that carries the request's last ``tool_result``, after it."""
    blocks = message_blocks(request)
    last = max(i for i, (_, _, block) in enumerate(blocks) if block.get("type") == "tool_result")
    index = blocks[last][0]
    return [block.get("text", "") for i, (m, _, block) in enumerate(blocks)
            if i > last and m == index and block.get("type") == "text"]


def rule_block(path: Path, text: str) -> str:
    """How the client injects a path-scoped rule once a matching file was touched."""
    return f"<system-reminder>\nContents of {path}:\n\n{text}\n\n</system-reminder>"


def run_calls(claude: RunTurn[ClaudeRun], mock: MockAnthropicCalls, project: Path, *calls: ToolCall,
              allow: str = "Bash") -> tuple[ClaudeRun, list[LoggedRequest]]:
    mock.calls = list(calls)
    run = claude(project, "look at the api", extra_args=["--allowedTools", allow])
    return run, turn_requests(run, mock)


# --- 1. rules without paths: in the first request ---------------------------------------------


def test_unscoped_rules_of_project_and_user_reach_the_first_request(
    project: Path, claude_home: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """The client put both unscoped rules (user's first) into the first user message's first
    system-reminder, labelled by scope, our managed block without its marker lines (the inline
    ``<!-- ID -->`` after a bullet is kept); the
    ``system`` field holds none of them, and the scoped rules are not there yet."""
    run, (first,) = run_calls(claude, mock_anthropic, project)
    context = json.dumps(first.body, ensure_ascii=False)
    assert PROJECT_RULE not in system_text(first) and USER_RULE not in system_text(first), why(run, mock_anthropic)
    index, role, block = message_blocks(first)[0]
    assert (index, role) == (0, "user"), why(run, mock_anthropic)
    reminder = block["text"]
    user_label = f"Contents of {claude_home / '.claude' / 'rules' / 'mine.md'} (user's private global instructions for all projects):"
    project_label = f"Contents of {project / '.claude' / 'rules' / 'always.md'} (project instructions, checked into the codebase):"
    assert reminder.startswith(f"<system-reminder>\n{INSTRUCTIONS_HEADER}"), reminder
    assert f"{user_label}\n\n{USER_RULE}\n" in reminder, reminder
    assert f"{project_label}\n\n{PROJECT_RULE}\n" in reminder, reminder
    assert reminder.index(user_label) < reminder.index(project_label), reminder
    managed = f"Contents of {project / '.claude' / 'rules' / 'self-improve.md'} (project instructions, checked into the codebase):"
    # the marker lines (comments on lines of their own) are dropped; the id comment after a bullet stays
    assert reminder.endswith(f"{managed}\n\n- RULE-MANAGED: run the tests with `make test`. <!-- LRN-20261129-a7b -->\n"
                             "</system-reminder>"), reminder
    assert "self-improve:begin" not in context and "self-improve:end" not in context, reminder
    assert API_RULE not in context and USER_API_RULE not in context, why(run, mock_anthropic)


# --- 2. rules with paths: only once a matching file was touched --------------------------------


def test_scoped_rules_load_after_reading_a_matching_file(
    project: Path, claude_home: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """Absent from the first request; after ``Read src/api/x.py`` the next request carries the user's
    and the project's ``src/api/**`` rules as two system-reminders right after the tool_result."""
    target = project / "src" / "api" / "x.py"
    run, (first, second) = run_calls(claude, mock_anthropic, project, ToolCall("Read", {"file_path": str(target)}))
    assert API_RULE not in first.text and USER_API_RULE not in first.text, why(run, mock_anthropic)
    assert "print('api')" in json.dumps(tool_results(second)), why(run, mock_anthropic)
    assert texts_after_last_result(second) == [
        rule_block(claude_home / ".claude" / "rules" / "user-api.md", USER_API_RULE) + "\n",
        rule_block(project / ".claude" / "rules" / "api.md", API_RULE),
    ], why(run, mock_anthropic)
    assert "paths:" not in second.text, why(run, mock_anthropic)  # the frontmatter is stripped


def test_scoped_rule_loads_once_per_session(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """Reading a second matching file adds nothing: the rules are in the conversation once."""
    read = ToolCall("Read", {"file_path": str(project / "src" / "api" / "x.py")})
    (project / "src" / "api" / "y.py").write_text("print('y')\n")
    again = ToolCall("Read", {"file_path": str(project / "src" / "api" / "y.py")})
    run, (_, _, third) = run_calls(claude, mock_anthropic, project, read, again)
    assert third.text.count(API_RULE) == 1 and third.text.count(USER_API_RULE) == 1, why(run, mock_anthropic)
    assert texts_after_last_result(third) == [], why(run, mock_anthropic)


@pytest.mark.parametrize(
    ("call", "allow"),
    [
        (ToolCall("Read", {"file_path": "docs/guide.md"}), "Bash"),
        (ToolCall("Bash", {"command": "python3 src/api/x.py", "description": "run"}), "Bash"),
        (ToolCall("Bash", {"command": "ls src/api", "description": "run"}), "Bash"),
    ],
    ids=["read-other-file", "bash-runs-the-file", "bash-lists-the-dir"],
)
def test_scoped_rules_stay_out_without_a_matching_file(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls, call: ToolCall, allow: str
) -> None:
    """Reading ``docs/guide.md``, or Bash commands that run or list ``src/api`` without reading a file
    there, load no scoped rule (the unscoped ones are there, so the turn did see rules)."""
    if "file_path" in call.input:
        call = ToolCall(call.name, {"file_path": str(project / call.input["file_path"])})
    run, (_, second) = run_calls(claude, mock_anthropic, project, call, allow=allow)
    assert PROJECT_RULE in second.text, why(run, mock_anthropic)
    assert API_RULE not in second.text and USER_API_RULE not in second.text, why(run, mock_anthropic)


@pytest.mark.parametrize(
    ("call", "allow"),
    [
        (ToolCall("Write", {"file_path": "src/api/new.py", "content": "x = 1\n"}), "Write"),
        (ToolCall("Bash", {"command": "cat src/api/x.py", "description": "run"}), "Bash"),
    ],
    ids=["write", "bash-cat"],
)
def test_scoped_rules_load_after_writing_or_catting_a_matching_file(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls, call: ToolCall, allow: str
) -> None:
    """Writing a new ``src/api/new.py``, or ``cat src/api/x.py`` in Bash, loads the scoped rules too."""
    if "file_path" in call.input:
        call = ToolCall(call.name, dict(call.input, file_path=str(project / call.input["file_path"])))
    run, (first, second) = run_calls(claude, mock_anthropic, project, call, allow=allow)
    assert API_RULE not in first.text, why(run, mock_anthropic)
    assert rule_block(project / ".claude" / "rules" / "api.md", API_RULE) in texts_after_last_result(second), why(
        run, mock_anthropic
    )


# --- 3. a hook's systemMessage: accepted, shown to the user, never sent to the model -----------


def message_hooks(tmp_path: Path, project: Path) -> None:
    """SessionStart and UserPromptSubmit hooks that answer only ``{"systemMessage": ...}``."""
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    settings: dict[str, list[dict]] = {}
    for event, text in (("SessionStart", NUDGE), ("UserPromptSubmit", PROMPT_NOTICE)):
        script = hooks / event
        script.write_text(f"#!/bin/sh\ncat >/dev/null\necho '{json.dumps({'systemMessage': text})}'\n")
        script.chmod(0o755)
        settings[event] = [{"hooks": [{"type": "command", "command": str(script)}]}]
    (project / ".claude").mkdir(exist_ok=True)
    (project / ".claude" / "settings.json").write_text(json.dumps({"hooks": settings}, indent=2) + "\n")


def test_system_message_is_accepted_and_costs_no_tokens(
    tmp_path: Path, project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """``-p`` text mode: both messages validated (debug log), neither printed nor in any request."""
    message_hooks(tmp_path, project)
    debug = tmp_path / "claude-debug.log"
    run = claude(project, "look at the api", extra_args=["--debug-file", str(debug)])
    turn_requests(run, mock_anthropic)
    log = debug.read_text()
    for event, label in (("SessionStart", "SessionStart:startup"), ("UserPromptSubmit", "UserPromptSubmit")):
        assert re.search(rf"Hooks: {label} \[\S+/{event}\] finished with status 0", log), log[-3000:]
    assert log.count("Successfully parsed and validated hook JSON output") == 2, log[-3000:]
    assert (run.stdout, run.stderr) == ("Done.\n", ""), why(run, mock_anthropic)
    for request in mock_anthropic.requests:
        assert NUDGE not in request.raw_body.decode(errors="replace"), why(run, mock_anthropic)
        assert PROMPT_NOTICE not in request.raw_body.decode(errors="replace"), why(run, mock_anthropic)


def test_system_message_in_stream_json_events(
    tmp_path: Path, project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """stream-json: UserPromptSubmit's becomes an ``informational`` notice; SessionStart's shows up
    only as the raw stdout of its ``hook_response`` event (no notice of its own)."""
    message_hooks(tmp_path, project)
    run = claude(project, "look at the api", extra_args=["--output-format", "stream-json", "--verbose"])
    turn_requests(run, mock_anthropic)
    events = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    notices = [(e["content"], e["level"]) for e in events if e.get("subtype") == "informational"]
    assert notices == [(f"UserPromptSubmit says: {PROMPT_NOTICE}", "notice")], why(run, mock_anthropic)
    responses = [e for e in events if e.get("subtype") == "hook_response"]
    assert [(e["hook_event"], e["outcome"], json.loads(e["stdout"])) for e in responses] == [
        ("SessionStart", "success", {"systemMessage": NUDGE})
    ], why(run, mock_anthropic)
    assert not any(NUDGE in r.raw_body.decode(errors="replace") for r in mock_anthropic.requests)


def screen_text(raw: bytes) -> str:
    """The TUI's output as plain text: cursor moves to a column (it draws each word at its own
    column, ``ESC[<n>G`` / ``ESC[<n>C``) become one space, other escapes go."""
    text = raw.decode(errors="replace")
    text = re.sub(r"\x1b\[\d*[CG]", " ", text)
    text = re.sub(r"\x1b\][^\x07]*\x07|\x1b\[[0-9;?>=]*[a-zA-Z]|\x1b[78]", "", text)
    return re.sub(r"[ \t]*\r*\n|\r", "\n", text)


def test_session_start_system_message_shows_in_the_tui_before_any_request(
    tmp_path: Path, project: Path, claude_install: ClaudeInstall, claude_home: Path,
    mock_anthropic: MockAnthropicCalls, e2e_timings: Timings,
) -> None:
    """Interactive ``claude`` on a pty: under the prompt box, ``SessionStart:startup says: <text>``,
    while the mock has received no model request at all (the user has typed nothing)."""
    message_hooks(tmp_path, project)
    prepare_home(claude_home, project)
    config = json.loads((claude_home / ".claude.json").read_text())
    config["customApiKeyResponses"] = {"approved": ["dummy"], "rejected": []}  # else it asks about the key
    (claude_home / ".claude.json").write_text(json.dumps(config))
    env = dict(claude_env(claude_home, mock_anthropic.url), TERM="xterm-256color", COLUMNS="200", LINES="50")
    started = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:  # the child: the client's TUI on the pty
        try:
            os.chdir(project)
            os.execve(str(claude_install.binary), [str(claude_install.binary)], env)
        finally:
            os._exit(127)  # never return into pytest
    raw = b""
    try:
        while time.monotonic() - started < 30 and "/self-improve:review" not in screen_text(raw).replace("\n", " "):
            ready, _, _ = select.select([fd], [], [], 0.5)
            if ready:
                try:
                    raw += os.read(fd, 65536)
                except OSError:
                    break
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)
    e2e_timings.add(CLAUDE, "interactive TUI start(s)", time.monotonic() - started)
    screen = re.sub(r"\s+", " ", screen_text(raw))
    assert f"SessionStart:startup says: {NUDGE}" in screen, screen[-3000:]
    assert [r for r in mock_anthropic.requests if r.is_messages] == [], mock_anthropic.describe()


def test_project_rules_load_from_a_subdirectory_like_claude_md(
    project: Path, claude: RunTurn[ClaudeRun], mock_anthropic: MockAnthropicCalls
) -> None:
    """Started in ``project/src``, the client still loads ``project/.claude/rules/*.md`` (it walks up
    like it does for CLAUDE.md), and CLAUDE.md gets the same comment handling as a rules file."""
    (project / "CLAUDE.md").write_text("# Project\n\n" + MANAGED_BLOCK)
    run = claude(project / "src", "look at the api")
    (first,) = turn_requests(run, mock_anthropic)
    reminder = message_blocks(first)[0][2]["text"]
    label = "(project instructions, checked into the codebase):"
    assert f"Contents of {project / 'CLAUDE.md'} {label}\n\n# Project\n\n- RULE-MANAGED: run the tests with `make test`. " \
           "<!-- LRN-20261129-a7b -->\n" in reminder, reminder
    assert f"Contents of {project / '.claude' / 'rules' / 'always.md'} {label}\n\n{PROJECT_RULE}\n" in reminder, reminder
