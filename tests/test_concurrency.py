"""Concurrent edits of the user's files lose nothing (issue 9, finding 9): real CLI processes.

- two ``promote``s of different entries into the same CLAUDE.md: both bullets, both promoted;
- a user appending lines to CLAUDE.md while ``promote`` runs: every line kept, once, in order;
- another program rewriting settings.json (read, add a key, rename) during ``install``: its keys
  and our hooks are all there.
"""

from __future__ import annotations

import re
from pathlib import Path

from self_improve.review.managed_block import list_rules
from tests.concurrency_helpers import (
    APPENDER,
    Writer,
    cli_env,
    finish,
    install_during_rewrites,
    settings_keys,
    start_cli,
)
from tests.helpers import CLAUDE_MD as ORIGINAL
from tests.helpers import PNPM, RULES, RUFF, make_project, statuses

PROMOTE_TRIALS = 25
APPEND_TRIALS = 25
INSTALL_TRIALS = 20


def test_two_concurrent_promotes_keep_both_rules(tmp_path: Path) -> None:
    env = cli_env()
    complete = 0
    for trial in range(PROMOTE_TRIALS):
        root = make_project(tmp_path / f"trial-{trial}")
        # the user's own CLAUDE.md (the default is now .claude/rules/self-improve.md): its bytes are the point
        first = start_cli("promote", PNPM, "--yes", "--target", "CLAUDE.md", cwd=root, env=env)
        second = start_cli("promote", RUFF, "--yes", "--target", "CLAUDE.md", cwd=root, env=env)
        results = [finish(first), finish(second)]
        assert [(code, err) for code, _, err in results] == [(0, ""), (0, "")], trial
        rules = {rule.entry_id: rule.text for rule in list_rules((root / "CLAUDE.md").read_text(encoding="utf-8"))}
        assert (rules, statuses(root)) == (RULES, {PNPM: "promoted", RUFF: "promoted"}), trial
        assert (root / "CLAUDE.md").read_text(encoding="utf-8").startswith(ORIGINAL)
        complete += 1
    assert complete == PROMOTE_TRIALS


def test_lines_appended_during_promote_are_all_kept(tmp_path: Path) -> None:
    env = cli_env()
    appended_total = 0
    for trial in range(APPEND_TRIALS):
        root = make_project(tmp_path / f"trial-{trial}")
        claude_md = root / "CLAUDE.md"
        writer = Writer(APPENDER, claude_md, tmp_path)
        code, _, err = finish(start_cli("promote", PNPM, "--yes", "--target", "CLAUDE.md", cwd=root, env=env))
        count = writer.stop()
        assert (code, err) == (0, ""), trial
        text = claude_md.read_text(encoding="utf-8")
        user_lines = [int(n) for n in re.findall(r"^user line (\d+)$", text, flags=re.MULTILINE)]
        # Every line, exactly once. (Against a writer that never pauses, the last merge round
        # appends the old inode's late lines after newer ones: see user_edit._absorb_late_writes.)
        assert sorted(user_lines) == list(range(count)), trial
        assert [rule.entry_id for rule in list_rules(text)] == [PNPM]
        assert text.startswith(ORIGINAL) and statuses(root)[PNPM] == "promoted"
        appended_total += count
    assert appended_total >= APPEND_TRIALS  # each trial appended at least once during its promote


def test_another_program_rewriting_settings_during_install_keeps_its_keys_and_our_hooks(tmp_path: Path) -> None:
    for trial in range(INSTALL_TRIALS):
        (code, out, err), count, settings = install_during_rewrites(tmp_path, trial)
        assert (code, err) == (0, ""), (trial, out)
        value = settings_keys(settings)
        assert {key for key in value if key.startswith("other-")} == {f"other-{n}" for n in range(count)}, trial
        assert value["model"] == "opus"
        hooks = value["hooks"]
        assert isinstance(hooks, dict)
        commands = [h["command"] for groups in hooks.values() for g in groups for h in g["hooks"]]
        assert sorted(command.rsplit("/", 1)[1] for command in commands) == ["post-bash", "post-bash", "pre-bash", "prompt-submit", "session-ready"], trial
