"""Issue 14, item 9: every marker error, on every verb, names the file.

A begin marker without its end, or our block twice, is reported by ``lint`` and ``doctor`` (the
drift check) and refused by every verb that would write the file, with the file's name first,
as ``lint`` names it; a refusal writes nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import run_cli, tree_hash

BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) sha:{sha} -->\n"
NO_END = "begin marker on line 1 has no end marker"
TWO_BLOCKS = "2 blocks (begin on lines 1, 5), expected at most one"


def _project(tmp_path: Path) -> tuple[Path, str, str]:
    """A project with one rule promoted into CLAUDE.md and one more pending entry."""
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    for key, summary, action in (
        ("tests.run", "Use pytest -q, not unittest", "Run pytest -q, not python -m unittest"),
        ("git.push", "Never force push", "Never force-push to main"),
    ):
        logged = run_cli("log", "learning", "--category", "correction", "--pattern-key", key, summary, "--action", action, cwd=tmp_path)
        assert logged.returncode == 0, logged.stderr
    listed = json.loads(run_cli("list", "--json", cwd=tmp_path).stdout)
    promoted, pending = listed[0]["id"], listed[1]["id"]
    result = run_cli("promote", promoted, "--yes", "--target", "CLAUDE.md", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    return tmp_path, promoted, pending


def _damage(project: Path, how: str) -> None:
    good = (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert good.startswith("<!-- self-improve:begin") and good.count("\n") == 4
    (project / "CLAUDE.md").write_text("".join(good.splitlines(keepends=True)[:3]) if how == "no-end" else good + good, encoding="utf-8")


def _reason(how: str) -> str:
    return f"damaged self-improve markers: {NO_END if how == 'no-end' else TWO_BLOCKS}; fix them by hand"


@pytest.mark.parametrize("how", ["no-end", "two-blocks"])
@pytest.mark.parametrize("verb", ["promote", "promote --dry-run", "retire", "retire --dry-run"])
def test_a_verb_that_would_write_the_file_names_it_and_writes_nothing(tmp_path: Path, how: str, verb: str) -> None:
    project, promoted, pending = _project(tmp_path)
    _damage(project, how)
    words = verb.split()
    args = [words[0], pending, "--yes", "--target", "CLAUDE.md"] if words[0] == "promote" else [words[0], promoted, "--yes"]
    before = tree_hash(project)
    result = run_cli(*args, *words[1:], cwd=project)
    assert (result.returncode, result.stdout, result.stderr) == (1, "", f"self-improve: error: CLAUDE.md: {_reason(how)}\n")
    assert tree_hash(project) == before


@pytest.mark.parametrize("how", ["no-end", "two-blocks"])
def test_lint_review_and_doctor_report_the_damage_with_the_file_and_line(tmp_path: Path, how: str) -> None:
    project, _, _ = _project(tmp_path)
    _damage(project, how)
    line = 1 if how == "no-end" else 5
    where = f"CLAUDE.md:{line}: {_reason(how)}"
    before = _user_files(project)

    lint = run_cli("lint", cwd=project)
    assert lint.returncode == 1 and where + "\n" in lint.stdout

    review = run_cli("review", "--yes", cwd=project)
    assert f"drift: {where} (fix the markers by hand; nothing is changed automatically)\n" in review.stdout

    drift = json.loads(run_cli("review", "--json", cwd=project).stdout)["drift"]
    assert [(d["kind"], d["file"], d["line"], d["reason"]) for d in drift] == [("damaged_markers", "CLAUDE.md", line, _reason(how))]

    doctor = run_cli("doctor", cwd=project)
    assert f"✗ rules: lint: {where}\n" in doctor.stdout
    assert _user_files(project) == before  # review remembers when it ran, in .state/: nothing else


def _user_files(project: Path) -> dict[str, str]:
    return {name: digest for name, digest in tree_hash(project).items() if not name.startswith(".learnings/.state/")}


def test_a_user_scope_target_outside_the_project_is_named_from_home(tmp_path: Path) -> None:
    """A damaged block in ~/.claude/CLAUDE.md is named ``~/.claude/CLAUDE.md``, not by an
    absolute path with the user's name in it."""
    from self_improve.changes import label_for

    home = Path.home()
    assert label_for(home / ".claude" / "CLAUDE.md", tmp_path / "elsewhere") == "~/.claude/CLAUDE.md"
    assert label_for(tmp_path / "p" / "CLAUDE.md", tmp_path / "p") == "CLAUDE.md"
    assert label_for(Path("/etc/motd"), tmp_path) == "/etc/motd"
    assert label_for(home, tmp_path / "elsewhere") == "~"


@pytest.mark.parametrize("verb", ["install", "uninstall"])
def test_openclaw_names_its_workspace_file_in_full(tmp_path: Path, verb: str) -> None:
    """The workspace is not where the user ran the command: its AGENTS.md is named by its path."""
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "SOUL.md").write_text("", encoding="utf-8")
    agents = workspace / "AGENTS.md"
    agents.write_text("# Agents\n\n<!-- self-improve:openclaw:begin -->\nx\n", encoding="utf-8")
    before = tree_hash(tmp_path)
    result = run_cli(verb, "--harness", "openclaw", "--workspace", str(workspace), cwd=tmp_path, env={"HOME": str(tmp_path)})
    reason = "damaged self-improve:openclaw markers: begin marker on line 3 has no end marker; fix them by hand"
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(f"self-improve: error: openclaw: {agents}: {reason}; ")
    assert tree_hash(tmp_path) == before
