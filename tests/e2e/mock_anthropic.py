"""A loopback mock of the Anthropic Messages API, scripted for one-tool-call turns.

The real Claude Code client is pointed at it with ``ANTHROPIC_BASE_URL``. The script is
the one the harness contract README describes:

* ``POST /v1/messages`` whose conversation holds no ``tool_result`` yet, and which offers
  the ``Bash`` tool: answer with one ``tool_use`` block (``Bash``,
  ``{"command": <command>, "description": "run"}``), ``stop_reason: tool_use``.
* any other ``POST /v1/messages`` (after the tool ran, or a side request such as title
  generation or a quota probe that offers no tools): answer with one text block and
  ``end_turn``.
* several commands in sequence: set ``commands`` (a list) instead of ``command``. A main-loop
  request whose conversation holds N ``tool_result`` blocks is answered with a ``tool_use`` of
  ``commands[N]``, and with the text once the list is done (the README's scripted agent: a
  failure, a fix, a retry).
* streaming (``"stream": true``) is answered in SSE (``message_start``,
  ``content_block_start/delta/stop``, ``message_delta``, ``message_stop``); ``"stream":
  false`` gets a plain JSON Message.
* ``POST /v1/messages/count_tokens`` gets a token estimate, ``GET /v1/models`` a model list,
  ``HEAD`` and anything else a harmless empty ``200 {}``. Every request is logged.

Usage::

    with MockAnthropic(command='python3 -c "import nosuchmod"') as mock:
        run_claude(project, "run it", mock.url)
        first, second = mock.conversation_requests()[:2]
        assert "<error-detected>" in hook_context(second, "PostToolUseFailure")
        assert "nosuchmod" in seen_text(second)  # system prompt + messages + tool results

    with MockAnthropic(commands=["python3 app.py", "cp helpers.example.py helpers.py", "python3 app.py"]) as mock:
        run_claude(project, "run it", mock.url)
        assert [r.response_kind for r in mock.conversation_requests()] == list(mock.turn)  # 3 tool_use, 1 text
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, ClassVar

from tests.e2e import mock_server
from tests.e2e.mock_server import MockHandler, MockServer, clip

DEFAULT_FINAL_TEXT = "Done."


@dataclass
class LoggedRequest(mock_server.LoggedRequest):
    """One HTTP request as the mock received it; ``response_kind``: "tool_use", "text",
    "count_tokens", "models" or "other"."""

    @property
    def is_messages(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/") == "/v1/messages"

    @property
    def tool_names(self) -> list[str]:
        if not isinstance(self.body, dict):
            return []
        return [t.get("name", "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    @property
    def is_conversation(self) -> bool:
        """A main-loop request: a Messages call that offers the Bash tool."""
        return self.is_messages and "Bash" in self.tool_names

    @property
    def text(self) -> str:
        """Everything the model was shown in this request, as one searchable string."""
        return seen_text(self)

    @property
    def carries_tool_result(self) -> bool:
        return has_tool_result(self.body)


# --- what the model saw --------------------------------------------------------------


def _block_text(block: Any) -> list[str]:
    """Text carried by one content block (recursing into tool_result contents)."""
    if isinstance(block, str):
        return [block]
    if not isinstance(block, dict):
        return []
    kind = block.get("type")
    if kind == "text":
        return [str(block.get("text", ""))]
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, list):
            out: list[str] = []
            for sub in content:
                out.extend(_block_text(sub))
            return out
        return [str(content)] if content is not None else []
    if kind == "tool_use":
        return [json.dumps(block.get("input", {}), ensure_ascii=False)]
    if kind in ("thinking", "redacted_thinking"):
        return [str(block.get("thinking", ""))]
    return []


def _content_parts(content: Any) -> list[str]:
    """The texts of a system prompt or a message's content: one string, or a list of blocks."""
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [text for block in content for text in _block_text(block)]
    return []


def seen_parts(request: LoggedRequest | dict) -> list[str]:
    """Text pieces the model saw: system prompt blocks, then every message's text blocks
    (including ``<system-reminder>`` blocks and hook context) and tool_result contents."""
    body = request.body if isinstance(request, LoggedRequest) else request
    if not isinstance(body, dict):
        return []
    parts = _content_parts(body.get("system"))
    for message in body.get("messages") or []:
        if isinstance(message, dict):
            parts.extend(_content_parts(message.get("content")))
    return parts


def seen_text(request: LoggedRequest | dict) -> str:
    return "\n".join(seen_parts(request))


def message_text(request: LoggedRequest | dict) -> str:
    """Like :func:`seen_text` but without the system prompt (messages only)."""
    body = request.body if isinstance(request, LoggedRequest) else request
    if not isinstance(body, dict):
        return ""
    return seen_text({"messages": body.get("messages") or []})


