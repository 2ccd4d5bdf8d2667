"""OpenClaw adapter: transcript rows in, :class:`ToolResult` out, plus where OpenClaw keeps things.

OpenClaw (2026.9.6) has no shell hook we can use without shipping JavaScript, so we read its
transcripts instead.  They live in SQLite, one database per agent:
``$OPENCLAW_STATE_DIR/agents/<agentId>/agent/openclaw-agent.sqlite``, table
``transcript_events(session_id, seq, event_json, created_at, event_zstd, ...)``.

Each ``event_json`` is a *transcript event*; messages are wrapped::

    {"type": "session", "id": ..., "cwd": "/work/dir", ...}                 # seq 0
    {"type": "message", "message": {"role": "assistant", "content": [
        {"type": "toolCall", "id": "call_1", "name": "exec", "arguments": {"command": "ls /x"}}]}}
    {"type": "message", "message": {"role": "toolResult", "toolCallId": "call_1",
        "toolName": "exec", "isError": false,
        "content": [{"type": "text", "text": "ls: ...\\n\\n(Command exited with code 2)"}],
        "details": {"exitCode": 2, "aggregated": "...", "cwd": "/work/dir", ...}}}

Quirks this module absorbs (all verified on real transcripts):

* ``isError`` is ``false`` for a failing command: the exit code is in ``details.exitCode``,
  and in a ``(Command exited with code N)`` suffix that OpenClaw appends to the text.
* The command is not repeated in the result; it is joined from the ``toolCall`` with the same
  id, which sits in an earlier row of the same session (possibly read in an earlier pass).

Nothing outside ``self_improve/harnesses/`` knows these field names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from self_improve.events import ToolResult, clean_text

NAME = "openclaw"
LABEL = "OpenClaw"
# The shell tool's name in OpenClaw; results of other tools (read, write, web...) are ignored.
SHELL_TOOLS: frozenset[str] = frozenset({"exec"})
AGENT_DB_GLOB = "agents/*/agent/openclaw-agent.sqlite"

# OpenClaw appends this after a blank line; anchored at the end so a command printing the same
# words mid-output is left alone.
_EXIT_SUFFIX = re.compile(r"(?:\n\n|\n|^)\(Command exited with code (-?\d+)\)\s*\Z")
# details.exitReason values that mean the command did not run to its own end.
_INTERRUPT_REASONS: frozenset[str] = frozenset({"signal", "timeout", "aborted", "killed", "cancelled"})

JsonObject = Mapping[str, Any]


# -- where things are ------------------------------------------------------------------------


def state_dir(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """OpenClaw's state dir: ``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``."""
    env = os.environ if env is None else env
    configured = env.get("OPENCLAW_STATE_DIR")
    return Path(configured).expanduser() if configured else (home or Path.home()) / ".openclaw"


def default_workspace(env: Mapping[str, str] | None = None, home: Path | None = None) -> Path:
    """The agent workspace (AGENTS.md, skills/): ``$OPENCLAW_WORKSPACE_DIR``, else ``~/.openclaw/workspace``."""
    env = os.environ if env is None else env
    configured = env.get("OPENCLAW_WORKSPACE_DIR")
    return Path(configured).expanduser() if configured else (home or Path.home()) / ".openclaw" / "workspace"


# openclaw 2026.9.6 (``dist/bash-tools.exec-runtime-*.mjs``, ``runExecProcess``) gives every
# ``exec`` child ``OPENCLAW_SHELL=exec``, verified on a real turn
# (tests/e2e/test_openclaw_agent_env.py); a sub-agent's also get ``OPENCLAW_SUBAGENT_EXEC=1``
# (from the source; OpenClaw's own gateway CLI refuses some calls on these two). Its children
# also carry ``OPENCLAW_CLI=1``, which it sets on everything it spawns, not only ``exec``.
# ``OPENCLAW_STATE_DIR`` and friends are no sign: users export them in their own shell.
AGENT_ENV = ("OPENCLAW_SHELL", "OPENCLAW_SUBAGENT_EXEC")


def agent_session(environ: Mapping[str, str]) -> bool:
    """Whether this process runs under OpenClaw's ``exec`` tool."""
    return environ.get("OPENCLAW_SHELL", "").strip() == "exec" or environ.get("OPENCLAW_SUBAGENT_EXEC", "").strip() == "1"


def agents_dir(state: Path) -> Path:
    return state / "agents"


