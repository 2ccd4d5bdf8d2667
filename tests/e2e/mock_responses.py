"""A loopback mock of the OpenAI Responses API, scripted for one-shell-call Codex turns.

The real Codex CLI is pointed at it with a custom model provider (``base_url
http://127.0.0.1:PORT/v1``, ``wire_api = "responses"``; see ``codex_client.py``). The script:

* ``POST /v1/responses`` that offers a shell tool (``exec_command`` on codex-cli 0.171.0;
  ``shell_command`` / ``shell`` are understood too) and whose ``input`` holds no
  ``function_call_output`` yet: answer with one ``function_call`` running ``command``.
* any other ``POST /v1/responses`` (after the tool ran, or a side request that offers no shell):
  answer with one assistant ``message`` holding ``final_text``.
* several commands in sequence: set ``commands`` (a list) instead of ``command``. A request whose
  ``input`` holds N tool outputs is answered with a ``function_call`` running ``commands[N]``, and
  with the message once the list is done.
* answers are SSE (``response.created``, ``response.output_item.done``, ``response.completed``),
  which is all Codex 0.171.0 needs; a ``"stream": false`` request gets the plain Response JSON.
* ``GET /v1/models`` gets an empty model list, anything else a harmless ``200 {}``.
  Every request is logged with its parsed JSON body (gzip / zstd bodies are decoded).

Codex sends the whole conversation every time (``store: false``), as ``input`` items: developer
and user ``message`` items (``input_text`` parts), the model's ``function_call`` items and the
``function_call_output`` items with the tool's output as one string. Hook ``additionalContext``
arrives verbatim (no label such as Claude Code's "hook additional context:") as a separate
developer message next to the item it belongs to. Observed on 0.171.0: UserPromptSubmit context
right after the user's prompt; PreToolUse and then PostToolUse context (one developer message
each) right after the model's ``function_call``, *before* that call's ``function_call_output``.
See :func:`context_after_prompt`, :func:`context_for_tool_call` and :func:`contexts_for_tool_call`.

Usage::

    with MockResponses(command='python3 -c "import nosuchmod"') as mock:
        run_codex(project, "run it", mock.base_url, home=home)
        first, second = mock.conversation_requests()
        assert "<error-detected>" in context_for_tool_call(second)
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tests.e2e import mock_server
from tests.e2e.mock_server import MockHandler, MockServer, clip

DEFAULT_FINAL_TEXT = "Done."
SHELL_TOOLS = ("exec_command", "shell_command", "shell")
TOOL_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


@dataclass
class LoggedRequest(mock_server.LoggedRequest):
    """One HTTP request as the mock received it; ``response_kind``: "function_call", "message",
    "models" or "other"."""

    @property
    def is_responses(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/").endswith("/responses")

    @property
    def tool_names(self) -> list[str]:
        if not isinstance(self.body, dict):
            return []
        return [str(t.get("name") or t.get("type") or "") for t in self.body.get("tools") or [] if isinstance(t, dict)]

    @property
    def shell_tool(self) -> str | None:
        names = self.tool_names
        return next((name for name in SHELL_TOOLS if name in names), None)

    @property
    def is_conversation(self) -> bool:
        """A main-loop request: a Responses call that offers a shell tool."""
        return self.is_responses and self.shell_tool is not None

    @property
    def items(self) -> list[dict]:
        return input_items(self)

    @property
    def text(self) -> str:
        """Everything the model was shown in this request, as one searchable string."""
        return seen_text(self)

    @property
    def carries_tool_result(self) -> bool:
        return has_tool_output(self)


# --- what the model saw --------------------------------------------------------------


def _body(request: LoggedRequest | dict) -> Any:
    return request.body if isinstance(request, LoggedRequest) else request


def input_items(request: LoggedRequest | dict) -> list[dict]:
    body = _body(request)
    if not isinstance(body, dict):
        return []
    items = body.get("input")
    if isinstance(items, str):
        return [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": items}]}]
    return [item for item in items or [] if isinstance(item, dict)]


def _content_text(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    out: list[str] = []
    if isinstance(content, list):
        for part in content:
            if isinstance(part, str):
                out.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                out.append(part["text"])
    return out


def item_text(item: dict) -> str:
    """The text one input item carries (message text, call arguments, tool output)."""
    kind = item.get("type", "message" if "role" in item else "")
    if kind == "message":
        return "\n".join(_content_text(item.get("content")))
    if kind in TOOL_OUTPUT_TYPES:
        output = item.get("output")
        if isinstance(output, dict):  # {"content": ..., "success": ...} on some versions
            output = output.get("content", output)
        return "\n".join(_content_text(output)) if not isinstance(output, str) else output
    if kind == "function_call":
        return str(item.get("arguments", ""))
    if kind in ("custom_tool_call", "local_shell_call"):
        return json.dumps(item.get("input", item.get("action", "")), ensure_ascii=False)
    if kind == "reasoning":
        return "\n".join(_content_text(item.get("summary")))
    return ""


def seen_parts(request: LoggedRequest | dict) -> list[str]:
    """Text pieces the model saw: the ``instructions``, then every input item's text."""
    body = _body(request)
    if not isinstance(body, dict):
        return []
    parts = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
    parts.extend(item_text(item) for item in input_items(body))
    return [part for part in parts if part]


