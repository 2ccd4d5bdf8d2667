"""End-to-end: the plugin's slash commands (``commands/*.md``, rendered from plugin.toml by
``self-improve build-plugin``) in the real Claude Code client (2.1.328).

    .venv/bin/python -m pytest -m e2e tests/e2e/test_claude_plugin_commands.py -rs

What the client showed (each test pins it):

- ``claude plugin validate <checkout>`` lists ``commands: self-improve:learn`` and
  ``commands: self-improve:review``. It does not parse a command's frontmatter (a file with broken
  YAML is listed and passes too), so the turns below are the evidence that ours is read.
- ``claude -p "/self-improve:review" --plugin-dir <checkout>``: the first model request's first
  user message carries ``<command-message>self-improve:review</command-message>`` /
  ``<command-name>/self-improve:review</command-name>`` and then, as its own text block, the
  command's prompt: the file's body after the frontmatter, byte for byte. ``/self-improve:learn
  ARGS`` adds ``<command-args>ARGS</command-args>`` and puts ARGS where the prompt says
  ``$ARGUMENTS``.
- ``allowed-tools`` works, and only for the command's turn: without ``--allowedTools``, the
  commands it lists (``self-improve review --json``, ``config get …``, ``keys``, ``log …``) run;
  ``self-improve promote`` gets "This command requires approval", and so does ``review --json``
  in a plain turn.
- ``disable-model-invocation: true``: the model is not offered the commands (the skills listing
  of a plain turn names ``self-improve:self-improvement`` but neither command), yet the user's
  ``/self-improve:review`` still expands.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import CLAUDE, Timings
from tests.e2e.mock_anthropic import LoggedRequest, MockAnthropic, tool_results
from tests.e2e.npm_client import run_client
from self_improve.store.store import Store
from tests.e2e.claude_client import ClaudeInstall, ClaudeRun, claude_env, prepare_home
from tests.e2e.scenario import REPO, client_env, self_improve, turn_requests, why

pytestmark = pytest.mark.e2e

APPROVAL = "This command requires approval"
LOG_PNPM = ('self-improve log learning --category correction --pattern-key tooling.package-manager '
            '--action "Use pnpm, not npm: this is a pnpm workspace" "User: we use pnpm here"')


def command_body(name: str) -> str:
    """The prompt of ``commands/<name>.md``: everything after its frontmatter's blank line."""
    text = (REPO / "commands" / f"{name}.md").read_text()
    _, _, body = text.removeprefix("---\n").partition("\n---\n\n")
    return body


def claude_cmd(install: ClaudeInstall, home: Path, mock: MockAnthropic, *args: str) -> subprocess.CompletedProcess[str]:
    prepare_home(home)
    return subprocess.run([str(install.binary), *args], cwd=home, env=claude_env(home, mock.url), capture_output=True,
                          text=True, timeout=180, stdin=subprocess.DEVNULL, check=False)


def plugin_turn(install: ClaudeInstall, home: Path, project: Path, mock: MockAnthropic, prompt: str,
                timings: Timings) -> ClaudeRun:
    """``claude -p PROMPT --plugin-dir <checkout>`` WITHOUT ``--allowedTools``: only what a
    command's ``allowed-tools`` grants runs without asking (``run_claude`` always allows Bash)."""
    prepare_home(home, project)
    args = [str(install.binary), "-p", prompt, "--plugin-dir", str(REPO)]
    run = run_client(ClaudeRun, args, cwd=project, env=claude_env(home, mock.url, client_env()), home=home, timeout=120)
    timings.add(CLAUDE, "claude -p turn(s)", run.seconds)
    return run


def first_user_texts(request: LoggedRequest) -> list[str]:
    content = request.body["messages"][0]["content"]
    return [block.get("text", "") for block in content if isinstance(block, dict) and block.get("type") == "text"]


def results(request: LoggedRequest) -> list[tuple[str, bool]]:
    out = []
    for block in tool_results(request):
        content = block.get("content")
        text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
        out.append((text, bool(block.get("is_error"))))
    return out


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    self_improve(root, "--root", str(root), "init")
    return root


