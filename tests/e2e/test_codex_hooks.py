"""End to end: our hooks inside the real Codex CLI (``codex exec``, codex-cli 0.171.0).

Each test runs one headless turn of the real client (installed from npm by ``codex_client.py``)
against a loopback mock of the OpenAI Responses API (``mock_responses.py``): the prompt is
answered with one shell call running a chosen command, the call's result with a final message.
The mock logs every request, so the tests assert on what the model was actually shown.

Setup per test, as a user would do it:

1. ``self-improve --root P init`` (creates ``P/.learnings/``);
2. ``self-improve install --harness codex --scope project --project P`` with HOME isolated (writes
   ``P/.codex/hooks.json`` — the real installer, nothing hand-written);
3. the consent Codex asks for before it runs those hooks, recorded in the isolated
   ``HOME/.codex/config.toml`` exactly as the interactive client records it: the project trusted
   (``[projects."P"] trust_level = "trusted"``) and each hook trusted with the hash Codex computed
   (``[hooks.state."P/.codex/hooks.json:<event>:0:0"] trusted_hash``), via ``codex app-server``'s
   ``hooks/list`` + ``config/batchWrite`` like the TUI's /hooks screen (see ``codex_client.py``).
   Without step 3 Codex 0.171.0 skips the hooks silently (``test_untrusted_hooks_are_skipped``).

Where Codex puts hook context (observed, 0.171.0): the ``additionalContext`` text verbatim as a
developer message — after the user's prompt for UserPromptSubmit, and after the model's
``function_call`` but *before* that call's ``function_call_output`` for PostToolUse (both in
the request that follows the tool run). A failing command fires PostToolUse (there is no
PostToolUseFailure), with ``tool_response`` as a plain string and no exit code.

Debugging a failure: the assertion message carries codex's ``--json`` event stream and stderr,
the mock's request list, every input item of the last model request (long ones clipped), and
the tail of our hooks' debug log in the isolated HOME. To see what Codex thinks of the hooks,
run ``codex app-server`` with that HOME and send ``hooks/list`` (``trustStatus`` per hook).

The canary test uses throwaway hooks, so it proves the harness (install, mock, trust, HOME)
independently of our hooks: if it fails, fix the infrastructure first.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from tests.e2e.codex_client import (
    CodexInstall,
    CodexRun,
    ensure_codex,
    install_dir,
    run_codex,
    trust_project_and_hooks,
)
from tests.e2e.mock_responses import (
    LoggedRequest,
    MockResponses,
    context_after_prompt,
    context_for_tool_call,
    message_texts,
    summarize_items,
    tool_outputs,
)

pytestmark = pytest.mark.e2e

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent  # not resolved: a venv's python is a symlink

PROMPT = "run the command"
FAILING = 'python3 -c "import nosuchmod"'
PASSING = "echo hello"
PATTERN_KEY = "deps.module-not-found"
REMINDER = "<self-improvement-reminder>"
ERROR_TAG = "<error-detected>"


# --- timings, shown at the end of the run ---------------------------------------------


class _Summary:
    """A tiny plugin registered at runtime: test modules cannot implement terminal hooks."""

    def __init__(self) -> None:
        self.install: CodexInstall | None = None
        self.trust: list[float] = []
        self.turns: list[tuple[str, float]] = []

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.install is None and not self.turns:
            return
        terminalreporter.section("codex e2e")
        if self.install is not None:
            how = ("taken from cache" if self.install.cached
                   else f"installed by npm in {self.install.install_seconds:.1f}s")
            terminalreporter.write_line(f"codex {self.install.version}: {how} ({install_dir(self.install.version)})")
        if self.trust:
            terminalreporter.write_line(f"{len(self.trust)} trust setup(s) via codex app-server: "
                                        f"max {max(self.trust):.1f}s")
        if self.turns:
            seconds = [s for _, s in self.turns]
            terminalreporter.write_line(
                f"{len(seconds)} codex exec turn(s): min {min(seconds):.1f}s, max {max(seconds):.1f}s, "
                f"total {sum(seconds):.1f}s"
            )


@pytest.fixture(scope="session")
def codex_summary(pytestconfig: pytest.Config) -> _Summary:
    summary = _Summary()
    pytestconfig.pluginmanager.register(summary, "self-improve-codex-e2e-summary")
    return summary


# --- fixtures -----------------------------------------------------------------------


@pytest.fixture(scope="session")
def codex_install(codex_summary: _Summary) -> CodexInstall:
    install = ensure_codex()
    codex_summary.install = install
    return install


@pytest.fixture
def mock_responses() -> Iterator[MockResponses]:
    with MockResponses() as mock:
        yield mock


@pytest.fixture
def codex_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


class RunCodex(Protocol):
    def __call__(self, project_dir: Path, prompt: str, **kwargs: Any) -> CodexRun: ...


@pytest.fixture
def codex(codex_install: CodexInstall, mock_responses: MockResponses, codex_home: Path,
          codex_summary: _Summary, request: pytest.FixtureRequest) -> RunCodex:
    """``codex(project, prompt, **kw)``: one ``codex exec`` turn against ``mock_responses``."""

    def run(project_dir: Path, prompt: str, **kwargs: Any) -> CodexRun:
        kwargs.setdefault("home", codex_home)
        kwargs.setdefault("binary", codex_install.binary)
        kwargs.setdefault("env_extra", client_env())
        result = run_codex(project_dir, prompt, mock_responses.base_url, **kwargs)
        codex_summary.turns.append((request.node.nodeid, result.seconds))
        return result

    return run


@pytest.fixture
def trust(codex_install: CodexInstall, codex_home: Path, codex_summary: _Summary) -> Any:
    """``trust(project, **kw)``: the user's consent to the project and its hooks (see module doc)."""

    def grant(project: Path, **kwargs: Any) -> list[dict]:
        started = time.monotonic()
        hooks = trust_project_and_hooks(codex_home, project, binary=codex_install.binary, **kwargs)
        codex_summary.trust.append(time.monotonic() - started)
        return hooks

    return grant


