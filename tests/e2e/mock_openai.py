"""A loopback mock of the OpenAI chat-completions API, enough for one OpenClaw agent turn.

Stateless script, decided from the conversation it is sent:

* no ``tool`` message yet  -> one ``exec`` tool call running ``command`` (a failing command);
* a ``tool`` message there -> a final text, ``final_text``.

Both streaming (SSE, ``"stream": true``) and plain JSON answers are served.  Every request is
logged (``requests``; the model calls are ``post_requests()``), so a test can assert what reached
the system prompt.  The server plumbing (loopback only) is ``mock_server.py``'s.

Usage::

    with MockOpenAI(MockScript(command="ls /nonexistent")) as mock:
        ...  # point OpenClaw's provider baseUrl at mock.base_url
        assert len(mock.post_requests()) == 2, mock.describe()
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.e2e.mock_server import LoggedRequest, MockHandler, MockServer

MODEL_ID = "mock-model"


@dataclass
class MockScript:
    command: str
    final_text: str = "MOCK-REPLY-OK"
    tool_name: str = "exec"
    extra_arguments: Mapping[str, Any] = field(default_factory=dict)


class MockOpenAI(MockServer[LoggedRequest]):
    """Threaded loopback mock; a context manager. ``requests`` logs everything received."""

    name = "openai"

    def __init__(self, script: MockScript) -> None:
        super().__init__()
        self.script = script

    def post_requests(self) -> list[LoggedRequest]:
        """Every POST (the model calls), in arrival order."""
        return [r for r in self.requests if r.method == "POST"]

    def system_prompts(self) -> list[str]:
        """Every system/developer message text seen, in order."""
        return [
            _text(message.get("content"))
            for request in self.post_requests()
            if isinstance(request.body, dict)
            for message in request.body.get("messages", [])
            if message.get("role") in ("system", "developer")
        ]

    def answer(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The assistant message for this request (OpenAI ``message`` shape)."""
        messages = body.get("messages", [])
        if any(m.get("role") == "tool" for m in messages):
            return {"role": "assistant", "content": self.script.final_text}
        arguments = {"command": self.script.command, **self.script.extra_arguments}
        call = {
            "id": f"call_{uuid.uuid4().hex[:12]}",
            "type": "function",
            "function": {"name": self.script.tool_name, "arguments": json.dumps(arguments)},
        }
        return {"role": "assistant", "content": None, "tool_calls": [call]}

    def respond(self, http: MockHandler, req: LoggedRequest) -> None:
        route = req.path.rstrip("/")
        if req.method == "GET" and route.endswith("/models"):
            req.response_kind = "models"
            http.send_json({"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})
        elif req.method == "POST" and not isinstance(req.body, dict):
            req.response_kind = "bad json"
            http.send_json({"error": {"message": "bad json"}}, 400)
        elif req.method == "POST" and route.endswith("/chat/completions"):
            message = self.answer(req.body)
            req.response_kind = "tool_calls" if message.get("tool_calls") else "text"
            if req.body.get("stream"):
                http.send_sse(_chunks(message, req.body), named=False, done=True)
            else:
                http.send_json(_completion(message))
        else:
            req.response_kind = "no route"
            http.send_json({"error": {"message": f"no route {req.path}"}}, 404)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _completion(message: Mapping[str, Any]) -> dict[str, Any]:
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": MODEL_ID,
        "choices": [{"index": 0, "message": dict(message), "finish_reason": finish}],
        "usage": _usage(),
    }


def _chunks(message: Mapping[str, Any], body: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    ident = f"chatcmpl-{uuid.uuid4().hex[:12]}"
    base = {"id": ident, "object": "chat.completion.chunk", "created": int(time.time()), "model": MODEL_ID}
    tool_calls = message.get("tool_calls")
    if tool_calls:
        delta: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"index": i, **call} for i, call in enumerate(tool_calls)],
        }
        finish = "tool_calls"
    else:
        delta = {"role": "assistant", "content": message.get("content", "")}
        finish = "stop"
    yield {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}
    yield {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    options = body.get("stream_options")
    if isinstance(options, Mapping) and options.get("include_usage"):
        yield {**base, "choices": [], "usage": _usage()}