def summarize_messages(request: LoggedRequest | dict, width: int = 400) -> str:
    """One line per content block of the request's messages (long texts clipped in the middle),
    for assertion messages: hook context and tool results stay readable next to the big
    environment turn."""
    body = request.body if isinstance(request, LoggedRequest) else request
    if not isinstance(body, dict):
        return "(no JSON body)"
    lines: list[str] = []
    for index, message in enumerate(body.get("messages") or []):
        if not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for block in blocks:
            kind = block.get("type", "?") if isinstance(block, dict) else "?"
            text = "\n".join(_block_text(block))
            lines.append(f"[{index}] {message.get('role')}/{kind}: {clip(text, width)}")
    return "\n".join(lines) or "(no messages)"


def hook_context(request: LoggedRequest | dict, event: str) -> str:
    """What hooks of ``event`` injected into this request, as the client labels it.

    Claude Code 2.1.328 prefixes injected hook text with ``"<Event>[:<Tool>] hook additional
    context: "`` (JSON ``additionalContext``) or ``"UserPromptSubmit hook success: "`` (plain
    stdout of a prompt hook). Returns everything after each such label (to the end of its text
    block, which for prompt hooks includes the rest of that system turn), joined by newlines.
    """
    labels = re.compile(rf"{re.escape(event)}(?::\w+)? hook (?:additional context|success): ")
    found: list[str] = []
    for part in seen_parts(request):
        for match in labels.finditer(part):
            found.append(part[match.end():])
    return "\n".join(found)


_TOOL_CONTEXT_LABEL = re.compile(r"(?:\A|\n\n)(\w+):Bash hook additional context: ")


def last_call_context(request: LoggedRequest | dict) -> dict[str, str]:
    """What hooks injected for the request's last Bash call, by event: ``{"PreToolUse": text,
    "PostToolUseFailure": text}`` ({} when none did).

    Observed on 2.1.328: the client sends a hook's ``additionalContext`` as one ``role: "system"``
    message right AFTER the call's ``tool_result`` message, ``"<Event>:Bash hook additional
    context: <text>"``; PreToolUse context too (it never comes before the result), and when both a
    PreToolUse and a PostToolUse[Failure] hook spoke, both share that message, PreToolUse first,
    separated by a blank line. Only the messages after the last ``tool_result`` are read."""
    body = request.body if isinstance(request, LoggedRequest) else request
    messages = body.get("messages") or [] if isinstance(body, dict) else []
    last = max((i for i, m in enumerate(messages) if tool_results({"messages": [m]})), default=None)
    if last is None:
        return {}
    text = "\n\n".join(part for m in messages[last + 1:] if isinstance(m, dict)
                       for part in _content_parts(m.get("content")))
    found: dict[str, str] = {}
    pieces = _TOOL_CONTEXT_LABEL.split(text)
    for event, context in zip(pieces[1::2], pieces[2::2], strict=True):
        found[event] = context
    return found


def tool_results(request: LoggedRequest | dict) -> list[dict]:
    """Every ``tool_result`` block in the request's messages."""
    body = request.body if isinstance(request, LoggedRequest) else request
    out: list[dict] = []
    if not isinstance(body, dict):
        return out
    for message in body.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            out.extend(b for b in content if isinstance(b, dict) and b.get("type") == "tool_result")
    return out


def has_tool_result(body: Any) -> bool:
    return bool(tool_results(body))


# --- responses -----------------------------------------------------------------------