@pytest.fixture
def installed_project(tmp_path: Path, codex_home: Path) -> Path:
    """A project with ``.learnings/`` and our hooks installed by the real installer (not trusted yet)."""
    root = tmp_path / "project"
    root.mkdir()
    self_improve(root, "--root", str(root), "init")
    assert (root / ".learnings").is_dir(), "self-improve init did not create .learnings/"
    self_improve(root, "install", "--harness", "codex", "--scope", "project", "--project", str(root), home=codex_home)
    assert hooks_file(root).is_file(), f"the installer wrote no {hooks_file(root)}"
    return root


@pytest.fixture
def project(installed_project: Path, trust: Any) -> Path:
    """``installed_project`` with the project and our two hooks trusted, as the user would."""
    trusted = trust(installed_project, select=lambda hook: is_ours(hook, installed_project), expect=2)
    events = sorted(hook["eventName"] for hook in trusted if is_ours(hook, installed_project))
    assert events == ["postToolUse", "userPromptSubmit"], json.dumps(trusted, indent=1)
    return installed_project


# --- helpers ------------------------------------------------------------------------


def hooks_file(project: Path) -> Path:
    return project / ".codex" / "hooks.json"


def is_ours(hook: dict, project: Path) -> bool:
    """A hook from the project's ``.codex/hooks.json`` that runs one of our scripts."""
    return (
        Path(hook.get("sourcePath", "")).resolve() == hooks_file(project).resolve()
        and str(REPO / "hooks") in (hook.get("command") or "")
    )


def client_env() -> dict[str, str]:
    """The venv's bin first on PATH, so ``self-improve`` also runs from the model's shell."""
    return {"PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', os.defpath)}"}


