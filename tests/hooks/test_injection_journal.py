"""The journal of what the hooks injected (``hooks/journal``, ``store/injections``): the real hook
scripts on real payloads write one record per printed block, the exact text, and nothing else;
the bound holds; a broken journal never costs the hook its output."""

from __future__ import annotations

import json
import os
from pathlib import Path

from self_improve.hooks import journal
from self_improve.hooks.state import Context
from self_improve.store import injections
from self_improve.store.store import Store
from tests.helpers import context_of, debug_lines, payload, run_hook, tree_hash

NOW = {"SELF_IMPROVE_NOW": "2026-12-01T14:03:07+00:00"}
SESSION = "96ffc192-f355-4c21-9a2d-6aa9634bc465"  # the fixtures' session


def journal_file(project: Path) -> Path:
    return project / ".learnings/.state/injections.jsonl"


def records(project: Path) -> list[dict[str, object]]:
    raw = journal_file(project).read_bytes()
    return [json.loads(line) for line in raw.split(b"\n") if line.strip()]


def fail(project: Path, **changes: object) -> str:
    """Run post-bash on the real failure payload; the block it injected."""
    result = run_hook("post-bash", payload("PostToolUseFailure", cwd=str(project), **changes), env=NOW)
    assert result.returncode == 0
    return context_of(result, "PostToolUseFailure")


def test_a_failing_command_journals_exactly_the_block_it_injected(project: Path, isolated_home: Path) -> None:
    block = fail(project)
    assert block.startswith("<error-detected>\n")
    assert records(project) == [{"time": "2026-12-01T14:03:07Z", "hook": "post-bash", "harness": "claude",
                                 "session": SESSION, "text": block, "truncated": False}]
    assert debug_lines(isolated_home) == []
    second = fail(project, session_id="s2")
    assert [record["text"] for record in records(project)] == [block, second]
    assert [record["session"] for record in records(project)] == [SESSION, "s2"]


def test_a_passing_command_that_prints_nothing_journals_nothing(project: Path) -> None:
    result = run_hook("post-bash", payload("PostToolUse", cwd=str(project)), env=NOW)
    assert (result.returncode, result.stdout) == (0, b"")
    assert not journal_file(project).exists()


def test_prompt_submit_journals_its_reminder_and_a_silent_prompt_nothing(project: Path) -> None:
    def prompt() -> bytes:
        result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project), session_id="s1"), env=NOW)
        assert result.returncode == 0
        return result.stdout

    first = prompt()
    assert first.startswith(b"<self-improvement-reminder>\n")
    assert prompt() == b""  # the second prompt gets no reminder: nothing more in the journal
    assert records(project) == [{"time": "2026-12-01T14:03:07Z", "hook": "prompt-submit", "harness": "claude",
                                 "session": "s1", "text": first.decode()[:-1], "truncated": False}]


def test_pre_bash_journals_the_known_fix_it_gave(project: Path) -> None:
    fail(project, session_id="earlier")
    store = Store(project)
    (entry,) = store.entries("error")
    store.update(entry.id, lambda e: e.with_metadata("Observed-Fix", "Last time: `pip install nosuchmod`, then it passed."))
    result = run_hook("pre-bash", payload("PreToolUse", cwd=str(project)), env=NOW)
    text = context_of(result, "PreToolUse")
    assert text.startswith("<known-fix>\n")
    assert [(r["hook"], r["session"], r["text"]) for r in records(project)][1:] == [("pre-bash", SESSION, text)]


def test_without_a_project_store_the_journal_is_in_the_users_state_dir(tmp_path: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[hooks]\nenabled_without_learnings = true\n")
    folder = tmp_path / "no-store"
    folder.mkdir()
    result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(folder), session_id="s1"), env=NOW)
    assert result.stdout.startswith(b"<self-improvement-reminder>\n")
    assert list(folder.iterdir()) == []
    (line,) = (isolated_home / ".local/state/self-improve" / injections.FILE).read_bytes().split(b"\n")[1:-1]
    assert json.loads(line) == {"time": "2026-12-01T14:03:07Z", "hook": "prompt-submit", "harness": "claude",
                                "session": "s1", "text": result.stdout.decode()[:-1], "truncated": False}


# ---- the bound, through the real glue -------------------------------------------------------------


