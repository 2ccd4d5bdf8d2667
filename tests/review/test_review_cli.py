"""``self-improve review``: golden outputs for every mode, on one project pinned to 2026-03-01.

Golden files are ``golden/review-<mode>.txt``; regenerate with ``SELF_IMPROVE_UPDATE_GOLDEN=1``
and review the diff.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from self_improve.review.triage import pending_triage_count
from self_improve.review.managed_block import rehash
from self_improve.store.store import LogRequest, Store
from tests.helpers import entry_text, record_here, run_cli, tree_hash, user_config, write_project

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("SELF_IMPROVE_UPDATE_GOLDEN") == "1"
TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
INTERACTIVE = {**TODAY, "SELF_IMPROVE_INTERACTIVE": "1"}

BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"
CLAUDE_MD = rehash(f"# Project\n\nWe indent with tabs.\n\n{BEGIN}\n## Learned rules\n- Always run `npm test` first. <!-- LRN-20250901-fff -->\n{END}\n")
# Entries this machine recorded (the provenance ledger); ccc and hhh arrived in a commit.
RECORDED_HERE = ("LRN-20260201-aaa", "ERR-20260210-bbb", "LRN-20251001-ddd", "LRN-20250801-eee", "LRN-20250901-fff", "ERR-20251101-ggg")


def review_entries() -> list[str]:
    return [
        # Promote: 3 occurrences in 2 tasks within 30 days.
        entry_text("LRN-20260201-aaa", "Use pnpm, not npm", category="correction", action="Use `pnpm install`, not npm.",
                   occurrences=[(20, "1a2b3c4d"), (10, "5e6f7a8b"), (2, "1a2b3c4d")]),
        # Promote, to AGENTS.md (an infra workflow); it cites ggg, which keeps ggg out of the archive.
        entry_text("ERR-20260210-bbb", "make test fails: dependencies missing", category="make", area="infra",
                   action="Run `make deps` before `make test`.", pattern_key="build.missing-deps", see_also="ERR-20251101-ggg",
                   occurrences=[(15, "1a2b3c4d"), (9, "5e6f7a8b"), (5, "9c0d1e2f"), (1, "9c0d1e2f")]),
        # Marked critical, seen once: not a candidate (a self-set priority proves nothing).
        entry_text("ERR-20260215-ccc", "docker compose needs sudo", category="docker", priority="critical",
                   occurrences=[(14, "3a4b5c6d")]),
        # Archive: resolved, 151 days.
        entry_text("LRN-20251001-ddd", "Integration tests need the docker daemon", status="resolved",
                   occurrences=[(151, "1a2b3c4d")]),
        # Archive: pending, decayed (212 days).
        entry_text("LRN-20250801-eee", "Prefer rg over grep", occurrences=[(212, "1a2b3c4d")]),
        # Retire: misled more often than it helped.
        entry_text("LRN-20250901-fff", "Run npm test first", status="promoted", promoted="CLAUDE.md", action="Always run `npm test` first.",
                   occurrences=[(30, "1a2b3c4d")], meta=[("Helpful", "1"), ("Harmful", "2")]),
        # Old and closed, but cited by bbb: stays.
        entry_text("ERR-20251101-ggg", "make deps was slow", status="wont_fix", occurrences=[(120, "5e6f7a8b")]),
        # A lint problem: an unknown priority.
        entry_text("FEAT-20260220-hhh", "Export the learnings as CSV", priority="urgent", occurrences=[(9, "1a2b3c4d")]),
    ]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, review_entries())
    record_here(tmp_path, *RECORDED_HERE)
    (tmp_path / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    return tmp_path


def check_golden(name: str, actual: str) -> None:
    path = GOLDEN / name
    if UPDATE_GOLDEN:
        path.write_bytes(actual.encode("utf-8"))
    assert path.exists(), f"missing golden file {name}: run with SELF_IMPROVE_UPDATE_GOLDEN=1"
    assert actual == path.read_bytes().decode("utf-8")


def review(project: Path, *args: str, input: str | None = None, env: dict[str, str] | None = None) -> str:
    result = run_cli("review", *args, cwd=project, input=input, env=env or TODAY)
    assert result.returncode == 0, result.stderr
    return result.stdout


# ---- goldens ---------------------------------------------------------------------------------------


def test_listing_off_a_terminal_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    check_golden("review-listing.txt", review(project))
    assert tree_hash(project) == before


def test_json(project: Path) -> None:
    before = tree_hash(project)
    data = json.loads(review(project, "--json"))
    assert list(data) == ["promote", "archive", "retire", "revise", "lint"]
    for group in ("promote", "archive", "retire"):
        for candidate in data[group]:
            assert {"id", "summary", "occurrences", "tasks", "last_seen"} <= set(candidate)
    assert all({"rule", "target"} <= set(c) for c in data["promote"])
    assert all("reason" in c for c in data["archive"] + data["retire"])
    check_golden("review-json.txt", json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    assert tree_hash(project) == before


def test_dry_run_prints_every_diff_and_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("review", "--dry-run", cwd=project, env=TODAY)
    assert result.returncode == 0
    assert result.stderr == ""
    check_golden("review-dry-run.txt", result.stdout)
    assert tree_hash(project) == before


def test_yes_applies_every_proposal(project: Path) -> None:
    dry = run_cli("review", "--dry-run", cwd=project, env=TODAY).stdout
    check_golden("review-yes.txt", review(project, "--yes"))
    # The new rule goes to our rules file; the retired one leaves CLAUDE.md as the user wrote it.
    assert (project / ".claude/rules/self-improve.md").read_text(encoding="utf-8") == rehash(
        f"{BEGIN}\n## Learned rules\n- Use `pnpm install`, not npm. <!-- LRN-20260201-aaa -->\n{END}\n"
    )
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Project\n\nWe indent with tabs.\n"
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == rehash(
        f"{BEGIN}\n## Learned rules\n- Run `make deps` before `make test`. <!-- ERR-20260210-bbb -->\n{END}\n"
    )
    store = Store(project)
    assert {e.id: e.status for e in store.entries()} == {
        "LRN-20260201-aaa": "promoted",
        "LRN-20250901-fff": "retired",
        "ERR-20260210-bbb": "promoted",
        "ERR-20260215-ccc": "pending",
        "ERR-20251101-ggg": "wont_fix",
        "FEAT-20260220-hhh": "pending",
    }
    assert sorted(p.name for p in (store.dir / "archive").iterdir()) == ["2025.md"]
    # The dry run showed exactly what --yes did: nothing is left to do.
    assert dry.count("+++ ") == 6  # the rules file, CLAUDE.md, AGENTS.md, LEARNINGS.md, ERRORS.md, archive/2025.md
    assert json.loads(review(project, "--json"))["promote"] == []


def test_interactive_session(project: Path) -> None:
    answers = "\n".join([  # one answer per line reads better
        "e", "Run `make deps` first, then `make test`.", "x", "p",  # bbb: edit the rule, a wrong answer, promote
        "t", "CLAUDE.txt", "t", "docs/AGENTS.md", "p",  # aaa: a refused target, then a good one
        "a",  # archive ddd
        "s",  # keep eee
        "r",  # retire fff
    ]) + "\n"
    check_golden("review-interactive.txt", review(project, input=answers, env=INTERACTIVE))
    assert "<!-- LRN-20250901-fff -->" not in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert "- Run `make deps` first, then `make test`. <!-- ERR-20260210-bbb -->" in (project / "AGENTS.md").read_text(encoding="utf-8")
    assert "<!-- LRN-20260201-aaa -->" in (project / "docs" / "AGENTS.md").read_text(encoding="utf-8")
    statuses = {e.id: e.status for e in Store(project).entries()}
    assert "LRN-20251001-ddd" not in statuses and statuses["LRN-20250801-eee"] == "pending"


def test_interactive_quit_and_end_of_input_change_nothing(project: Path) -> None:
    before = {k: v for k, v in tree_hash(project).items() if ".state" not in k}
    check_golden("review-interactive-quit.txt", review(project, input="q\n", env=INTERACTIVE))
    assert review(project, input="", env=INTERACTIVE).endswith("quit\nLint (1)\n  .learnings/FEATURE_REQUESTS.md:10: unknown priority 'urgent': use one of low, medium, high, critical\nReviewed: 0 promoted, 0 archived, 0 retired, 0 skipped\n")
    assert {k: v for k, v in tree_hash(project).items() if ".state" not in k} == before


def test_nothing_to_review(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [entry_text("LRN-20260228-aaa", "Fresh", occurrences=[(1, "1a2b3c4d")])])
    check_golden("review-nothing.txt", review(tmp_path))


# ---- behaviour -----------------------------------------------------------------------------------------


def test_size_cap_is_reported(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    # A project may not go below 10 (store/settings.py clamps it): the user's own config may.
    env = {**TODAY, **user_config(tmp_path_factory, "[forgetting]\nmax_active_entries = 4\n")}
    text = review(project, env=env)
    assert "  Size cap: 7 active entries, over forgetting.max_active_entries (4); the lowest-value ones are listed for archiving\n" in text
    archive = json.loads(review(project, "--json", env=env))["archive"]
    assert [(c["id"], c["why"]) for c in archive] == [
        ("LRN-20251001-ddd", "stale"),
        ("LRN-20250801-eee", "decayed"),
        ("FEAT-20260220-hhh", "size_cap"),
    ]


def test_a_refusal_in_yes_mode_writes_nothing(project: Path) -> None:
    (project / "AGENTS.md").write_text(f"{BEGIN}\n", encoding="utf-8")
    before = tree_hash(project)
    result = run_cli("review", "--yes", cwd=project, env=TODAY)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "self-improve: error: AGENTS.md: damaged self-improve markers: begin marker on line 1 has no end marker; fix them by hand\n"
    assert tree_hash(project) == before


def test_pending_triage_counts_since_the_last_review(project: Path) -> None:
    store = Store(project)
    assert pending_triage_count(store) == 2  # bbb and ccc: no review yet
    assert review(project).startswith("Pending triage: 2 errors recorded since last review\n\n")
    review(project, "--yes")
    assert (store.state_dir / "last-review").exists()
    assert pending_triage_count(store) == 0
    store.log(LogRequest(kind="error", summary="docker compose needs sudo", session="s9"))
    assert pending_triage_count(store) == 1
    assert review(project).startswith("Pending triage: 1 error recorded since last review\n\n")


def test_pending_triage_never_raises(tmp_path: Path) -> None:
    assert pending_triage_count(Store(tmp_path)) == 0  # no .learnings/ at all
    write_project(tmp_path, [])
    (tmp_path / ".learnings" / ".state").mkdir()
    (tmp_path / ".learnings" / ".state" / "last-review").write_text("{not json", encoding="utf-8")
    assert pending_triage_count(Store(tmp_path)) == 0


def test_today_must_be_a_date(project: Path) -> None:
    result = run_cli("review", cwd=project, env={"SELF_IMPROVE_TODAY": "tomorrow"})
    assert (result.returncode, result.stderr) == (2, "self-improve: error: today must be a date YYYY-MM-DD, not 'tomorrow'\n")
    flag = run_cli("review", "--today", "2026-03-01", cwd=project)
    assert flag.stdout == review(project)


def test_review_needs_learnings(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    result = run_cli("review", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (1, f"self-improve: error: no .learnings/ in {tmp_path}: run `self-improve init` first\n")


def test_json_cannot_be_combined_with_applying(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("review", "--json", "--yes", cwd=project, env=TODAY)
    assert (result.returncode, result.stderr) == (2, "self-improve: error: --json only lists the proposals: use it without --yes\n")
    assert tree_hash(project) == before


def test_hidden_interactive_flag_equals_the_environment_variable(project: Path) -> None:
    by_flag = run_cli("review", "--interactive", cwd=project, input="q\n", env=TODAY)
    assert by_flag.stdout == (GOLDEN / "review-interactive-quit.txt").read_text(encoding="utf-8")
