"""The hot path's one rule, checked instead of repeated in comments: a clean post-bash (and a
prompt-submit that is no correction) imports none of the modules that would cost the user
start-up time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from self_improve.store.store import Store
from tests.helpers import FIXTURES, REPO

HEAVY = ("re", "json", "pathlib", "typing", "dataclasses", "collections")

PROBE = f"""
import io, sys
sys.path.insert(0, sys.argv[1])
sys.stdin = io.TextIOWrapper(io.BytesIO(sys.argv[3].encode()))
from self_improve.hooks import run as hooks
hooks.run(sys.argv[2])
sys.stdout.write("\\n" + " ".join(sorted(m for m in sys.modules if m in {HEAVY!r})))
"""


def loaded(hook: str, payload: dict[str, object], home: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SELF_IMPROVE_"))}
    result = subprocess.run([sys.executable, "-I", "-S", "-c", PROBE, str(REPO), hook, json.dumps(payload)],
                            capture_output=True, text=True, timeout=60, env={**env, "HOME": str(home)})
    assert result.returncode == 0, result.stderr
    return result.stdout.rsplit("\n", 1)[-1].split()


def project_and_home(tmp_path: Path) -> tuple[Path, Path]:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    Store(project).init()
    return project, home


def fixture(name: str, **changes: object) -> dict[str, object]:
    return {**json.loads((FIXTURES / "claude" / f"{name}.json").read_text()), **changes}


def test_a_passing_command_imports_nothing_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    passing = fixture("PostToolUse", cwd=str(project), tool_input={"command": "make build", "description": "build"},
                      tool_response={"stdout": "build ok\n", "stderr": "", "interrupted": False, "isImage": False})
    loaded("post-bash", passing, home)  # the first call of all writes the rules cache the pre-screen reads
    assert loaded("post-bash", passing, home) == []
    assert loaded("post-bash", passing, home) == []


def test_a_prompt_that_is_no_correction_imports_nothing_heavy(tmp_path: Path) -> None:
    project, home = project_and_home(tmp_path)
    prompt = fixture("UserPromptSubmit", cwd=str(project), prompt="please add a test for the parser")
    assert loaded("prompt-submit", prompt, home) == []
    assert loaded("prompt-submit", prompt, home) == []