def self_improve(cwd: Path, *args: str, home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run our CLI as the user would; fail the test on a non-zero exit."""
    cmd = [str(VENV_BIN / "self-improve"), *args]
    env = dict(os.environ, HOME=str(home)) if home is not None else None
    proc = subprocess.run(cmd, check=False, cwd=cwd, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL, env=env)
    assert proc.returncode == 0, f"{' '.join(cmd)} exited {proc.returncode}\n{proc.stdout}{proc.stderr}"
    return proc


def error_entries(project: Path, pattern_key: str = PATTERN_KEY) -> list[Any]:
    """Error entries with ``pattern_key``, read through the store's public API."""
    from self_improve.store.store import Store

    return [e for e in Store(project).entries(kind="error") if e.pattern_key == pattern_key]


def why(run: CodexRun, mock: MockResponses) -> str:
    """Context for an assertion message: the client's output, the request log, the last request."""
    requests = mock.responses_requests()
    last = summarize_items(requests[-1]) if requests else "(none)"
    text = f"\n{run.describe()}\n--- requests ---\n{mock.describe()}\n--- last model request's input ---\n{last}"
    hook_log = run.home / ".local" / "state" / "self-improve" / "debug.log"
    if hook_log.is_file():
        text += f"\n--- {hook_log} (tail) ---\n{hook_log.read_text(errors='replace')[-3000:]}"
    return text


def one_turn(run: CodexRun, mock: MockResponses) -> tuple[LoggedRequest, LoggedRequest]:
    """The turn's two model requests: the prompt (answered with a shell call), then its result."""
    requests = mock.conversation_requests()
    assert run.returncode == 0, f"codex exec failed{why(run, mock)}"
    assert not mock.errors, f"the mock itself failed{why(run, mock)}"
    kinds = [r.response_kind for r in requests]
    assert kinds == ["function_call", "message"], f"unexpected conversation{why(run, mock)}"
    first, second = requests
    assert tool_outputs(second), f"second request carries no function_call_output{why(run, mock)}"
    return first, second


def executed_commands(run: CodexRun) -> list[dict]:
    """The ``command_execution`` items Codex reported as completed (``--json`` stream)."""
    return [
        event["item"]
        for event in run.events
        if event.get("type") == "item.completed" and (event.get("item") or {}).get("type") == "command_execution"
    ]


# --- the harness itself -------------------------------------------------------------


CANARY_HOOK = """#!/bin/sh
payload=$(cat)
event=$(printf '%s' "$payload" | sed -n 's/.*"hook_event_name": *"\\([A-Za-z]*\\)".*/\\1/p')
printf '%s' "$payload" > "$(dirname "$0")/$event.stdin.json"
printf '{"hookSpecificOutput": {"hookEventName": "%s", "additionalContext": "<canary>%s saw it</canary>"}}\\n' \\
    "$event" "$event"
"""


def test_canary_client_delivers_hook_context_to_the_model(
    tmp_path: Path, codex: RunCodex, trust: Any, mock_responses: MockResponses
) -> None:
    """Throwaway hooks (not ours) prove install + mock + trust + HOME work end to end."""
    hooks = tmp_path / "canary-hooks"
    hooks.mkdir()
    script = hooks / "canary"
    script.write_text(CANARY_HOOK)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    project = tmp_path / "project"
    (project / ".codex").mkdir(parents=True)
    registration = [{"hooks": [{"type": "command", "command": str(script), "timeout": 30}]}]
    hooks_file(project).write_text(json.dumps({"hooks": {
        "UserPromptSubmit": registration,
        "PostToolUse": [dict(registration[0], matcher="Bash")],
    }}, indent=2))
    trust(project, expect=2)
    mock_responses.command = FAILING

    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    assert context_after_prompt(first, PROMPT) == "<canary>UserPromptSubmit saw it</canary>", why(run, mock_responses)
    assert "<canary>PostToolUse" not in first.text, why(run, mock_responses)
    assert "No module named 'nosuchmod'" in "\n".join(tool_outputs(second)), why(run, mock_responses)
    assert context_for_tool_call(second) == "<canary>PostToolUse saw it</canary>", why(run, mock_responses)
    # the hook payload, as our post-bash hook parses it
    payload = json.loads((hooks / "PostToolUse.stdin.json").read_text())
    assert payload["tool_name"] == "Bash" and payload["tool_input"]["command"] == FAILING, payload
    assert isinstance(payload["tool_response"], str) and "No module named 'nosuchmod'" in payload["tool_response"]
    assert Path(payload["cwd"]).resolve() == project.resolve(), payload
    assert payload.get("turn_id") and payload.get("model") == "gpt-mock", payload
    prompt_payload = json.loads((hooks / "UserPromptSubmit.stdin.json").read_text())
    assert prompt_payload["prompt"] == PROMPT, prompt_payload


def test_untrusted_hooks_are_skipped(
    installed_project: Path, codex: RunCodex, trust: Any, mock_responses: MockResponses
) -> None:
    """Why the trust step exists: in a trusted project, installed but unreviewed hooks do not run,
    and Codex says nothing about it (the installer's note warns the user)."""
    listed = trust(installed_project, select=lambda hook: False)  # the project only
    ours = [hook for hook in listed if is_ours(hook, installed_project)]
    assert sorted(hook["trustStatus"] for hook in ours) == ["untrusted", "untrusted"], json.dumps(listed, indent=1)
    mock_responses.command = FAILING

    run = codex(installed_project, PROMPT)
    one_turn(run, mock_responses)

    for request in mock_responses.responses_requests():
        assert REMINDER not in request.text and ERROR_TAG not in request.text, why(run, mock_responses)
    assert error_entries(installed_project) == [], why(run, mock_responses)
    stderr = run.stderr.replace(str(run.home.parent), "TMP")  # the test's tmp path has "hooks" in its name
    assert "hook" not in stderr.lower(), f"codex did warn about the hooks after all{why(run, mock_responses)}"


# --- the acceptance tests ------------------------------------------------------------


def test_failing_command_is_nudged_and_recorded(
    project: Path, codex: RunCodex, mock_responses: MockResponses
) -> None:
    mock_responses.command = FAILING
    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    # Codex really ran the command, and it failed
    commands = executed_commands(run)
    assert len(commands) == 1 and FAILING in commands[0]["command"], why(run, mock_responses)
    assert commands[0].get("exit_code") == 1, why(run, mock_responses)
    # (i) the reminder reached the model together with the prompt
    assert PROMPT in message_texts(first, "user"), why(run, mock_responses)
    assert REMINDER in context_after_prompt(first, PROMPT), why(run, mock_responses)
    assert ERROR_TAG not in first.text, why(run, mock_responses)
    # (ii) with the failing tool result, the post-bash hook's nudge names the pattern
    assert "No module named 'nosuchmod'" in "\n".join(tool_outputs(second)), why(run, mock_responses)
    nudge = context_for_tool_call(second)
    assert ERROR_TAG in nudge and PATTERN_KEY in nudge, why(run, mock_responses)
    assert second.text.count(ERROR_TAG) == 1, why(run, mock_responses)
    # (iii) and it was recorded
    errors_md = project / ".learnings" / "ERRORS.md"
    assert errors_md.is_file(), f"no {errors_md}{why(run, mock_responses)}"
    assert f"- Pattern-Key: {PATTERN_KEY}" in errors_md.read_text(), errors_md.read_text()
    assert len(error_entries(project)) == 1, errors_md.read_text()


def test_passing_command_is_not_nudged(project: Path, codex: RunCodex, mock_responses: MockResponses) -> None:
    mock_responses.command = PASSING
    run = codex(project, PROMPT)
    first, second = one_turn(run, mock_responses)

    assert any(output.rstrip().endswith("hello") for output in tool_outputs(second)), why(run, mock_responses)
    # our hooks are live in this session (so the absence below means something)
    assert REMINDER in context_after_prompt(first, PROMPT), why(run, mock_responses)
    for request in mock_responses.responses_requests():
        assert ERROR_TAG not in request.text, why(run, mock_responses)
    assert context_for_tool_call(second) == "", why(run, mock_responses)
    assert error_entries(project) == [], why(run, mock_responses)
