"""``self-improve report --html FILE`` (``commands/report.py``), through its own parser (the verb
is wired into ``main.py`` separately): the page written, a file of somebody else's refused
without ``--force`` and with nothing written, our own page replaced, links and bad dates refused,
the same bytes for the same store and day."""

from __future__ import annotations

import argparse
import hashlib
from pathlib import Path

import pytest

from self_improve.commands import report
from self_improve.errors import SelfImproveError, UsageError
from tests.helpers import entry_text, tree_hash, write_project


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="self-improve")
    top.add_argument("--root", default=None)
    report.register(top.add_subparsers(dest="verb"))
    return top


def run(project: Path, *argv: str) -> int:
    args = parser().parse_args(["--root", str(project), "report", *argv])
    return int(args.func(args))


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    root.mkdir()
    (root / ".git").mkdir()
    write_project(root, [
        entry_text("ERR-20260201-aaa", "<script>alert(1)</script>", occurrences=[(8, "1a"), (1, "2b")]),
    ])
    return root


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_writes_the_page_deterministically(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "out" / "r.html"
    page.parent.mkdir()
    assert run(project, "--html", str(page), "--today", "2026-03-01") == 0
    assert capsys.readouterr().out == f"wrote {page}: 12 weeks from 2025-12-08 to 2026-03-01\n"
    first = page.read_bytes()
    assert b"&lt;script&gt;alert(1)&lt;/script&gt;" in first and b"<script" not in first
    assert b"<title>self-improve report: app</title>" in first
    # Our own page is replaced without --force, with the same bytes.
    assert run(project, "--html", str(page), "--today", "2026-03-01") == 0
    assert page.read_bytes() == first
    assert [p.name for p in page.parent.iterdir()] == ["r.html"]  # no temporary file left


def test_today_from_the_environment_and_by_day(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SELF_IMPROVE_TODAY", "2026-03-01")
    page = tmp_path / "r.html"
    assert run(project, "--html", str(page), "--by", "day", "--since", "2026-02-20") == 0
    assert capsys.readouterr().out == f"wrote {page}: 10 days from 2026-02-20 to 2026-03-01\n"
    assert page.read_text().count('class="bar s-recorded"') == 10
    assert run(project, "--html", str(page), "--by", "day", "--since", "2026-03-01") == 0
    assert capsys.readouterr().out == f"wrote {page}: 1 day from 2026-03-01 to 2026-03-01\n"


def test_a_file_of_somebody_else_is_refused_unless_forced(project: Path, tmp_path: Path) -> None:
    page = tmp_path / "notes.html"
    page.write_text("<html>my own notes</html>")
    before = (tree_hash(tmp_path), sha(page))
    with pytest.raises(SelfImproveError) as refused:
        run(project, "--html", str(page), "--today", "2026-03-01")
    assert str(refused.value) == f"{page} exists and is not a page of self-improve report: pass --force to replace it"
    assert (tree_hash(tmp_path), sha(page)) == before
    assert run(project, "--html", str(page), "--today", "2026-03-01", "--force") == 0
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_links_directories_and_missing_folders_are_refused(project: Path, tmp_path: Path) -> None:
    target = tmp_path / "target.html"
    target.write_text("theirs")
    link = tmp_path / "link.html"
    link.symlink_to(target)
    before = tree_hash(tmp_path)
    cases = {
        str(link): f"{link} is a symbolic link: give the path of the page itself",
        str(tmp_path): f"{tmp_path} is a directory: give a file name, e.g. {tmp_path / 'report.html'}",
        str(tmp_path / "nowhere" / "r.html"): f"{tmp_path / 'nowhere'} is not a directory: create it first",
    }
    for path, message in cases.items():
        for force in ((), ("--force",)):
            with pytest.raises(SelfImproveError) as refused:
                run(project, "--html", path, "--today", "2026-03-01", *force)
            assert str(refused.value) == message
    assert tree_hash(tmp_path) == before and link.is_symlink() and target.read_text() == "theirs"


def test_dates(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "r.html"
    with pytest.raises(SystemExit):
        run(project, "--html", str(page), "--since", "March")
    assert capsys.readouterr().err.splitlines()[-1] == (
        "self-improve report: error: argument --since: expected a date YYYY-MM-DD, not 'March'"
    )
    with pytest.raises(UsageError) as refused:
        run(project, "--html", str(page), "--since", "2026-03-02", "--today", "2026-03-01")
    assert str(refused.value) == "--since 2026-03-02 is after today (2026-03-01)"
    with pytest.raises(SystemExit):
        run(project, "--html", str(page), "--by", "month")
    assert capsys.readouterr().err.splitlines()[-1] == (
        "self-improve report: error: argument --by: invalid choice: 'month' (choose from 'week', 'day')"
    )
    with pytest.raises(SystemExit):
        run(project)
    assert capsys.readouterr().err.splitlines()[-1] == "self-improve report: error: the following arguments are required: --html"
    assert not page.exists()


def test_no_store_is_an_error_and_writes_nothing(tmp_path: Path) -> None:
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / ".git").mkdir()
    page = tmp_path / "r.html"
    with pytest.raises(SelfImproveError):
        run(bare, "--html", str(page), "--today", "2026-03-01")
    assert not page.exists()
