"""The loopback HTTP plumbing every model API mock of the end-to-end tests shares.

:class:`MockServer` is a threaded server on ``127.0.0.1`` and an ephemeral port, a context manager
(``start`` / ``stop``) that logs every request it receives (:class:`LoggedRequest`, JSON bodies
parsed, chunked and gzip / deflate / zstd bodies decoded) and keeps the traceback of anything that
went wrong while answering in ``errors`` (the request is then answered ``500 failure_body``). A
mock subclasses it and implements :meth:`MockServer.respond`, answering through the
:class:`MockHandler` it is given (``send_json``, ``send_sse``, ``send``).

Usage::

    class MockEcho(MockServer[LoggedRequest]):
        name = "echo"

        def respond(self, http: MockHandler, req: RequestT) -> None:
            http.send_json({"you_sent": req.body})

    with MockEcho() as mock:
        ...  # point a client at mock.base_url (http://127.0.0.1:PORT/v1)
        assert [r.path for r in mock.requests] == ["/v1/echo"], mock.describe()
"""

from __future__ import annotations

import contextlib
import gzip
import json
import threading
import traceback
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Generic, Self, TypeVar
from urllib.parse import urlsplit


@dataclass
class LoggedRequest:
    """One HTTP request as the mock received it."""

    method: str
    path: str  # without the query string
    query: str
    headers: dict[str, str]
    raw_body: bytes
    body: Any  # parsed JSON, or None when the body was empty or not JSON
    response_kind: str = ""  # what the mock answered, set by its respond()


RequestT = TypeVar("RequestT", bound=LoggedRequest)


def clip(text: str, width: int) -> str:
    """``text`` on one line, at most about ``width`` characters (the middle cut out)."""
    text = text.replace("\n", "\\n")
    if len(text) <= width:
        return text
    half = width // 2
    return f"{text[:half]} …[{len(text) - width} chars]… {text[-half:]}"


def sse(events: Iterable[Mapping[str, Any]], *, named: bool = True, done: bool = False) -> bytes:
    """Server-sent events: one ``data: <json>`` per event, preceded by ``event: <its type>`` when
    ``named``; a final ``data: [DONE]`` when ``done`` (the chat-completions convention)."""
    chunks = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" if named else f"data: {json.dumps(e)}\n\n"
              for e in events]
    if done:
        chunks.append("data: [DONE]\n\n")
    return "".join(chunks).encode()


def decode_body(raw: bytes, encoding: str) -> bytes:
    """``raw`` without its ``Content-Encoding``."""
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


class MockHandler(BaseHTTPRequestHandler):
    """Logs each request with its mock, then lets the mock answer it."""

    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean; everything is in the mock's request log

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

    # every verb funnels through here
    def _handle(self) -> None:
        mock = self.server.mock
        split = urlsplit(self.path)
        raw = self._read_body()
        body = None
        try:
            decoded = decode_body(raw, self.headers.get("Content-Encoding") or "")
            body = json.loads(decoded) if decoded else None
        except Exception:  # noqa: BLE001 - keep the raw bytes in the log; the test sees body=None
            mock.errors.append(f"could not decode the body of {self.command} {self.path}:\n{traceback.format_exc()}")
        logged = mock.request_class(
            method=self.command,
            path=split.path,
            query=split.query,
            headers={k.lower(): v for k, v in self.headers.items()},
            raw_body=raw,
            body=body,
        )
        mock._record(logged)
        try:
            mock.respond(self, logged)
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception:  # noqa: BLE001 - a bug in the mock: keep it for the test to see, answer 500
            mock.errors.append(traceback.format_exc())
            with contextlib.suppress(Exception):
                self.send_json(mock.failure_body, 500)

    do_POST = do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _handle

    def send(self, status: int, payload: bytes, content_type: str) -> None:
        """One complete response (no body for HEAD)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.send_header(self.server.mock.request_id_header, "req_mock")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)
        self.wfile.flush()

    def send_json(self, obj: Any, status: int = 200) -> None:
        self.send(status, json.dumps(obj).encode(), "application/json")

    def send_sse(self, events: Iterable[Mapping[str, Any]], *, named: bool = True, done: bool = False) -> None:
        self.send(200, sse(events, named=named, done=done), "text/event-stream; charset=utf-8")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    mock: MockServer[Any]


class MockServer(Generic[RequestT]):
    """Threaded loopback mock; a context manager. ``requests`` logs everything received (as
    ``request_class``, a :class:`LoggedRequest` with the mock's own helpers)."""

    name: ClassVar[str] = "server"  # the thread is called mock-<name>
    request_class: ClassVar[type[LoggedRequest]] = LoggedRequest
    request_id_header: ClassVar[str] = "x-request-id"
    failure_body: ClassVar[dict[str, Any]] = {"error": {"type": "server_error", "message": "mock failure"}}

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: list[RequestT] = []
        self.errors: list[str] = []  # tracebacks of exceptions raised while decoding or answering
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    def respond(self, http: MockHandler, req: RequestT) -> None:
        """Answer ``req`` through ``http`` (and set ``req.response_kind``)."""
        raise NotImplementedError

    # lifecycle
    def start(self) -> Self:
        if self._server is not None:
            return self
        server = _Server(("127.0.0.1", 0), MockHandler)
        server.mock = self
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"mock-{self.name}", daemon=True)
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
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """The API root most clients are configured with (they append ``/responses`` etc.)."""
        return f"{self.url}/v1"

    # the log
    def _record(self, req: RequestT) -> None:
        with self._lock:
            self._requests.append(req)

    @property
    def requests(self) -> list[RequestT]:
        with self._lock:
            return list(self._requests)

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()

    def describe_request(self, req: RequestT) -> str:
        """What :meth:`describe` adds after a request's method and path."""
        return ""

    def describe(self) -> str:
        """A short human summary of the log, for assertion messages."""
        lines = [f"MOCK ERROR: {error}" for error in self.errors]
        for i, r in enumerate(self.requests):
            lines.append(f"#{i} {r.method} {r.path}{'?' + r.query if r.query else ''}{self.describe_request(r)}")
        return "\n".join(lines) or "(no requests)"