def test_plugin_validate_lists_both_commands(claude_install: ClaudeInstall, claude_home: Path,
                                            mock_anthropic: MockAnthropic) -> None:
    """``claude plugin validate`` passes and lists ``commands: self-improve:learn`` / ``:review``."""
    proc = claude_cmd(claude_install, claude_home, mock_anthropic, "plugin", "validate", str(REPO))
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0 and "Validation passed" in out, out
    listed = [line.strip() for line in out.splitlines() if "commands: " in line]
    assert listed == ["❯ commands: self-improve:learn", "❯ commands: self-improve:review"], out


def test_review_command_expands_and_runs_only_its_reads_unasked(
    project: Path, claude_install: ClaudeInstall, claude_home: Path, mock_anthropic: MockAnthropic, e2e_timings: Timings
) -> None:
    """The prompt arrives verbatim after the command tags; ``review --json`` and ``config get`` run
    (allowed-tools), ``promote`` is refused for approval: applying stays with the user."""
    mock_anthropic.commands = ["self-improve review --json", "self-improve config get promotion.agent_may_promote",
                               "self-improve promote ERR-20261201-aaa"]
    run = plugin_turn(claude_install, claude_home, project, mock_anthropic, "/self-improve:review", e2e_timings)
    first, *_, last = turn_requests(run, mock_anthropic)
    texts = first_user_texts(first)
    tags = "<command-message>self-improve:review</command-message>\n<command-name>/self-improve:review</command-name>\n"
    assert tags in texts, why(run, mock_anthropic)
    assert texts[texts.index(tags) + 1] == command_body("review"), why(run, mock_anthropic)
    assert results(last) == [
        ('{"promote": [], "archive": [], "retire": [], "revise": [], "lint": []}', False),
        ("false", False),
        (APPROVAL, True),
    ], why(run, mock_anthropic)


def test_learn_command_passes_its_arguments_and_logs_unasked(
    project: Path, claude_install: ClaudeInstall, claude_home: Path, mock_anthropic: MockAnthropic, e2e_timings: Timings
) -> None:
    """``/self-improve:learn we use pnpm here``: ``<command-args>``, the note in place of
    ``$ARGUMENTS``; ``self-improve keys`` and ``self-improve log`` run without asking and log."""
    mock_anthropic.commands = ["self-improve keys", LOG_PNPM]
    run = plugin_turn(claude_install, claude_home, project, mock_anthropic, "/self-improve:learn we use pnpm here",
                      e2e_timings)
    first, *_, last = turn_requests(run, mock_anthropic)
    texts = first_user_texts(first)
    tags = ("<command-message>self-improve:learn</command-message>\n<command-name>/self-improve:learn</command-name>\n"
            "<command-args>we use pnpm here</command-args>\n")
    assert tags in texts, why(run, mock_anthropic)
    body = command_body("learn")
    assert body.endswith("The user's note (may be empty): $ARGUMENTS\n"), body
    assert texts[texts.index(tags) + 1] == body.replace("$ARGUMENTS", "we use pnpm here"), why(run, mock_anthropic)
    (keys, keys_failed), (logged, log_failed) = results(last)
    assert (keys, keys_failed, log_failed) == ("no Pattern-Keys yet", False, False), why(run, mock_anthropic)
    learned = [e for e in Store(project).entries(kind="learning") if e.pattern_key == "tooling.package-manager"]
    assert len(learned) == 1 and logged == f"{learned[0].id} created in .learnings/LEARNINGS.md", why(run, mock_anthropic)


def test_commands_are_not_offered_to_the_model_and_need_approval_outside(
    project: Path, claude_install: ClaudeInstall, claude_home: Path, mock_anthropic: MockAnthropic, e2e_timings: Timings
) -> None:
    """A plain turn: the model's listing names our skill but neither command, and the same
    ``review --json`` the command runs unasked needs approval here."""
    mock_anthropic.command = "self-improve review --json"
    run = plugin_turn(claude_install, claude_home, project, mock_anthropic, "run the command", e2e_timings)
    first, second = turn_requests(run, mock_anthropic)
    assert "- self-improve:self-improvement: " in first.text, why(run, mock_anthropic)
    assert "self-improve:review" not in json.dumps(first.body), why(run, mock_anthropic)
    assert "self-improve:learn" not in json.dumps(first.body), why(run, mock_anthropic)
    assert results(second) == [(APPROVAL, True)], why(run, mock_anthropic)
