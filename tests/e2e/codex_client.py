"""The real Codex CLI, installed once from npm, plus helpers that trust hooks and run one headless turn.

Install: ``npm install @openai/codex@0.171.0`` into a cache directory outside the repo,
``${SELF_IMPROVE_TEST_CACHE:-~/.cache/self-improve-tests}/codex-0.171.0`` (npm pulls the native
binary for this platform as an optional dependency, ~420 MB unpacked), by the shared scheme of
``npm_client.py``: an exclusive ``flock`` on a sibling ``.lock`` file, a staging directory renamed
into place, a ``.installed`` stamp (JSON: version, install seconds), and ``codex --version``
re-checked on a cached install (which also proves the native binary is there).

Skips: only when ``npm`` is not on PATH or the npm registry cannot be reached, with the reason in
the skip message; ``SELF_IMPROVE_E2E_REQUIRED=1`` turns those skips into failures. Anything else
(npm error, missing native binary, wrong version) is a test failure.

Isolation: every call gets ``HOME`` and ``CODEX_HOME=HOME/.codex`` from the caller and an
environment scrubbed down to PATH/locale (no ``OPENAI_*`` / ``CODEX_*`` leak in). The model
provider is passed on the command line (``-c model_providers.mock=...``, base_url = the mock,
``wire_api = "responses"``, key from ``SELF_IMPROVE_MOCK_KEY``), so ``CODEX_HOME/config.toml``
holds only what a user's own consent writes there (see :func:`trust_project_and_hooks`).

Hook trust (codex-cli 0.171.0): hooks from ``~/.codex/hooks.json`` or ``<project>/.codex/hooks.json``
are discovered but run only when trusted, and an untrusted hook is skipped with no warning at all
in ``codex exec``. Two consents are needed for project hooks, both recorded in the user's
``$CODEX_HOME/config.toml``:

* the project: ``[projects."<abs project dir>"] trust_level = "trusted"`` (the trust prompt of the
  interactive client; without it ``<project>/.codex/`` is loaded as a disabled layer and its
  hooks are not even listed);
* each hook: ``[hooks.state."<abs path of hooks.json>:<event>:<group>:<handler>"] trusted_hash =
  "sha256:..."``, written by the /hooks review screen of the TUI, which calls the app-server's
  ``hooks/list`` (each hook's ``key`` and ``currentHash``) and then ``config/batchWrite`` with
  ``{"keyPath": "hooks.state", "value": {key: {"trusted_hash": currentHash}}, "mergeStrategy":
  "upsert"}`` (openai/codex ``codex-rs/tui``, ``write_hook_trusts``). The hash covers the event,
  matcher and the handler (command, timeout, async), not the script's contents: reinstalling
  with a different command or timeout makes the hook "modified", i.e. untrusted again.

:func:`trust_project_and_hooks` performs exactly those writes through ``codex app-server`` (stdio
JSON-RPC), so Codex computes the keys and hashes itself; the test does not reimplement them.
``--dangerously-bypass-hook-trust`` would also run the hooks, but it would hide a broken trust
story, so the tests do not use it.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

import pytest

from tests.e2e.npm_client import (
    ClientRun,
    NpmBinary,
    NpmInstall,
    run_client,
    scrubbed_env,
)

CODEX_PACKAGE = "@openai/codex"
CODEX_VERSION = "0.171.0"
DEFAULT_TIMEOUT = 120.0
APP_SERVER_TIMEOUT = 60.0
MOCK_PROVIDER = "mock"
MOCK_MODEL = "gpt-mock"
MOCK_KEY_ENV = "SELF_IMPROVE_MOCK_KEY"

CodexInstall = NpmInstall


@dataclass(frozen=True)
class CodexRun(ClientRun):
    label: ClassVar[str] = "codex exec"

    @property
    def events(self) -> list[dict]:
        """The ``--json`` event stream (JSONL on stdout)."""
        out = []
        for line in self.stdout.splitlines():
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if isinstance(event, dict):
                    out.append(event)
        return out


# --- install ------------------------------------------------------------------------


def _package(version: str = CODEX_VERSION) -> NpmBinary:
    return NpmBinary(CODEX_PACKAGE, version, bin="codex", name="codex", label="Codex", version_env=codex_env)


def install_dir(version: str = CODEX_VERSION) -> Path:
    return _package(version).install_dir()


def ensure_codex(version: str = CODEX_VERSION) -> CodexInstall:
    """The ``codex`` binary of ``@openai/codex@VERSION``, installing it once if needed."""
    return _package(version).ensure()


# --- environment -----------------------------------------------------------------------


def codex_home(home: Path) -> Path:
    return home / ".codex"


def codex_env(home: Path, env_extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """A scrubbed environment: PATH/locale from the caller, HOME and CODEX_HOME isolated."""
    home.mkdir(parents=True, exist_ok=True)
    codex_home(home).mkdir(exist_ok=True)
    env = scrubbed_env(home)
    env.update({"CODEX_HOME": str(codex_home(home)), MOCK_KEY_ENV: "dummy"})
    if env_extra:
        env.update(env_extra)
    return env


def _toml_string(value: str) -> str:
    return json.dumps(value)  # a JSON string is a valid TOML basic string


def provider_args(base_url: str) -> list[str]:
    """``-c`` overrides pointing Codex at the mock; nothing of it lands in config.toml."""
    provider = (
        f'{{ name = "mock", base_url = {_toml_string(base_url)}, wire_api = "responses", '
        f'env_key = "{MOCK_KEY_ENV}", request_max_retries = 0, stream_max_retries = 0 }}'
    )
    return [
        "-c", f"model_providers.{MOCK_PROVIDER}={provider}",
        "-c", f'model_provider="{MOCK_PROVIDER}"',
        "-c", f'model="{MOCK_MODEL}"',
        "-c", 'approval_policy="never"',
        "-c", "check_for_update_on_startup=false",
        "-c", "analytics.enabled=false",
    ]


# --- trust: what the user's consent writes --------------------------------------------


class AppServer:
    """``codex app-server`` over stdio (JSON-RPC, one JSON object a line)."""

    def __init__(self, binary: Path, home: Path, cwd: Path, timeout: float = APP_SERVER_TIMEOUT) -> None:
        self.timeout = timeout
        self._ids = iter(range(1, 1_000_000))
        self.notifications: list[dict] = []
        self.proc = subprocess.Popen(
            [str(binary), "app-server"],
            cwd=cwd,
            env=codex_env(home),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self._lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self._stderr.append), daemon=True).start()

    @staticmethod
    def _pump(stream: Any, sink: Callable[[Any], None]) -> None:
        for line in stream:
            sink(line)
        sink(None)

    def request(self, method: str, params: Any = None) -> Any:
        request_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                pytest.fail(f"codex app-server: no answer to {method} within {self.timeout:.0f}s{self.describe()}")
            if line is None:
                pytest.fail(f"codex app-server exited while waiting for {method}{self.describe()}")
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if message.get("id") != request_id:
                if "method" in message:
                    self.notifications.append(message)
                continue
            if "error" in message:
                pytest.fail(f"codex app-server: {method} failed: {message['error']}{self.describe()}")
            return message.get("result")

    def notify(self, method: str, params: Any = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self._send(message)

    def _send(self, message: dict) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message) + "\n")
        self.proc.stdin.flush()

    def describe(self) -> str:
        notes = "\n".join(json.dumps(n)[:300] for n in self.notifications[-10:])
        stderr = "".join(s for s in self._stderr if s)[-3000:]
        return f"\n--- notifications ---\n{notes}\n--- stderr ---\n{stderr}"

    def close(self) -> None:
        with contextlib.suppress(Exception):
            assert self.proc.stdin is not None
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> Self:
        self.request("initialize", {"clientInfo": {"name": "self-improve-e2e", "version": "1"}})
        self.notify("initialized")
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def list_hooks(server: AppServer, cwd: Path) -> list[dict]:
    """``hooks/list`` for one directory: every discovered hook with key, currentHash, trustStatus."""
    result = server.request("hooks/list", {"cwds": [str(cwd)]})
    entries = result.get("data") or []
    for entry in entries:
        if entry.get("errors"):
            pytest.fail(f"codex hooks/list reports errors for {entry.get('cwd')}: {entry['errors']}")
    return [hook for entry in entries for hook in entry.get("hooks") or []]


def trust_project_and_hooks(
    home: Path,
    project: Path,
    *,
    binary: Path,
    select: Callable[[dict], bool] = lambda hook: True,
    expect: int | None = None,
) -> list[dict]:
    """Record, in ``HOME/.codex/config.toml``, the consent a user gives interactively: trust the
    project directory, then trust the hooks Codex lists for it (those ``select`` accepts) with the
    hash Codex computed, through the same ``config/batchWrite`` call as the TUI's /hooks screen.

    Returns every hook ``hooks/list`` reports for the project afterwards (the selected ones are
    ``trusted``). Fails when the number of selected hooks is not ``expect`` or one of them stays
    untrusted. ``select=lambda hook: False`` trusts the project only.
    """
    project_key = str(project.resolve())
    with AppServer(binary, home, project) as server:
        # the client's "Do you trust this folder?" answer
        server.request(
            "config/batchWrite",
            {
                "edits": [{"keyPath": "projects", "value": {project_key: {"trust_level": "trusted"}},
                           "mergeStrategy": "upsert"}],
                "reloadUserConfig": True,
            },
        )
        chosen = [hook for hook in list_hooks(server, project) if select(hook)]
        if expect is not None and len(chosen) != expect:
            pytest.fail(f"codex hooks/list found {len(chosen)} hook(s) to trust, expected {expect}: "
                        f"{json.dumps(chosen, indent=1)}{server.describe()}")
        if chosen:
            # the /hooks review screen's "trust" (openai/codex codex-rs/tui: write_hook_trusts)
            server.request(
                "config/batchWrite",
                {
                    "edits": [{
                        "keyPath": "hooks.state",
                        "value": {hook["key"]: {"trusted_hash": hook["currentHash"]} for hook in chosen},
                        "mergeStrategy": "upsert",
                    }],
                    "reloadUserConfig": True,
                },
            )
        after = list_hooks(server, project)
    keys = {hook["key"] for hook in chosen}
    trusted = [hook for hook in after if hook["key"] in keys and hook.get("trustStatus") == "trusted"
               and hook.get("enabled")]
    if len(trusted) != len(keys):
        pytest.fail(f"codex does not trust the hooks it was told to trust: {json.dumps(after, indent=1)}")
    return after


# --- running --------------------------------------------------------------------------


def run_codex(
    project_dir: Path | str,
    prompt: str,
    base_url: str,
    *,
    home: Path | str | None = None,
    env_extra: Mapping[str, str] | None = None,
    extra_args: Sequence[str] = (),
    timeout: float = DEFAULT_TIMEOUT,
    binary: Path | str | None = None,
) -> CodexRun:
    """Run one headless turn: ``codex exec --json ... PROMPT`` in ``project_dir`` against the mock.

    ``--sandbox danger-full-access`` + ``approval_policy="never"`` let the model's one shell
    command run unattended (as root, without bubblewrap). ``home`` defaults to a fresh temporary
    directory; pass the same one for a second session of the same user. ``env_extra`` is applied
    last (e.g. ``PATH`` with the venv's bin first). The run is killed (its whole process group)
    after ``timeout`` seconds, which fails the test.
    """
    project = Path(project_dir).absolute()
    home_path = Path(home) if home is not None else Path(tempfile.mkdtemp(prefix="codex-home-"))
    codex = Path(binary) if binary is not None else ensure_codex().binary
    args = [
        str(codex), "exec",
        *provider_args(base_url),
        "--sandbox", "danger-full-access",
        "--skip-git-repo-check",
        "--color", "never",
        "--json",
        *extra_args,
        prompt,
    ]
    env = codex_env(home_path, env_extra)
    return run_client(CodexRun, args, cwd=project, env=env, home=home_path, timeout=timeout)
