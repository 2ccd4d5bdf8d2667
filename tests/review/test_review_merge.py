"""`review` and likely duplicates: the `merge` section of --json, the listing, the key that merges
a group on a terminal, and --yes, which never merges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import entry_text, run_cli, tree_hash, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
INTERACTIVE = {**TODAY, "SELF_IMPROVE_INTERACTIVE": "1"}


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [
        entry_text("LRN-20260201-aaa", "Use pnpm, not npm, to install dependencies", occurrences=[(20, "1a2b3c4d")]),
        entry_text("LRN-20260202-bbb", "Run the test suite with make test", occurrences=[(19, "5e6f7a8b")]),
        entry_text("LRN-20260203-ccc", "这个仓库用 pnpm 装依赖，别用 npm", occurrences=[(18, "9c0d1e2f")]),
        entry_text("LRN-20260204-ddd", "Pin the pnpm version in CI", occurrences=[(17, "3a4b5c6d")]),
        entry_text("LRN-20260205-eee", "Use pnpm for dependencies; npm breaks the lockfile", occurrences=[(16, "7e8f9a0b")]),
        # merged away already: never proposed again
        entry_text("LRN-20260206-fff", "Install dependencies with pnpm, never npm", occurrences=[(15, "1a2b3c4d")],
                   meta=[("Superseded-By", "LRN-20260201-aaa")]),
    ])
    return tmp_path


MERGE_JSON = [{
    "ids": ["LRN-20260201-aaa", "LRN-20260203-ccc", "LRN-20260205-eee"],
    "summaries": ["Use pnpm, not npm, to install dependencies", "这个仓库用 pnpm 装依赖，别用 npm",
                  "Use pnpm for dependencies; npm breaks the lockfile"],
    "score": 0.53,
    "into": "LRN-20260201-aaa",
    "commands": ["self-improve merge LRN-20260203-ccc LRN-20260201-aaa", "self-improve merge LRN-20260205-eee LRN-20260201-aaa"],
}]
LISTING = (
    "Likely duplicates (merge them if they say one lesson) (1)\n"
    "  LRN-20260201-aaa  Use pnpm, not npm, to install dependencies\n"
    "  LRN-20260203-ccc  这个仓库用 pnpm 装依赖，别用 npm\n"
    "  LRN-20260205-eee  Use pnpm for dependencies; npm breaks the lockfile\n"
    "      likely one lesson (score 0.53); to merge into LRN-20260201-aaa:\n"
    "      self-improve merge LRN-20260203-ccc LRN-20260201-aaa\n"
    "      self-improve merge LRN-20260205-eee LRN-20260201-aaa\n"
    "\n"
)


def test_review_json_has_the_merge_section(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("review", "--json", cwd=project, env=TODAY)
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout)["merge"] == MERGE_JSON
    assert tree_hash(project) == before


def test_the_listing_shows_them_and_yes_never_merges(project: Path) -> None:
    before = tree_hash(project)
    listing = run_cli("review", cwd=project, env=TODAY)
    assert (listing.returncode, listing.stderr, listing.stdout) == (0, "", LISTING)
    applied = run_cli("review", "--yes", cwd=project, env=TODAY)
    assert applied.returncode == 0
    assert {path: digest for path, digest in tree_hash(project).items() if "LEARNINGS" in path} == {
        path: digest for path, digest in before.items() if "LEARNINGS" in path
    }


def test_a_key_merges_a_group_on_a_terminal(project: Path) -> None:
    result = run_cli("review", cwd=project, env=INTERACTIVE, input="m\n")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        "Merge 1/1\n" + LISTING.split("\n", 1)[1].rstrip("\n") + "\n"
        "  [m]erge into LRN-20260201-aaa, [s]kip, [q]uit? m\n"
        "  merged LRN-20260203-ccc, LRN-20260205-eee into LRN-20260201-aaa\n"
        "Reviewed: 0 promoted, 0 archived, 0 retired, 0 skipped, 2 merged\n"
    )
    kept = json.loads(run_cli("show", "LRN-20260201-aaa", "--json", cwd=project).stdout)
    assert kept["recurrence_count"] == 3
    assert "merge" not in json.loads(run_cli("review", "--json", cwd=project, env=TODAY).stdout)


def test_skip_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("review", cwd=project, env=INTERACTIVE, input="s\n")
    assert result.stdout.endswith("Reviewed: 0 promoted, 0 archived, 0 retired, 1 skipped\n")
    assert {p: d for p, d in tree_hash(project).items() if "LEARNINGS" in p} == {p: d for p, d in before.items() if "LEARNINGS" in p}
