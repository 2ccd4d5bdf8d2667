"""Tests for the managed block: exact bytes everywhere, because the promise is "retire gives the
user's file back byte for byte".

Golden files live in ``golden/<case>.before.md`` / ``<case>.after.md`` and are compared as
bytes. To regenerate the ``.after.md`` files after an intended format change, run with
``SELF_IMPROVE_UPDATE_GOLDEN=1`` and review the diff before committing.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from self_improve.review.managed_block import (
    OPENCLAW_MARKER,
    BlockScan,
    ManagedBlockError,
    Rule,
    check_occupied,
    edit_file,
    fits_limit,
    has_rule,
    javascript_length,
    list_rules,
    rehash,
    remove_block,
    remove_rule,
    scan_rules,
    upsert_block,
    upsert_rule,
)

GOLDEN = Path(__file__).parent / "golden"
UPDATE_GOLDEN = os.environ.get("SELF_IMPROVE_UPDATE_GOLDEN") == "1"

PNPM_ID = "LRN-20261129-a7b"
PNPM_RULE = "Use `pnpm install`, not npm: this repo is a pnpm workspace."
LINT_ID = "ERR-20261130-9f2"
LINT_RULE = "Run `make lint` before `make test`: the linter regenerates stubs."

BEGIN = "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) -->"
END = "<!-- self-improve:end -->"


def sha(*inner: str) -> str:
    """The hash a begin marker must carry for these inner lines, computed here on its own (not
    with the module's code): SHA-256 of the lines joined by LF, first 8 hex digits."""
    return hashlib.sha256("\n".join(inner).encode()).hexdigest()[:8]


def hashed(begin: str, *inner: str) -> str:
    """``begin`` (a begin marker without a hash) with the hash of ``inner``."""
    return begin.removesuffix(" -->") + f" sha:{sha(*inner)} -->"

REMINDER = (
    "## Self-Improvement Reminder\n"
    "\n"
    "Before you finish a task, check whether a command failed or the user corrected you.\n"
    "`self-improve` records both; `self-improve review` turns repeated ones into rules.\n"
)


def install_reminder(text: str) -> str:
    """How a caller is meant to combine the OpenClaw helpers: refuse (leave the text alone) when
    the user has their own section or when OpenClaw would cut the file."""
    if check_occupied(text) is not None:
        return text
    updated = upsert_block(text, REMINDER)
    return updated if fits_limit(updated) else text


# --------------------------------------------------------------------------- golden files


@dataclass(frozen=True)
class GoldenCase:
    name: str
    edit: Callable[[str], str]
    undo: Callable[[str], str] | None = None  # applied to .after.md must give .before.md back


def _retire_all(text: str) -> str:
    for rule in list_rules(text):
        text = remove_rule(text, rule.entry_id)
    return text


def _promote_pnpm(text: str) -> str:
    return upsert_rule(text, PNPM_ID, PNPM_RULE)


GOLDEN_CASES = [
    GoldenCase("create-in-missing-file", _promote_pnpm, _retire_all),
    GoldenCase("empty-file", _promote_pnpm, _retire_all),
    GoldenCase("append-to-existing", _promote_pnpm, _retire_all),
    GoldenCase(
        "replace-bullet",
        lambda text: upsert_rule(text, PNPM_ID, "Use `pnpm install --frozen-lockfile`, never npm."),
    ),
    GoldenCase("append-second-bullet", lambda text: upsert_rule(text, LINT_ID, LINT_RULE)),
    GoldenCase("remove-one-of-two", lambda text: remove_rule(text, PNPM_ID)),
    GoldenCase("remove-last", lambda text: remove_rule(text, PNPM_ID)),
    GoldenCase("crlf-file", _promote_pnpm, _retire_all),
    GoldenCase("crlf-remove-last", lambda text: remove_rule(text, PNPM_ID)),
    GoldenCase("no-final-newline", _promote_pnpm, _retire_all),
    GoldenCase("fenced-lookalike-markers", _promote_pnpm, _retire_all),
    GoldenCase("fenced-lookalike-with-block", lambda text: upsert_rule(text, LINT_ID, LINT_RULE)),
    GoldenCase("openclaw-upsert", install_reminder, remove_block),
    GoldenCase("openclaw-replace-body", install_reminder),
    GoldenCase("openclaw-collapse-duplicates", install_reminder),
    GoldenCase("openclaw-occupied", install_reminder),
    GoldenCase("openclaw-size-limit", install_reminder),
    GoldenCase("openclaw-remove", remove_block),
]


def _golden_bytes(name: str, side: str) -> bytes | None:
    path = GOLDEN / f"{name}.{side}.md"
    return path.read_bytes() if path.exists() else None


@pytest.mark.parametrize("case", GOLDEN_CASES, ids=lambda case: case.name)
def test_golden_edit_through_the_file_layer(case: GoldenCase, tmp_path: Path) -> None:
    before = _golden_bytes(case.name, "before")
    target = tmp_path / "CLAUDE.md"
    if before is not None:
        target.write_bytes(before)

    result = edit_file(target, tmp_path, case.edit)
    written = target.read_bytes() if target.exists() else None

    if UPDATE_GOLDEN:
        assert written is not None
        (GOLDEN / f"{case.name}.after.md").write_bytes(written)
    expected = _golden_bytes(case.name, "after")
    assert written == expected
    assert result.before == before
    assert result.after == expected
    # The pure function alone gives the same bytes (no newline translation anywhere).
    assert case.edit((before or b"").decode()).encode() == expected
    # Running the same edit again changes nothing.
    assert case.edit(expected.decode()) == expected.decode()


@pytest.mark.parametrize(
    "case", [case for case in GOLDEN_CASES if case.undo], ids=lambda case: case.name
)
def test_golden_edit_undoes_to_the_original_bytes(case: GoldenCase, tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(_golden_bytes(case.name, "after"))
    assert case.undo is not None
    edit_file(target, tmp_path, case.undo)
    before = _golden_bytes(case.name, "before")
    if before is None or before == b"":
        # A file holding only our block becomes empty. This one was written by the test, not
        # created by an edit of ours: it may be the user's, so it stays, 0 bytes (created_files).
        assert target.read_bytes() == b""
    else:
        assert target.read_bytes() == before


def test_golden_files_have_no_orphans() -> None:
    names = {case.name for case in GOLDEN_CASES}
    on_disk = {path.name.split(".")[0] for path in GOLDEN.glob("*.md")}
    assert on_disk == names


def test_the_documented_block_format_exactly() -> None:
    assert upsert_rule("", PNPM_ID, PNPM_RULE) == (
        "<!-- self-improve:begin (managed by `self-improve review`; edit the rules there) sha:d38661c2 -->\n"
        f"## Learned rules\n- {PNPM_RULE} <!-- {PNPM_ID} -->\n{END}\n"
    )
    assert sha("## Learned rules", f"- {PNPM_RULE} <!-- {PNPM_ID} -->") == "d38661c2"


def test_occupied_reason_and_size_limit_of_the_golden_inputs() -> None:
    occupied = _golden_bytes("openclaw-occupied", "before").decode()
    assert check_occupied(occupied) == (
        "line 10 already holds a self-improvement section outside the self-improve:openclaw "
        "markers: '## Self-Improvement'"
    )
    too_big = _golden_bytes("openclaw-size-limit", "before").decode()
    assert check_occupied(too_big) is None
    assert fits_limit(too_big)
    assert not fits_limit(upsert_block(too_big, REMINDER))


# --------------------------------------------------------------------------- rules, by example


def test_list_rules_and_has_rule() -> None:
    text = upsert_rule(upsert_rule("# Notes\n", PNPM_ID, PNPM_RULE), LINT_ID, LINT_RULE)
    assert list_rules(text) == [
        Rule(entry_id=PNPM_ID, text=PNPM_RULE, line=5),
        Rule(entry_id=LINT_ID, text=LINT_RULE, line=6),
    ]
    assert has_rule(text, LINT_ID)
    assert not has_rule(text, "LRN-20990101-zzz")
    assert list_rules("no block here\n") == []


def test_removing_an_absent_id_returns_the_text_unchanged() -> None:
    text = upsert_rule("# Notes", PNPM_ID, PNPM_RULE)
    assert remove_rule(text, "LRN-20990101-zzz") is text
    assert remove_rule("# Notes", PNPM_ID) == "# Notes"


def test_new_bullet_goes_after_the_last_bullet_not_after_other_lines() -> None:
    text = f"{BEGIN}\n## Learned rules\n- {PNPM_RULE} <!-- {PNPM_ID} -->\n\n{END}\n"
    inner = ("## Learned rules", f"- {PNPM_RULE} <!-- {PNPM_ID} -->", f"- {LINT_RULE} <!-- {LINT_ID} -->", "")
    assert upsert_rule(text, LINT_ID, LINT_RULE) == f"{hashed(BEGIN, *inner)}\n" + "\n".join(inner) + f"\n{END}\n"


def test_hand_copied_duplicate_bullets_collapse_on_upsert_and_all_go_on_remove() -> None:
    bullet = f"- old <!-- {PNPM_ID} -->\n"
    text = f"{BEGIN}\n## Learned rules\n{bullet}- keep <!-- {LINT_ID} -->\n{bullet}{END}\n"
    upserted = ("## Learned rules", f"- new <!-- {PNPM_ID} -->", f"- keep <!-- {LINT_ID} -->")
    assert upsert_rule(text, PNPM_ID, "new") == f"{hashed(BEGIN, *upserted)}\n" + "\n".join(upserted) + f"\n{END}\n"
    removed = ("## Learned rules", f"- keep <!-- {LINT_ID} -->")
    assert remove_rule(text, PNPM_ID) == f"{hashed(BEGIN, *removed)}\n" + "\n".join(removed) + f"\n{END}\n"


def test_mixed_line_endings_keep_each_existing_line_ending() -> None:
    # CRLF block inside a mostly-LF file: the block's own ending wins, so re-runs are stable.
    text = f"a\nb\nc\n\r\n{BEGIN}\r\n## Learned rules\r\n- x <!-- {PNPM_ID} -->\r\n{END}\r\n"
    updated = upsert_rule(text, LINT_ID, "y")
    stamped = hashed(BEGIN, "## Learned rules", f"- x <!-- {PNPM_ID} -->", f"- y <!-- {LINT_ID} -->")
    assert updated == text.replace(f"{END}", f"- y <!-- {LINT_ID} -->\r\n{END}").replace(BEGIN, stamped)
    assert remove_rule(remove_rule(updated, LINT_ID), PNPM_ID) == "a\nb\nc\n"


def test_a_block_between_blank_lines_takes_one_blank_line_with_it() -> None:
    text = f"# Top\n\n{BEGIN}\n## Learned rules\n- x <!-- {PNPM_ID} -->\n{END}\n\n## After\n"
    assert remove_rule(text, PNPM_ID) == "# Top\n\n## After\n"
    # Without blank lines on both sides only the block's own lines go.
    tight = f"# Top\n{BEGIN}\n## Learned rules\n- x <!-- {PNPM_ID} -->\n{END}\n\n## After\n"
    assert remove_rule(tight, PNPM_ID) == "# Top\n\n## After\n"


def test_a_blank_line_removed_by_the_user_is_not_taken_from_their_text() -> None:
    text = f"# Top\n{BEGIN}\n## Learned rules\n- x <!-- {PNPM_ID} -->\n{END}\n"
    assert remove_rule(text, PNPM_ID) == "# Top\n"


def test_lookalike_markers_outside_fences_that_are_not_ours_are_left_alone() -> None:
    text = (
        "> <!-- self-improve:begin -->\n"
        "<!-- self-improve-begin -->\n"
        "<!-- self-improve:end --> trailing\n"
        "<!-- self-improve:openclaw:begin -->\n<!-- self-improve:openclaw:end -->\n"
    )
    promoted = upsert_rule(text, PNPM_ID, PNPM_RULE)
    assert promoted.startswith(text)
    assert remove_rule(promoted, PNPM_ID) == text


def test_rules_and_openclaw_reminder_share_a_file_without_touching_each_other() -> None:
    both = upsert_block(upsert_rule("# AGENTS.md\n", PNPM_ID, PNPM_RULE), REMINDER)
    assert list_rules(both) == [Rule(PNPM_ID, PNPM_RULE, 5)]
    assert check_occupied(both) is None
    assert remove_rule(remove_block(both), PNPM_ID) == "# AGENTS.md\n"
    assert remove_block(remove_rule(both, PNPM_ID)) == "# AGENTS.md\n"


def test_marker_names_are_parameters() -> None:
    text = upsert_rule("x\n", PNPM_ID, "r", marker_name="team-rules")
    team_begin = "<!-- team-rules:begin (managed by `self-improve review`; edit the rules there) -->"
    assert text == (
        f"x\n\n{hashed(team_begin, '## Learned rules', f'- r <!-- {PNPM_ID} -->')}\n"
        f"## Learned rules\n- r <!-- {PNPM_ID} -->\n<!-- team-rules:end -->\n"
    )
    assert list_rules(text) == []  # the default marker does not see another marker's block
    assert remove_rule(text, PNPM_ID, marker_name="team-rules") == "x\n"
    block = upsert_block("", "body", marker_name="self-improve:other", note="(managed by hooks)")
    assert block == (
        "<!-- self-improve:other:begin (managed by hooks) -->\n"
        "body\n"
        "<!-- self-improve:other:end -->\n"
    )


def test_empty_and_blank_bodies() -> None:
    assert upsert_block("", "") == (
        f"<!-- {OPENCLAW_MARKER}:begin -->\n<!-- {OPENCLAW_MARKER}:end -->\n"
    )
    assert upsert_block("", "\n") == (
        f"<!-- {OPENCLAW_MARKER}:begin -->\n\n<!-- {OPENCLAW_MARKER}:end -->\n"
    )
    assert upsert_block("", "a\r\nb") == upsert_block("", "a\nb\n")


def test_check_occupied_ignores_fenced_code_and_our_own_block() -> None:
    text = "```\n## Self-Improvement\n```\n" + upsert_block("", REMINDER)
    assert check_occupied(text) is None
    assert check_occupied("We keep a self-improvement reminder in NOTES.md.\n") == (
        "line 1 already holds a self-improvement section outside the self-improve:openclaw "
        "markers: 'We keep a self-improvement reminder in NOTES.md.'"
    )
    assert check_occupied("# Self improvement log\n") is not None
    assert check_occupied("### My self-improvements\n") is not None
    assert check_occupied("# Improvements to self-hosting\n") is None


def test_fits_limit_counts_like_javascript() -> None:
    assert fits_limit("a" * 20_000)
    assert not fits_limit("a" * 20_001)
    assert javascript_length("🧠") == 2  # astral characters are two UTF-16 code units
    assert not fits_limit("🧠" * 10_001)
    assert fits_limit("abc", limit=3)


# --------------------------------------------------------------------------- the content hash

RULES = ("## Learned rules", f"- {PNPM_RULE} <!-- {PNPM_ID} -->")
LEGACY = f"# Notes\n\n{BEGIN}\n" + "\n".join(RULES) + f"\n{END}\n"  # written before blocks were hashed


def test_a_block_without_a_hash_parses_and_is_hashed_on_its_next_edit() -> None:
    scan = scan_rules(LEGACY)
    assert [(b.stored_hash, b.actual_hash, b.edited_by_hand) for b in scan.blocks] == [(None, sha(*RULES), False)]
    assert list_rules(LEGACY) == [Rule(PNPM_ID, PNPM_RULE, 5)]
    added = upsert_rule(LEGACY, LINT_ID, LINT_RULE)
    inner = (*RULES, f"- {LINT_RULE} <!-- {LINT_ID} -->")
    assert added == f"# Notes\n\n{hashed(BEGIN, *inner)}\n" + "\n".join(inner) + f"\n{END}\n"
    assert remove_rule(added, LINT_ID) == LEGACY.replace(BEGIN, hashed(BEGIN, *RULES))


def test_every_edit_rewrites_the_hash_and_a_crlf_checkout_is_not_an_edit() -> None:
    text = upsert_rule("# Notes\n", PNPM_ID, PNPM_RULE)
    assert scan_rules(text).blocks[0].stored_hash == sha(*RULES)
    crlf = text.replace("\n", "\r\n")
    assert [b.edited_by_hand for b in scan_rules(crlf).blocks] == [False]
    two = upsert_rule(crlf, LINT_ID, LINT_RULE)
    assert scan_rules(two).blocks[0].stored_hash == sha(*RULES, f"- {LINT_RULE} <!-- {LINT_ID} -->")
    assert two.count("\r\n") == two.count("\n")  # the hash did not change a line ending


def test_a_hand_edit_keeps_its_stale_hash_through_our_edits_until_rehashed() -> None:
    ours = upsert_rule(upsert_rule("# Notes\n", PNPM_ID, PNPM_RULE), LINT_ID, LINT_RULE)
    stored = scan_rules(ours).blocks[0].stored_hash
    edited = ours.replace(PNPM_RULE, "Use yarn.")
    assert [b.edited_by_hand for b in scan_rules(edited).blocks] == [True]
    third = "LRN-20261201-c3d"
    for changed in (upsert_rule(edited, third, "x"), remove_rule(edited, LINT_ID), upsert_rule(edited, LINT_ID, "y")):
        (block,) = scan_rules(changed).blocks
        assert (block.stored_hash, block.edited_by_hand) == (stored, True)
        assert "- Use yarn. <!-- LRN-20261129-a7b -->" in changed  # the user's text is kept
    accepted = rehash(edited)
    assert accepted == edited.replace(f"sha:{stored}", f"sha:{sha('## Learned rules', f'- Use yarn. <!-- {PNPM_ID} -->', f'- {LINT_RULE} <!-- {LINT_ID} -->')}")
    assert [b.edited_by_hand for b in scan_rules(accepted).blocks] == [False]
    assert rehash(accepted) == accepted
    # Retiring every rule removes the block, stale or not, and gives the user's text back.
    assert remove_rule(remove_rule(edited, LINT_ID), PNPM_ID) == "# Notes\n"


def test_rehash_keeps_every_other_byte_and_refuses_damage() -> None:
    assert rehash("no block\n") == "no block\n"
    odd = "\ufeff<!-- self-improve:begin-->\r\n- a <!-- LRN-20261129-a7b -->\r\n<!-- self-improve:end -->"
    assert rehash(odd) == odd.replace("begin-->", f"begin sha:{sha('- a <!-- LRN-20261129-a7b -->')} -->")
    assert rehash(LEGACY, marker_name="team-rules") == LEGACY
    with pytest.raises(ManagedBlockError) as refused:
        rehash(f"{BEGIN}\n")
    assert str(refused.value) == "damaged self-improve markers: begin marker on line 1 has no end marker; fix them by hand"


def test_a_long_run_of_spaces_in_a_begin_marker_is_handled() -> None:
    # Read with string operations: a regex with an optional run of spaces before "sha:" would
    # backtrack quadratically on this line, which a repository can ship.
    begin = "<!-- self-improve:begin" + " " * 200_000 + "x -->"
    text = f"{begin}\n- a <!-- {PNPM_ID} -->\n{END}\n"
    (block,) = scan_rules(text).blocks
    assert block.stored_hash is None
    assert rehash(text).startswith(begin.removesuffix(" -->") + f" sha:{sha(f'- a <!-- {PNPM_ID} -->')} -->\n")


def test_upsert_block_hashes_the_rules_marker_only() -> None:
    body = "## Learned rules\n- r <!-- LRN-20261129-a7b -->\n"
    merged = upsert_block("", body, marker_name="self-improve", note="(managed) sha:00000000")
    assert merged == (
        f"<!-- self-improve:begin (managed) sha:{sha('## Learned rules', '- r <!-- LRN-20261129-a7b -->')} -->\n"
        f"{body}{END}\n"
    )
    assert upsert_block("", "x\n") == f"<!-- {OPENCLAW_MARKER}:begin -->\nx\n<!-- {OPENCLAW_MARKER}:end -->\n"


DAMAGE_LINES = [
    ("lone-begin", f"# x\n{BEGIN}\n", 2),
    ("lone-end", f"# x\n- a <!-- {PNPM_ID} -->\n{END}\n", 3),
    ("end-before-begin", f"{END}\n# x\n{BEGIN}\n", 1),
    ("nested-begin", f"{BEGIN}\n{BEGIN}\n{END}\n{END}\n", 2),
    ("two-blocks", f"{BEGIN}\n{END}\n\n# x\n\n{BEGIN}\n{END}\n", 6),
]


@pytest.mark.parametrize("name, text, line", DAMAGE_LINES, ids=[case[0] for case in DAMAGE_LINES])
def test_scan_reports_damage_with_its_line_and_never_raises(name: str, text: str, line: int) -> None:
    scan = scan_rules(text)
    assert scan.damage_line == line
    with pytest.raises(ManagedBlockError) as refused:
        list_rules(text)
    assert scan.damage == str(refused.value)


def test_scan_lists_rule_ids_outside_fences_even_when_damaged() -> None:
    text = f"{BEGIN}\n- a <!-- {PNPM_ID} -->\n```\n- b <!-- {LINT_ID} -->\n```\n"
    scan = scan_rules(text)
    assert (scan.damage_line, scan.blocks, scan.loose_ids) == (1, (), frozenset({PNPM_ID}))
    assert scan_rules("# x\n") == BlockScan(blocks=(), damage_line=None, damage="", loose_ids=frozenset())


# --------------------------------------------------------------------------- refusals


DAMAGED = [
    (
        "lone-begin",
        f"# x\n{BEGIN}\n- a <!-- {PNPM_ID} -->\n",
        "damaged self-improve markers: begin marker on line 2 has no end marker; fix them by hand",
    ),
    (
        "lone-end",
        f"# x\n- a <!-- {PNPM_ID} -->\n{END}\n",
        "damaged self-improve markers: end marker on line 3 has no begin marker; fix them by hand",
    ),
    (
        "end-before-begin",
        f"{END}\n# x\n{BEGIN}\n",
        "damaged self-improve markers: end marker on line 1 comes before the begin marker on "
        "line 3; fix them by hand",
    ),
    (
        "nested-begin",
        f"{BEGIN}\n{BEGIN}\n{END}\n{END}\n",
        "damaged self-improve markers: begin marker on line 2 is nested inside the block opened "
        "on line 1; fix them by hand",
    ),
    (
        "two-blocks",
        f"{BEGIN}\n{END}\n\n# x\n\n{BEGIN}\n{END}\n",
        "damaged self-improve markers: 2 blocks (begin on lines 1, 6), expected at most one; "
        "fix them by hand",
    ),
    (
        "fence-hides-end",
        f"{BEGIN}\n```\n{END}\n",
        "damaged self-improve markers: begin marker on line 1 has no end marker; fix them by hand",
    ),
]

RULE_OPERATIONS: list[tuple[str, Callable[[str], object]]] = [
    ("upsert_rule", lambda text: upsert_rule(text, PNPM_ID, PNPM_RULE)),
    ("remove_rule", lambda text: remove_rule(text, PNPM_ID)),
    ("list_rules", list_rules),
    ("has_rule", lambda text: has_rule(text, PNPM_ID)),
]


@pytest.mark.parametrize("name, text, message", DAMAGED, ids=[case[0] for case in DAMAGED])
@pytest.mark.parametrize("operation", RULE_OPERATIONS, ids=[op[0] for op in RULE_OPERATIONS])
def test_damaged_markers_are_refused_and_the_file_is_unchanged(
    name: str,
    text: str,
    message: str,
    operation: tuple[str, Callable[[str], object]],
    tmp_path: Path,
) -> None:
    with pytest.raises(ManagedBlockError) as refused:
        operation[1](text)
    assert str(refused.value) == message

    target = tmp_path / "CLAUDE.md"
    target.write_bytes(text.encode())
    with pytest.raises(ManagedBlockError):
        edit_file(target, tmp_path, lambda current: upsert_rule(current, PNPM_ID, PNPM_RULE))
    assert target.read_bytes() == text.encode()


def test_generic_block_helpers_refuse_damage_but_collapse_duplicates() -> None:
    begin, end = f"<!-- {OPENCLAW_MARKER}:begin -->", f"<!-- {OPENCLAW_MARKER}:end -->"
    for operation in (lambda t: upsert_block(t, "x"), remove_block, check_occupied):
        with pytest.raises(ManagedBlockError) as refused:
            operation(f"{begin}\n")
        assert str(refused.value) == (
            "damaged self-improve:openclaw markers: begin marker on line 1 has no end marker; "
            "fix them by hand"
        )
    assert upsert_block(f"{begin}\na\n{end}\n{begin}\nb\n{end}\n", "c") == f"{begin}\nc\n{end}\n"


@pytest.mark.parametrize(
    "entry_id, rule, message",
    [
        (PNPM_ID, "see <!-- here", "rule contains marker text '<!--'; remove it"),
        (PNPM_ID, "ends here -->", "rule contains marker text '-->'; remove it"),
        (
            PNPM_ID,
            "self-improve:begin",
            "rule contains marker text 'self-improve:begin'; remove it",
        ),
        (PNPM_ID, "self-improve:end", "rule contains marker text 'self-improve:end'; remove it"),
        (PNPM_ID, "two\nlines", "rule contains a line break; it must be one line"),
        (PNPM_ID, "two\rlines", "rule contains a line break; it must be one line"),
        (PNPM_ID, "   ", "rule is empty"),
        *[
            (bad_id, "r", f"malformed entry ID {bad_id!r}; expected a form like LRN-20261129-a7b")
            # The store's one ID grammar (store.entry.ID_REGEX): LRN, ERR or FEAT, ASCII digits.
            for bad_id in ("lrn-20261129-a7b", "LRN-2026112-a7b", "LRN-20261129-a7b ", "", "ABC-20261129-a7b", "LRN-\u0662\u0660\u0662\u0666\u0661\u0661\u0662\u0669-a7b")
        ],
    ],
)
def test_bad_rules_and_ids_are_refused(
    entry_id: str, rule: str, message: str, tmp_path: Path
) -> None:
    original = "# Notes\n"
    with pytest.raises(ManagedBlockError) as refused:
        upsert_rule(original, entry_id, rule)
    assert str(refused.value) == message

    target = tmp_path / "AGENTS.md"
    target.write_bytes(original.encode())
    with pytest.raises(ManagedBlockError):
        edit_file(target, tmp_path, lambda text: upsert_rule(text, entry_id, rule))
    assert target.read_bytes() == original.encode()


def test_a_bullet_with_an_id_outside_the_store_grammar_is_not_a_rule() -> None:
    text = f"{hashed(BEGIN, '## Learned rules', '- Use pnpm. <!-- ABC-20261129-a7b -->')}\n## Learned rules\n- Use pnpm. <!-- ABC-20261129-a7b -->\n{END}\n"
    assert list_rules(text) == []
    assert scan_rules(text).loose_ids == frozenset()


def test_bad_heading_and_body_are_refused() -> None:
    with pytest.raises(ManagedBlockError) as refused:
        upsert_rule("", PNPM_ID, "r", heading="```")
    assert str(refused.value) == "heading would open a code fence and hide the end marker"
    with pytest.raises(ManagedBlockError) as refused:
        upsert_block("", "```\ncode\n")
    assert str(refused.value) == "block body leaves the code fence on its line 1 open; close it"
    with pytest.raises(ManagedBlockError) as refused:
        upsert_block("", "x\n<!-- self-improve:openclaw:end -->\n")
    assert str(refused.value) == (
        "block body contains marker text '<!-- self-improve:openclaw:end -->'; remove it"
    )


def test_appending_after_an_unclosed_fence_is_refused() -> None:
    with pytest.raises(ManagedBlockError) as refused:
        upsert_rule("# x\n\n```sh\nmake\n", PNPM_ID, PNPM_RULE)
    assert str(refused.value) == (
        "code fence opened on line 3 is never closed; close it so the managed block is not "
        "swallowed by it"
    )


# --------------------------------------------------------------------------- file layer


def test_missing_file_and_parent_are_created_and_retire_all_deletes_it(tmp_path: Path) -> None:
    target = tmp_path / ".github" / "copilot-instructions.md"
    created = edit_file(target, tmp_path, _promote_pnpm)
    assert created.before is None
    assert target.read_bytes() == created.after == _promote_pnpm("").encode()
    assert stat.S_IMODE(target.stat().st_mode) == 0o666 & ~_umask()

    retired = edit_file(target, tmp_path, _retire_all)
    assert retired.after is None
    assert not target.exists()
    # The directory we created goes with our last file (issue 14), which also shows that no
    # temp file was left in it (rmdir takes only an empty folder).
    assert not target.parent.exists()


def test_an_existing_empty_file_that_stays_empty_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(b"")
    result = edit_file(target, tmp_path, lambda text: remove_rule(text, PNPM_ID))
    assert result.before == result.after == b""
    assert not result.changed
    assert target.exists()


def test_relative_path_is_taken_from_the_project_root(tmp_path: Path) -> None:
    edit_file(Path("CLAUDE.md"), tmp_path, _promote_pnpm)
    assert has_rule((tmp_path / "CLAUDE.md").read_text(), PNPM_ID)


def test_mode_is_kept_and_unchanged_files_are_not_rewritten(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(b"# Notes\r\n")
    target.chmod(0o640)
    edit_file(target, tmp_path, _promote_pnpm)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert target.read_bytes() == _promote_pnpm("# Notes\r\n").encode()

    inode = target.stat().st_ino
    again = edit_file(target, tmp_path, _promote_pnpm)
    assert not again.changed
    assert again.diff(tmp_path) == ""
    assert target.stat().st_ino == inode  # os.replace would have given a new inode


def test_dry_run_writes_nothing_and_returns_a_unified_diff(tmp_path: Path) -> None:
    target = tmp_path / "docs" / "AGENTS.md"
    target.parent.mkdir()
    target.write_bytes(b"# Notes")
    result = edit_file(target, tmp_path, _promote_pnpm, dry_run=True)
    assert target.read_bytes() == b"# Notes"
    assert result.after == _promote_pnpm("# Notes").encode()
    assert result.diff(tmp_path.resolve()) == (
        "--- a/docs/AGENTS.md\n"
        "+++ b/docs/AGENTS.md\n"
        "@@ -1 +1,6 @@\n"
        "-# Notes\n"
        "\\ No newline at end of file\n"
        "+# Notes\n"
        "+\n"
        f"+{hashed(BEGIN, '## Learned rules', f'- {PNPM_RULE} <!-- {PNPM_ID} -->')}\n"
        "+## Learned rules\n"
        f"+- {PNPM_RULE} <!-- {PNPM_ID} -->\n"
        f"+{END}\n"
        "\\ No newline at end of file\n"
    )


def test_dry_run_on_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    target = tmp_path / "new" / "CLAUDE.md"
    result = edit_file(target, tmp_path, _promote_pnpm, dry_run=True)
    assert result.before is None and result.after is not None
    assert not (tmp_path / "new").exists()


def test_symlink_target_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_bytes(b"# Real\n")
    link = tmp_path / "CLAUDE.md"
    link.symlink_to(real)
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(link, tmp_path, _promote_pnpm)
    assert str(refused.value) == f"refusing to write {link}: it is a symlink"
    assert real.read_bytes() == b"# Real\n"
    assert link.is_symlink()


def test_target_outside_the_root_is_refused(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside.md"
    outside.write_bytes(b"# Outside\n")
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(root / ".." / "outside.md", root, _promote_pnpm)
    assert str(refused.value) == (
        f"refusing to write {root / '..' / 'outside.md'}: it leads outside the project root {root} (to {outside.resolve()})"
    )
    assert outside.read_bytes() == b"# Outside\n"

    (root / "escape").symlink_to(tmp_path, target_is_directory=True)
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(root / "escape" / "outside.md", root, _promote_pnpm)
    assert str(refused.value) == (
        f"refusing to write {root / 'escape' / 'outside.md'}: it leads outside the project root {root} (to {outside.resolve()})"
    )
    assert outside.read_bytes() == b"# Outside\n"


def test_non_utf8_directories_and_missing_roots_are_refused(tmp_path: Path) -> None:
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(b"# caf\xe9\n")
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(target, tmp_path, _promote_pnpm)
    assert str(refused.value) == f"refusing to edit {target}: not valid UTF-8 (byte 5)"
    assert target.read_bytes() == b"# caf\xe9\n"

    missing_root = tmp_path / "no-such-project"
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(missing_root / "CLAUDE.md", missing_root, _promote_pnpm)
    assert str(refused.value) == (
        f"refusing to write {missing_root / 'CLAUDE.md'}: project root {missing_root} is not a "
        "directory"
    )
    assert not missing_root.exists()

    (tmp_path / "AGENTS.md").mkdir()
    with pytest.raises(ManagedBlockError) as refused:
        edit_file(tmp_path / "AGENTS.md", tmp_path, _promote_pnpm)
    assert str(refused.value) == (
        f"refusing to write {tmp_path / 'AGENTS.md'}: it is not a regular file"
    )


def test_utf8_bom_and_unicode_survive(tmp_path: Path) -> None:
    original = "\ufeff# Café ☕ — 规则\r\n".encode()
    target = tmp_path / "CLAUDE.md"
    target.write_bytes(original)
    edit_file(target, tmp_path, _promote_pnpm)
    edit_file(target, tmp_path, _retire_all)
    assert target.read_bytes() == original


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------- properties

# User lines: anything without a newline (lone \r, unicode, lookalike comments), markdown-ish
# lines, and fenced code blocks that may hold our exact markers (which must stay user text).
_free_line = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\n"), max_size=30
)
_markdown_line = st.sampled_from(
    ["", "# Title", "## Self", "- item", "  - nested", "<!-- comment -->", "> quote", "\t", "\r"]
)
_fence = st.sampled_from(["```", "~~~", "````", "```python"])
_fenced_inner = st.lists(
    st.one_of(_free_line, st.sampled_from([BEGIN, END, "<!-- self-improve:begin -->", "```x"])),
    max_size=4,
)
_chunk = st.one_of(
    _free_line.map(lambda line: [line]),
    _markdown_line.map(lambda line: [line]),
    st.tuples(_fence, _fenced_inner).map(
        lambda pair: [pair[0], *pair[1], pair[0].removesuffix("python")]
    ),
)


@st.composite
def user_texts(draw: st.DrawFn) -> str:
    lines = [line for chunk in draw(st.lists(_chunk, max_size=8)) for line in chunk]
    endings = draw(
        st.lists(st.sampled_from(["\n", "\r\n"]), min_size=len(lines), max_size=len(lines))
    )
    text = "".join(line + ending for line, ending in zip(lines, endings, strict=True))
    if text and draw(st.booleans()):
        text = text[: -len(endings[-1])]  # no final newline
    # Only texts the operations accept: no block of ours, no damage, no fence left open.
    try:
        assume(remove_block(text, marker_name="self-improve") == text)
        upsert_rule(text, PNPM_ID, "probe")
    except ManagedBlockError:
        assume(False)
    return text


entry_ids = st.from_regex(r"\A(?:LRN|ERR|FEAT)-[0-9]{8}-[A-Za-z0-9]{1,6}\Z")
rule_texts = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=40)
    .map(str.strip)
    .filter(lambda rule: rule and not any(bad in rule for bad in ("<!--", "-->", "self-improve:")))
)
promotions = st.dictionaries(entry_ids, rule_texts, min_size=1, max_size=4)
PROPERTY_SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


def _promote_all(text: str, rules: dict[str, str]) -> str:
    for entry_id, rule in rules.items():
        text = upsert_rule(text, entry_id, rule)
    return text


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, data=st.data())
def test_promote_then_retire_all_gives_the_original_bytes(
    text: str, rules: dict[str, str], data: st.DataObject
) -> None:
    promoted = _promote_all(text, rules)
    assert promoted.startswith(text)  # we only ever add after the user's bytes
    assert [(rule.entry_id, rule.text) for rule in list_rules(promoted)] == list(rules.items())
    order = data.draw(st.permutations(list(rules)))
    for entry_id in order:
        promoted = remove_rule(promoted, entry_id)
    assert promoted == text
    assert promoted.encode() == text.encode()


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, data=st.data())
def test_upserting_the_same_rule_again_is_a_no_op(
    text: str, rules: dict[str, str], data: st.DataObject
) -> None:
    promoted = _promote_all(text, rules)
    entry_id = data.draw(st.sampled_from(list(rules)))
    assert upsert_rule(promoted, entry_id, rules[entry_id]) == promoted
    assert _promote_all(promoted, rules) == promoted


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, data=st.data())
def test_order_of_removals_does_not_matter(
    text: str, rules: dict[str, str], data: st.DataObject
) -> None:
    promoted = _promote_all(text, rules)
    doomed = data.draw(st.lists(st.sampled_from(list(rules)), unique=True))
    first, second = promoted, promoted
    for entry_id in doomed:
        first = remove_rule(first, entry_id)
    for entry_id in data.draw(st.permutations(doomed)):
        second = remove_rule(second, entry_id)
    assert first == second
    kept = [entry_id for entry_id in rules if entry_id not in doomed]
    assert [rule.entry_id for rule in list_rules(first)] == kept


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, new_rule=rule_texts, data=st.data())
def test_replacing_a_rule_changes_only_its_bullet_line(
    text: str, rules: dict[str, str], new_rule: str, data: st.DataObject
) -> None:
    promoted = _promote_all(text, rules)
    entry_id = data.draw(st.sampled_from(list(rules)))
    replaced = upsert_rule(promoted, entry_id, new_rule)
    old_line = f"- {rules[entry_id]} <!-- {entry_id} -->"
    new_line = f"- {new_rule} <!-- {entry_id} -->"
    # The bullet line and the hash in the begin marker change; nothing else does.
    (block,) = scan_rules(promoted).blocks
    (new_block,) = scan_rules(replaced).blocks
    begin_before = promoted.split("\n")[block.begin_line - 1]
    new_content = [new_line if line == old_line else line for line in block.content]
    begin_after = begin_before.replace(f"sha:{sha(*block.content)}", f"sha:{sha(*new_content)}")
    assert replaced == promoted.replace(old_line, new_line, 1).replace(begin_before, begin_after, 1)
    assert not new_block.edited_by_hand