def transcript_databases(state: Path) -> list[Path]:
    """Every agent's transcript database under ``state``, sorted; missing dirs give ``[]``."""
    return sorted(path for path in state.glob(AGENT_DB_GLOB) if path.is_file())


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShellCall:
    """An ``exec`` tool call, kept until its result arrives."""

    call_id: str
    command: str


def message_of(event: JsonObject) -> JsonObject | None:
    """The message inside a transcript event (``{"type":"message","message":{...}}``).

    A bare message (an object with ``role``) is accepted too, in case a later version stops
    wrapping; anything else (session headers, model changes, custom events) gives ``None``.
    """
    if event.get("type") == "message":
        inner = event.get("message")
        return inner if isinstance(inner, Mapping) else None
    return event if isinstance(event.get("role"), str) else None


def session_cwd(event: JsonObject) -> str | None:
    """The working dir a session started in (its ``{"type":"session"}`` header), if this is one."""
    if event.get("type") == "session" and isinstance(event.get("cwd"), str):
        return str(event["cwd"])
    return None


def shell_calls(event: JsonObject) -> list[ShellCall]:
    """The ``exec`` calls an assistant message makes (often one, possibly several)."""
    message = message_of(event)
    if message is None or message.get("role") != "assistant":
        return []
    content = message.get("content")
    if not isinstance(content, list):
        return []
    return [call for part in content if (call := _shell_call(part)) is not None]


def _shell_call(part: Any) -> ShellCall | None:
    if not isinstance(part, Mapping) or part.get("type") != "toolCall":
        return None
    if part.get("name") not in SHELL_TOOLS or not isinstance(part.get("id"), str):
        return None
    arguments = part.get("arguments")
    command = arguments.get("command") if isinstance(arguments, Mapping) else None
    return ShellCall(call_id=part["id"], command=command if isinstance(command, str) else "")


def shell_result_call_id(event: JsonObject) -> str | None:
    """The ``toolCallId`` if this event is the result of a shell tool, else ``None``."""
    message = message_of(event)
    if message is None or message.get("role") != "toolResult":
        return None
    if message.get("toolName") not in SHELL_TOOLS:
        return None
    call_id = message.get("toolCallId")
    return call_id if isinstance(call_id, str) else ""


def tool_result(
    event: JsonObject,
    session: str,
    commands: Mapping[str, str],
    fallback_cwd: str = "",
) -> ToolResult | None:
    """Turn one ``toolResult`` event of the shell tool into a :class:`ToolResult`.

    ``commands`` maps tool-call ids to their command (see :func:`shell_calls`); an unknown id
    gives an empty command rather than dropping the result, because the output alone is
    still worth detecting.  ``fallback_cwd`` (the session header's cwd) is used when
    ``details.cwd`` is missing.
    """
    call_id = shell_result_call_id(event)
    if call_id is None:
        return None
    message = message_of(event) or {}
    details = message.get("details")
    details = details if isinstance(details, Mapping) else {}
    raw_text = _content_text(message.get("content"))
    if not raw_text and isinstance(details.get("aggregated"), str):
        raw_text = details["aggregated"]
    output, suffix_code = split_exit_suffix(raw_text)
    cwd = details.get("cwd")
    return ToolResult(
        command=clean_text(commands.get(call_id, "")),
        output=clean_text(output),
        exit_code=_exit_code(details, suffix_code),
        session=clean_text(session),
        cwd=clean_text(cwd) if isinstance(cwd, str) and cwd else clean_text(fallback_cwd),
        interrupted=_interrupted(details),
    )


def split_exit_suffix(text: str) -> tuple[str, int | None]:
    """``"out\\n\\n(Command exited with code 2)"`` -> ``("out", 2)``; no suffix -> ``(text, None)``."""
    match = _EXIT_SUFFIX.search(text)
    if match is None:
        return text, None
    return text[: match.start()], int(match.group(1))


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, Iterable):
        return ""
    texts = [
        part["text"]
        for part in content
        if isinstance(part, Mapping) and part.get("type") == "text" and isinstance(part.get("text"), str)
    ]
    return "\n".join(texts)


def _exit_code(details: JsonObject, suffix_code: int | None) -> int | None:
    # bool is an int subclass; a stray true/false is not an exit code.
    code = details.get("exitCode")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    return suffix_code


def _interrupted(details: JsonObject) -> bool:
    reason = details.get("exitReason")
    return bool(details.get("exitSignal")) or (isinstance(reason, str) and reason in _INTERRUPT_REASONS)
