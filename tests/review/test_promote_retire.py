"""promote, retire, mark, supersede and extract-skill: exact bytes, exact refusals, nothing written.

Golden files: ``golden/review-promote-<case>.txt`` hold the target file's exact bytes after two
promotions, ``golden/review-retire-one-<case>.txt`` after retiring the first of them; retiring
both must give back the original bytes. Regenerate with ``SELF_IMPROVE_UPDATE_GOLDEN=1`` and
review the diff.
"""

from __future__ import annotations

import re

import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.commands.promote import promote_entry
from self_improve.commands.retire import retire_entry
from self_improve.errors import SelfImproveError
from self_improve.review.managed_block import rehash
from self_improve.store.store import Store
from tests.helpers import entry_text, run_cli, tree_hash, user_config, write_project

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("SELF_IMPROVE_UPDATE_GOLDEN") == "1"

PNPM = "LRN-20260201-aaa"
PYTEST = "ERR-20260202-bbb"
NO_FIX = "ERR-20260203-ccc"
CLOSED = "LRN-20260204-ddd"


# These tests are about editing the user's own CLAUDE.md (its bytes, line endings, markers):
# the project's config chooses it, since the default target is now .claude/rules/self-improve.md.
PIN_CLAUDE_MD = '[targets]\nlearning = "CLAUDE.md"\nerror = "CLAUDE.md"\nfeature = "CLAUDE.md"\n'


def pin_claude_md(root: Path) -> None:
    (root / ".learnings" / "config.toml").write_text(PIN_CLAUDE_MD, encoding="utf-8")


def entries() -> list[str]:
    return [
        entry_text(PNPM, "Use pnpm, not npm", category="correction", action="Use `pnpm install`, not npm: this repo is a pnpm workspace."),
        entry_text(CLOSED, "Old thing", status="wont_fix", action="Do the old thing."),
        entry_text(PYTEST, "pytest fails with ImportError from the root", action="Run `python -m pytest` so the root is on sys.path."),
        entry_text(NO_FIX, "docker needs sudo"),
    ]


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    write_project(tmp_path, entries())
    pin_claude_md(tmp_path)
    return tmp_path


def check_golden(name: str, actual: bytes) -> None:
    path = GOLDEN / name
    if UPDATE_GOLDEN:
        path.write_bytes(actual)
    assert path.exists(), f"missing golden file {name}: run with SELF_IMPROVE_UPDATE_GOLDEN=1"
    assert actual == path.read_bytes()


def refused(project: Path, *args: str, code: int, message: str, input: str | None = None, env: dict[str, str] | None = None) -> None:
    """The command fails with exactly this one line and exit code, and writes nothing at all."""
    before = tree_hash(project)
    result = run_cli(*args, cwd=project, input=input, env=env)
    assert (result.returncode, result.stderr) == (code, f"self-improve: error: {message}\n"), result.stdout
    assert tree_hash(project) == before


# ---- golden edits through promote / retire ---------------------------------------------------------