def flush(context: Context, text: str) -> None:
    journal.note(context, "claude", text)
    journal.flush("post-bash", printed=True)


def test_the_bound_keeps_exactly_the_newest_records_in_order(project: Path) -> None:
    context = Context.for_cwd(str(project), "s1")
    assert context is not None
    n = injections.MAX_RECORDS
    # Blocks of the largest size kept, so that the file passes COMPACT_BYTES and is compacted.
    def block(i: int) -> str:
        head, tail = f"<error-detected>\nblock {i:04d}\n", "\n</error-detected>"
        return head + "x" * (injections.MAX_TEXT_CHARS - len(head) - len(tail)) + tail

    texts = [block(i) for i in range(2 * n + 150)]
    largest = 0
    for text in texts:
        flush(context, text)
        largest = max(largest, journal_file(project).stat().st_size)
    kept = injections.read(context.fs, context.state)
    assert [record.text for record in kept] == texts[-n:]
    assert largest <= injections.COMPACT_BYTES + injections.MAX_LINE_BYTES
    on_disk = records(project)
    assert len(on_disk) < len(texts) and [record["text"] for record in on_disk][-n:] == texts[-n:]


def test_a_block_is_cut_at_the_cap_and_says_so(project: Path) -> None:
    context = Context.for_cwd(str(project), "s1")
    assert context is not None
    long = "<known-mistakes>\n" + "y" * 3000
    flush(context, long)
    flush(context, "short")
    assert [(r["text"], r["truncated"]) for r in records(project)] == [(long[:injections.MAX_TEXT_CHARS], True),
                                                                      ("short", False)]


def test_a_block_not_printed_is_not_journaled(project: Path) -> None:
    context = Context.for_cwd(str(project), "s1")
    assert context is not None
    journal.note(context, "claude", "<error-detected>\nx\n</error-detected>")
    journal.flush("post-bash", printed=False)  # the call gave up at its deadline: nothing went out
    journal.flush("post-bash", printed=True)  # and the note is gone with it
    assert not journal_file(project).exists()


# ---- a broken journal ------------------------------------------------------------------------------

GARBAGE = (b"\x00\xff not json at all\n" + b"{" * 20000 + b"\n"
           + b'{"time":"2026-12-01T14:03:07Z","hook":"post-bash","harness":"claude","session":"s","text":1,"truncated":false}\n'
           + b'{"time":"yesterday","hook":"post-bash","harness":"claude","session":"s","text":"t","truncated":false}\n'
           + b"[1, 2, 3]\n\"torn tail without a line break")


def test_a_garbage_journal_never_breaks_the_hook_and_recovers(project: Path, isolated_home: Path) -> None:
    path = journal_file(project)
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(GARBAGE)
    block = fail(project)
    assert block.startswith("<error-detected>\n")
    context = Context.for_cwd(str(project), "s1")
    assert context is not None
    assert [record.as_json() for record in injections.read(context.fs, context.state)] == [
        {"time": "2026-12-01T14:03:07Z", "hook": "post-bash", "harness": "claude", "session": SESSION, "text": block,
         "truncated": False}]
    assert path.read_bytes().startswith(GARBAGE)  # appended to: what was there is the compaction's to drop
    injections.compact(context.fs, context.state)
    assert records(project) == [json.loads(injections.render_line(injections.read(context.fs, context.state)[0]))]
    assert debug_lines(isolated_home) == []


def test_a_journal_that_is_a_link_or_a_folder_costs_nothing_but_a_debug_line(project: Path, isolated_home: Path) -> None:
    outside = project.parent / f"{project.name}-outside.jsonl"
    outside.write_bytes(b"theirs\n")
    path = journal_file(project)
    path.parent.mkdir(exist_ok=True)
    os.symlink(outside, path)
    first = fail(project)
    assert first.startswith("<error-detected>\n")
    assert outside.read_bytes() == b"theirs\n"
    assert any("post-bash: could not journal the injection: UntrustedStore" in line for line in debug_lines(isolated_home))
    path.unlink()
    path.mkdir()
    before = tree_hash(path)
    assert fail(project, session_id="s2").startswith("<error-detected>\n")
    assert tree_hash(path) == before
    assert sum("could not journal the injection" in line for line in debug_lines(isolated_home)) == 2