def _usage(body: Any) -> dict[str, int]:
    size = len(json.dumps(body)) if body is not None else 0
    return {
        "input_tokens": max(1, size // 4),
        "output_tokens": 1,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    }


def _message(body: Any, content: list[dict], stop_reason: str, msg_id: str) -> dict:
    model = body.get("model", "claude-mock") if isinstance(body, dict) else "claude-mock"
    return {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": _usage(body),
    }


def _stream_events(message: dict) -> list[dict]:
    start = dict(message, content=[], stop_reason=None, stop_sequence=None)
    events: list[dict] = [{"type": "message_start", "message": start}]
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            events.append(
                {
                    "type": "content_block_start",
                    "index": index,
                    "content_block": {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}},
                }
            )
            events.append(
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                }
            )
        else:
            events.append(
                {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}
            )
            events.append(
                {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": block["text"]}}
            )
        events.append({"type": "content_block_stop", "index": index})
    events.append(
        {
            "type": "message_delta",
            "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
            "usage": {"output_tokens": 5},
        }
    )
    events.append({"type": "message_stop"})
    return events


class MockAnthropic(MockServer[LoggedRequest]):
    """Threaded loopback mock; a context manager. ``requests`` logs everything received."""

    name = "anthropic"
    request_class = LoggedRequest
    request_id_header = "request-id"
    failure_body: ClassVar[dict[str, Any]] = {"type": "error", "error": {"type": "api_error", "message": "mock failure"}}

    def __init__(self, command: str = "echo hello", final_text: str = DEFAULT_FINAL_TEXT,
                 commands: Sequence[str] | None = None) -> None:
        super().__init__()
        self.command = command
        self.commands: list[str] | None = list(commands) if commands is not None else None
        self.final_text = final_text
        self._ids = itertools.count(1)

    @property
    def script(self) -> list[str]:
        """The Bash commands of one turn, in order: ``commands`` if set, else ``[command]``."""
        return list(self.commands) if self.commands is not None else [self.command]

    @property
    def turn(self) -> tuple[str, ...]:
        """The response kinds of one scripted turn: one ``tool_use`` per command, then the text."""
        return ("tool_use",) * len(self.script) + ("text",)

    def messages_requests(self) -> list[LoggedRequest]:
        """Every ``POST /v1/messages`` (main loop and side requests), in arrival order."""
        return [r for r in self.requests if r.is_messages]

    def conversation_requests(self) -> list[LoggedRequest]:
        """Main-loop requests only (those offering the Bash tool), in arrival order."""
        return [r for r in self.requests if r.is_conversation]

    def all_seen_text(self) -> str:
        return "\n\n".join(seen_text(r) for r in self.messages_requests())

    def summarize_last(self) -> str:
        """The messages of the last main-loop request, for assertion messages."""
        requests = self.conversation_requests()
        return summarize_messages(requests[-1]) if requests else "(none)"

    def describe_request(self, req: LoggedRequest) -> str:
        if not req.is_messages:
            return ""
        extra = f" tools={len(req.tool_names)} msgs={len((req.body or {}).get('messages') or [])}"
        return extra + f" stream={bool((req.body or {}).get('stream'))} -> {req.response_kind}"

    # the script
    def respond(self, http: MockHandler, req: LoggedRequest) -> None:
        path = req.path.rstrip("/")
        if req.method == "POST" and path == "/v1/messages/count_tokens":
            req.response_kind = "count_tokens"
            http.send_json({"input_tokens": _usage(req.body)["input_tokens"]})
            return
        if req.method == "POST" and path == "/v1/messages":
            message = self._answer(req)
            if isinstance(req.body, dict) and req.body.get("stream"):
                http.send_sse(_stream_events(message))
            else:
                http.send_json(message)
            return
        if req.method == "GET" and path.startswith("/v1/models"):
            req.response_kind = "models"
            model = {"type": "model", "id": "claude-mock", "display_name": "Mock", "created_at": "2025-01-01T00:00:00Z"}
            if path == "/v1/models":
                http.send_json({"data": [model], "has_more": False, "first_id": "claude-mock", "last_id": "claude-mock"})
            else:
                http.send_json(dict(model, id=path.rsplit("/", 1)[-1]))
            return
        req.response_kind = "other"
        http.send_json({})

    def _answer(self, req: LoggedRequest) -> dict:
        n = next(self._ids)
        script = self.script
        done = len(tool_results(req.body)) if req.is_conversation else len(script)
        if done < len(script):
            req.response_kind = "tool_use"
            block = {
                "type": "tool_use",
                "id": f"toolu_mock{n:04d}",
                "name": "Bash",
                "input": {"command": script[done], "description": "run"},
            }
            return _message(req.body, [block], "tool_use", f"msg_mock{n:04d}")
        req.response_kind = "text"
        return _message(req.body, [{"type": "text", "text": self.final_text}], "end_turn", f"msg_mock{n:04d}")


# --- any tool, not only Bash (additive: MockAnthropic itself is unchanged) ---------------


@dataclass(frozen=True)
class ToolCall:
    """One scripted ``tool_use``: the tool's name as the client offers it, and its input."""

    name: str
    input: dict[str, Any]


class MockAnthropicCalls(MockAnthropic):
    """Like :class:`MockAnthropic`, but the turn's calls are any tools (``Read``, ``Edit``, ``Bash``).

    A main-loop request whose conversation holds N ``tool_result`` blocks is answered with
    ``calls[N]``, and with ``final_text`` once the list is done::

        with MockAnthropicCalls([ToolCall("Read", {"file_path": str(project / "src/api/x.py")})]) as mock:
            ...
            first, second = mock.conversation_requests()  # second carries the file's content
    """

    def __init__(self, calls: Sequence[ToolCall] = (), final_text: str = DEFAULT_FINAL_TEXT) -> None:
        super().__init__(final_text=final_text)
        self.calls: list[ToolCall] = list(calls)

    @property
    def turn(self) -> tuple[str, ...]:
        return ("tool_use",) * len(self.calls) + ("text",)

    def _answer(self, req: LoggedRequest) -> dict:
        n = next(self._ids)
        done = len(tool_results(req.body)) if req.is_conversation else len(self.calls)
        if done < len(self.calls):
            req.response_kind = "tool_use"
            call = self.calls[done]
            block = {"type": "tool_use", "id": f"toolu_mock{n:04d}", "name": call.name, "input": call.input}
            return _message(req.body, [block], "tool_use", f"msg_mock{n:04d}")
        req.response_kind = "text"
        return _message(req.body, [{"type": "text", "text": self.final_text}], "end_turn", f"msg_mock{n:04d}")
