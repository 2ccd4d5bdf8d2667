"""The archive: verbatim moves, and archive-then-restore gives the learnings files back byte for byte."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.errors import SelfImproveError
from self_improve.store import archive as archive_mod
from self_improve.store.archive import archive_changes, parse_archive, restore_changes
from self_improve.store.entry import parse_text
from self_improve.store.store import Store
from tests.helpers import FIXTURES, entry_text, run_cli, tree_hash, write_project

TODAY = date(2026, 3, 1)
FILES = ("LEARNINGS.md", "ERRORS.md", "FEATURE_REQUESTS.md")


def learnings_hash(root: Path) -> dict[str, str]:
    return {name: value for name, value in tree_hash(root / ".learnings").items() if name in FILES}


@pytest.fixture()
def reference(tmp_path: Path) -> Store:
    (tmp_path / ".git").mkdir()
    store = Store(tmp_path)
    store.init()
    for name in FILES:
        shutil.copyfile(FIXTURES / "reference" / name, tmp_path / ".learnings" / name)
    return store


# ---- through the store, on the reference files ----------------------------------------------------


def test_archive_then_restore_returns_the_learnings_files_byte_identical(reference: Store) -> None:
    before = learnings_hash(reference.root)
    ids = ["LRN-20250116-A7B", "ERR-20250118-X9Z", "FEAT-20250115-001", "LRN-20250115-001", "ERR-20250115-001"]
    moves = archive_mod.archive(reference, ids, TODAY)
    assert [m.entry_id for m in moves] == ids
    assert not any(e.id in ids for e in reference.entries())
    for entry_id in reversed(ids):
        archive_mod.restore(reference, entry_id)
    assert learnings_hash(reference.root) == before
    assert not (reference.dir / "archive").exists()  # emptied archive files and dir are gone


def test_restore_order_does_not_matter(reference: Store) -> None:
    before = learnings_hash(reference.root)
    archive_mod.archive(reference, ["LRN-20250116-A7B"], TODAY)
    archive_mod.archive(reference, ["LRN-20250117-002", "LRN-20250115-001"], TODAY)
    for entry_id in ("LRN-20250117-002", "LRN-20250116-A7B", "LRN-20250115-001"):
        archive_mod.restore(reference, entry_id)
    assert learnings_hash(reference.root) == before


def test_archived_entry_is_verbatim_but_for_its_status_line(reference: Store) -> None:
    original = reference.get("ERR-20250118-X9Z")
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    text = (reference.dir / "archive" / "2025.md").read_text(encoding="utf-8")
    assert text.startswith("# Archive 2025\n")
    _, items = parse_archive(text, "archive/2025.md")
    (item,) = items
    assert item.entry.status == "archived"
    assert item.entry.text == original.text.replace("**Status**: wont_fix", "**Status**: archived")
    assert item.record is not None and item.record.status == "wont_fix" and item.record.file == "ERRORS.md"


def test_entry_without_final_newline_and_status_line_round_trips(tmp_path: Path) -> None:
    store = Store(tmp_path)
    store.init()
    original = "# Errors\r\n\r\n## [ERR-20250101-aaa] x\r\n\r\n### Summary\r\nno status line at all\r\n\r\n---"
    store.file_for("error").write_bytes(original.encode("utf-8"))
    archive_mod.archive(store, ["ERR-20250101-aaa"], TODAY)
    assert store.file_for("error").read_bytes() == b"# Errors\r\n\r\n"
    archived = (store.dir / "archive" / "2026.md").read_bytes()  # no date at all: the current year
    assert b"**Status**: archived\r\n" in archived and archived.endswith(b" -->\r\n\r\n")
    archive_mod.restore(store, "ERR-20250101-aaa")
    assert store.file_for("error").read_bytes() == original.encode("utf-8")


def test_rearchiving_after_a_crash_replaces_the_archive_copy(reference: Store) -> None:
    learnings = reference.file_for("error").read_bytes()
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    archived = (reference.dir / "archive" / "2025.md").read_bytes()
    reference.file_for("error").write_bytes(learnings)  # as if the crash hit between the two writes
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    assert (reference.dir / "archive" / "2025.md").read_bytes() == archived


def test_restore_refuses_when_the_id_is_back_with_other_text(reference: Store) -> None:
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    text = reference.file_for("error").read_text(encoding="utf-8")
    reference.file_for("error").write_text(text + "\n## [ERR-20250118-X9Z] other\n\n### Summary\nnew\n", encoding="utf-8")
    with pytest.raises(SelfImproveError, match=r"^ERR-20250118-X9Z is already in \.learnings/ERRORS\.md: keep one copy by hand"):
        archive_mod.restore(reference, "ERR-20250118-X9Z")


def test_user_text_in_the_archive_file_is_kept(reference: Store) -> None:
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    path = reference.dir / "archive" / "2025.md"
    path.write_text(path.read_text(encoding="utf-8").replace("# Archive 2025\n", "# Archive 2025\n\nMy notes.\n", 1), encoding="utf-8")
    archive_mod.restore(reference, "ERR-20250118-X9Z")
    assert path.read_text(encoding="utf-8").startswith("# Archive 2025\n\nMy notes.\n")


def test_unclosed_fence_is_refused(tmp_path: Path) -> None:
    store = write_project(tmp_path, [entry_text("LRN-20250101-aaa", status="resolved", details="```\nnever closed")])
    with pytest.raises(SelfImproveError, match="never closed"):
        archive_mod.archive(store, ["LRN-20250101-aaa"], TODAY)


# ---- through the CLI ----------------------------------------------------------------------------------


def test_cli_review_archives_and_restore_puts_back(reference: Store) -> None:
    before = learnings_hash(reference.root)
    # On 2025-06-01 the resolved LRN-20250116-A7B and the wont_fix ERR-20250118-X9Z are over 90
    # days old; the pending entries have not decayed and the promoted one is not stale yet.
    result = run_cli("review", "--yes", cwd=reference.root, env={"SELF_IMPROVE_TODAY": "2025-06-01"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "archived LRN-20250116-A7B to .learnings/archive/2025.md\n"
        "archived ERR-20250118-X9Z to .learnings/archive/2025.md\n"
    )
    restored = run_cli("restore", "ERR-20250118-X9Z", cwd=reference.root)
    assert restored.stdout == "restored ERR-20250118-X9Z to .learnings/ERRORS.md (status wont_fix)\n"
    assert run_cli("restore", "LRN-20250116-A7B", cwd=reference.root).returncode == 0
    assert learnings_hash(reference.root) == before


def test_cli_restore_unknown_id_changes_nothing(reference: Store) -> None:
    before = tree_hash(reference.root)
    result = run_cli("restore", "ERR-20990101-zzz", cwd=reference.root)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "self-improve: error: ERR-20990101-zzz is not in .learnings/archive/ (see `self-improve list`)\n"
    assert tree_hash(reference.root) == before


def test_cli_restore_dry_run_prints_the_diff_and_changes_nothing(reference: Store) -> None:
    archive_mod.archive(reference, ["ERR-20250118-X9Z"], TODAY)
    before = tree_hash(reference.root)
    result = run_cli("restore", "ERR-20250118-X9Z", "--dry-run", cwd=reference.root)
    assert result.returncode == 0, result.stderr
    assert "+++ b/.learnings/ERRORS.md" in result.stdout and "+++ /dev/null" in result.stdout
    assert tree_hash(reference.root) == before


# ---- the property ---------------------------------------------------------------------------------------

_BODY = st.text(alphabet="abc XYZ-*:.é\t", max_size=12)


@st.composite
def entry_chunk(draw: st.DrawFn, entry_id: str, eol: str) -> str:
    lines = [f"## [{entry_id}] {draw(_BODY).strip()}".rstrip()]
    if draw(st.booleans()):
        lines += ["", f"**Logged**: {draw(st.sampled_from(['2024-02-03', '2025-06-07', 'soon']))}T00:00:00Z"]
    status = draw(st.sampled_from(["", "resolved", "Resolved", "wont_fix  ", None]))
    if status is not None:
        lines.append(f"**Status**:{' ' if status else ''}{status}")
    lines += ["", "### Summary", draw(_BODY)]
    if draw(st.booleans()):
        lines += ["", "### Metadata", f"- Last-Seen: {draw(st.sampled_from(['2024-12-31', '2025-01-01', 'n/a']))}"]
    lines += draw(st.sampled_from([["", "---", ""], ["---"], [""], []]))
    return eol.join(lines) + eol


@st.composite
def learnings_file(draw: st.DrawFn) -> tuple[str, list[str]]:
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    count = draw(st.integers(min_value=0, max_value=6))
    ids = [f"ERR-2025010{n}-a{n}" for n in range(count)]
    preamble = draw(st.sampled_from(["", f"# Errors{eol}{eol}---{eol}", f"notes{eol}"]))
    chunks = [draw(entry_chunk(entry_id, eol)) for entry_id in ids]
    text = preamble + "".join(chunks)
    if chunks and draw(st.booleans()):
        text = text.rstrip("\r\n")  # the last entry ends the file without a final newline
    return text, ids


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(learnings_file(), st.data())
def test_any_archive_and_restore_sequence_gives_the_file_back(case: tuple[str, list[str]], data: st.DataObject) -> None:
    original, ids = case
    files: dict[str, str] = {"ERRORS.md": original}

    def read(name: str) -> str:
        return files.get(name, "")

    def archives() -> list[str]:
        return sorted(name for name in files if name.startswith("archive/"))

    def apply(changes: dict[str, str | None]) -> None:
        for name, text in changes.items():
            if text is None:
                files.pop(name, None)
            else:
                files[name] = text

    archived: list[str] = []
    for _ in range(data.draw(st.integers(min_value=0, max_value=4))):
        present = [i for i in ids if i not in archived]
        if archived and data.draw(st.booleans()):
            entry_id = data.draw(st.sampled_from(archived))
            apply(restore_changes(read, archives(), entry_id)[0])
            archived.remove(entry_id)
        elif present:
            batch = data.draw(st.lists(st.sampled_from(present), unique=True, min_size=1))
            apply(archive_changes(read, archives(), batch, TODAY)[0])
            archived += batch
            for entry_id in batch:
                assert entry_id not in [e.id for e in parse_text(files["ERRORS.md"]).entries]
    for entry_id in data.draw(st.permutations(archived)):
        apply(restore_changes(read, archives(), entry_id)[0])
    assert files == {"ERRORS.md": original}


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    text = entry_text("LRN-20250101-aaa", status="resolved")
    store = write_project(tmp_path, [text, text])
    before = learnings_hash(tmp_path)
    with pytest.raises(SelfImproveError, match=r"^LRN-20250101-aaa appears 2 times in \.learnings/LEARNINGS\.md: see `self-improve lint`$"):
        archive_mod.archive(store, ["LRN-20250101-aaa"], TODAY)
    assert learnings_hash(tmp_path) == before
