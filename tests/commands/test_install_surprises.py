"""Issue 14, items 1, 5 and 7: no surprising writes, no silent stop, no leftovers."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import SimpleNamespace

from self_improve.commands import doctor
from self_improve.events import ToolResult
from self_improve.harnesses import installer as inst
from self_improve.harnesses.claude.install import installer as claude_installer
from self_improve.review import block_file
from self_improve.store.detections import record_detection
from self_improve.store.projects import registry_path
from self_improve.store.store import HEADERS, Store
from self_improve.store.trust import find_store_root
from tests.helpers import REPO, run_cli


def test_home_counts_as_a_project_only_after_init_ran_there(tmp_path: Path) -> None:
    home = tmp_path / "home"
    scratch = home / "Downloads" / "scratch"
    scratch.mkdir(parents=True)
    Store(home).init()  # what the old install.sh did, run from ~
    assert find_store_root(str(scratch), str(home)) is None
    assert find_store_root(str(home), str(home)) is None
    result = run_cli("init", cwd=home, env={"HOME": str(home)})
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == "created .learnings/.state/home-opt-in\n"
    assert find_store_root(str(scratch), str(home)) == str(home)
    again = run_cli("init", cwd=home, env={"HOME": str(home)})
    assert again.stdout == f".learnings/ already initialised in {home}\n"
    assert "project=\"$(pwd -P)\"" not in (REPO / "install.sh").read_text()  # no implicit --project


def test_a_missing_errors_md_is_recreated_by_the_failing_path_and_reported_by_doctor(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.init()
    (tmp_path / ".learnings/ERRORS.md").unlink()
    learnings = (tmp_path / ".learnings/LEARNINGS.md").read_bytes()
    assert [c.render() for c in doctor.learnings_checks(tmp_path) if not c.ok] == [
        "✗ learnings: .learnings/ERRORS.md is missing: nothing can be recorded in it\n"
        "    fix: `self-improve init` creates the missing files (and changes no other)"
    ]
    detection = SimpleNamespace(pattern_key="build.make", title="make failed", excerpt="make: *** Error 2",
                                fingerprint="build.make/make:test")
    result = ToolResult(command="make test", exit_code=2, output="make: *** Error 2", cwd=str(tmp_path), session="s1")
    logged = record_detection(store, detection, result)
    assert logged is not None and logged.created
    text = (tmp_path / ".learnings/ERRORS.md").read_text()
    assert text.startswith(HEADERS["error"]) and f"## [{logged.entry_id}] make" in text
    assert (tmp_path / ".learnings/LEARNINGS.md").read_bytes() == learnings


def test_no_leftovers_and_nothing_of_anyone_else_removed(tmp_path: Path) -> None:
    # retire: the emptied file we created goes, and so does the docs/ we made for it.
    project = tmp_path / "project"
    project.mkdir()
    block_file.edit_file(project / "docs/AGENTS.md", project, lambda text: text + "rule\n")
    block_file.edit_file(project / "docs/AGENTS.md", project, lambda text: "")
    assert os.listdir(project) == []
    # ... but a docs/ that holds anything else stays.
    block_file.edit_file(project / "docs/AGENTS.md", project, lambda text: text + "rule\n")
    (project / "docs/notes.md").write_text("mine\n")
    block_file.edit_file(project / "docs/AGENTS.md", project, lambda text: "")
    assert os.listdir(project / "docs") == ["notes.md"]

    # install keeps no backup beside the user's file; uninstall gives back every byte.
    home = tmp_path / "home"
    settings = home / ".claude/settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(b'{"model": "opus"}\n')
    harness = claude_installer(REPO, python=sys.executable)
    (change, _) = harness.plan_install(inst.Target("user", home, home))
    change.apply()
    assert sorted(os.listdir(settings.parent)) == ["settings.json"]
    (change, _) = harness.plan_uninstall(inst.Target("user", home, home))
    change.apply()
    assert sorted(os.listdir(settings.parent)) == ["settings.json"]
    assert settings.read_bytes() == b'{"model": "opus"}\n'
    assert not inst.backup_path(settings).exists()

    # doctor's scratch project leaves no line in the project registry.
    before = registry_path().read_text() if registry_path().exists() else ""
    check = doctor._fire("claude", [str(REPO / "hooks/post-bash")], "post-bash", {"SELF_IMPROVE_PYTHON": sys.executable})
    assert check.ok, check.what
    after = registry_path().read_text() if registry_path().exists() else ""
    assert after == before
