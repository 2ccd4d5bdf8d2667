"""``list`` and ``show`` on real users' files (issue 15): every entry seen, valid UTF-8 JSON, no traceback."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.helpers import CLI, REPO, run_cli, tree_hash

GBK = "# 学习记录\n\n## [LRN-20260311-001] correction\n\n**Status**: 已解决\n\n### 问题\n修改配置后没有重启服务\n".encode("gbk")
JOURNAL = "## 2026-05-27 Fixed the build\n\nThe cache was stale.\n\n## 2026-05-28\n\n### [LRN-20260528-001] Lint first\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    assert run_cli("init", cwd=tmp_path).returncode == 0
    return tmp_path


def run_bytes(*args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "NO_COLOR": "1", "PYTHONPATH": str(REPO), "LC_ALL": "C.UTF-8"}
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, env=env, timeout=60)


def test_a_gbk_file_lists_as_valid_utf8_json_and_stays_as_it_is(project: Path) -> None:
    learnings = project / ".learnings/LEARNINGS.md"
    learnings.write_bytes(GBK)
    before = tree_hash(project)
    listed = run_bytes("list", "--json", cwd=project)
    (entry,) = json.loads(listed.stdout.decode("utf-8", "strict"))
    assert (entry["id"], entry["status"], entry["summary"]) == ("LRN-20260311-001", "resolved", "修改配置后没有重启服务")
    shown = run_bytes("show", "LRN-20260311-001", "--json", cwd=project)
    assert "修改配置后没有重启服务" in json.loads(shown.stdout.decode("utf-8", "strict"))["text"]
    text = run_bytes("show", "LRN-20260311-001", cwd=project)
    assert text.stdout.decode("utf-8", "strict").endswith("### 问题\n修改配置后没有重启服务\n") and text.stderr == b""
    lines = run_bytes("list", cwd=project).stdout.decode("utf-8", "strict")
    assert lines == "LRN-20260311-001       resolved    x1   -          -          修改配置后没有重启服务\n"
    assert tree_hash(project) == before


def test_a_stray_byte_shows_as_a_replacement_character(project: Path) -> None:
    (project / ".learnings/ERRORS.md").write_bytes(b"## [ERR-20260420-001] locale\n\n### Summary\nCaf\xe9 tests fail\n")
    (entry,) = json.loads(run_bytes("list", "--json", cwd=project).stdout.decode("utf-8", "strict"))
    assert entry["summary"] == "Caf\ufffd tests fail"


def test_dated_entries_are_listed_by_where_they_are(project: Path) -> None:
    (project / ".learnings/LEARNINGS.md").write_text(JOURNAL)
    listed = json.loads(run_cli("list", "--json", cwd=project).stdout)
    assert [(e["id"], e["form"], e["line"], e["summary"], e["kind"], e["first_seen"]) for e in listed] == [
        ("", "dated", 1, "Fixed the build", "learning", "2026-05-27"),
        ("LRN-20260528-001", "level-3", 7, "Lint first", "learning", ""),
    ]
    assert run_cli("list", cwd=project).stdout == (
        "LEARNINGS.md:1         pending     x1   2026-05-27 2026-05-27 Fixed the build\n"
        "LRN-20260528-001       pending     x1   -          -          Lint first\n"
    )
    shown = run_cli("show", "LEARNINGS.md:1", cwd=project)
    assert shown.stdout == "## 2026-05-27 Fixed the build\n\nThe cache was stale.\n\n"
    missing = run_cli("show", "LEARNINGS.md:2", cwd=project)
    assert (missing.returncode, missing.stderr) == (1, "self-improve: error: no entry starts at LEARNINGS.md:2 (see `self-improve list`)\n")
