"""The prompt-submit hook queues each correction it nudges about (``store/correction_queue``),
through the real ``hooks/prompt-submit`` script: exact bytes, no secret, the opt-out, no store."""

from __future__ import annotations

import hashlib
from pathlib import Path

from self_improve.detect.corrections import detect_correction
from self_improve.events import Prompt
from self_improve.store.store import Store
from tests.helpers import payload, run_hook

NOW = {"SELF_IMPROVE_NOW": "2026-03-01T10:00:00Z"}
SECOND = "1772359200"  # 2026-03-01T10:00:00Z
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
QUEUE = ".learnings/.state/corrections.jsonl"


def prompt(project: Path, text: str, session: str = "s1") -> str:
    result = run_hook("prompt-submit", payload("UserPromptSubmit", cwd=str(project), prompt=text, session_id=session), env=NOW)
    assert (result.returncode, result.stderr) == (0, b"")
    return result.stdout.decode()


def line(session: str, text: str, excerpt: str) -> str:
    """The queue's line for a correction ``text`` (the detector names its pattern: another
    module's business) of which ``excerpt`` is kept."""
    hit = detect_correction(Prompt(text, session, "/"))
    assert hit is not None
    seed = "\0".join((SECOND, session, hit.pattern, hit.language, excerpt))
    item_id = hashlib.sha256(seed.encode()).hexdigest()[:10]
    return (f'{{"id": "{item_id}", "date": "2026-03-01", "session": "{session}", "pattern": "{hit.pattern}", '
            f'"language": "{hit.language}", "excerpt": "{excerpt}"}}\n')


def test_a_correction_is_nudged_and_queued_redacted(project: Path) -> None:
    text = f"No, that's wrong.\nDon't use npm here, use pnpm: my token is {TOKEN}"
    out = prompt(project, text)
    assert out.startswith("<correction-detected>\n")
    assert "self-improve log learning --category correction" in out and "pnpm" not in out  # the nudge, as before
    excerpt = "No, that's wrong. Don't use npm here, use pnpm: my token is [REDACTED:github-token]"
    assert (project / QUEUE).read_text(encoding="utf-8") == line("s1", text, excerpt)
    assert TOKEN[:8].encode() not in (project / QUEUE).read_bytes()
    prompt(project, "不对，应该用 pnpm", session="s2")
    assert (project / QUEUE).read_text(encoding="utf-8") == (
        line("s1", text, excerpt) + line("s2", "不对，应该用 pnpm", "不对，应该用 pnpm")
    )
    assert Store(project).entries() == []  # queued, not logged: a lesson needs the agent's words


def test_a_prompt_that_is_no_correction_queues_nothing(project: Path) -> None:
    assert "<self-improvement-reminder>" in prompt(project, "please add a test for the parser")
    assert not (project / QUEUE).exists()


def test_the_queue_keeps_its_bound(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[corrections]\nqueue_max = 2\n")
    for n in range(3):
        prompt(project, f"No, not {n}.", session=f"s{n}")
    assert (project / QUEUE).read_text(encoding="utf-8") == line("s1", "No, not 1.", "No, not 1.") + line("s2", "No, not 2.", "No, not 2.")


def test_switched_off_nothing_is_written(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"  # personal: the user's own config
    config.parent.mkdir(parents=True)
    config.write_text("[corrections]\nqueue = false\n")
    assert prompt(project, "No, that's wrong. Use pnpm.").startswith("<correction-detected>")
    assert not (project / QUEUE).exists()


def test_a_projects_config_cannot_switch_it_on(project: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[corrections]\nqueue = false\n")
    (project / ".learnings/config.toml").write_text("[corrections]\nqueue = true\nqueue_max = 200\n")
    prompt(project, "No, that's wrong. Use pnpm.")
    assert not (project / QUEUE).exists()


def test_without_a_store_nothing_is_queued_anywhere(tmp_path: Path, isolated_home: Path) -> None:
    config = isolated_home / ".config/self-improve/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[hooks]\nenabled_without_learnings = true\n")
    work = tmp_path / "work"
    work.mkdir()
    assert prompt(work, "No, that's wrong. Use pnpm.").startswith("<correction-detected>")
    assert list(work.iterdir()) == []
    assert not list(isolated_home.rglob("corrections.jsonl"))


def test_a_queue_that_cannot_be_written_costs_the_nudge_nothing(project: Path, isolated_home: Path) -> None:
    state = project / ".learnings/.state"
    state.mkdir()
    (state / "corrections.jsonl").mkdir()  # a directory where the file should be
    out = prompt(project, "No, that's wrong. Use pnpm.")
    assert out.startswith("<correction-detected>")
    log = (isolated_home / ".local/state/self-improve/debug.log").read_text(encoding="utf-8").splitlines()
    assert len(log) == 1 and "prompt-submit: could not queue the correction: UntrustedStore:" in log[0]
