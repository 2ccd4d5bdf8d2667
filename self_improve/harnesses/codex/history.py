"""Codex's past sessions, read back from its rollout files for ``self-improve scan``.

Where: ``$CODEX_HOME/sessions`` (else ``~/.codex/sessions``), ``YYYY/MM/DD/rollout-<local
time>-<thread id>.jsonl``, one file per session (thread), one JSON object per line:
``{"timestamp": ISO 8601 UTC with milliseconds and a Z, "ordinal": n, "type": ..., "payload": {...}}``.
A resumed session (``codex exec resume <id>``) appends its turns to its own file, under the same
thread id and without a second ``session_meta`` (verified): a re-scan reads just those lines.

What a shell call looks like (verified on codex-cli 0.171.0, ``codex exec`` against a loopback
mock, ``tests/data/codex_rollouts``):

- the first line, ``session_meta``: ``payload.id`` (= ``payload.session_id``) is the thread id,
  ``payload.cwd`` the session's directory; each turn's ``turn_context`` has ``payload.cwd`` too;
- the model's call, a ``response_item`` whose payload is ``{"type": "function_call", "name":
  "exec_command", "arguments": "{\\"cmd\\": \\"python3 app.py\\"}", "call_id"}``;
- the result, an ``event_msg`` ``{"type": "item_completed", "thread_id", "item": {"type":
  "CommandExecution", "id": <call_id>, "command": ["/bin/bash", "-lc", <cmd>], "cwd":
  "file:///<dir>", "status": "completed" | "failed", "aggregated_output", "exit_code"}}``, then
  the ``function_call_output`` the model was shown: ``"Chunk ID: ..\\nWall time: ..\\nProcess
  exited with code N\\nOriginal token count: N\\nOutput:\\n<output>"``;
- a prompt the user typed: an ``item_completed`` event whose item is ``{"type": "UserMessage",
  "content": [{"type": "text", "text"}]}`` (the ``environment_context`` and hook messages Codex
  adds are ``response_item`` messages, never ``UserMessage`` items).

What the live hooks see (a PostToolUse payload, verified side by side): ``session_id`` is the
thread id, ``tool_input.command`` the call's ``cmd``, ``tool_response`` exactly the item's
``aggregated_output``, ``tool_use_id`` the ``call_id``. So a scanned result is the hooks' own,
the session id included (what keeps live and scanned sessions apart: ``commands/scan.py``).
One difference, on purpose: the hooks get no exit code from Codex, the rollout has it, and the
scan uses it (the detector then judges the command as it judges Claude Code's).

A result is taken from its ``CommandExecution`` item; should a rollout have none for a call (a
version that does not persist them), from the ``function_call_output``'s exit-code header, the
session and cwd then coming from the file's ``session_meta``/``turn_context`` (kept in the
pending ``calls`` across scans under ``:session``/``:cwd``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping

from self_improve.events import Prompt, ToolResult, clean_text
from self_improve.harnesses.history import MAX_PENDING_CALLS, Event, JsonlReader, jsonl_files, parse_time

# Substrings a line must contain to be worth parsing.
_WANTED = (b'"function_call', b'"CommandExecution"', b'"UserMessage"', b'"session_meta"', b'"turn_context"')
SHELL_TOOLS = ("exec_command", "shell_command", "shell")  # the model-facing names of Codex's shell tool
FINISHED = ("completed", "failed")  # a CommandExecution's status once it ran to its end
SESSION_KEY, CWD_KEY = ":session", ":cwd"  # the file's context, kept among the pending calls
_EXIT_HEADER = "Process exited with code "
_OUTPUT_HEADER = "\nOutput:\n"

__all__ = ["Event", "TranscriptReader", "history_dir", "transcripts"]


def history_dir(environ: dict[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    home = env.get("CODEX_HOME", "")
    base = home if home and os.path.isabs(home) else os.path.join(os.path.expanduser("~"), ".codex")
    return os.path.join(base, "sessions")


def transcripts(folder: str) -> list[str]:
    """Every ``rollout-*.jsonl`` below ``folder``, sorted (regular files only, links not followed)."""
    return jsonl_files(folder, "rollout-")


def session_count(folder: str) -> int:
    """How many sessions ``folder`` holds: one rollout file each (a resume appends to it)."""
    return len(transcripts(folder))


def file_url_path(text: object) -> str:
    """``file:///tmp/x%20y`` -> ``/tmp/x y``; a plain absolute path as it is; else ""."""
    if not isinstance(text, str):
        return ""
    if text.startswith("file://"):
        from urllib.parse import unquote, urlsplit

        parts = urlsplit(text)
        return clean_text(unquote(parts.path)) if parts.netloc in ("", "localhost") else ""
    return clean_text(text) if os.path.isabs(text) else ""


