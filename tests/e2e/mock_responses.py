"""A loopback mock of the OpenAI Responses API, scripted for one-shell-call Codex turns.

The real Codex CLI is pointed at it with a custom model provider (``base_url
http://127.0.0.1:PORT/v1``, ``wire_api = "responses"``; see ``codex_client.py``). The script:

* ``POST /v1/responses`` that offers a shell tool (``exec_command`` on codex-cli 0.171.0;
  ``shell_command`` / ``shell`` are understood too) and whose ``input`` holds no
  ``function_call_output`` yet: answer with one ``function_call`` running ``command``.
* any other ``POST /v1/responses`` (after the tool ran, or a side request that offers no shell):
  answer with one assistant ``message`` holding ``final_text``.
* answers are SSE (``response.created``, ``response.output_item.done``, ``response.completed``),
  which is all Codex 0.171.0 needs; a ``"stream": false`` request gets the plain Response JSON.
* ``GET /v1/models`` gets an empty model list, anything else a harmless ``200 {}``.
  Every request is logged with its parsed JSON body (gzip / zstd bodies are decoded).

Codex sends the whole conversation every time (``store: false``), as ``input`` items: developer
and user ``message`` items (``input_text`` parts), the model's ``function_call`` items and the
``function_call_output`` items with the tool's output as one string. Hook ``additionalContext``
arrives verbatim (no label such as Claude Code's "hook additional context:") as a separate
developer message next to the item it belongs to. Observed on 0.171.0: UserPromptSubmit context
right after the user's prompt; PostToolUse context right after the model's ``function_call``,
*before* that call's ``function_call_output``. See :func:`context_after_prompt` and
:func:`context_for_tool_call`.

Usage::

    with MockResponses(command='python3 -c "import nosuchmod"') as mock:
        run_codex(project, "run it", mock.base_url, home=home)
        first, second = mock.conversation_requests()
        assert "<error-detected>" in context_for_tool_call(second)
"""

from __future__ import annotations

import contextlib
import gzip
import itertools
import json
import threading
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import urlsplit

DEFAULT_FINAL_TEXT = "Done."
SHELL_TOOLS = ("exec_command", "shell_command", "shell")
TOOL_OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output", "local_shell_call_output")


@dataclass
class LoggedRequest:
    """One HTTP request as the mock received it."""

    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any  # parsed JSON, or None when the body was empty or not JSON
    response_kind: str = ""  # "function_call", "message", "models", "other"

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
    """What was injected for one tool call (PostToolUse hook context): the developer/user messages
    that follow the model's ``function_call`` (the last one, or the one with ``call_id``), skipping
    that call's own output item, up to the next item of another kind.

    Codex 0.171.0 records the hook's message *between* the call and its output
    (``function_call``, ``message/developer``, ``function_call_output``); a version that appends it
    after the output is matched as well.
    """
    items = input_items(request)
    index = _last_index(
        items,
        lambda item: item.get("type") == "function_call" and (call_id is None or item.get("call_id") == call_id),
    )
    if index is None:
        return ""
    wanted = items[index].get("call_id")
    found: list[str] = []
    for item in items[index + 1:]:
        if item.get("type") in TOOL_OUTPUT_TYPES and item.get("call_id") == wanted:
            continue
        if item.get("type", "message") != "message" or item.get("role") not in ("developer", "user", "system"):
            break
        found.append(item_text(item))
    return "\n".join(found)


def _clip(text: str, width: int) -> str:
    text = text.replace("\n", "\\n")
    if len(text) <= width:
        return text
    half = width // 2
    return f"{text[:half]} …[{len(text) - width} chars]… {text[-half:]}"


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
        lines.append(f"[{index}] {label}: {_clip(item_text(item), width)}")
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