def seen_text(request: LoggedRequest | dict) -> str:
    return "\n".join(seen_parts(request))


def message_texts(request: LoggedRequest | dict, role: str | None = None) -> list[str]:
    """The text of every ``message`` item (optionally only those of ``role``)."""
    return [
        item_text(item)
        for item in input_items(request)
        if item.get("type", "message") == "message" and (role is None or item.get("role") == role)
    ]


def tool_outputs(request: LoggedRequest | dict) -> list[str]:
    """The output string of every tool call result the request carries."""
    return [item_text(item) for item in input_items(request) if item.get("type") in TOOL_OUTPUT_TYPES]


def has_tool_output(request: LoggedRequest | dict) -> bool:
    return any(item.get("type") in TOOL_OUTPUT_TYPES for item in input_items(request))


def _messages_after(items: list[dict], index: int) -> str:
    """Text of the developer/user messages that directly follow ``items[index]`` (up to the next
    non-message item: the model's call or answer)."""
    found: list[str] = []
    for item in items[index + 1:]:
        if item.get("type", "message") != "message" or item.get("role") not in ("developer", "user", "system"):
            break
        found.append(item_text(item))
    return "\n".join(found)


def _last_index(items: list[dict], match: Callable[[dict], bool]) -> int | None:
    indexes = [i for i, item in enumerate(items) if match(item)]
    return indexes[-1] if indexes else None


def context_after_prompt(request: LoggedRequest | dict, prompt: str) -> str:
    """What was injected right after the user's ``prompt`` (UserPromptSubmit hook context)."""
    items = input_items(request)
    index = _last_index(
        items,
        lambda item: item.get("type", "message") == "message" and item.get("role") == "user"
        and item_text(item).strip() == prompt.strip(),
    )
    return "" if index is None else _messages_after(items, index)


def context_for_tool_call(request: LoggedRequest | dict, call_id: str | None = None) -> str:
    """What was injected for one tool call (PreToolUse / PostToolUse hook context): the
    developer/user messages that follow the model's ``function_call`` (the last one, or the one
    with ``call_id``), skipping that call's own output item, up to the next item of another kind.

    Codex 0.171.0 records the hooks' messages *between* the call and its output
    (``function_call``, ``message/developer``, ``function_call_output``); a version that appends it
    after the output is matched as well.
    """
    return "\n".join(contexts_for_tool_call(request, call_id))


def contexts_for_tool_call(request: LoggedRequest | dict, call_id: str | None = None) -> list[str]:
    """:func:`context_for_tool_call`, one text per injected message, in order (0.171.0: the
    PreToolUse hook's message first, then the PostToolUse hook's)."""
    items = input_items(request)
    index = _last_index(
        items,
        lambda item: item.get("type") == "function_call" and (call_id is None or item.get("call_id") == call_id),
    )
    if index is None:
        return []
    wanted = items[index].get("call_id")
    found: list[str] = []
    for item in items[index + 1:]:
        if item.get("type") in TOOL_OUTPUT_TYPES and item.get("call_id") == wanted:
            continue
        if item.get("type", "message") != "message" or item.get("role") not in ("developer", "user", "system"):
            break
        found.append(item_text(item))
    return found


def summarize_items(request: LoggedRequest | dict, width: int = 400) -> str:
    """One line per input item (long texts clipped in the middle), for assertion messages."""
    body = _body(request)
    if not isinstance(body, dict):
        return "(no JSON body)"
    lines = []
    for index, item in enumerate(input_items(body)):
        kind = item.get("type", "message")
        label = f"{kind}/{item.get('role')}" if kind == "message" else kind
        if kind == "function_call":
            label += f" {item.get('name')}"
        lines.append(f"[{index}] {label}: {clip(item_text(item), width)}")
    return "\n".join(lines) or "(no input items)"


# --- responses -----------------------------------------------------------------------