def call_command(payload: Mapping[str, object]) -> str | None:
    """The command line of a shell ``function_call`` (what the hooks get as ``tool_input.command``)."""
    if payload.get("name") not in SHELL_TOOLS:
        return None
    try:
        arguments = json.loads(str(payload.get("arguments") or ""))
    except ValueError:
        return None
    if not isinstance(arguments, dict):
        return None
    command = arguments.get("cmd", arguments.get("command"))
    if isinstance(command, list):
        return argv_command(command)
    return clean_text(command) if isinstance(command, str) else None


def argv_command(argv: list[object]) -> str:
    """``["/bin/bash", "-lc", CMD]`` -> CMD (how Codex runs a command line); else the words joined."""
    words = [clean_text(word) for word in argv if isinstance(word, str)]
    if len(words) == 3 and words[1] in ("-lc", "-c"):
        return words[2]
    return " ".join(words)


def split_output(text: str) -> tuple[int | None, str]:
    """A ``function_call_output`` of the shell tool -> (its exit code, the command's output)."""
    head, found, body = text.partition(_OUTPUT_HEADER)
    if not found:
        return None, text
    code = None
    for line in head.splitlines():
        if line.startswith(_EXIT_HEADER) and line[len(_EXIT_HEADER):].strip().lstrip("-").isdigit():
            code = int(line[len(_EXIT_HEADER):].strip())
    return code, body


class TranscriptReader(JsonlReader):
    """The events of one Codex rollout (``history.JsonlReader``: offsets, ``position``, ``stop``);
    ``calls`` also keeps the file's session and cwd (``SESSION_KEY``, ``CWD_KEY``)."""

    WANTED = _WANTED

    def events_of(self, line: dict[str, object], end: int) -> Iterator[Event]:
        payload = line.get("payload")
        return self._events_of(line, payload, end) if isinstance(payload, dict) else iter(())

    def _events_of(self, line: dict[str, object], payload: dict[str, object], end: int) -> Iterator[Event]:
        kind, calls = line.get("type"), self.calls
        if kind in ("session_meta", "turn_context"):
            if kind == "session_meta" and isinstance(payload.get("id"), str):
                calls[SESSION_KEY] = clean_text(payload["id"])
            cwd = file_url_path(payload.get("cwd"))
            if cwd:
                calls[CWD_KEY] = cwd
            return
        when = parse_time(line.get("timestamp"))
        if kind == "response_item" and payload.get("type") == "function_call":
            command, call_id = call_command(payload), payload.get("call_id")
            if command is not None and isinstance(call_id, str) and call_id and not call_id.startswith(":"):
                calls[call_id] = command
                while len(calls) > MAX_PENDING_CALLS:
                    del calls[next(key for key in calls if not key.startswith(":"))]
        elif kind == "response_item" and payload.get("type") == "function_call_output":
            call_id = payload.get("call_id")
            if when is not None and isinstance(call_id, str) and call_id in calls and not call_id.startswith(":"):
                code, output = split_output(clean_text(payload.get("output")))  # no CommandExecution for it
                result = ToolResult(calls.pop(call_id), output, code, calls.get(SESSION_KEY, ""), calls.get(CWD_KEY, ""))
                yield Event(when, end, result=result, call_id=call_id)
        elif kind == "event_msg" and payload.get("type") == "item_completed" and when is not None:
            event = self._item(payload, when, end)
            if event is not None:
                yield event

    def _item(self, payload: dict[str, object], when: float, end: int) -> Event | None:
        item = payload.get("item")
        if not isinstance(item, dict):
            return None
        session = clean_text(payload.get("thread_id")) or self.calls.get(SESSION_KEY, "")
        if item.get("type") == "UserMessage":
            content = item.get("content")
            text = "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict)
                             and part.get("type") == "text") if isinstance(content, list) else ""
            text = text.strip()
            return Event(when, end, prompt=Prompt(clean_text(text), session, self.calls.get(CWD_KEY, ""))) if text else None
        call_id = item.get("id")
        if item.get("type") != "CommandExecution" or item.get("status") not in FINISHED or not isinstance(call_id, str):
            return None
        command = self.calls.pop(call_id, None) if not call_id.startswith(":") else None
        if command is None:
            argv = item.get("command")
            command = argv_command(argv) if isinstance(argv, list) else clean_text(argv)
        code = item.get("exit_code")
        exit_code = code if isinstance(code, int) and not isinstance(code, bool) else None
        cwd = file_url_path(item.get("cwd")) or self.calls.get(CWD_KEY, "")
        result = ToolResult(command, clean_text(item.get("aggregated_output")), exit_code, session, cwd)
        return Event(when, end, result=result, call_id=call_id)