CASES = {
    "crlf": b"# Project\r\n\r\nIndent with tabs.\r\n",
    "no-final-newline": b"# Project\n\nIndent with tabs.",
    "empty-file": b"",
    "missing-file": None,
    "fenced-lookalike": (
        b"# Notes\n\nOur markers look like this:\n\n```html\n"
        b"<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->\n"
        b"- a fake rule <!-- LRN-20260201-aaa -->\n<!-- self-improve:end -->\n```\n"
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_promote_and_retire_golden(project: Path, case: str) -> None:
    original = CASES[case]
    target = project / "CLAUDE.md"
    if original is not None:
        target.write_bytes(original)
    for entry_id in (PNPM, PYTEST):
        result = run_cli("promote", entry_id, "--yes", cwd=project)
        assert result.returncode == 0, result.stderr
    assert result.stdout == f"promoted {PYTEST} to CLAUDE.md\n"
    check_golden(f"review-promote-{case}.txt", target.read_bytes())
    again = run_cli("promote", PNPM, "--yes", cwd=project)
    assert again.stdout == f"{PNPM} is already promoted to CLAUDE.md: nothing changed\n"
    check_golden(f"review-promote-{case}.txt", target.read_bytes())
    assert run_cli("retire", PNPM, "--yes", cwd=project).stdout == f"retired {PNPM}: its rule is gone from CLAUDE.md\n"
    check_golden(f"review-retire-one-{case}.txt", target.read_bytes())
    assert run_cli("retire", PYTEST, "--yes", cwd=project).returncode == 0
    # A missing file comes back missing (promote created it), an empty one empty: byte for byte.
    assert (target.read_bytes() if target.exists() else None) == original


def test_promote_marks_the_entry_and_touches_only_its_status_lines(project: Path) -> None:
    before = (project / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")
    # `promote` has no --today of its own: the day is the store's clock's, as the occurrences'.
    assert run_cli("promote", PNPM, "--yes", cwd=project, env={"SELF_IMPROVE_NOW": "2026-03-05T23:59:00Z"}).returncode == 0
    after = (project / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")
    head = f"## [{PNPM}] correction\n\n**Logged**: 2026-03-01T10:00:00Z\n**Priority**: medium\n**Status**: "
    last_meta = before.split(f"## [{PNPM}]", 1)[1].split("\n\n---\n", 1)[0].rsplit("\n", 1)[1] + "\n"
    expected = before.replace(head + "pending\n", head + "promoted\n**Promoted**: CLAUDE.md\n")
    expected = expected.replace(last_meta + "\n---\n", last_meta + "- Promoted-On: 2026-03-05\n\n---\n", 1)
    assert after == expected
    assert Store(project).get(PNPM).promoted_on == "2026-03-05"


def test_promoting_twice_is_byte_identical_everywhere(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    before = tree_hash(project)
    again = run_cli("promote", PNPM, "--yes", cwd=project)
    assert again.returncode == 0
    assert tree_hash(project) == before


def test_rule_and_target_options_and_moving_a_rule(project: Path) -> None:
    (project / "CLAUDE.md").write_text("# Mine\n", encoding="utf-8")
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    moved = run_cli("promote", PNPM, "--yes", "--target", "AGENTS.md", "--rule", "Use pnpm.", cwd=project)
    assert moved.stdout == f"promoted {PNPM} to AGENTS.md (moved from CLAUDE.md)\n"
    assert (project / "CLAUDE.md").read_text(encoding="utf-8") == "# Mine\n"
    assert f"- Use pnpm. <!-- {PNPM} -->\n" in (project / "AGENTS.md").read_text(encoding="utf-8")
    assert Store(project).get(PNPM).promoted == "AGENTS.md"


def test_dry_run_prints_the_diff_and_changes_nothing(project: Path) -> None:
    before = tree_hash(project)
    result = run_cli("promote", PYTEST, "--dry-run", cwd=project)
    assert result.returncode == 0, result.stderr
    assert tree_hash(project) == before
    block = rehash(f"{BEGIN}\n## Learned rules\n- Run `python -m pytest` so the root is on sys.path. <!-- {PYTEST} -->\n{END}\n")
    assert result.stdout.startswith(
        "--- /dev/null\n+++ b/CLAUDE.md\n@@ -0,0 +1,4 @@\n"
        + "".join(f"+{line}\n" for line in block.splitlines())
        + "--- a/.learnings/ERRORS.md\n+++ b/.learnings/ERRORS.md\n"
    )
    assert "-**Status**: pending\n+**Status**: promoted\n+**Promoted**: CLAUDE.md\n" in result.stdout


def test_openclaw_workspace_targets_soul_for_behaviour(project: Path) -> None:
    (project / "SOUL.md").write_text("# Soul\n", encoding="utf-8")
    assert run_cli("promote", PNPM, "--yes", cwd=project).stdout == f"promoted {PNPM} to SOUL.md\n"
    assert run_cli("promote", PYTEST, "--yes", cwd=project).stdout == f"promoted {PYTEST} to AGENTS.md\n"


# ---- approval --------------------------------------------------------------------------------------


def test_approval_is_required_off_a_terminal(project: Path) -> None:
    refused(
        project, "promote", PNPM, code=1,
        message=f"promotion.require_approval is on: ask the user, then run `self-improve promote {PNPM} --yes` (nothing changed)",
    )


def test_approval_on_a_terminal_asks(project: Path) -> None:
    env = {"SELF_IMPROVE_INTERACTIVE": "1"}
    refused(project, "promote", PNPM, code=1, message="cancelled: nothing changed", input="n\n", env=env)
    result = run_cli("promote", PNPM, cwd=project, input="y\n", env=env)
    assert result.stdout == (
        "rule:   Use `pnpm install`, not npm: this repo is a pnpm workspace.\n"
        "target: CLAUDE.md\n"
        "provenance: not logged on this machine (it arrived in a commit, or predates provenance records); "
        "no occurrence history; its fix was not recorded here\n"
        f"Promote {PNPM}? [y/N] y\n"
        f"promoted {PNPM} to CLAUDE.md\n"
    )


def test_approval_can_be_turned_off_in_the_users_own_config(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    env = user_config(tmp_path_factory, "[promotion]\nrequire_approval = false\n")
    assert run_cli("promote", PNPM, cwd=project, env=env).stdout == f"promoted {PNPM} to CLAUDE.md\n"
    assert run_cli("retire", PNPM, cwd=project, env=env).stdout == f"retired {PNPM}: its rule is gone from CLAUDE.md\n"


def test_a_projects_config_cannot_turn_approval_off(project: Path) -> None:
    # Finding 6: the repo's own config.toml said require_approval = false. It is personal now.
    (project / ".learnings" / "config.toml").write_text("[promotion]\nrequire_approval = false\n", encoding="utf-8")
    refused(
        project, "promote", PNPM, code=1,
        message=f"promotion.require_approval is on: ask the user, then run `self-improve promote {PNPM} --yes` (nothing changed)",
    )


# ---- refusals ----------------------------------------------------------------------------------------

BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (f"# P\n{BEGIN}\n- x <!-- LRN-20260101-zzz -->\n", "damaged self-improve markers: begin marker on line 2 has no end marker; fix them by hand"),
        (f"# P\n{END}\n", "damaged self-improve markers: end marker on line 2 has no begin marker; fix them by hand"),
        (f"{BEGIN}\n{END}\n\n{BEGIN}\n{END}\n", "damaged self-improve markers: 2 blocks (begin on lines 1, 4), expected at most one; fix them by hand"),
        (f"{BEGIN}\n{BEGIN}\n{END}\n{END}\n", "damaged self-improve markers: begin marker on line 2 is nested inside the block opened on line 1; fix them by hand"),
    ],
    ids=["lone-begin", "lone-end", "two-blocks", "nested"],
)
def test_damaged_markers_are_refused(project: Path, content: str, message: str) -> None:
    (project / "CLAUDE.md").write_text(content, encoding="utf-8")
    refused(project, "promote", PNPM, "--yes", code=1, message=f"CLAUDE.md: {message}")


def test_symlinked_target_is_refused(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "CLAUDE.md"
    elsewhere.write_text("theirs\n", encoding="utf-8")
    (project / "CLAUDE.md").symlink_to(elsewhere)
    refused(project, "promote", PNPM, "--yes", code=1, message=f"refusing to edit {project}/CLAUDE.md: it is a symlink")
    assert elsewhere.read_text(encoding="utf-8") == "theirs\n"


def test_target_through_a_symlinked_directory_is_refused(project: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (project / "docs").symlink_to(elsewhere)
    refused(
        project, "promote", PNPM, "--yes", "--target", "docs/CLAUDE.md", code=1,
        message=f"refusing to edit {project}/docs/CLAUDE.md: docs is a symlink",
    )
    assert list(elsewhere.iterdir()) == []


@pytest.mark.parametrize("target", ["../CLAUDE.md", "docs/../../CLAUDE.md", "/etc/CLAUDE.md"])
def test_target_outside_the_project_is_refused(project: Path, target: str) -> None:
    refused(project, "promote", PNPM, "--yes", "--target", target, code=1, message=f"refusing to edit {target}: it is outside the project root {project}")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "Use pnpm <!-- really -->"], "--rule contains marker text '<!--': remove it"),
        (["--rule", "x" * 201], "--rule is 201 characters, over promotion.max_rule_chars (200): write a shorter one"),
        (["--rule", "   "], "--rule is empty"),
        (["--rule", "Run export OPENAI_API_KEY=sk-proj-" + "Ab3x" * 10 + " first"], "--rule still holds a secret (secret-assignment): remove it"),
        (["--target", "CLAUDE.txt"], "target CLAUDE.txt is not a Markdown file: choose e.g. CLAUDE.md, AGENTS.md or .github/copilot-instructions.md"),
        (["--target", ".learnings/LEARNINGS.md"], "target .learnings/LEARNINGS.md is inside .learnings/: choose an instruction file such as CLAUDE.md or AGENTS.md"),
    ],
    ids=["marker-text", "too-long", "empty", "a-secret", "not-markdown", "the-store"],
)
def test_bad_rule_or_target_is_a_usage_error(project: Path, args: list[str], message: str) -> None:
    refused(project, "promote", PNPM, "--yes", *args, code=2, message=message)


def test_entry_without_a_fix_needs_a_rule(project: Path) -> None:
    refused(project, "promote", NO_FIX, "--yes", code=2, message=f"needs a rule: {NO_FIX} has no Suggested Fix to turn into a rule: pass --rule TEXT")
    assert run_cli("promote", NO_FIX, "--yes", "--rule", "Add the user to the docker group.", cwd=project).returncode == 0


def test_closed_or_unknown_entries_are_refused(project: Path) -> None:
    refused(project, "promote", CLOSED, "--yes", code=1, message=f"{CLOSED} is wont_fix: only pending, in_progress, resolved or promoted entries can be promoted")
    refused(project, "promote", "LRN-20990101-zzz", "--yes", code=1, message="unknown ID 'LRN-20990101-zzz' (see `self-improve list`)")


def test_tools_md_is_never_a_target_in_an_openclaw_workspace(project: Path) -> None:
    (project / "IDENTITY.md").write_text("# Me\n", encoding="utf-8")
    refused(
        project, "promote", PYTEST, "--yes", "--target", "TOOLS.md", code=2,
        message="OpenClaw does not read TOOLS.md: promote tool gotchas into AGENTS.md (its ## Tools section)",
    )


def test_retire_refusals(project: Path) -> None:
    refused(project, "retire", PNPM, "--yes", code=1, message=f"{PNPM} is pending, not promoted: only a promoted rule can be retired")
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    refused(project, "retire", PNPM, code=1, message=f"promotion.require_approval is on: ask the user, then run `self-improve retire {PNPM} --yes` (nothing changed)")
    (project / "CLAUDE.md").write_text((project / "CLAUDE.md").read_text(encoding="utf-8") + f"{END}\n", encoding="utf-8")
    refused(project, "retire", PNPM, "--yes", code=1, message="CLAUDE.md: damaged self-improve markers: end marker on line 5 has no begin marker; fix them by hand")


def test_retire_when_the_rule_was_removed_by_hand(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    (project / "CLAUDE.md").unlink()
    result = run_cli("retire", PNPM, "--yes", cwd=project)
    assert result.stdout == f"retired {PNPM} (status only): its rule lives in your own text (Promoted: CLAUDE.md), which self-improve does not edit\n"
    assert Store(project).get(PNPM).status == "retired"
    assert not (project / "CLAUDE.md").exists()


# ---- the property, through the commands' functions ------------------------------------------------

_PIECES = st.sampled_from(["\n", "\r\n", "\r", "```", "~~~", "# Title", "<!-- note -->", f"- x <!-- {PNPM} -->", " ", "é", "\u2028", "\x0b"])
USER_TEXT = st.lists(st.one_of(st.text(st.characters(codec="utf-8"), max_size=8), _PIECES), max_size=12).map("".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(content=st.none() | USER_TEXT, count=st.integers(min_value=1, max_value=3))
def test_promote_then_retire_all_gives_the_file_back(content: str | None, count: int) -> None:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        ids = [f"LRN-2026020{n}-r{n}" for n in range(1, count + 1)]
        store = write_project(root, [entry_text(i, f"Rule {i}", action=f"Do thing {n}.") for n, i in enumerate(ids)])
        target = root / "CLAUDE.md"
        original = None if content is None else content.encode("utf-8")
        if original is not None:
            target.write_bytes(original)
        try:
            for entry_id in ids:
                assert promote_entry(store, entry_id, target="CLAUDE.md") is not None
        except SelfImproveError as exc:
            # The one refusal user text can cause: a code fence left open would swallow the block.
            assert "is never closed" in str(exc)
            assert (target.read_bytes() if target.exists() else None) == original
            return
        promoted = target.read_bytes()
        assert promote_entry(store, ids[0], target="CLAUDE.md") is None  # the same ID again: a no-op
        assert target.read_bytes() == promoted
        for entry_id in ids:
            retire_entry(store, entry_id)
        # A missing file comes back missing (we created it), an empty one empty.
        assert (target.read_bytes() if target.exists() else None) == original


# ---- mark, supersede -------------------------------------------------------------------------------


def test_mark_counts_helpful_and_harmful(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0  # only a rule is marked
    assert run_cli("mark", PNPM, "--helpful", cwd=project).stdout == f"{PNPM}: helpful 1, harmful 0\n"
    assert run_cli("mark", PNPM, "--helpful", cwd=project).stdout == f"{PNPM}: helpful 2, harmful 0\n"
    result = run_cli("mark", PNPM, "--harmful", "--json", cwd=project)
    assert result.stdout == f'{{"id": "{PNPM}", "helpful": 2, "harmful": 1, "status": "promoted"}}\n'
    text = (project / ".learnings" / "LEARNINGS.md").read_text(encoding="utf-8")
    assert re.search(r"\n- Helpful: 2\n- Last-Helpful: \d{4}-\d{2}-\d{2}\n- Harmful: 1\n\n---\n", text)


def test_mark_hints_at_retiring_a_rule_that_misleads(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    result = run_cli("mark", PNPM, "--harmful", cwd=project)
    assert result.stdout == (
        f"{PNPM}: helpful 0, harmful 1\n"
        f"it misled more often than it helped: `self-improve review` proposes retiring it (`self-improve retire {PNPM}`)\n"
    )


def test_mark_refusals(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    before = tree_hash(project)
    both = run_cli("mark", PNPM, "--helpful", "--harmful", cwd=project)
    assert both.returncode == 2 and tree_hash(project) == before
    neither = run_cli("mark", PNPM, cwd=project)
    assert neither.returncode == 2 and tree_hash(project) == before
    path = project / ".learnings" / "LEARNINGS.md"
    path.write_text(path.read_text(encoding="utf-8").replace("- Last-Seen: 2026-03-01\n", "- Last-Seen: 2026-03-01\n- Helpful: lots\n", 1), encoding="utf-8")
    refused(project, "mark", PNPM, "--helpful", code=1, message=f"{PNPM}: Helpful is 'lots', not a whole number: fix it by hand (see `self-improve lint`)")


def test_supersede_records_both_sides_and_review_proposes_retiring(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    result = run_cli("supersede", PNPM, "--by", PYTEST, cwd=project)
    assert result.stdout == (
        f"{PNPM} superseded by {PYTEST}\n"
        f"its rule is still in CLAUDE.md: `self-improve review` proposes retiring it (`self-improve retire {PNPM}`)\n"
    )
    store = Store(project)
    assert store.get(PNPM).meta("Superseded-By") == PYTEST
    assert store.get(PYTEST).meta("Supersedes") == PNPM
    before = tree_hash(project)
    assert run_cli("supersede", PNPM, "--by", PYTEST, cwd=project).returncode == 0
    assert tree_hash(project) == before  # recording it twice changes nothing
    review = run_cli("review", "--json", cwd=project, env={"SELF_IMPROVE_TODAY": "2026-03-01"})
    assert f'"reason": "superseded by {PYTEST}"' in review.stdout


def test_supersede_refusals(project: Path) -> None:
    refused(project, "supersede", PNPM, "--by", PNPM.lower(), code=2, message="an entry cannot supersede itself")
    refused(project, "supersede", PNPM, "--by", "LRN-20990101-zzz", code=1, message="unknown ID 'LRN-20990101-zzz' (see `self-improve list`)")


# ---- extract-skill ----------------------------------------------------------------------------------


def test_extract_skill_writes_skill_md_and_marks_the_entry(project: Path) -> None:
    result = run_cli("extract-skill", "fix-pytest-imports", "--from", PYTEST, cwd=project)
    assert result.stdout == "extracted ERR-20260202-bbb into skills/fix-pytest-imports/SKILL.md\n"
    skill = (project / "skills" / "fix-pytest-imports" / "SKILL.md").read_text(encoding="utf-8")
    assert skill == (
        "---\n"
        "name: fix-pytest-imports\n"
        'description: "pytest fails with ImportError from the root"\n'
        "---\n"
        "\n"
        "# pytest fails with ImportError from the root\n"
        "\n"
        "## When to use\n"
        "When this comes up again: pytest fails with ImportError from the root.\n"
        "\n"
        "## Steps\n"
        "Run `python -m pytest` so the root is on sys.path.\n"
        "\n"
        "## Source\n"
        "Extracted by `self-improve extract-skill` from ERR-20260202-bbb (.learnings/ERRORS.md).\n"
    )
    entry = Store(project).get(PYTEST)
    assert (entry.status, entry.field("Skill-Path")) == ("promoted_to_skill", "skills/fix-pytest-imports")


def test_extract_skill_output_dir_and_dry_run(project: Path) -> None:
    before = tree_hash(project)
    dry = run_cli("extract-skill", "use-pnpm", "--from", PNPM, "--output-dir", ".claude/skills", "--dry-run", cwd=project)
    assert dry.returncode == 0 and tree_hash(project) == before
    assert dry.stdout.startswith("--- /dev/null\n+++ b/.claude/skills/use-pnpm/SKILL.md\n")
    assert run_cli("extract-skill", "use-pnpm", "--from", PNPM, "--output-dir", ".claude/skills", cwd=project).returncode == 0
    assert Store(project).get(PNPM).field("Skill-Path") == ".claude/skills/use-pnpm"


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["Fix_It", "--from", PYTEST], 2, "invalid skill name 'Fix_It': use lower-case letters and digits joined by single hyphens, e.g. fix-import-errors"),
        (["fix--it", "--from", PYTEST], 2, "invalid skill name 'fix--it': use lower-case letters and digits joined by single hyphens, e.g. fix-import-errors"),
        (["fix-it", "--from", PYTEST, "--output-dir", "/tmp/skills"], 2, "--output-dir /tmp/skills must be a relative path inside the project"),
        (["fix-it", "--from", PYTEST, "--output-dir", "skills/../.."], 2, "--output-dir skills/../.. must not contain .."),
        (["fix-it", "--from", NO_FIX], 2, f"{NO_FIX} has no Suggested Fix: a skill needs steps; add them to the entry first"),
        (["fix-it", "--from", CLOSED], 1, f"{CLOSED} is wont_fix: only pending, in_progress or resolved entries can become a skill"),
    ],
    ids=["capitals", "double-hyphen", "absolute", "dot-dot", "no-steps", "closed"],
)
def test_extract_skill_refusals(project: Path, args: list[str], code: int, message: str) -> None:
    refused(project, "extract-skill", *args, code=code, message=message)


def test_extract_skill_never_overwrites(project: Path) -> None:
    (project / "skills" / "fix-it").mkdir(parents=True)
    refused(project, "extract-skill", "fix-it", "--from", PYTEST, code=1, message="skill skills/fix-it already exists: choose another NAME or remove it first")


def test_a_new_rule_keeps_the_rule_where_it_is(project: Path) -> None:
    assert run_cli("promote", PNPM, "--yes", cwd=project).returncode == 0
    (project / ".learnings" / "config.toml").write_text('[targets]\nlearning = "AGENTS.md"\n', encoding="utf-8")
    result = run_cli("promote", PNPM, "--yes", "--rule", "Use pnpm; never npm.", cwd=project)
    assert result.stdout == f"promoted {PNPM} to CLAUDE.md\n"
    assert f"- Use pnpm; never npm. <!-- {PNPM} -->\n" in (project / "CLAUDE.md").read_text(encoding="utf-8")
    assert not (project / "AGENTS.md").exists()


def test_retire_finds_a_rule_promoted_by_hand(project: Path) -> None:
    # An entry promoted by hand in the reference skill's way: no usable Promoted path.
    path = project / ".learnings" / "LEARNINGS.md"
    path.write_text(path.read_text(encoding="utf-8").replace("**Status**: pending", "**Status**: promoted\n**Promoted**: the agents file", 1), encoding="utf-8")
    (project / "AGENTS.md").write_text(f"# Agents\n\n{BEGIN}\n## Learned rules\n- Use pnpm. <!-- {PNPM} -->\n{END}\n", encoding="utf-8")
    result = run_cli("retire", PNPM, "--yes", cwd=project)
    assert result.stdout == f"retired {PNPM}: its rule is gone from AGENTS.md\n"
    assert (project / "AGENTS.md").read_text(encoding="utf-8") == "# Agents\n"
