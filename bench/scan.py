"""How fast ``self-improve scan`` reads a Claude Code (or Codex) history, against plain line reading.

    .venv/bin/python bench/scan.py                 # ~200 MB of synthetic history
    .venv/bin/python bench/scan.py --size 1000     # ~1 GB (the goal: well under a minute on 2 cores)
    .venv/bin/python bench/scan.py --harness codex # Codex rollouts (tests/data/codex_rollouts), padded alike

The history is synthetic but shaped like a real one: each session is the real transcript of
``tests/data/claude_transcripts`` (a failure, its fix, a pass, two more commands) under its own
session id and project, padded with the attachment and request records that make up most bytes
of a real transcript (~150 KB a session). With ``--harness codex``, the real rollout of
``tests/data/codex_rollouts`` under ``$CODEX_HOME/sessions/YYYY/MM/DD/``, padded with token-count
events and reasoning items, the bulk of a real rollout. ``--failing`` of the sessions keep their failure (the
rest pass: most sessions of a real history record nothing); half of the projects opted in.

Figures (a benchmark prints them, it asserts nothing):
- baseline: ``for line in open(path, "rb")`` over every file (the stdlib's line reading);
- first scan: MB/s, and its time as a ratio of the baseline's;
- re-scan of the unchanged history: its time (the goal: about a second), and the ratio.
Everything lives in a temporary HOME: the user's own state is never touched.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

FIXTURE = next((REPO / "tests" / "data" / "claude_transcripts").glob("*.jsonl"))
SESSION = FIXTURE.stem
SESSION_BYTES = 150_000
CODEX_FIXTURE = next((REPO / "tests" / "data" / "codex_rollouts").glob("rollout-*.jsonl"))
CODEX_SESSION = "01a2334b-f9be-7392-a95a-fa75e1fc04a5"


def padding_lines(session: str, cwd: str) -> list[str]:
    """Records of the kinds that fill real transcripts: large attachments (never parsed), and
    request blobs that mention the user's role (parsed, then dropped)."""
    filler = "lorem ipsum dolor sit amet " * 300  # ~8 KB of text
    attachment = {"parentUuid": None, "isSidechain": False, "attachment": {"type": "skill_listing", "content": filler},
                  "type": "attachment", "timestamp": "2026-11-01T10:00:00.000Z", "cwd": cwd, "sessionId": session}
    blob = {"type": "api-request-blob", "sessionId": session,
            "message": {"role": "user", "content": [{"type": "text", "text": filler[:4000]}]}}
    line_a, line_b = json.dumps(attachment, separators=(",", ":")), json.dumps(blob, separators=(",", ":"))
    out, size = [], 0
    while size < SESSION_BYTES:
        for line in (line_a, line_a, line_a, line_b):
            out.append(line + "\n")
            size += len(line) + 1
    return out


def codex_padding_lines() -> list[str]:
    """Lines of the kinds that fill real rollouts: token counts and encrypted reasoning (never parsed)."""
    filler = "lorem ipsum dolor sit amet " * 300
    count = {"timestamp": "2026-12-01T20:29:07.000Z", "type": "event_msg",
             "payload": {"type": "token_count", "info": {"note": filler}}}
    reasoning = {"timestamp": "2026-12-01T20:29:07.000Z", "type": "response_item",
                 "payload": {"type": "reasoning", "summary": [], "encrypted_content": filler[:4000]}}
    line_a, line_b = json.dumps(count, separators=(",", ":")), json.dumps(reasoning, separators=(",", ":"))
    out, size = [], 0
    while size < SESSION_BYTES:
        for line in (line_a, line_a, line_b):
            out.append(line + "\n")
            size += len(line) + 1
    return out


def generate_codex(home: Path, projects: list[Path], size_mb: int, failing: float) -> int:
    """The synthetic history under ``home/.codex/sessions``; its size in bytes."""
    base = CODEX_FIXTURE.read_text().splitlines(keepends=True)
    passing = [line for line in base if "call_mock0001" not in line and "call_mock0005" not in line]
    pad = codex_padding_lines()
    total, n = 0, 0
    while total < size_mb * 1_000_000:
        project = projects[n % len(projects)]
        session = f"{n:08x}-0000-7000-8000-000000000000"
        lines = base if (n * 7919 % 1000) < failing * 1000 else passing
        month, day = 1 + n % 11, 1 + n % 28
        text = "".join(lines).replace("/PROJECT", str(project)).replace(CODEX_SESSION, session).replace(
            '"timestamp":"2026-12-01T', f'"timestamp":"2026-{month:02d}-{day:02d}T')
        body = text[: text.index("\n") + 1] + "".join(pad) + text[text.index("\n") + 1 :]
        folder = home / ".codex" / "sessions" / "2026" / f"{month:02d}" / f"{day:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"rollout-2026-{month:02d}-{day:02d}T00-00-00-{session}.jsonl").write_text(body)
        total += len(body)
        n += 1
    return total


