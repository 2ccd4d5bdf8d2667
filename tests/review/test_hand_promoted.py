"""Hand-promoted entries are respected, and instruction files come back byte for byte.

An entry its user promoted by hand (``Status: promoted``, their own ``Promoted:`` line, their rule
as prose in SOUL.md, no bullet of ours) is never retired by ``review --yes``; retiring it by hand
changes its status only and says the rule is the user's text. ``promote`` never rewrites their
``Promoted`` line: it adds ``- Promoted-To:``. Empty instruction files come back empty.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from self_improve.review.created_files import forget_created
from self_improve.store.store import Store
from tests.helpers import entry_text, record_here, run_cli, tree_hash, write_project

TODAY = {"SELF_IMPROVE_TODAY": "2026-03-01"}
NOW = {"SELF_IMPROVE_NOW": "2026-03-01T12:00:00Z"}
HAND = "LRN-20260110-abc"
OURS = "LRN-20260201-aaa"
OTHER = "LRN-20260202-bbb"
USER_LINE = "- **Promoted**: SOUL.md (安全规则已强化)\n"
SOUL = "# Soul\n\n## 安全规则\n- 不要在群聊里泄露用户的私人信息。\n"


def hand_promoted(harmful: int = 0, last_seen: str = "2026-02-20") -> str:
    marks = f"- Harmful: {harmful}\n" if harmful else ""
    return (
        f"## [{HAND}] correction\n\n**Logged**: 2026-01-10T08:00:00Z\n**Priority**: high\n**Status**: promoted\n\n"
        "### Summary\n在群聊里泄露了私人信息\n\n### Suggested Action\n不要在群聊里泄露用户的私人信息。\n\n"
        f"### Resolution\n- **Resolved**: 2026-01-12\n{USER_LINE}\n"
        f"### Metadata\n- Recurrence-Count: 2\n- First-Seen: 2026-01-10\n- Last-Seen: {last_seen}\n{marks}\n---\n"
    )


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    """An OpenClaw workspace (SOUL.md) with one hand-promoted entry that misled twice."""
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [hand_promoted(harmful=2)])
    (tmp_path / "SOUL.md").write_text(SOUL, encoding="utf-8")
    return tmp_path


def learnings(root: Path) -> str:
    return (root / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")


def test_review_lists_it_for_a_person_and_yes_never_retires_it(workspace: Path) -> None:
    listing = run_cli("review", cwd=workspace, env=TODAY).stdout
    assert (
        "Retire by hand (promoted in your own text; never applied by --yes) (1)\n"
        f"  {HAND}  在群聊里泄露了私人信息\n"
        "      harmful 2 + measured 0 > helpful 0 + measured 0\n"
        "      promoted by hand: its rule lives in your own text (Promoted: SOUL.md (安全规则已强化)), which self-improve does not edit; "
        f"review --yes never retires it: `self-improve retire {HAND}` does\n"
    ) in listing
    found = json.loads(run_cli("review", "--json", cwd=workspace, env=TODAY).stdout)
    assert found["retire"] == []  # what --yes would retire: never a hand-promoted entry
    (item,) = found["retire_by_hand"]
    assert (item["id"], item["target"], item["reason"], item["reasons"]) == (
        HAND, "SOUL.md (安全规则已强化)",
        "promoted by hand: its rule lives in your own text (Promoted: SOUL.md (安全规则已强化)), which self-improve does not edit",
        ["harmful 2 + measured 0 > helpful 0 + measured 0"],
    )
    before = tree_hash(workspace)
    result = run_cli("review", "--yes", cwd=workspace, env=TODAY)
    assert result.stdout.splitlines()[0] == (
        f"not retired {HAND}: promoted by hand: its rule lives in your own text (Promoted: SOUL.md (安全规则已强化)), "
        f"which self-improve does not edit; to retire the entry, run `self-improve retire {HAND}` yourself"
    )
    assert {k: v for k, v in tree_hash(workspace).items() if not k.startswith(".learnings/.state")} == {
        k: v for k, v in before.items() if not k.startswith(".learnings/.state")
    }


def test_retiring_it_by_hand_changes_the_status_only_and_says_so(workspace: Path) -> None:
    before = learnings(workspace)
    result = run_cli("retire", HAND, "--yes", cwd=workspace)
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == (
        f"retired {HAND} (status only): its rule lives in your own text (Promoted: SOUL.md (安全规则已强化)), which self-improve does not edit\n"
    )
    assert learnings(workspace) == before.replace("**Status**: promoted\n", "**Status**: retired\n", 1)
    assert (workspace / "SOUL.md").read_text(encoding="utf-8") == SOUL


def test_age_never_proposes_retiring_a_promoted_rule(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, [hand_promoted(last_seen="2020-01-01")])
    assert json.loads(run_cli("review", "--json", cwd=tmp_path, env=TODAY).stdout)["retire"] == []


def test_promote_keeps_the_users_promoted_line_and_adds_its_own(workspace: Path) -> None:
    before = learnings(workspace)
    result = run_cli("promote", HAND, "--yes", "--target", "AGENTS.md", cwd=workspace, env=NOW)
    assert (result.returncode, result.stdout, result.stderr) == (0, f"promoted {HAND} to AGENTS.md\n", "")
    assert learnings(workspace) == before.replace(
        "- Harmful: 2\n", "- Harmful: 2\n- Promoted-To: AGENTS.md\n- Promoted-On: 2026-03-01\n", 1
    )
    assert USER_LINE in learnings(workspace)
    entry = Store(workspace).get(HAND)
    assert entry.meta("Promoted-To") == "AGENTS.md"
    # Our bullet is ours again: retire takes exactly it back, and the user's line stays.
    assert run_cli("retire", HAND, "--yes", cwd=workspace).stdout == f"retired {HAND}: its rule is gone from AGENTS.md\n"
    assert not (workspace / "AGENTS.md").exists()
    assert (workspace / "SOUL.md").read_text(encoding="utf-8") == SOUL
    assert USER_LINE in learnings(workspace)


def test_promoting_a_resolved_entry_with_a_users_promoted_line(tmp_path: Path) -> None:
    # The case: the user's line under ### Resolution became `- **Promoted**: AGENTS.md`.
    (tmp_path / ".git").mkdir()
    text = hand_promoted().replace("**Status**: promoted", "**Status**: resolved")
    write_project(tmp_path, [text])
    (tmp_path / "SOUL.md").write_text(SOUL, encoding="utf-8")
    result = run_cli("promote", HAND, "--yes", cwd=tmp_path, env=NOW)
    assert result.stdout == f"promoted {HAND} to SOUL.md\n"
    after = learnings(tmp_path)
    assert USER_LINE in after
    assert "**Status**: promoted\n\n### Summary" in after and "- Promoted-To: SOUL.md\n" in after
    assert run_cli("retire", HAND, "--yes", cwd=tmp_path).returncode == 0
    assert (tmp_path / "SOUL.md").read_bytes() == SOUL.encode("utf-8")


# ---- instruction files byte for byte --------------------------------------------------------------


def normal_project(root: Path) -> Path:
    (root / ".git").mkdir()
    write_project(root, [entry_text(OURS, "Use pnpm", action="Use `pnpm install`, not npm."),
                         entry_text(OTHER, "Run tests", action="Run `make test` before pushing.")])
    return root


@pytest.mark.parametrize("name", ["CLAUDE.md", "AGENTS.md", "SOUL.md"])
@pytest.mark.parametrize(
    "original", [b"", b"# Mine\r\n\r\n- Keep it short.\r\n", "# 我的规则\n- 用中文回答。".encode()], ids=["empty", "crlf", "no-final-newline"],
)
def test_promote_then_retire_gives_every_user_byte_back(tmp_path: Path, name: str, original: bytes) -> None:
    root = normal_project(tmp_path)
    (root / name).write_bytes(original)
    assert run_cli("promote", OURS, "--yes", "--target", name, cwd=root).returncode == 0
    assert (root / name).read_bytes().startswith(original.rstrip(b"\n") if original else b"<!-- self-improve:begin")
    assert run_cli("retire", OURS, "--yes", cwd=root).returncode == 0
    assert (root / name).read_bytes() == original  # an empty file comes back as an empty file


def test_a_file_promote_created_goes_and_one_it_cannot_vouch_for_stays_empty(tmp_path: Path) -> None:
    root = normal_project(tmp_path)
    assert run_cli("promote", OURS, "--yes", cwd=root).returncode == 0
    assert run_cli("retire", OURS, "--yes", cwd=root).returncode == 0
    assert not (root / ".claude").exists()  # we created the rules file and its folders: they go
    # Promoted elsewhere (another clone, or before this was recorded): we cannot know, so it stays.
    assert run_cli("promote", OTHER, "--yes", cwd=root).returncode == 0
    forget_created(root / ".claude/rules/self-improve.md")  # as if another machine had created it
    assert run_cli("retire", OTHER, "--yes", cwd=root).returncode == 0
    assert (root / ".claude/rules/self-improve.md").read_bytes() == b""


def test_retire_dry_run_of_an_empty_file_shows_it_emptied_not_deleted(tmp_path: Path) -> None:
    root = normal_project(tmp_path)
    (root / "AGENTS.md").write_bytes(b"")
    assert run_cli("promote", OURS, "--yes", "--target", "AGENTS.md", cwd=root).returncode == 0
    diff = run_cli("retire", OURS, "--dry-run", cwd=root).stdout
    assert diff.startswith("--- a/AGENTS.md\n+++ b/AGENTS.md\n")


def test_promote_with_a_garbled_rule_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    root = normal_project(tmp_path)
    record_here(root)
    before = tree_hash(root)
    result = run_cli("promote", OURS, "--yes", "--rule", "Use \ufffd here", cwd=root)
    assert (result.returncode, result.stdout, result.stderr) == (
        2, "", "self-improve: error: --rule holds undecodable text (U+FFFD or bytes that were not UTF-8): write it again\n",
    )
    assert tree_hash(root) == before