def _sse(response: dict) -> bytes:
    started = dict(response, status="in_progress", output=[], usage=None)
    events: list[dict] = [{"type": "response.created", "sequence_number": 0, "response": started}]
    for index, item in enumerate(response["output"]):
        events.append({"type": "response.output_item.done", "sequence_number": len(events),
                       "output_index": index, "item": item})
    events.append({"type": "response.completed", "sequence_number": len(events), "response": response})
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _decode(raw: bytes, encoding: str) -> bytes:
    encoding = encoding.strip().lower()
    if not raw or encoding in ("", "identity"):
        return raw
    if encoding == "gzip":
        return gzip.decompress(raw)
    if encoding == "deflate":
        return zlib.decompress(raw)
    if encoding == "zstd":
        import zstandard  # a test extra

        return zstandard.ZstdDecompressor().decompressobj().decompress(raw)
    raise ValueError(f"unsupported Content-Encoding {encoding!r}")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean; everything is in MockResponses.requests

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()  # CRLF after each chunk
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _handle(self) -> None:
        mock = self.server.mock
        split = urlsplit(self.path)
        raw = self._read_body()
        body = None
        try:
            decoded = _decode(raw, self.headers.get("Content-Encoding") or "")
            body = json.loads(decoded) if decoded else None
        except Exception:  # noqa: BLE001 - keep the raw bytes in the log; the test sees body=None
            mock.errors.append(f"could not decode the body of {self.command} {self.path}:\n{traceback.format_exc()}")
        logged = LoggedRequest(
            method=self.command,
            path=split.path,
            query=split.query,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw_body=raw,
            body=body,
        )
        mock._record(logged)
        try:
            self._respond(mock, logged)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception:  # noqa: BLE001 - a bug in the mock: keep it for the test to see, answer 500
            mock.errors.append(traceback.format_exc())
            with contextlib.suppress(Exception):
                self._json({"error": {"type": "server_error", "message": "mock failure"}}, 500)

    def _send(self, status: int, payload: bytes, content_type: str, *, head: bool = False) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("x-request-id", "req_mock")
        self.end_headers()
        if not head:
            self.wfile.write(payload)
        self.wfile.flush()

    def _json(self, obj: Any, status: int = 200) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json", head=self.command == "HEAD")

    def _respond(self, mock: MockResponses, req: LoggedRequest) -> None:
        if req.is_responses:
            response = mock._answer(req)
            if isinstance(req.body, dict) and req.body.get("stream") is False:
                self._json(response)
            else:
                self._send(200, _sse(response), "text/event-stream")
            return
        if req.method == "GET" and req.path.rstrip("/").endswith("/models"):
            req.response_kind = "models"
            self._json({"object": "list", "data": [], "models": []})
            return
        req.response_kind = "other"
        self._json({})

    do_POST = do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    mock: MockResponses


class MockResponses:
    """Threaded loopback mock; a context manager. ``requests`` logs everything received."""

    def __init__(self, command: str = "echo hello", final_text: str = DEFAULT_FINAL_TEXT) -> None:
        self.command = command
        self.final_text = final_text
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._requests: list[LoggedRequest] = []
        self.errors: list[str] = []  # tracebacks of exceptions raised while answering
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # lifecycle
    def start(self) -> Self:
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", 0), _Handler)
        server.mock = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="mock-responses", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("mock is not running")
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """What Codex's ``model_providers.<id>.base_url`` must be (it appends ``/responses``)."""
        return f"http://127.0.0.1:{self.port}/v1"

    # the log
    def _record(self, req: LoggedRequest) -> None:
        with self._lock:
            self._requests.append(req)

    @property
    def requests(self) -> list[LoggedRequest]:
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def responses_requests(self) -> list[LoggedRequest]:
        """Every ``POST /v1/responses`` (main loop and side requests), in arrival order."""
        return [r for r in self.requests if r.is_responses]

    def conversation_requests(self) -> list[LoggedRequest]:
        """Main-loop requests only (those offering a shell tool), in arrival order."""
        return [r for r in self.requests if r.is_conversation]

    def all_seen_text(self) -> str:
        """All text the model was shown, over every Responses request."""
        return "\n\n".join(seen_text(r) for r in self.responses_requests())

    def describe(self) -> str:
        """A short human summary of the log, for assertion messages."""
        lines = [f"MOCK ERROR: {error}" for error in self.errors]
        for i, r in enumerate(self.requests):
            extra = ""
            if r.is_responses:
                extra = f" tools={len(r.tool_names)} shell={r.shell_tool} items={len(r.items)}"
                extra += f" stream={(r.body or {}).get('stream')} -> {r.response_kind}"
            lines.append(f"#{i} {r.method} {r.path}{'?' + r.query if r.query else ''}{extra}")
        return "\n".join(lines) or "(no requests)"

    # the script
    def _answer(self, req: LoggedRequest) -> dict:
        n = next(self._ids)
        tool = req.shell_tool
        if tool is not None and not has_tool_output(req):
            req.response_kind = "function_call"
            if tool == "exec_command":
                arguments: dict[str, Any] = {"cmd": self.command}
            elif tool == "shell_command":
                arguments = {"command": self.command}
            else:
                arguments = {"command": ["bash", "-lc", self.command]}
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