def generate(home: Path, projects: list[Path], size_mb: int, failing: float) -> int:
    """The synthetic history under ``home/.claude/projects``; its size in bytes."""
    base = FIXTURE.read_text().splitlines(keepends=True)
    passing = base[:5] + base[8:15] + base[17:]  # without the two failing calls and their results
    total, n = 0, 0
    while total < size_mb * 1_000_000:
        project = projects[n % len(projects)]
        session = f"{n:08x}-0000-4000-8000-000000000000"
        lines = base if (n * 7919 % 1000) < failing * 1000 else passing
        day = f"2026-{1 + n % 11:02d}-{1 + n % 28:02d}"
        text = "".join(lines).replace("/PROJECT", str(project)).replace(SESSION, session).replace(
            '"timestamp":"2026-12-01T', f'"timestamp":"{day}T')
        pad = padding_lines(session, str(project))
        body = "".join(pad[: len(pad) // 2]) + text + "".join(pad[len(pad) // 2 :])
        folder = home / ".claude" / "projects" / str(project).replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session}.jsonl").write_text(body)
        total += len(body)
        n += 1
    return total


def baseline(files: list[str]) -> float:
    started = time.perf_counter()
    count = 0
    for path in files:
        with open(path, "rb") as handle:
            for _ in handle:
                count += 1
    return time.perf_counter() - started


def timed_scan(harness: str) -> tuple[float, dict[str, object]]:
    import io

    from self_improve.commands import scan

    parser = argparse.ArgumentParser()
    scan.register(parser.add_subparsers())
    args = parser.parse_args(["scan", "--harness", harness, "--all-projects", "--json"])
    saved, sys.stdout = sys.stdout, io.StringIO()
    started = time.perf_counter()
    try:
        scan.run(args)
        out = sys.stdout.getvalue()
    finally:
        sys.stdout = saved
    return time.perf_counter() - started, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=200, help="MB of history to generate (default 200)")
    parser.add_argument("--projects", type=int, default=8, help="projects (half opted in; default 8)")
    parser.add_argument("--failing", type=float, default=0.1, help="share of sessions with a failure (default 0.1)")
    parser.add_argument("--harness", choices=("claude", "codex"), default="claude", help="whose history (default claude)")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="scan-bench-") as temp:
        home = Path(temp) / "home"
        home.mkdir()
        os.environ["HOME"] = str(home)
        for name in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "SELF_IMPROVE_NOW"):
            os.environ.pop(name, None)
        import importlib

        from self_improve.store.store import Store

        history = importlib.import_module(f"self_improve.harnesses.{options.harness}.history")

        projects = [Path(temp) / f"p{n}" for n in range(options.projects)]
        for n, project in enumerate(projects):
            project.mkdir()
            if n % 2 == 0:
                Store(project).init()
        started = time.perf_counter()
        size = (generate_codex if options.harness == "codex" else generate)(home, projects, options.size, options.failing)
        files = history.transcripts(history.history_dir())
        print(f"history: {len(files)} files, {size / 1e6:.0f} MB (generated in {time.perf_counter() - started:.1f} s)")
        plain = baseline(files)
        print(f"baseline (line-by-line read): {plain:.2f} s, {size / 1e6 / plain:.0f} MB/s")
        first, report = timed_scan(options.harness)
        print(f"first scan: {first:.2f} s, {size / 1e6 / first:.0f} MB/s, {first / plain:.1f}x the baseline; "
              f"{report['sessions']} sessions, {report['events']} events, {report['mistakes']} mistakes recorded")
        again, report = timed_scan(options.harness)
        print(f"re-scan (unchanged): {again:.3f} s, {again / plain:.3f}x the baseline; {report['files_read']} files read, "
              f"{report['mistakes']} mistakes")


if __name__ == "__main__":
    main()
