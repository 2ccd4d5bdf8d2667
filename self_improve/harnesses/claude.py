"""Claude Code: hook payloads in, hook output out.

Field names verified on Claude Code 2.1.328 (see shared/claude-code/README.md):
- ``PostToolUse`` fires only when a Bash command exits 0; ``tool_response.stdout`` holds stdout and
  stderr merged, and there is no exit code field.
- ``PostToolUseFailure`` fires when it exits non-zero; ``error`` is ``"Exit code N\\n" + output``.
- ``UserPromptSubmit`` carries ``prompt``.
- Post-tool stdout reaches the model only as ``hookSpecificOutput.additionalContext`` JSON.
"""

from __future__ import annotations

import json
import re
from typing import Any

from self_improve.harnesses.base import Prompt, ToolResult

NAME = "claude"
POST_TOOL_EVENTS = ("PostToolUse", "PostToolUseFailure")
PROMPT_EVENT = "UserPromptSubmit"
SHELL_TOOLS = ("Bash",)
# Claude Code caps injected text at 10,000 characters; we stay far below it anyway.
MAX_CONTEXT_CHARS = 10_000

_EXIT_PREFIX = re.compile(r"\AExit code (-?\d+)\r?\n?")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def parse_tool_result(payload: dict[str, Any]) -> ToolResult | None:
    """A Bash result from a post-tool payload, or None for anything else."""
    event = payload.get("hook_event_name")
    if event not in POST_TOOL_EVENTS or payload.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    command = _text(tool_input.get("command")) if isinstance(tool_input, dict) else ""
    session = _text(payload.get("session_id"))
    cwd = _text(payload.get("cwd"))
    if event == "PostToolUse":
        response = payload.get("tool_response")
        if not isinstance(response, dict):
            response = {}
        output = _text(response.get("stdout"))
        stderr = _text(response.get("stderr"))
        if stderr:
            output = f"{output}\n{stderr}" if output else stderr
        return ToolResult(
            command=command,
            output=output,
            exit_code=0,
            session=session,
            cwd=cwd,
            interrupted=response.get("interrupted") is True,
        )
    error = _text(payload.get("error"))
    match = _EXIT_PREFIX.match(error)
    # A failure without the "Exit code N" prefix (a timeout, a denied call) still failed.
    exit_code = int(match.group(1)) if match else None
    output = error[match.end() :] if match else error
    return ToolResult(
        command=command,
        output=output,
        exit_code=exit_code,
        session=session,
        cwd=cwd,
        interrupted=payload.get("is_interrupt") is True,
    )


def parse_prompt(payload: dict[str, Any]) -> Prompt | None:
    if payload.get("hook_event_name") != PROMPT_EVENT:
        return None
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return None
    return Prompt(text=prompt, session=_text(payload.get("session_id")), cwd=_text(payload.get("cwd")))


def format_context(event: str, text: str) -> str:
    """What the hook prints so that ``text`` reaches the model after ``event``."""
    body = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text[:MAX_CONTEXT_CHARS]}}
    return json.dumps(body, ensure_ascii=False)
