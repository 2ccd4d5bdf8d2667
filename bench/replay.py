"""Replay a multi-session trace through our hooks and through the reference skill's hooks.

    .venv/bin/python bench/replay.py [--sessions N] [--json]

The trace (bench/replay_trace.py): 12 sessions over 220 simulated days, 10 prompts each, every Bash
result a real one from the labelled corpus (tests/data/corpus/public.jsonl, or $SELF_IMPROVE_CORPUS)
with its real hook payload; cwd is a temp project, session_id one per session.

A deterministic simulated agent:
- on `<error-detected>` with the `self-improve log error …` command, it runs that command with its
  fixed fix and summary for the Pattern-Key; on `<correction-detected>`, the printed
  `self-improve log learning …` command with the step's fixed rule and the user's words;
- on a `Known fix (from ID …): …` it applies the fix: the next scripted failure of that kind in the same
  session (the retry) is replaced by a passing result;
- between sessions it runs `self-improve review --yes` (promote, archive, retire).
The clock is simulated: SELF_IMPROVE_NOW (read by store.utcnow) and SELF_IMPROVE_TODAY (review's
"today") are set to the trace's date on every call.

The reference skill (bench/reference/): its activator prints its reminder on every prompt; its
detector is registered on PostToolUse only, so PostToolUseFailure payloads never reach it. As
shipped it reads $CLAUDE_TOOL_OUTPUT (never set: it sees nothing); the variant reads stdin. Its agent
appends a reference-format entry to .learnings/ERRORS.md whenever the detector fires, and that is
all: no promotion, no recall, no retirement.

Files touched: every file of the project is hashed before `init` and after the run, except
.learnings/**; CLAUDE.md and AGENTS.md are compared with our managed block stripped.
Tokens: characters / 4 of everything reaching the model (additionalContext, else plain stdout).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import asdict, dataclass, field
from datetime import date, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))

import replay_trace as trace  # noqa: E402 - after the sys.path line above

HOOKS = REPO / "hooks"
REFERENCE = REPO / "bench" / "reference"
FIXTURES = REPO / "tests" / "fixtures" / "claude"
CORPUS = REPO / "tests" / "data" / "corpus" / "public.jsonl"  # a copy of shared/corpus
BLOCK = re.compile(r"(\r?\n)?<!-- self-improve:begin.*?<!-- self-improve:end -->(\r?\n)?", re.DOTALL)
KNOWN_FIX = re.compile(r"^Known fix \(from (\S+)[^)]*\): (.*)$", re.MULTILINE)
PROJECT_FILES = {
    "CLAUDE.md": "# Cart service\n\nRun `pnpm test` before you push. Keep functions small.\n",
    "README.md": "# cart\n\nA small shop backend with a sales report.\n",
    "package.json": '{\n  "name": "cart",\n  "private": true,\n  "scripts": {"test": "node --test"}\n}\n',
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "report.py": "import pandas as pd\n\nprint(pd.DataFrame().to_csv())\n",
    "src/cart.js": "export const total = (items) => items.reduce((s, i) => s + i.price * i.qty, 0);\n",
    ".gitignore": "node_modules/\nbuild/\n",
}


# ---- inputs ---------------------------------------------------------------------------------------


def corpus() -> dict[str, dict]:
    path = Path(os.environ.get("SELF_IMPROVE_CORPUS") or CORPUS)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


def interpreter() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def session_id(index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"self-improve/bench/replay/session-{index + 1}"))


def day_of(offset: int) -> date:
    return date.fromisoformat(trace.START) + timedelta(days=offset)


def clock(offset: int, minute: int) -> str:
    return f"{day_of(offset).isoformat()}T{9 + minute // 60:02d}:{minute % 60:02d}:00Z"


def base_env(work: Path) -> dict[str, str]:
    # Also without an agent's markers: run inside an agent session, review --yes would only propose.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SELF_IMPROVE_", "CLAUDE", "XDG_", "PYTHON", "AI_AGENT", "CODEX_", "OPENCLAW_"))}
    env.update(
        HOME=str(work / "home"),
        XDG_CONFIG_HOME=str(work / "home" / ".config"),
        XDG_STATE_HOME=str(work / "home" / ".local" / "state"),
        XDG_DATA_HOME=str(work / "home" / ".local" / "share"),
        PYTHONPATH=str(REPO),
        NO_COLOR="1",
    )
    return env


def timed_env(env: dict[str, str], offset: int, minute: int) -> dict[str, str]:
    return {**env, "SELF_IMPROVE_NOW": clock(offset, minute), "SELF_IMPROVE_TODAY": day_of(offset).isoformat()}


def make_project(path: Path) -> Path:
    for name, text in PROJECT_FILES.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text, encoding="utf-8")
    return path


def prompt_payload(project: Path, session: str, text: str) -> bytes:
    data = json.loads((FIXTURES / "UserPromptSubmit.json").read_text())
    data.update(cwd=str(project), session_id=session, prompt=text,
                transcript_path=f"{project}/.claude-transcripts/{session}.jsonl")
    return json.dumps(data).encode()


def bash_payload(project: Path, session: str, row: dict) -> bytes:
    data = dict(row["payload"], cwd=str(project), session_id=session,
                transcript_path=f"{project}/.claude-transcripts/{session}.jsonl")
    return json.dumps(data).encode()


def lesson_key(rule: str) -> str:
    """The Pattern-Key the simulated agent gives a correction: derived from the lesson itself."""
    words = "".join(ch if ch.isalnum() else " " for ch in rule.lower()).split()
    return "correction." + "-".join(words[:4])


def injected(stdout: str) -> str:
    """What reaches the model: additionalContext for JSON output, the plain text otherwise."""
    text = stdout.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)["hookSpecificOutput"]["additionalContext"]
        except (ValueError, KeyError, TypeError):
            return stdout
    return stdout


def run(command: list[str], stdin: bytes, env: dict[str, str], cwd: Path) -> str:
    done = subprocess.run(command, input=stdin, check=False, capture_output=True, env=env, cwd=cwd, timeout=60)
    return done.stdout.decode("utf-8", "replace")


# ---- files touched --------------------------------------------------------------------------------


def snapshot(project: Path) -> dict[str, str]:
    """sha256 of every file except .learnings/**; CLAUDE.md / AGENTS.md without our managed block."""
    out: dict[str, str] = {}
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project).as_posix()
        if rel == ".learnings" or rel.startswith(".learnings/") or path.is_dir():
            continue
        data = path.read_bytes()
        if rel in ("CLAUDE.md", "AGENTS.md"):
            data = BLOCK.sub("", data.decode("utf-8", "surrogateescape"), count=1).encode("utf-8", "surrogateescape")
        out[rel] = hashlib.sha256(data).hexdigest()
    for name in ("CLAUDE.md", "AGENTS.md"):  # a file we created holding only our block counts as absent
        if out.get(name) == hashlib.sha256(b"").hexdigest():
            del out[name]
    return out


def touched(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))


# ---- results --------------------------------------------------------------------------------------


@dataclass
class Result:
    failures_run: int = 0  # scripted failures actually run (a fixed retry is not one)
    passes_run: int = 0  # passing results run
    error_nudges: int = 0  # <error-detected> on a failure
    false_alarms: int = 0  # <error-detected> on a passing result
    known_fixes: int = 0  # Known fix lines injected on a failure
    retries_passed: int = 0  # scripted retries replaced by a pass after a known fix
    corrections: int = 0  # corrections in the trace
    corrections_nudged: int = 0
    logged: int = 0  # log commands the agent ran (or entries it appended)
    promoted: int = 0
    promoted_on_time: int = 0
    retired: int = 0
    retired_stale: int = 0
    archived: int = 0
    reminder_tokens: float = 0.0  # the prompt hook's output (reminders, correction nudges)
    error_tokens: float = 0.0
    managed_block_tokens: float = 0.0  # what CLAUDE.md/AGENTS.md carry at the end, read every session
    files_touched: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def tokens(self) -> float:
        return self.reminder_tokens + self.error_tokens


class Evidence:
    """Our own count of each pattern's occurrences, to say when a promotion became due."""

    def __init__(self) -> None:
        self.seen: dict[str, list[tuple[int, int]]] = {}  # label -> [(day, session)]

    def add(self, label: str, day: int, session: int) -> None:
        self.seen.setdefault(label, []).append((day, session))

    def due(self, label: str, today: int) -> bool:
        recent = [(d, s) for d, s in self.seen.get(label, []) if today - 30 <= d <= today]
        return len(recent) >= 3 and len({s for _, s in recent}) >= 2

    def describe(self, label: str) -> str:
        history = self.seen.get(label, [])
        return f"{len(history)} occurrences in {len({s for _, s in history})} sessions"


# ---- our hooks --------------------------------------------------------------------------------------


class Ours:
    def __init__(self, work: Path, rows: dict[str, dict]) -> None:
        self.rows = rows
        self.project = make_project(work / "ours")
        self.env = base_env(work)
        self.result = Result()
        self.evidence = Evidence()
        self.labels: dict[str, str] = {}  # entry ID -> Pattern-Key or correction rule
        self.promoted_at: dict[str, int] = {}  # label -> session index
        self.rule_of: dict[str, str] = {}  # learning summary -> the rule it was logged with
        self.passing = [cid for cid, row in rows.items() if row["label"] == "ok"]  # corpus order
        self.next_pass = 0
        self.sessions: tuple[trace.Session, ...] = ()

    def cli(self, args: list[str], env: dict[str, str]) -> str:
        done = subprocess.run([interpreter(), "-m", "self_improve", *args], check=False, capture_output=True, env=env,
                              cwd=self.project, timeout=60)
        if done.returncode != 0:
            self.result.problems.append(f"`self-improve {' '.join(args[:3])}` exited {done.returncode}: {done.stderr.decode().strip()}")
        return done.stdout.decode("utf-8", "replace")

    def agent_runs(self, nudge: str, placeholders: dict[str, str], env: dict[str, str]) -> bool:
        """Run the `self-improve log …` line the nudge printed, placeholders filled in."""
        for line in nudge.splitlines():
            words = shlex.split(line) if " log " in line else []
            # The CLI by name, or by its absolute path when it is not on the hook's PATH.
            if len(words) > 1 and os.path.basename(words[0]) == "self-improve" and words[1] == "log":
                words = [placeholders.get(word, word) for word in words]
                self.cli(words[1:], env)
                self.result.logged += 1
                return True
        self.result.problems.append(f"a nudge without a `self-improve log` command: {nudge!r}")
        return False

    def play(self, sessions: tuple[trace.Session, ...]) -> Result:
        self.sessions = sessions
        before = snapshot(self.project)
        self.cli(["init"], timed_env(self.env, sessions[0].day, 0))
        for index, session in enumerate(sessions):
            self.play_session(index, session)
            self.review(index, session)
        self.finish(before)
        return self.result

    def play_session(self, index: int, session: trace.Session) -> None:
        sid = session_id(index)
        fixed: set[str] = set()  # corpus kinds whose known fix the agent has applied this session
        minute = 0
        for step in session.steps:
            minute += 5
            env = timed_env(self.env, session.day, minute)
            text = run([str(HOOKS / "prompt-submit")], prompt_payload(self.project, sid, step.prompt), env, self.project)
            context = injected(text)
            self.result.reminder_tokens += len(context) / 4
            if step.rule:
                self.result.corrections += 1
            if "<correction-detected>" in context:
                if step.rule:
                    self.result.corrections_nudged += 1
                    self.rule_of[step.prompt] = step.rule
                    self.evidence.add(lesson_key(step.rule), session.day, index)
                else:
                    self.result.problems.append(f"session {index + 1}: {step.prompt!r} taken for a correction")
                placeholders = {
                    "<do X, not Y>": step.rule or "(no rule)",
                    "<what the user said>": step.prompt,
                    # The agent names the lesson, not the wording: one stable key per rule.
                    "<area.topic>": lesson_key(step.rule or "none"),
                }
                self.agent_runs(context, placeholders, env)
            for command in step.commands or (self.next_passing(),):
                row = self.rows[command]
                if row["label"] == "error" and row["kind"] in fixed:
                    fixed.discard(row["kind"])
                    row = self.rows[trace.PASS_AFTER_FIX[command]]
                    self.result.retries_passed += 1
                    self.result.events.append(f"session {index + 1:>2} (day {session.day:>3}): the retry of `{self.rows[command]['command']}` passed with the injected fix")
                minute += 1
                env = timed_env(self.env, session.day, minute)
                context = injected(run([str(HOOKS / "post-bash")], bash_payload(self.project, sid, row), env, self.project))
                self.result.error_tokens += len(context) / 4
                failing = row["label"] == "error"
                self.result.failures_run += failing
                self.result.passes_run += not failing
                if "<error-detected>" not in context:
                    continue
                if not failing:
                    self.result.false_alarms += 1
                    continue
                self.result.error_nudges += 1
                key = context.split("<error-detected>\n", 1)[1].split(":", 1)[0].strip()
                self.evidence.add(key, session.day, index)
                known = KNOWN_FIX.search(context)
                if known:
                    self.result.known_fixes += 1
                    fixed.add(row["kind"])
                    continue
                fix, summary = trace.FIXES.get(key, trace.DEFAULT_FIX)
                self.agent_runs(context, {"<fix>": fix, "<one-line summary>": summary}, env)

    def next_passing(self) -> str:
        cid = self.passing[self.next_pass % len(self.passing)]
        self.next_pass += 1
        return cid

    def label_entries(self, env: dict[str, str]) -> None:
        today = env["SELF_IMPROVE_TODAY"]
        for entry in json.loads(self.cli(["list", "--json"], env) or "[]"):
            if (entry.get("last_seen") or today) > today:
                self.result.problems.append(f"{entry['id']} last seen {entry['last_seen']}, after the simulated {today}: "
                                            "SELF_IMPROVE_NOW is not honoured")
            if entry.get("pattern_key"):
                self.labels[entry["id"]] = entry["pattern_key"]
            elif entry.get("summary") in self.rule_of:
                self.labels[entry["id"]] = lesson_key(self.rule_of[entry["summary"]])
            else:
                self.labels[entry["id"]] = entry.get("summary", entry["id"])

    def review(self, index: int, session: trace.Session) -> None:
        env = timed_env(self.env, session.day, 600)  # 19:00 on the session's day
        self.label_entries(env)
        plan = json.loads(self.cli(["review", "--json"], env) or "{}")
        reasons = {item["id"]: item["reasons"] for item in plan.get("retire", [])}
        output = self.cli(["review", "--yes"], env)
        where = f"review after session {index + 1:>2} (day {session.day:>3})"
        promoted_now = set()
        for line in output.splitlines():
            verb, _, rest = line.partition(" ")
            entry_id = rest.split(" ", 1)[0]
            label = self.labels.get(entry_id, entry_id)
            if verb == "promoted":
                promoted_now.add(label)
                self.result.promoted += 1
                self.promoted_at[label] = index
                on_time = not any(self.evidence.due(label, day) for day in self.earlier_review_days(index))
                self.result.promoted_on_time += on_time
                self.result.events.append(
                    f"{where}: promoted {label} ({self.evidence.describe(label)} so far)"
                    + ("" if on_time else "; LATE: it was due at an earlier review")
                )
            elif verb == "retired":
                why = "; ".join(reasons.get(entry_id, []))
                stale = "not seen for" in why
                self.result.retired += 1
                self.result.retired_stale += stale
                design = "the rule meant to go stale" if label in trace.STALE_BY_DESIGN else "NOT the rule meant to go stale"
                self.result.events.append(f"{where}: retired {label} ({why}; {design})")
            elif verb == "archived":
                self.result.archived += 1
                self.result.events.append(f"{where}: archived {label}")
        for label in sorted(self.evidence.seen):
            if self.evidence.due(label, session.day) and label not in self.promoted_at and label not in promoted_now:
                message = f"{where}: {label} meets >=3 occurrences in >=2 sessions within 30 days but was NOT promoted"
                if message not in self.result.problems:
                    self.result.problems.append(message)

    def earlier_review_days(self, index: int) -> list[int]:
        return [s.day for s in self.sessions[:index]]

    def finish(self, before: dict[str, str]) -> None:
        self.result.files_touched = touched(before, snapshot(self.project))
        for name in ("CLAUDE.md", "AGENTS.md"):
            path = self.project / name
            if path.is_file():
                block = BLOCK.search(path.read_text(encoding="utf-8"))
                self.result.managed_block_tokens += len(block.group(0).strip()) / 4 if block else 0


# ---- the reference skill --------------------------------------------------------------------------------


REFERENCE_ENTRY = """## [{id}] {name}

**Logged**: {logged}
**Priority**: high
**Status**: pending
**Area**: backend

### Summary
{summary}

### Error
```
{excerpt}
```

### Context
- Command: `{command}`

### Suggested Fix
{fix}

### Metadata
- Reproducible: unknown

---
"""


def play_reference(work: Path, rows: dict[str, dict], sessions: tuple[trace.Session, ...], source: str) -> Result:
    project = make_project(work / f"reference-{source}")
    env = {**base_env(work), "SOURCE": source}
    result = Result()
    before = snapshot(project)
    learnings = project / ".learnings"
    learnings.mkdir()
    for name, title in (("LEARNINGS.md", "Learnings"), ("ERRORS.md", "Errors"), ("FEATURE_REQUESTS.md", "Feature Requests")):
        (learnings / name).write_text(f"# {title}\n\n---\n", encoding="utf-8")
    passing = [cid for cid, row in rows.items() if row["label"] == "ok"]
    next_passing = 0
    per_day: dict[str, int] = {}
    for index, session in enumerate(sessions):
        sid = session_id(index)
        for step in session.steps:
            text = run(["bash", str(REFERENCE / "activator.sh")], prompt_payload(project, sid, step.prompt), env, project)
            result.reminder_tokens += len(text) / 4
            if step.rule:
                result.corrections += 1
                result.corrections_nudged += "<correction-detected>" in text
            commands = step.commands
            if not commands:
                commands = (passing[next_passing % len(passing)],)
                next_passing += 1
            for command in commands:
                row = rows[command]
                failing = row["label"] == "error"
                result.failures_run += failing
                result.passes_run += not failing
                if row["payload"].get("hook_event_name") != "PostToolUse":
                    continue  # registered on PostToolUse only: PostToolUseFailure never reaches it
                text = run(["bash", str(REFERENCE / "error-detector.sh")], bash_payload(project, sid, row), env, project)
                result.error_tokens += len(text) / 4
                if "<error-detected>" not in text:
                    continue
                if failing:
                    result.error_nudges += 1
                else:
                    result.false_alarms += 1
                # Its agent logs by hand: one new reference-format entry per firing.
                day = day_of(session.day).strftime("%Y%m%d")
                per_day[day] = per_day.get(day, 0) + 1
                fix, summary = trace.FIXES.get(row["kind"], trace.DEFAULT_FIX)
                entry = REFERENCE_ENTRY.format(
                    id=f"ERR-{day}-{per_day[day]:03d}", name=row["command"].split()[0], logged=clock(session.day, 0),
                    summary=summary if failing else "Command output mentioned an error", excerpt=row["output"][-200:],
                    command=row["command"], fix=fix if failing else "None needed",
                )
                with (learnings / "ERRORS.md").open("a", encoding="utf-8") as handle:
                    handle.write("\n" + entry)
                result.logged += 1
    result.files_touched = touched(before, snapshot(project))
    return result


# ---- report -----------------------------------------------------------------------------------------


def table(ours: Result, shipped: Result, stdin: Result) -> str:
    columns = (ours, shipped, stdin)
    rows: list[tuple[str, list[str]]] = [
        ("error nudges delivered (on failures run)", [f"{r.error_nudges}/{r.failures_run}" for r in columns]),
        ("false alarms (nudges on passing results)", [f"{r.false_alarms}/{r.passes_run}" for r in columns]),
        ("repeated errors given their known fix in time", [str(r.known_fixes) for r in columns]),
        ("  ... whose retry then passed", [str(r.retries_passed) for r in columns]),
        ("corrections nudged", [f"{r.corrections_nudged}/{r.corrections}" for r in columns]),
        ("learnings/errors logged by the agent", [str(r.logged) for r in columns]),
        ("rules promoted", [str(r.promoted) for r in columns]),
        ("  ... at the first review after the 3rd occurrence", [str(r.promoted_on_time) for r in columns]),
        ("rules retired after going stale (>180 d)", [str(r.retired_stale) for r in columns]),
        ("entries archived", [str(r.archived) for r in columns]),
        ("tokens injected: prompt hook (reminders)", [f"{r.reminder_tokens:.0f}" for r in columns]),
        ("tokens injected: error blocks / known fixes", [f"{r.error_tokens:.0f}" for r in columns]),
        ("tokens injected: total (chars/4)", [f"{r.tokens:.0f}" for r in columns]),
        ("tokens of managed rules in CLAUDE.md at the end", [f"{r.managed_block_tokens:.0f}" for r in columns]),
        ("files touched outside .learnings/ + our block", [str(len(r.files_touched)) for r in columns]),
    ]
    head = ("", "ours", "reference as shipped", "reference reading stdin")
    widths = (max(len(name) for name, _ in rows), 8, 22, 25)
    lines = [f"{head[0]:<{widths[0]}}  {head[1]:>{widths[1]}}  {head[2]:>{widths[2]}}  {head[3]:>{widths[3]}}"]
    for name, values in rows:
        lines.append(f"{name:<{widths[0]}}  {values[0]:>{widths[1]}}  {values[1]:>{widths[2]}}  {values[2]:>{widths[3]}}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=len(trace.SESSIONS), help="play only the first N sessions")
    parser.add_argument("--json", action="store_true", help="print the three results as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temp projects (their path goes to stderr)")
    args = parser.parse_args(argv)
    sessions = trace.SESSIONS[: max(1, args.sessions)]
    rows = corpus()
    work = Path(tempfile.mkdtemp(prefix="si-bench-replay-"))
    try:
        ours = Ours(work, rows).play(sessions)
        shipped = play_reference(work, rows, sessions, "env")
        stdin = play_reference(work, rows, sessions, "stdin")
    finally:
        if args.keep:
            sys.stderr.write(f"kept: {work}\n")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps({"sessions": len(sessions), "ours": asdict(ours), "reference_shipped": asdict(shipped),
                          "reference_stdin": asdict(stdin)}, indent=2, sort_keys=True))
        return 0
    span = sessions[-1].day - sessions[0].day
    prompts = sum(len(s.steps) for s in sessions)
    print(f"trace: {len(sessions)} sessions over {span} simulated days, {prompts} prompts, "
          f"{sum(r['label'] == 'error' for s in sessions for st in s.steps for c in st.commands for r in [rows[c]])} scripted failures")
    print()
    print(table(ours, shipped, stdin))
    print()
    print("ours, in order:")
    for event in ours.events:
        print(f"  {event}")
    for name, result in (("ours", ours), ("reference as shipped", shipped), ("reference reading stdin", stdin)):
        for path in result.files_touched:
            print(f"{name}: touched {path}")
    if ours.problems:
        print()
        print("problems:")
        for problem in ours.problems:
            print(f"  {problem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
