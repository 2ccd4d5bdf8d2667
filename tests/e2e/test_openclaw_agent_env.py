"""End to end: the real OpenClaw (2026.9.6) marks the environment of its ``exec`` tool, and
``self-improve promote`` run by the model there only proposes.

One ``openclaw agent --local`` turn (about 25 s with the client cached) against the loopback
mock, reusing the sandbox of ``test_openclaw_e2e.py``: the model runs ``env`` and then
``self-improve promote ID --yes`` in a project with one proven entry, output to a file beside
the project. Heavy: marked ``openclaw`` like the other OpenClaw test.
"""

from __future__ import annotations

import shlex
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from self_improve.harnesses import agent_env
from self_improve.harnesses import openclaw as openclaw_adapter
from tests.e2e.mock_openai import MockOpenAI, MockScript
from tests.e2e.openclaw_client import OpenClawInstall
from tests.e2e.scenario import VENV_BIN
from tests.e2e.test_openclaw_e2e import TIMINGS, TURN_TIMEOUT_S, Sandbox, sandbox, write_config  # noqa: F401
from tests.helpers import entry_text, tree_hash, write_project

if TYPE_CHECKING:
    from tests.e2e.conftest import Timings

pytestmark = pytest.mark.openclaw

ENTRY = "LRN-20260201-aaa"


def test_openclaw_exec_marks_its_environment_and_promote_only_proposes(
    openclaw_install: OpenClawInstall, sandbox: Sandbox, e2e_timings: Timings, tmp_path: Path  # noqa: F811
) -> None:
    project = sandbox.project
    write_project(project, [entry_text(ENTRY, "Use pnpm, not npm", action="Use `pnpm install`, not npm.",
                                       occurrences=[(3, "1a2b3c4d"), (2, "5e6f7a8b"), (1, "1a2b3c4d")])])
    (project / "CLAUDE.md").write_text("# Project\n", encoding="utf-8")
    before = tree_hash(project)
    env_file, promote_file = tmp_path / "env.txt", tmp_path / "promote.txt"
    cli = shlex.quote(str(VENV_BIN / "self-improve"))
    command = f"env > {shlex.quote(str(env_file))}; {cli} promote {ENTRY} --yes > {shlex.quote(str(promote_file))} 2>&1"
    script = MockScript(command=command, extra_arguments={"workdir": str(project)})
    with MockOpenAI(script) as mock, e2e_timings.timed(TIMINGS, "openclaw agent turn(s)"):
        write_config(sandbox, mock.base_url)
        proc = subprocess.run(
            openclaw_install.command("agent", "--local", "--agent", "main", "--session-id", "si-agent-env", "--message", "run it", "--json"),
            env=openclaw_install.env(sandbox.env()), cwd=sandbox.workspace, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=TURN_TIMEOUT_S, check=False,
        )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert len(mock.post_requests()) == 2, mock.describe()

    seen = dict(line.partition("=")[::2] for line in env_file.read_text().splitlines() if "=" in line)
    assert seen.get("OPENCLAW_SHELL") == "exec", sorted(seen)
    assert openclaw_adapter.agent_session(seen) and agent_env.agent_harness(seen) == "OpenClaw"
    assert promote_file.read_text() == (
        f"proposed: promote {ENTRY} to .claude/rules/self-improve.md\n"
        "rule:   Use `pnpm install`, not npm.\n"
        "target: .claude/rules/self-improve.md\n"
        "Nothing changed: inside OpenClaw this only proposes; a person approves every change to instruction files.\n"
        f"Ask the user to run, in their own terminal: self-improve promote {ENTRY}\n"
    )
    assert tree_hash(project) == before