def _usage(body: Any) -> dict[str, Any]:
    size = len(json.dumps(body)) if body is not None else 0
    tokens = max(1, size // 4)
    return {
        "input_tokens": tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": tokens + 5,
    }


def _response(body: Any, response_id: str, output: list[dict]) -> dict:
    model = body.get("model", "gpt-mock") if isinstance(body, dict) else "gpt-mock"
    return {
        "id": response_id,
        "object": "response",
        "created_at": 0,
        "status": "completed",
        "model": model,
        "output": output,
        "usage": _usage(body),
    }


def _events(response: dict) -> list[dict]:
    started = dict(response, status="in_progress", output=[], usage=None)
    events: list[dict] = [{"type": "response.created", "sequence_number": 0, "response": started}]
    for index, item in enumerate(response["output"]):
        events.append({"type": "response.output_item.done", "sequence_number": len(events),
                       "output_index": index, "item": item})
    events.append({"type": "response.completed", "sequence_number": len(events), "response": response})
    return events


class MockResponses(MockServer[LoggedRequest]):
    """Threaded loopback mock; a context manager. ``requests`` logs everything received.
    ``base_url`` is what Codex's ``model_providers.<id>.base_url`` must be (it appends ``/responses``)."""

    name = "responses"
    request_class = LoggedRequest

    def __init__(self, command: str = "echo hello", final_text: str = DEFAULT_FINAL_TEXT,
                 commands: Sequence[str] | None = None) -> None:
        super().__init__()
        self.command = command
        self.commands: list[str] | None = list(commands) if commands is not None else None
        self.final_text = final_text
        self._ids = itertools.count(1)

    @property
    def script(self) -> list[str]:
        """The shell commands of one turn, in order: ``commands`` if set, else ``[command]``."""
        return list(self.commands) if self.commands is not None else [self.command]

    @property
    def turn(self) -> tuple[str, ...]:
        """The response kinds of one scripted turn: one ``function_call`` per command, then the message."""
        return ("function_call",) * len(self.script) + ("message",)

    def responses_requests(self) -> list[LoggedRequest]:
        """Every ``POST /v1/responses`` (main loop and side requests), in arrival order."""
        return [r for r in self.requests if r.is_responses]

    def conversation_requests(self) -> list[LoggedRequest]:
        """Main-loop requests only (those offering a shell tool), in arrival order."""
        return [r for r in self.requests if r.is_conversation]

    def all_seen_text(self) -> str:
        """All text the model was shown, over every Responses request."""
        return "\n\n".join(seen_text(r) for r in self.responses_requests())

    def summarize_last(self) -> str:
        """The input items of the last Responses request, for assertion messages."""
        requests = self.responses_requests()
        return summarize_items(requests[-1]) if requests else "(none)"

    def describe_request(self, req: LoggedRequest) -> str:
        if not req.is_responses:
            return ""
        extra = f" tools={len(req.tool_names)} shell={req.shell_tool} items={len(req.items)}"
        return extra + f" stream={(req.body or {}).get('stream')} -> {req.response_kind}"

    # the script
    def respond(self, http: MockHandler, req: LoggedRequest) -> None:
        if req.is_responses:
            response = self._answer(req)
            if isinstance(req.body, dict) and req.body.get("stream") is False:
                http.send_json(response)
            else:
                http.send_sse(_events(response))
            return
        if req.method == "GET" and req.path.rstrip("/").endswith("/models"):
            req.response_kind = "models"
            http.send_json({"object": "list", "data": [], "models": []})
            return
        req.response_kind = "other"
        http.send_json({})

    def _answer(self, req: LoggedRequest) -> dict:
        n = next(self._ids)
        tool = req.shell_tool
        script = self.script
        done = len(tool_outputs(req)) if tool is not None else len(script)
        if done < len(script):
            command = script[done]
            req.response_kind = "function_call"
            if tool == "exec_command":
                arguments: dict[str, Any] = {"cmd": command}
            elif tool == "shell_command":
                arguments = {"command": command}
            else:
                arguments = {"command": ["bash", "-lc", command]}
            item: dict[str, Any] = {
                "type": "function_call",
                "id": f"fc_mock{n:04d}",
                "call_id": f"call_mock{n:04d}",
                "name": tool,
                "arguments": json.dumps(arguments),
                "status": "completed",
            }
        else:
            req.response_kind = "message"
            item = {
                "type": "message",
                "id": f"msg_mock{n:04d}",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": self.final_text, "annotations": []}],
            }
        return _response(req.body, f"resp_mock{n:04d}", [item])
