"""A loopback mock of the OpenAI chat-completions API, enough for one OpenClaw agent turn.

Stateless script, decided from the conversation it is sent:

* no ``tool`` message yet  -> one ``exec`` tool call running ``command`` (a failing command);
* a ``tool`` message there -> a final text, ``final_text``.

Both streaming (SSE, ``"stream": true``) and plain JSON answers are served.  Every request
body is logged (``requests``), so a test can assert what reached the system prompt.
Binds 127.0.0.1 only.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL_ID = "mock-model"


@dataclass
class MockScript:
    command: str
    final_text: str = "MOCK-REPLY-OK"
    tool_name: str = "exec"
    extra_arguments: Mapping[str, Any] = field(default_factory=dict)


@dataclass
class MockOpenAI:
    script: MockScript
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def log(self, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(body)

    def system_prompts(self) -> list[str]:
        """Every system/developer message text seen, in order."""
        with self._lock:
            bodies = list(self.requests)
        return [
            _text(message.get("content"))
            for body in bodies
            for message in body.get("messages", [])
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


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return ""


def _usage() -> dict[str, int]:
    return {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


def _handler(mock: MockOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._json(200, {"object": "list", "data": [{"id": MODEL_ID, "object": "model"}]})
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw)
            except ValueError:
                self._json(400, {"error": {"message": "bad json"}})
                return
            mock.log({"path": self.path, **body})
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._json(404, {"error": {"message": f"no route {self.path}"}})
                return
            message = mock.answer(body)
            if body.get("stream"):
                self._stream(message, body)
            else:
                self._json(200, _completion(message))

        def _json(self, status: int, payload: Mapping[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _stream(self, message: Mapping[str, Any], body: Mapping[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("Connection", "close")
            self.end_headers()
            for chunk in _chunks(message, body):
                self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
            self.close_connection = True

    return Handler


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


@contextmanager
def serve(script: MockScript) -> Iterator[MockOpenAI]:
    """Run the mock on an ephemeral loopback port for the duration of the block."""
    mock = MockOpenAI(script=script)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(mock))
    server.daemon_threads = True
    mock.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, name="mock-openai", daemon=True)
    thread.start()
    try:
        yield mock
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
