"""The cache dir's marshal files: written atomically, and the copies for older data files pruned."""

from __future__ import annotations

import os
from pathlib import Path

from self_improve import marshal_cache


def test_prune_keeps_the_new_file_and_the_two_newest_older_ones_of_its_kind(tmp_path: Path) -> None:
    for n in range(5):
        old = tmp_path / f"rules-v1-{n}-{n}.marshal"
        old.write_bytes(b"x")
        os.utime(old, ns=(n * 10**9, n * 10**9))
    (tmp_path / "screen-v1-1-1.marshal").write_bytes(b"x")  # another kind
    (tmp_path / "rules-v1-notes.txt").write_bytes(b"x")  # not ours
    (tmp_path / "rules-v1-link.marshal").symlink_to(tmp_path / "rules-v1-notes.txt")  # a link: left alone
    new = tmp_path / "rules-v1-9-9.marshal"
    marshal_cache.write(str(new), {"a": 1})
    assert marshal_cache.prune(str(new), "rules-v") == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "rules-v1-3-3.marshal", "rules-v1-4-4.marshal", "rules-v1-9-9.marshal", "rules-v1-link.marshal",
        "rules-v1-notes.txt", "screen-v1-1-1.marshal",
    ]
    assert marshal_cache.read(str(new)) == {"a": 1}


def test_prune_of_a_missing_folder_is_nothing(tmp_path: Path) -> None:
    assert marshal_cache.prune(str(tmp_path / "none" / "rules-v1-1-1.marshal"), "rules-v") == 0
