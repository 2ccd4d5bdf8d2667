"""``install`` offers ``scan`` when the harness kept past sessions (issue 16): one line per
harness, its sessions counted as ``scan`` reads them (a Claude Code subagent's transcript is part
of its parent's session; a Codex session is one rollout file); nothing when there is none."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli


def _history(home: Path) -> None:
    project = home / ".claude" / "projects" / "-home-dev-app"
    (project / "sess-1" / "subagents").mkdir(parents=True)
    for name in ("sess-1.jsonl", "sess-2.jsonl", "sess-3.jsonl"):
        (project / name).write_text("{}\n")
    (project / "sess-1" / "subagents" / "agent-a1.jsonl").write_text("{}\n")  # not a session of its own
    (project / "notes.txt").write_text("not a transcript\n")
    day = home / ".codex" / "sessions" / "2026" / "11" / "30"
    day.mkdir(parents=True)
    (day / "rollout-2026-11-30T10-00-00-0199aaaa.jsonl").write_text("{}\n")


def test_install_names_the_past_sessions_scan_would_read(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    _history(home)
    result = run_cli("install", "--harness", "claude,codex", cwd=tmp_path, env={"HOME": str(home)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-2:] == [
        "Found 3 past sessions of Claude Code; run `self-improve scan` to learn from them.",
        "Found 1 past session of Codex; run `self-improve scan` to learn from them.",
    ]


def test_no_history_no_offer_and_a_dry_run_offers_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    result = run_cli("install", "--harness", "claude", cwd=tmp_path, env={"HOME": str(home)})
    assert result.returncode == 0 and "past session" not in result.stdout
    _history(home)
    dry = run_cli("install", "--harness", "codex", "--dry-run", cwd=tmp_path, env={"HOME": str(home)})
    assert dry.returncode == 0 and "past session" not in dry.stdout
    only_codex = run_cli("install", "--harness", "codex", cwd=tmp_path, env={"HOME": str(home)})
    assert only_codex.stdout.splitlines()[-1] == "Found 1 past session of Codex; run `self-improve scan` to learn from them."
    assert "Claude Code" not in only_codex.stdout
