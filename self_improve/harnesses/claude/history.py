"""Claude Code's past sessions, read back from its transcripts for ``self-improve scan``.

Where: ``$CLAUDE_CONFIG_DIR/projects`` (else ``~/.claude/projects``), one folder per project
slug, one ``<session>.jsonl`` per session, one JSON object per line (subagents' files below a
session's folder carry the parent's ``sessionId``). A resumed session (``--resume``,
``--continue``) appends to its own file with the same ``sessionId``.

What a Bash call looks like (verified on Claude Code 2.1.328, ``tests/data/claude_transcripts``):

- an ``assistant`` line whose ``message.content[]`` holds ``{"type": "tool_use", "id", "name":
  "Bash", "input": {"command", ...}}``;
- a later ``user`` line whose ``message.content[]`` holds ``{"type": "tool_result",
  "tool_use_id", "content", "is_error"}``, and beside it ``toolUseResult``: for a command that
  exited 0, ``{"stdout", "stderr", "interrupted", ...}`` (what ``PostToolUse`` carries as
  ``tool_response``); for a failure, the string ``"Error: Exit code N\\n<output>"`` while
  ``content`` is ``"Exit code N\\n<output>"``, the very text of ``PostToolUseFailure``'s
  ``error``. So the exit code is read as the hooks' adapter reads it (``split_exit_code``): a
  failure without that prefix (a timeout, a denied call) has no code.
- every such line has ``timestamp`` (ISO 8601, UTC, milliseconds), ``sessionId`` and ``cwd``.
- a prompt the user typed is a ``user`` line whose ``message.content`` is a string (or text
  blocks) and which is not ``isMeta``.

Fast: a line is parsed only when a cheap substring test says it may hold a ``tool_use`` or be a
``user`` line; most bytes of a transcript are attachments and request records that never are.
The reader yields plain :class:`~self_improve.events.ToolResult` and ``Prompt`` values, cleaned
as the hooks' adapter cleans a payload (``events.clean_text``): the rest of the pipeline is the
hooks' own.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from self_improve.events import Prompt, ToolResult, clean_text
from self_improve.harnesses.claude import SHELL_TOOLS, split_exit_code
from self_improve.harnesses.history import MAX_PENDING_CALLS, Event, JsonlReader, jsonl_files, parse_time

# Substrings a line must contain to be worth parsing (compact or spaced JSON alike).
_TOOL_USE = b'"tool_use"'
_USER = b'"user"'
# What Claude Code writes into the conversation as a "user" line that nobody typed.
_NOT_TYPED = ("<command-", "<local-command-", "<bash-", "<user-memory-input>", "[Request interrupted", "Caveat:")


def projects_dir(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    config = env.get("CLAUDE_CONFIG_DIR", "")
    base = config if config and os.path.isabs(config) else os.path.join(os.path.expanduser("~"), ".claude")
    return os.path.join(base, "projects")


def history_dir(environ: dict[str, str] | None = None) -> str:
    """Where ``scan`` looks (the interface every harness's ``history`` module has)."""
    return projects_dir(environ)


def transcripts(folder: str) -> list[str]:
    """Every ``*.jsonl`` below ``folder``, sorted (regular files only, links not followed)."""
    return jsonl_files(folder)


def session_count(folder: str) -> int:
    """How many sessions ``folder`` holds: the transcripts directly in a project's folder (a
    subagent's, one level further down, belongs to its parent's session)."""
    return sum(1 for path in transcripts(folder) if os.path.dirname(os.path.dirname(path)) == folder.rstrip(os.sep))


def _text_of(content: object) -> str:
    """A tool_result's or a prompt's ``content``: a string, or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(block.get("text", "")) for block in content
                         if isinstance(block, dict) and block.get("type") == "text")
    return ""


def _result(block: dict[str, object], line: dict[str, object], command: str) -> ToolResult:
    """The ``ToolResult`` the hooks' adapter builds from the matching post-tool payload."""
    session, cwd = clean_text(line.get("sessionId")), clean_text(line.get("cwd"))
    detail = line.get("toolUseResult")
    if block.get("is_error") is not True:
        if isinstance(detail, dict):  # PostToolUse's tool_response: stdout, then stderr
            output = clean_text(detail.get("stdout"))
            stderr = clean_text(detail.get("stderr"))
            if stderr:
                output = f"{output}\n{stderr}" if output else stderr
            return ToolResult(command, output, 0, session, cwd, interrupted=detail.get("interrupted") is True)
        return ToolResult(command, clean_text(_text_of(block.get("content"))), 0, session, cwd)
    exit_code, output = split_exit_code(clean_text(_text_of(block.get("content"))))
    interrupted = isinstance(detail, dict) and detail.get("interrupted") is True
    return ToolResult(command, output, exit_code, session, cwd, interrupted=interrupted)


def _prompt(line: dict[str, object], content: object) -> Prompt | None:
    if line.get("isMeta") is True or line.get("isSidechain") is True or "toolUseResult" in line:
        return None  # Claude Code's own words, or a subagent's task, not the user's
    text = _text_of(content).strip()
    if not text or text.startswith(_NOT_TYPED):
        return None
    return Prompt(clean_text(text), clean_text(line.get("sessionId")), clean_text(line.get("cwd")))


class TranscriptReader(JsonlReader):
    """The events of one Claude Code transcript (``history.JsonlReader``: offsets, ``calls``,
    ``position``, ``stop``)."""

    WANTED = (_TOOL_USE, _USER)

    def events_of(self, line: dict[str, object], end: int) -> Iterator[Event]:
        return _events_of(line, end, self.calls)


def _events_of(line: dict[str, object], end: int, calls: dict[str, str]) -> Iterator[Event]:
    kind = line.get("type")
    message = line.get("message")
    if kind not in ("assistant", "user") or not isinstance(message, dict):
        return
    content = message.get("content")
    if kind == "assistant":
        for block in content if isinstance(content, list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_use" and block.get("name") in SHELL_TOOLS:
                tool_input = block.get("input")
                command = clean_text(tool_input.get("command")) if isinstance(tool_input, dict) else ""
                call_id = block.get("id")
                if isinstance(call_id, str) and call_id:
                    calls[call_id] = command
                    while len(calls) > MAX_PENDING_CALLS:
                        del calls[next(iter(calls))]
        return
    when = parse_time(line.get("timestamp"))
    if when is None:
        return
    if not isinstance(content, list):
        prompt = _prompt(line, content)
        if prompt is not None:
            yield Event(when, end, prompt=prompt)
        return
    answered = False
    for block in content:
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        answered = True
        call_id = block.get("tool_use_id")
        if not isinstance(call_id, str) or call_id not in calls:
            continue  # not a Bash call's result (or its call was never seen)
        yield Event(when, end, result=_result(block, line, calls.pop(call_id)), call_id=call_id)
    if not answered:
        prompt = _prompt(line, content)
        if prompt is not None:
            yield Event(when, end, prompt=prompt)
