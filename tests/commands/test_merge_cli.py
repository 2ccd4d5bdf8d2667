"""The CLI of duplicates: what `log` says of likely ones, `merge`, and `config set` out of a
project's range (exact output; a refusal writes nothing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.store.entry import NewEntry, render_new
from self_improve.store.store import HEADERS
from tests.helpers import run_cli, tree_hash

ASK = "LRN-20261101-ask"
KEEP = "LRN-20261102-env"
ERR = "ERR-20261103-err"


def entry(entry_id: str, summary: str, day: str, task: str) -> str:
    metadata = (("Source", "conversation"), ("Recurrence-Count", "1"), ("First-Seen", day), ("Last-Seen", day),
                ("Occurrences", f"{day}/{task}"))
    return render_new(NewEntry(id=entry_id, category="insight", logged=f"{day}T10:00:00Z", summary=summary, metadata=metadata))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    (tmp_path / ".learnings/LEARNINGS.md").write_text(
        HEADERS["learning"] + "\n" + entry(ASK, "Ask the user before deleting any files", "2026-11-01", "aaaa1111")
        + "\n" + entry(KEEP, "Keep the .env file out of version control", "2026-11-02", "bbbb2222"), encoding="utf-8")
    (tmp_path / ".learnings/ERRORS.md").write_text(
        HEADERS["error"] + "\n" + entry(ERR, "rm: cannot remove build", "2026-11-03", "cccc3333"), encoding="utf-8")
    return tmp_path


def test_log_names_likely_duplicates_and_the_command_that_merges_one(project: Path) -> None:
    result = run_cli("log", "learning", "删除文件之前先问我", "--session", "s1", cwd=project)
    assert (result.returncode, result.stderr) == (0, "")
    new = result.stdout.split()[0]
    assert result.stdout == (
        f"{new} created in .learnings/LEARNINGS.md\n"
        "It may repeat a lesson already here. If one of these says the same, merge it (every occurrence is kept):\n"
        f"  self-improve merge {new} {ASK}    # 0.71 Ask the user before deleting any files\n"
    )


def test_log_json_has_the_candidates(project: Path) -> None:
    result = run_cli("log", "learning", "The .env file must not be committed to git", "--session", "s1", "--json", cwd=project)
    payload = json.loads(result.stdout)
    assert payload["created"] is True
    assert payload["candidates"] == [{"id": KEEP, "summary": "Keep the .env file out of version control", "score": 0.88}]
    plain = json.loads(run_cli("log", "learning", "Run make test before pushing", "--session", "s2", "--json", cwd=project).stdout)
    assert plain["candidates"] == []


def test_log_merges_a_certain_paraphrase_by_itself(project: Path) -> None:
    result = run_cli("log", "learning", "Always confirm with me before you remove files", "--session", "s1", cwd=project)
    assert result.stdout == f"{ASK} merged: seen 2 times in 2 task(s)\n"


def test_merge_then_the_refusals(project: Path) -> None:
    new = run_cli("log", "learning", "删除文件之前先问我", "--session", "s1", cwd=project).stdout.split()[0]
    done = run_cli("merge", new, ASK, cwd=project)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f"{new} merged into {ASK}: seen 2 times in 2 task(s)\n"
        f"{new} is kept as it was, marked Superseded-By: {ASK}\n"
    )
    before = tree_hash(project)
    refusals = [
        (("merge", ASK, ASK.lower()), 2, f"cannot merge {ASK} into itself: name two entries"),
        (("merge", "LRN-20261101-nope", ASK), 1, "unknown ID 'LRN-20261101-nope' (see `self-improve list`)"),
        (("merge", ERR, KEEP), 2, f"{ERR} is an error and {KEEP} a learning: only entries of one kind merge"),
        (("merge", new, KEEP), 1, f"{new} is already superseded by {ASK}: nothing to merge"),
        (("merge", KEEP, new), 1, f"{new} is superseded by {ASK}: merge into that one (`self-improve merge {KEEP} {ASK}`)"),
    ]
    for args, code, message in refusals:
        refused = run_cli(*args, cwd=project)
        assert (refused.returncode, refused.stdout, refused.stderr) == (code, "", f"self-improve: error: {message}\n"), args
    assert tree_hash(project) == before


def test_merge_json(project: Path) -> None:
    result = run_cli("merge", KEEP, ASK, "--json", cwd=project)
    assert json.loads(result.stdout) == {"id": ASK, "merged": KEEP, "recurrence_count": 2, "tasks": 2, "file": ".learnings/LEARNINGS.md"}


def test_config_set_refuses_what_a_project_may_not_set(project: Path) -> None:
    before = tree_hash(project)
    refused = run_cli("config", "set", "log.similarity_threshold", "0.3", cwd=project)
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == (
        "self-improve: error: log.similarity_threshold takes 0.5 to 1.0 in a project's config (it arrives with the "
        "repository), not '0.3'; `self-improve config set --user log.similarity_threshold 0.3` sets it for you alone\n"
    )
    assert tree_hash(project) == before
    assert run_cli("config", "set", "log.similarity_threshold", "0.5", cwd=project).stdout == "log.similarity_threshold = 0.5\n"
