"""Issue 14, items 14 and 26: ``log --area`` takes the reference areas and the config's own;
``supersede``, ``config set`` and ``review --json`` take ``--dry-run`` and write nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import entry_text, run_cli, tree_hash, write_project

OLD, NEW = "LRN-20260201-old", "LRN-20260210-new"
TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        entry_text(OLD, "Use npm in this repo", occurrences=[(28, "1a2b3c4d")]),
        entry_text(NEW, "Use pnpm, not npm, in this repo", occurrences=[(19, "5e6f7a8b")]),
    ])
    return tmp_path


def test_area_is_one_of_the_reference_areas_or_the_configs(project: Path) -> None:
    before = tree_hash(project)
    typo = run_cli("log", "learning", "Run the linter first", "--area", "test", cwd=project)
    assert (typo.returncode, typo.stdout, typo.stderr) == (
        2, "",
        "self-improve: error: --area takes frontend, backend, infra, tests, docs or config, not 'test' "
        "(add your own with `self-improve config set log.extra_areas AREA,...`)\n",
    )
    assert tree_hash(project) == before  # refused before anything was written

    assert run_cli("config", "set", "log.extra_areas", "data,ml", cwd=project).stdout == 'log.extra_areas = ["data", "ml"]\n'
    other = run_cli("log", "learning", "Run the linter first", "--area", "mlops", cwd=project)
    assert (other.returncode, other.stderr) == (
        2,
        "self-improve: error: --area takes frontend, backend, infra, tests, docs, config, data or ml, not 'mlops' "
        "(add your own with `self-improve config set log.extra_areas AREA,...`)\n",
    )
    added = run_cli("log", "learning", "Pin the dataset version", "--area", "ml", "--json", cwd=project)
    assert added.returncode == 0, added.stderr
    assert "**Area**: ml\n" in (project / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")


def test_supersede_dry_run_prints_the_diff_and_writes_nothing(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("supersede", OLD, "--by", NEW, "--dry-run", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "--- a/.learnings/LEARNINGS.md\n"
        "+++ b/.learnings/LEARNINGS.md\n"
        "@@ -20,6 +20,7 @@\n"
        " - First-Seen: 2026-02-01\n"
        " - Last-Seen: 2026-02-01\n"
        " - Occurrences: 2026-02-01/1a2b3c4d\n"
        f"+- Superseded-By: {NEW}\n"
        " \n"
        " ---\n"
        " \n"
        "@@ -37,5 +38,6 @@\n"
        " - First-Seen: 2026-02-10\n"
        " - Last-Seen: 2026-02-10\n"
        " - Occurrences: 2026-02-10/5e6f7a8b\n"
        f"+- Supersedes: {OLD}\n"
        " \n"
        " ---\n"
    )
    assert tree_hash(project) == before


def test_config_set_dry_run_prints_the_diff_and_writes_nothing(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    config = project / ".learnings" / "config.toml"
    config.write_text("# tuned for this repo\n[promotion]\nmin_occurrences = 3\n", encoding="utf-8")
    before = tree_hash(project)
    result = run_cli("config", "set", "promotion.min_occurrences", "4", "--dry-run", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "--- a/.learnings/config.toml\n"
        "+++ b/.learnings/config.toml\n"
        "@@ -1,3 +1,3 @@\n"
        " # tuned for this repo\n"
        " [promotion]\n"
        "-min_occurrences = 3\n"
        "+min_occurrences = 4\n"
    )
    assert tree_hash(project) == before

    # The user-level config: named by its absolute path, like the installer's diffs; no directory made.
    xdg = tmp_path_factory.mktemp("xdg")
    user = run_cli("config", "set", "--user", "reminder.mode", "off", "--dry-run", cwd=project, env={"XDG_CONFIG_HOME": str(xdg)})
    assert (user.returncode, user.stderr) == (0, "")
    assert user.stdout == (
        "--- /dev/null\n"
        f"+++ b{xdg}/self-improve/config.toml\n"
        "@@ -0,0 +1,2 @@\n"
        "+[reminder]\n"
        '+mode = "off"\n'
    )
    assert list(xdg.iterdir()) == []


def test_review_json_accepts_dry_run_and_writes_nothing(project: Path) -> None:
    before = tree_hash(project)
    listed = run_cli("review", "--json", cwd=project, env=TODAY)
    dry = run_cli("review", "--json", "--dry-run", cwd=project, env=TODAY)
    assert (dry.returncode, dry.stderr) == (0, "")
    assert dry.stdout == listed.stdout  # --json never writes: --dry-run changes nothing of it
    assert tree_hash(project) == before