_bodies = st.lists(st.one_of(_free_line, _markdown_line), max_size=5).map("\n".join)


@PROPERTY_SETTINGS
@given(text=user_texts(), body=_bodies, other_body=_bodies)
def test_openclaw_block_is_idempotent_collapses_and_removes_cleanly(
    text: str, body: str, other_body: str
) -> None:
    for candidate in (body, other_body):
        try:
            upsert_block("", candidate)
        except ManagedBlockError:
            assume(False)  # a body with an open code fence is refused by design (tested elsewhere)
    installed = upsert_block(text, body)
    assert installed.startswith(text)
    assert upsert_block(installed, body) == installed
    assert upsert_block(upsert_block(installed, other_body), body) == installed
    assert remove_block(installed) == text
    if installed.endswith("\n"):
        # A duplicate appended by an older run (its own LF block after a blank line) collapses
        # into the first block, and its separator goes with it.
        duplicated = installed + "\n" + upsert_block("", other_body)
        assert upsert_block(duplicated, body) == installed


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, body=_bodies, data=st.data())
def test_rules_and_reminder_in_one_file_undo_in_any_order(
    text: str, rules: dict[str, str], body: str, data: st.DataObject
) -> None:
    # OpenClaw's AGENTS.md can hold both blocks; installing and retiring them in any order
    # must still give the user's bytes back.
    steps: list[Callable[[str], str]] = [lambda t: upsert_block(t, body)]
    steps += [lambda t, i=i, r=r: upsert_rule(t, i, r) for i, r in rules.items()]
    undo: list[Callable[[str], str]] = [remove_block]
    undo += [lambda t, i=entry_id: remove_rule(t, i) for entry_id in rules]
    current = text
    for step in data.draw(st.permutations(steps)):
        current = step(current)
    for step in data.draw(st.permutations(undo)):
        current = step(current)
    assert current == text


@PROPERTY_SETTINGS
@given(text=user_texts(), rules=promotions, data=st.data())
def test_our_edits_never_look_like_hand_edits_and_any_change_to_a_bullet_does(
    text: str, rules: dict[str, str], data: st.DataObject
) -> None:
    promoted = _promote_all(text, rules)
    doomed = data.draw(st.lists(st.sampled_from(list(rules)), unique=True))
    for entry_id in doomed[:-1]:
        promoted = remove_rule(promoted, entry_id)
    scan = scan_rules(promoted)
    assert scan.damage_line is None
    assert [block.edited_by_hand for block in scan.blocks] == [False]
    (block,) = scan.blocks
    assert block.stored_hash == sha(*block.content)
    # The user (or anyone) rewords one bullet by one character: that is a hand edit.
    rule = data.draw(st.sampled_from(list(list_rules(promoted))))
    lines = promoted.split("\n")
    lines[rule.line - 1] = lines[rule.line - 1].replace(f"<!-- {rule.entry_id} -->", f"!<!-- {rule.entry_id} -->")
    assert [b.edited_by_hand for b in scan_rules("\n".join(lines)).blocks] == [True]
