"""Issue 14, item 2: the shared project settings name no path of this machine."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from self_improve.harnesses import installer as inst
from self_improve.harnesses.claude.install import installer as claude_installer
from tests.helpers import REPO

PORTABLE = "command -v self-improve >/dev/null 2>&1 && self-improve hook post-bash || true"


def test_project_scope_writes_the_portable_command_and_it_exits_0_without_self_improve(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    harness = claude_installer(REPO, python="/opt/py/bin/python3")
    (change, _) = harness.plan_install(inst.Target("project", project, home))
    change.apply()
    shared = (project / ".claude/settings.json").read_text()
    assert str(REPO) not in shared and "/opt/py" not in shared
    commands = [line.strip() for line in shared.splitlines() if '"command":' in line]
    assert commands == [f'"command": "{inst.portable_hook_command(s)}",' for s in ("post-bash", "post-bash", "pre-bash", "session-ready", "prompt-submit")]
    assert inst.portable_hook_command("post-bash") == PORTABLE
    # Local scope may pin this machine's paths.
    (local, _) = harness.plan_install(inst.Target("local", project, home))
    assert f"SELF_IMPROVE_PYTHON=/opt/py/bin/python3 {REPO}/hooks/post-bash" in (local.after or b"").decode()

    # A teammate without self-improve: nothing happens, exit 0. One whose CLI fails (exit 2): exit 0.
    bare = tmp_path / "bin"
    bare.mkdir()
    env = {"PATH": f"{bare}:/usr/bin:/bin", "HOME": str(home)}
    run = subprocess.run(["/bin/sh", "-c", PORTABLE], input=b"{}", capture_output=True, env=env, timeout=30)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")
    (bare / "self-improve").write_text("#!/bin/sh\nexit 2\n")
    os.chmod(bare / "self-improve", 0o755)
    run = subprocess.run(["/bin/sh", "-c", PORTABLE], input=b"{}", capture_output=True, env=env, timeout=30)
    assert (run.returncode, run.stdout, run.stderr) == (0, b"", b"")

    # Reinstalling recognises the portable commands as ours: nothing to change; uninstall takes
    # the file and the .claude/ it created away.
    (again, _) = harness.plan_install(inst.Target("project", project, home))
    assert not again.changed
    (gone, _) = harness.plan_uninstall(inst.Target("project", project, home))
    gone.apply()
    assert sorted(os.listdir(project)) == []
