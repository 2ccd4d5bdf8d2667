"""Issue 14, items 24 and 25: ``list`` filters (``--since``, ``--pattern-key``, ``--grep``) with
first-seen and last-seen columns, and one JSON shape per entry across ``list``, ``show``,
``export`` (and the fields ``review`` shares with it)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from self_improve.review.policy import evidence
from self_improve.review.report import _common_json
from self_improve.store.entry_json import entry_json
from self_improve.store.store import Store
from tests.helpers import run_cli, tree_hash, write_project

YAML = "ERR-20260210-aaa"
TOML = "ERR-20260220-bbb"
PNPM = "LRN-20260105-ccc"
YAML_TEXT = f"""## [{YAML}] tool_error

**Logged**: 2026-02-10T10:00:00Z
**Priority**: high
**Status**: pending

### Summary
No module named yaml

### Details
The import failed in CI.

### Suggested Fix
Install PyYAML first.

### Metadata
- Pattern-Key: deps.module-not-found/python:yaml
- Recurrence-Count: 2
- First-Seen: 2026-02-10
- Last-Seen: 2026-02-25
- Occurrences: 2026-02-10/1a2b3c4d, 2026-02-25/5e6f7a8b

---
"""
TOML_TEXT = YAML_TEXT.replace(YAML, TOML).replace("yaml", "toml").replace("PyYAML", "tomli").replace(
    "2026-02-25", "2026-02-20").replace("2026-02-10", "2026-02-20").replace("- Recurrence-Count: 2", "- Recurrence-Count: 1").replace(
    ", 2026-02-20/5e6f7a8b", "").replace("The import failed in CI.", "Seen under PYTEST.")
PNPM_TEXT = f"""## [{PNPM}] correction

**Logged**: 2026-01-05T10:00:00Z
**Priority**: medium
**Status**: resolved

### Summary
Use pnpm, not npm

### Details
The lockfile is pnpm's.

### Suggested Action
Run `pnpm install`.

### Metadata
- Pattern-Key: tooling.pm
- Recurrence-Count: 1
- First-Seen: 2026-01-05
- Last-Seen: 2026-01-05

---
"""
ENV = {"SELF_IMPROVE_TODAY": "2026-03-01", "SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [YAML_TEXT, TOML_TEXT, PNPM_TEXT])
    return tmp_path


def listed(project: Path, *args: str) -> tuple[int, str, str]:
    result = run_cli("list", *args, cwd=project, env=ENV)
    return result.returncode, result.stdout, result.stderr


def test_list_filters_and_the_day_columns(project: Path) -> None:
    yaml_row = f"{YAML}       pending     x2   2026-02-10 2026-02-25 No module named yaml [deps.module-not-found/python:yaml]\n"
    toml_row = f"{TOML}       pending     x1   2026-02-20 2026-02-20 No module named toml [deps.module-not-found/python:toml]\n"
    pnpm_row = f"{PNPM}       resolved    x1   2026-01-05 2026-01-05 Use pnpm, not npm [tooling.pm]\n"
    before = tree_hash(project)
    assert listed(project) == (0, pnpm_row + yaml_row + toml_row, "")
    # --since: on or after the day last seen (2026-02-20 itself counts).
    assert listed(project, "--since", "2026-02-20") == (0, yaml_row + toml_row, "")
    assert listed(project, "--since", "2026-02-21") == (0, yaml_row, "")
    # --pattern-key: a whole fingerprint, or its class; never a prefix of a class name.
    assert listed(project, "--pattern-key", "deps.module-not-found/python:toml") == (0, toml_row, "")
    assert listed(project, "--pattern-key", "deps.module-not-found") == (0, yaml_row + toml_row, "")
    assert listed(project, "--pattern-key", "deps.module") == (0, "no entries\n", "")
    # --grep: any case, in the summary, the details or the suggested action.
    assert listed(project, "--grep", "PNPM") == (0, pnpm_row, "")
    assert listed(project, "--grep", "failed in ci") == (0, yaml_row, "")
    assert listed(project, "--grep", "pytest") == (0, toml_row, "")
    assert listed(project, "--grep", "tomli", "--since", "2026-02-21") == (0, "no entries\n", "")
    assert json.loads(listed(project, "--json", "--grep", "yaml")[1])[0]["id"] == YAML
    assert listed(project, "--since", "last week") == (
        2, "", "self-improve: error: argument --since: expected a date YYYY-MM-DD, not 'last week' "
        "(see `self-improve list --help`)\n",
    )
    assert tree_hash(project) == before


def test_one_json_shape_for_an_entry_in_list_show_export_and_review(project: Path) -> None:
    expected = {
        "id": YAML, "form": "reference", "kind": "error", "category": "tool_error", "status": "pending",
        "priority": "high", "area": "", "summary": "No module named yaml",
        "pattern_key": "deps.module-not-found/python:yaml", "recurrence_count": 2, "occurrences": 2,
        "history": ["2026-02-10/1a2b3c4d", "2026-02-25/5e6f7a8b"], "tasks": 2,
        "first_seen": "2026-02-10", "last_seen": "2026-02-25", "logged": "2026-02-10T10:00:00Z",
        "promoted": "", "see_also": [], "helpful": 0, "harmful": 0, "file": ".learnings/ERRORS.md", "line": 7,
        "details": "The import failed in CI.", "suggested_action": "Install PyYAML first.", "text": YAML_TEXT + "\n",  # with the blank line that parts it from the next entry
    }
    from_list = json.loads(listed(project, "--json", "--pattern-key", "deps.module-not-found/python:yaml")[1])
    from_show = json.loads(run_cli("show", YAML, "--json", cwd=project, env=ENV).stdout)
    from_export = json.loads(run_cli("export", "--json", "--kind", "error", cwd=project, env=ENV).stdout)
    assert from_list == [expected]
    assert from_show == expected
    assert from_export[0] == expected
    # review's candidates keep their own fields; those named as an entry's have its type.
    entry = Store(project).get(YAML)
    candidate = _common_json(entry, evidence(entry, date(2026, 3, 1), 30))
    shared = sorted(set(candidate) & set(expected))
    assert shared == ["file", "id", "kind", "last_seen", "line", "occurrences", "priority", "status", "summary", "tasks"]
    assert {name: type(candidate[name]) for name in shared} == {name: type(entry_json(entry)[name]) for name in shared}
    # import still reads what export --json writes.
    other = project.parent / "other"
    (other / ".git").mkdir(parents=True)
    write_project(other, [])
    exported = project.parent / "export.json"
    exported.write_text(run_cli("export", "--json", cwd=project, env=ENV).stdout, encoding="utf-8")
    imported = run_cli("import", str(exported), "--json", cwd=other, env=ENV)
    assert imported.returncode == 0, imported.stderr
    assert [e["id"] for e in json.loads(run_cli("list", "--json", cwd=other, env=ENV).stdout)] == [PNPM, YAML, TOML]
