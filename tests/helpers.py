"""Small helpers shared by the tests."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from self_improve.harnesses import agent_env

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"
CLI = [sys.executable, "-m", "self_improve"]
AGENT_MARKERS = frozenset(agent_env.MARKERS)


def tree_hash(root: Path) -> dict[str, str]:
    """Every file below root (the lock file aside) with the sha256 of its bytes."""
    out = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != ".lock":
            out[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def run_cli(*args: str, cwd: Path | None = None, input: str | None = None, env: dict[str, str] | None = None,
            user: int | None = None) -> subprocess.CompletedProcess[str]:
    # Without the agent-session markers of the environment the suite runs in (it may run inside
    # an agent): a test that wants them passes them in ``env``.
    inherited = {name: value for name, value in os.environ.items() if name not in AGENT_MARKERS}
    full_env = {**inherited, "NO_COLOR": "1", "PYTHONPATH": str(REPO), **(env or {})}
    kwargs = {}
    if user is not None:
        kwargs["user"] = user
    return subprocess.run([*CLI, *args], cwd=cwd, input=input, capture_output=True, text=True, env=full_env, timeout=60, **kwargs)


# ---- the merge driver's tests: texts the store writes, and git repositories ---------------------
# Shared by tests/store/test_merge*.py, tests/store/test_git_setup_edits.py and
# tests/review/test_block_merge.py.

import shlex  # noqa: E402
from collections.abc import Callable  # noqa: E402
from datetime import UTC, datetime  # noqa: E402

from self_improve.store import git_setup  # noqa: E402
from self_improve.store.entry import Entry, NewEntry, Occurrence, parse_text, render_new  # noqa: E402
from self_improve.store.store import HEADERS, LogRequest, Store, merge_occurrence  # noqa: E402

PREAMBLE = HEADERS["learning"]
BIG = 10_000  # an occurrence bound the tests never reach, so multisets can be compared exactly
USER_TEXT = "# Project\n\nIntro line.\n\nBuild with make.\n"
A, B, C = "LRN-20260301-aaa", "LRN-20260301-bbb", "LRN-20260301-ccc"
BASE_DAY = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def new_entry(entry_id: str, summary: str, day: str = "2026-03-01", task: str = "t0", key: str = "") -> str:
    metadata = [("Source", "conversation")]
    if key:
        metadata.append(("Pattern-Key", key))
    metadata += [("Recurrence-Count", "1"), ("First-Seen", day), ("Last-Seen", day), ("Occurrences", f"{day}/{task}")]
    return render_new(NewEntry(id=entry_id, category="insight", logged=f"{day}T10:00:00Z", summary=summary, metadata=tuple(metadata)))


def append(text: str, entry_text: str) -> str:
    """As ``Store.log`` appends: a blank line between the file and the new entry."""
    if text and not text.endswith("\n\n"):
        text += "\n"
    return text + entry_text


def edit(text: str, entry_id: str, change: Callable[[Entry], Entry]) -> str:
    parsed = parse_text(text)
    return "".join(parsed.preamble) + "".join(
        change(entry).text if entry.id == entry_id else entry.text for entry in parsed.entries
    )


def remove(text: str, entry_id: str) -> str:
    parsed = parse_text(text)
    return "".join(parsed.preamble) + "".join(entry.text for entry in parsed.entries if entry.id != entry_id)


def bump(text: str, entry_id: str, day: str, task: str, keep: int = BIG, action: str = "") -> str:
    def change(entry: Entry) -> Entry:
        request = LogRequest(kind=entry.kind, summary=entry.summary, action=action)
        return merge_occurrence(entry, request, Occurrence(day, task), keep)

    return edit(text, entry_id, change)


def entry(text: str, entry_id: str) -> Entry:
    return next(e for e in parse_text(text).entries if e.id == entry_id)


def ids(text: str) -> list[str]:
    return [e.id for e in parse_text(text).entries]


def both_kept(ours: str, theirs: str) -> str:
    """A whole-file conflict of two texts that end with a newline."""
    return f"<<<<<<< ours\n{ours}=======\n{theirs}>>>>>>> theirs\n"


def git_env(home: Path) -> dict[str, str]:
    # Never the developer's own git config; the driver imports this checkout.
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": str(home / "gitconfig"),
        "PYTHONPATH": str(REPO),
        "GIT_MERGE_AUTOEDIT": "no",
    }


def git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], check=False, cwd=repo, env=git_env(repo.parent), capture_output=True, text=True, timeout=120)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def make_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Test")
    git(repo, "config", "user.email", "test@example.com")
    git(repo, "config", "commit.gpgsign", "false")
    return repo


def register_driver_by_hand(repo: Path) -> None:
    """What a user could set up by hand: the module as the driver, plus our .gitattributes lines."""
    command = f"{shlex.quote(sys.executable)} -m self_improve merge-driver %O %A %B %P"
    git(repo, "config", "merge.self-improve.driver", command)
    (repo / ".gitattributes").write_text("".join(line + "\n" for line in git_setup.ATTRIBUTE_LINES))


def commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def log(store: Store, kind: str, summary: str, key: str, session: str, now: datetime) -> None:
    store.log(LogRequest(kind=kind, summary=summary, pattern_key=key, session=session, now=now))


def config_value(repo: Path, key: str) -> str | None:
    done = git(repo, "config", "--local", "--get", key, check=False)
    return done.stdout.strip() if done.returncode == 0 else None


# ---- the review tests: entries in the reference layout, projects, a user's own config ------------
# Shared by tests/review/*.py (and, through test_policy, tests/test_concurrency.py and tests/e2e).

from collections.abc import Iterable, Sequence  # noqa: E402
from datetime import date, timedelta  # noqa: E402

import pytest  # noqa: E402

from self_improve.store import provenance  # noqa: E402

TODAY = date(2026, 3, 1)
ACTION_TITLE = {"LRN": "Suggested Action", "ERR": "Suggested Fix", "FEAT": "Suggested Implementation"}
SUMMARY_TITLE = {"LRN": "Summary", "ERR": "Summary", "FEAT": "Requested Capability"}


def day(days_ago: int) -> str:
    return (TODAY - timedelta(days=days_ago)).isoformat()


def entry_text(
    entry_id: str,
    summary: str = "Something went wrong",
    *,
    status: str = "pending",
    priority: str = "medium",
    category: str = "insight",
    area: str = "",
    action: str = "",
    details: str = "",
    occurrences: Sequence[tuple[int, str]] = (),
    recurrence: int | None = None,
    last_seen: int | None = None,
    see_also: str = "",
    pattern_key: str = "",
    promoted: str = "",
    meta: Iterable[tuple[str, str]] = (),
) -> str:
    """An entry in the reference layout. ``occurrences`` are (days ago, task) pairs, oldest first;
    without them the entry has no Occurrences line (the plain reference format)."""
    prefix = entry_id.split("-", 1)[0]
    dates = [day(ago) for ago, _ in occurrences]
    first = dates[0] if dates else day(last_seen if last_seen is not None else 0)
    last = dates[-1] if dates else day(last_seen if last_seen is not None else 0)
    lines = [f"## [{entry_id}] {category}", "", f"**Logged**: {first}T10:00:00Z", f"**Priority**: {priority}", f"**Status**: {status}"]
    if area:
        lines.append(f"**Area**: {area}")
    if promoted:
        lines.append(f"**Promoted**: {promoted}")
    lines += ["", f"### {SUMMARY_TITLE[prefix]}", summary, ""]
    if details:
        lines += ["### Details", details, ""]
    if action:
        lines += [f"### {ACTION_TITLE[prefix]}", action, ""]
    lines.append("### Metadata")
    if pattern_key:
        lines.append(f"- Pattern-Key: {pattern_key}")
    if see_also:
        lines.append(f"- See Also: {see_also}")
    lines.append(f"- Recurrence-Count: {recurrence if recurrence is not None else max(1, len(occurrences))}")
    lines += [f"- First-Seen: {first}", f"- Last-Seen: {last}"]
    if occurrences:
        lines.append("- Occurrences: " + ", ".join(f"{d}/{task}" for d, (_, task) in zip(dates, occurrences, strict=True)))
    lines += [f"- {key}: {value}" for key, value in meta]
    lines += ["", "---", ""]
    return "\n".join(lines)


def record_here(root: Path, *entry_ids: str, who: str = "hook") -> None:
    """As if this machine had logged these entries (all of them when none is named): each
    occurrence and the fix in the provenance ledger, as ``Store.log`` records them."""
    for item in Store(root).entries():
        if entry_ids and item.id not in entry_ids:
            continue
        for n, occurrence in enumerate(item.occurrences):
            action = item.suggested_action if n == len(item.occurrences) - 1 else ""
            provenance.record(str(root), item.id, occurrence.date, occurrence.task, who, created=n == 0, action=action)


def write_project(root: Path, texts: Iterable[str]) -> Store:
    """A project with .learnings/ holding these entries, each in the file of its kind."""
    store = Store(root)
    store.init()
    by_file: dict[str, list[str]] = {}
    for text in texts:
        kind = {"LRN": "learning", "ERR": "error", "FEAT": "feature"}[text.split("[", 1)[1].split("-", 1)[0]]
        by_file.setdefault(kind, []).append(text)
    for kind, items in by_file.items():
        store.file_for(kind).write_text(HEADERS[kind] + "\n" + "\n".join(items), encoding="utf-8")
    return store


def user_config(factory: pytest.TempPathFactory, text: str) -> dict[str, str]:
    """The environment of a user whose own config (``$XDG_CONFIG_HOME/self-improve/config.toml``) holds ``text``."""
    home = factory.mktemp("xdg-config")
    (home / "self-improve").mkdir()
    (home / "self-improve" / "config.toml").write_text(text, encoding="utf-8")
    return {"XDG_CONFIG_HOME": str(home)}


# ---- the hooks' tests: fixture payloads, the real hook scripts, the debug log ---------------------
# Shared by tests/hooks/*.py.

import json  # noqa: E402
from typing import Any  # noqa: E402

HOOKS = REPO / "hooks"


def payload(name: str, **changes: Any) -> dict[str, Any]:
    """A real Claude Code payload from tests/fixtures/claude/, with ``changes`` applied."""
    data: dict[str, Any] = json.loads((FIXTURES / "claude" / f"{name}.json").read_text())
    data.update(changes)
    return data


def run_hook(name: str, stdin: bytes | str | dict[str, Any], env: dict[str, str] | None = None,
             timeout: float = 10) -> subprocess.CompletedProcess[bytes]:
    """The real hooks/<name> script; its timeout is a hang guard, never a timing assertion."""
    if isinstance(stdin, dict):
        stdin = json.dumps(stdin)
    if isinstance(stdin, str):
        stdin = stdin.encode()
    return subprocess.run([str(HOOKS / name)], input=stdin, capture_output=True, timeout=timeout,
                          env={**os.environ, **(env or {})})


def context_of(result: subprocess.CompletedProcess[bytes], event: str) -> str:
    """The ``additionalContext`` a post-tool hook printed for ``event``."""
    data = json.loads(result.stdout)
    assert data["hookSpecificOutput"]["hookEventName"] == event
    text: str = data["hookSpecificOutput"]["additionalContext"]
    return text


def debug_lines(home: Path) -> list[str]:
    """The hooks' debug log of a user whose home is ``home`` (no XDG_STATE_HOME)."""
    log = home / ".local/state/self-improve/debug.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


# ---- two rules to promote into a project's CLAUDE.md ---------------------------------------------
# Shared by tests/test_concurrency.py and tests/harnesses/test_install_edges.py.

PNPM = "LRN-20260201-aaa"
RUFF = "LRN-20260202-bbb"
RULES = {PNPM: "Use `pnpm install`, not npm.", RUFF: "Run `ruff check` before committing."}
CLAUDE_MD = "# Project\n\nIndent with tabs.\n"


def make_project(root: Path) -> Path:
    """A git project whose store holds the two pending rules of :data:`RULES`, and a CLAUDE.md."""
    root.mkdir()
    (root / ".git").mkdir()
    write_project(root, [entry_text(entry_id, f"rule {entry_id}", action=rule) for entry_id, rule in RULES.items()])
    (root / "CLAUDE.md").write_text(CLAUDE_MD, encoding="utf-8")
    return root


def statuses(root: Path) -> dict[str, str]:
    return {entry_id: Store(root).get(entry_id).status for entry_id in RULES}
