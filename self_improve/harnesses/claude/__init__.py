"""Claude Code: hook payloads in, hook output out.

Field names verified on Claude Code 2.1.328 (see shared/claude-code/README.md):
- ``PostToolUse`` fires only when a Bash command exits 0; ``tool_response.stdout`` holds stdout and
  stderr merged, and there is no exit code field.
- ``PostToolUseFailure`` fires when it exits non-zero; ``error`` is ``"Exit code N\\n" + output``.
- ``UserPromptSubmit`` carries ``prompt``.
- Post-tool stdout reaches the model only as ``hookSpecificOutput.additionalContext`` JSON.
- ``PreToolUse`` (matcher Bash) carries ``tool_name``, ``tool_input.command`` and ``tool_use_id``
  (no output, no exit code). Its ``additionalContext`` reaches the model, but only AFTER the
  command ran: as a ``role: "system"`` message right after the call's ``tool_result``,
  ``PreToolUse:Bash hook additional context: <text>``, sharing it with the PostToolUse[Failure]
  context of the same call (PreToolUse first). The command runs either way. A ``hookEventName``
  other than the event that fired is dropped (``hook_non_blocking_error``).
- ``Stop`` fires once at the end of ``claude -p`` (``last_assistant_message``, ``stop_hook_active``)
  and the client waits for it; ``SessionEnd`` fires after it (``reason``) and is cancelled about
  1.5 s into the shutdown. Neither is needed: post-bash keeps the evidence as it happens
  (``hooks/credit.py``).
"""

from __future__ import annotations

from self_improve.events import Prompt, ToolCall, ToolResult, clean_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

NAME = "claude"
LABEL = "Claude Code"
POST_TOOL_EVENTS = ("PostToolUse", "PostToolUseFailure")
PRE_TOOL_EVENT = "PreToolUse"
PROMPT_EVENT = "UserPromptSubmit"
SHELL_TOOLS = ("Bash",)
# Claude Code caps injected text at 10,000 characters; we stay far below it anyway.
MAX_CONTEXT_CHARS = 10_000

EXIT_PREFIX = "Exit code "


def matches(payload: dict[str, Any]) -> bool:
    """Whether ``payload`` has the shape of one of Claude Code's hook events we answer."""
    return payload.get("hook_event_name") in (*POST_TOOL_EVENTS, PRE_TOOL_EVENT, PROMPT_EVENT)


def tool_event(payload: dict[str, Any]) -> str:
    return str(payload.get("hook_event_name"))


def split_exit_code(error: str) -> tuple[int | None, str]:
    """``"Exit code N\\n<output>"`` -> (N, output); (None, error) without that prefix."""
    if not error.startswith(EXIT_PREFIX):
        return None, error
    head, newline, rest = error[len(EXIT_PREFIX) :].partition("\n")
    digits = head.rstrip("\r")
    if not (digits.lstrip("-").isdigit() and digits.isascii()):
        return None, error
    return int(digits), rest


def parse_tool_result(payload: dict[str, Any]) -> ToolResult | None:
    """A Bash result from a post-tool payload, or None for anything else."""
    event = payload.get("hook_event_name")
    if event not in POST_TOOL_EVENTS or payload.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    command = clean_text(tool_input.get("command")) if isinstance(tool_input, dict) else ""
    session = clean_text(payload.get("session_id"))
    cwd = clean_text(payload.get("cwd"))
    if event == "PostToolUse":
        response = payload.get("tool_response")
        if not isinstance(response, dict):
            response = {}
        output = clean_text(response.get("stdout"))
        stderr = clean_text(response.get("stderr"))
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
    # A failure without the "Exit code N" prefix (a timeout, a denied call) still failed.
    exit_code, output = split_exit_code(clean_text(payload.get("error")))
    return ToolResult(
        command=command,
        output=output,
        exit_code=exit_code,
        session=session,
        cwd=cwd,
        interrupted=payload.get("is_interrupt") is True,
    )


def parse_tool_call(payload: dict[str, Any]) -> ToolCall | None:
    """The Bash command a ``PreToolUse`` payload is about to run, or None for anything else."""
    if payload.get("hook_event_name") != PRE_TOOL_EVENT or payload.get("tool_name") not in SHELL_TOOLS:
        return None
    tool_input = payload.get("tool_input")
    command = clean_text(tool_input.get("command")) if isinstance(tool_input, dict) else ""
    if not command:
        return None
    return ToolCall(command=command, session=clean_text(payload.get("session_id")), cwd=clean_text(payload.get("cwd")))


def parse_prompt(payload: dict[str, Any]) -> Prompt | None:
    if payload.get("hook_event_name") != PROMPT_EVENT:
        return None
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        return None
    return Prompt(text=clean_text(prompt), session=clean_text(payload.get("session_id")), cwd=clean_text(payload.get("cwd")))


def format_context(event: str, text: str) -> str:
    """What the hook prints so that ``text`` reaches the model after ``event``.

    ``json.dumps({"hookSpecificOutput": {...}}, ensure_ascii=False)``, spelled out with the C
    string encoder behind it: ``json`` imports ``re`` (~5 ms of a hook that reports a failure)."""
    try:
        from _json import encode_basestring as quote
    except ImportError:  # an interpreter without the accelerator: json's own, the same text
        from json.encoder import encode_basestring as quote
    return (f'{{"hookSpecificOutput": {{"hookEventName": {quote(event)}, '
            f'"additionalContext": {quote(text[:MAX_CONTEXT_CHARS])}}}}}')


# Claude Code 2.1.328 sets, in the Bash tool's environment (verified on the real client):
# ``CLAUDECODE=1``, ``AI_AGENT=claude-code_<version>_agent``, ``CLAUDE_CODE_SESSION_ID`` and
# ``CLAUDE_CODE_ENTRYPOINT``. Any one of them is enough: a human's own terminal has none.
AGENT_ENV = ("CLAUDECODE", "AI_AGENT", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT")
# The one of them that names the session (``agent_env.agent_session_ids``).
SESSION_ENV = ("CLAUDE_CODE_SESSION_ID",)


def agent_session(environ: Mapping[str, str]) -> bool:
    """Whether this process runs inside a Claude Code session (its Bash tool, a hook)."""
    if environ.get("CLAUDECODE", "").strip():
        return True
    if environ.get("AI_AGENT", "").startswith("claude-code"):
        return True
    return any(environ.get(name, "").strip() for name in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT"))
