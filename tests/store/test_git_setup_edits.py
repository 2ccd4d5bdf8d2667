"""``install --git`` edits .gitattributes like every other user file: through a symlink that
stays inside the project, never over a read-only file."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from self_improve.store import git_setup
from self_improve.errors import SelfImproveError
from tests.helpers import config_value, make_repo

ORIGINAL = b"*.png binary\n"
OURS = b"".join(line.encode() + b"\n" for line in git_setup.ATTRIBUTE_LINES)


def test_a_symlinked_gitattributes_inside_the_project_is_written_through(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    shared = repo / "config" / "gitattributes"
    shared.parent.mkdir()
    shared.write_bytes(ORIGINAL)
    (repo / ".gitattributes").symlink_to("config/gitattributes")
    git_setup.install_git(repo)
    assert (repo / ".gitattributes").is_symlink() and shared.read_bytes() == ORIGINAL + OURS
    git_setup.uninstall_git(repo)
    assert (repo / ".gitattributes").is_symlink() and shared.read_bytes() == ORIGINAL


def test_a_read_only_gitattributes_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    repo = make_repo(tmp_path)
    path = repo / ".gitattributes"
    path.write_bytes(ORIGINAL)
    path.chmod(0o444)
    with pytest.raises(SelfImproveError) as refused:
        git_setup.install_git(repo)
    assert str(refused.value) == (
        f"{path} is read-only (mode 0444); make it writable (chmod u+w) to let self-improve edit it; "
        "self-improve changed nothing"
    )
    assert path.read_bytes() == ORIGINAL and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert config_value(repo, "merge.self-improve.driver") is None  # the git config was not touched either
