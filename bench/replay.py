"""Replay a multi-session trace through our hooks and through the reference skill's hooks.

    .venv/bin/python bench/replay.py [--trace main|mixed|both] [--sessions N] [--json]

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

The mixed-subject trace (bench/replay_mixed_trace.py, `--trace mixed`; both traces by default): 12
mistakes sharing a few error classes (missing modules, missing commands, KeyErrors, rustc errors),
each with its own fix, each back 2-4 times across 6 sessions; real outputs captured by
bench/capture_mixed.py. Played on a fresh project of its own, for ours and for the reference, by
the same agent: on a nudge whose `Known fix` is not this mistake's own fix (or that has none) it
runs the `self-improve log …` command the nudge printed, if it printed one, with this mistake's
fix and summary; on its own fix it applies it and logs nothing; `review --yes` between sessions.
Scored against the trace's ground truth (which mistake each step is), never against our keys:
- wrong fixes injected: nudges whose `Known fix` text is not this mistake's fix (goal 0);
- right fixes recalled / repeats of a mistake with a known fix: a repeat counts in the
  denominator once the agent has logged that mistake's fix in an earlier step.
`--sessions` shortens the main trace only.
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

import replay_mixed_trace as mixed_trace  # noqa: E402 - after the sys.path line above
import replay_trace as trace  # noqa: E402

HOOKS = REPO / "hooks"
REFERENCE = REPO / "bench" / "reference"
FIXTURES = REPO / "tests" / "fixtures" / "claude"
CORPUS = REPO / "tests" / "data" / "corpus" / "public.jsonl"  # a copy of shared/corpus
MIXED_ROWS = REPO / "bench" / "data" / "mixed_subjects.jsonl"  # written by bench/capture_mixed.py
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


def corpus(path: Path | None = None) -> dict[str, dict]:
    path = path or Path(os.environ.get("SELF_IMPROVE_CORPUS") or CORPUS)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return {row["id"]: row for row in rows}


def interpreter() -> str:
    venv = REPO / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def session_id(index: int, trace_name: str = "") -> str:
    name = f"{trace_name}/" if trace_name else ""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"self-improve/bench/replay/{name}session-{index + 1}"))


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


def printed_log_command(nudge: str, placeholders: dict[str, str]) -> list[str] | None:
    """The first `self-improve log …` line of a nudge, split as a shell would, placeholders filled in.

    The CLI may be printed by name or by its absolute path (when it is not on the hook's PATH);
    a placeholder is a whole shell word of the printed line (`"<fix>"` -> `<fix>`).
    """
    for line in nudge.splitlines():
        if " log " not in line:
            continue
        try:
            words = shlex.split(line)
        except ValueError:
            continue
        if len(words) > 1 and os.path.basename(words[0]) == "self-improve" and words[1] == "log":
            return [placeholders.get(word, word) for word in words]
    return None


def nudge_key(context: str) -> str:
    """The key an error nudge is about, as the store spells it: the printed command's
    `--pattern-key` word if there is one, else the head line's `<key>: <title>.` (a fingerprint
    shown there as `class (subject)` is spelled `class/subject`)."""
    words = printed_log_command(context, {}) or []
    if "--pattern-key" in words[:-1]:
        return words[words.index("--pattern-key") + 1]
    head = context.split("<error-detected>\n", 1)[-1].split(": ", 1)[0].strip()
    shown = re.fullmatch(r"(\S+) \((\S+)\)", head)
    return f"{shown.group(1)}/{shown.group(2)}" if shown else head


def error_class(key: str) -> str:
    """``deps.module-not-found`` of a class or of a fingerprint (``deps.module-not-found/python:yaml``)."""
    return key.split("/", 1)[0]


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
    def __init__(self, work: Path, rows: dict[str, dict], name: str = "ours", product: Path = REPO) -> None:
        self.rows = rows
        self.project = make_project(work / name)
        self.env = base_env(work)
        self.hooks = product / "hooks"
        if product != REPO:  # another checkout: its package and hooks, run by this venv's interpreter
            self.env.update(PYTHONPATH=str(product), SELF_IMPROVE_PYTHON=interpreter())
        self.result = Result()
        self.evidence = Evidence()
        self.labels: dict[str, str] = {}  # entry ID -> Pattern-Key or correction rule
        self.promoted_at: dict[str, int] = {}  # label -> session index
        self.rule_of: dict[str, str] = {}  # learning summary -> the rule it was logged with
        self.passing = [cid for cid, row in rows.items() if row["label"] == "ok"]  # corpus order
        self.next_pass = 0
        self.last_returncode = 0  # of the latest cli() call
        self.sessions: tuple[trace.Session, ...] = ()

    def cli(self, args: list[str], env: dict[str, str]) -> str:
        done = subprocess.run([interpreter(), "-m", "self_improve", *args], check=False, capture_output=True, env=env,
                              cwd=self.project, timeout=60)
        self.last_returncode = done.returncode
        if done.returncode != 0:
            self.result.problems.append(f"`self-improve {' '.join(args[:3])}` exited {done.returncode}: {done.stderr.decode().strip()}")
        return done.stdout.decode("utf-8", "replace")

    def agent_runs(self, nudge: str, placeholders: dict[str, str], env: dict[str, str]) -> bool:
        """Run the `self-improve log …` line the nudge printed, placeholders filled in."""
        words = printed_log_command(nudge, placeholders)
        if words is not None:
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
            text = run([str(self.hooks / "prompt-submit")], prompt_payload(self.project, sid, step.prompt), env, self.project)
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
                context = injected(run([str(self.hooks / "post-bash")], bash_payload(self.project, sid, row), env, self.project))
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
                key = nudge_key(context)
                self.evidence.add(key, session.day, index)
                known = KNOWN_FIX.search(context)
                if known:
                    self.result.known_fixes += 1
                    fixed.add(row["kind"])
                    continue
                fix, summary = trace.FIXES.get(error_class(key), trace.DEFAULT_FIX)
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
                meant = label.partition("/")[0] in trace.STALE_BY_DESIGN  # by its class: the subject is the output's
                design = "the rule meant to go stale" if meant else "NOT the rule meant to go stale"
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


# ---- the mixed-subject trace ---------------------------------------------------------------------------


@dataclass
class Turn:
    """One scripted failure of the mixed trace as one system saw it."""

    mistake: str  # the ground truth: a key of replay_mixed_trace.MISTAKES
    context: str  # what reached the model from the post-bash hook ("" if nothing)
    logged: bool  # the agent recorded this mistake's fix after it
    where: str = ""  # "session N" for the report


@dataclass
class MixedScore:
    occurrences: int = 0  # scripted failures
    nudged: int = 0  # ... that got an <error-detected> block
    repeats: int = 0  # occurrences of a mistake that already occurred earlier in the trace
    repeats_known: int = 0  # ... after the agent had logged that mistake's fix
    right: int = 0  # nudges carrying this mistake's own fix
    wrong: int = 0  # nudges carrying a Known fix that is not this mistake's fix
    missed_no_fix: int = 0  # repeats with a known fix given no fix at all
    missed_wrong_fix: int = 0  # repeats with a known fix given another mistake's fix instead
    logged: int = 0  # fixes the agent logged
    wrong_details: list[str] = field(default_factory=list)


def same_text(injected_text: str, fix: str) -> bool:
    """Whether a recalled fix is ``fix``: equal after collapsing white space, or a prefix of it
    cut with an ellipsis (the hook's length cap)."""
    got, want = " ".join(injected_text.split()), " ".join(fix.split())
    if got == want:
        return True
    return got.endswith("…") and len(got) > 1 and want.startswith(got[:-1].rstrip())


def fix_owner(injected_text: str, fixes: dict[str, str]) -> str | None:
    """The mistake whose fix this recalled text is, or None for a text that is nobody's."""
    return next((name for name, fix in fixes.items() if same_text(injected_text, fix)), None)


def score_mixed(turns: list[Turn], fixes: dict[str, str]) -> MixedScore:
    """Score a played mixed trace against its ground truth (``Turn.mistake``), in trace order."""
    out = MixedScore()
    seen: set[str] = set()
    known: set[str] = set()  # mistakes whose fix the agent logged in an earlier turn
    for turn in turns:
        out.occurrences += 1
        out.nudged += "<error-detected>" in turn.context
        found = KNOWN_FIX.search(turn.context)
        text = found.group(2).strip() if found else None
        own = text is not None and same_text(text, fixes[turn.mistake])
        if text is not None and own:
            out.right += 1
        elif text is not None:
            out.wrong += 1
            owner = fix_owner(text, fixes)
            out.wrong_details.append(f"{turn.where + ': ' if turn.where else ''}{turn.mistake} was given "
                                     + (f"{owner}'s fix" if owner else f"a fix of no mistake's: {text!r}"))
        if turn.mistake in seen:
            out.repeats += 1
            if turn.mistake in known:
                out.repeats_known += 1
                if text is None:
                    out.missed_no_fix += 1
                elif not own:
                    out.missed_wrong_fix += 1
        seen.add(turn.mistake)
        if turn.logged:
            out.logged += 1
            known.add(turn.mistake)
    return out


def mixed_fixes() -> dict[str, str]:
    return {name: mistake.fix for name, mistake in mixed_trace.MISTAKES.items()}


def mixed_day(offset: int) -> date:
    return date.fromisoformat(mixed_trace.START) + timedelta(days=offset)


def mixed_env(env: dict[str, str], offset: int, minute: int) -> dict[str, str]:
    day = mixed_day(offset).isoformat()
    return {**env, "SELF_IMPROVE_NOW": f"{day}T{9 + minute // 60:02d}:{minute % 60:02d}:00Z", "SELF_IMPROVE_TODAY": day}


def play_mixed_ours(work: Path, rows: dict[str, dict], sessions: tuple[mixed_trace.Session, ...],
                    product: Path = REPO, name: str = "mixed-ours") -> tuple[list[Turn], list[str]]:
    """Our hooks (this checkout's, or ``product``'s) on the mixed trace; the turns and any problems."""
    ours = Ours(work, rows, name=name, product=product)
    ours.cli(["init"], mixed_env(ours.env, sessions[0].day, 0))
    turns: list[Turn] = []
    for index, session in enumerate(sessions):
        sid = session_id(index, "mixed")
        for number, step in enumerate(session.steps, 1):
            env = mixed_env(ours.env, session.day, 5 * number)
            output = run([str(ours.hooks / "post-bash")], bash_payload(ours.project, sid, rows[step.row]), env, ours.project)
            context = injected(output) if output.strip() else ""
            mistake = mixed_trace.MISTAKES[step.mistake]
            found = KNOWN_FIX.search(context)
            logged = False
            if "<error-detected>" in context and not (found and same_text(found.group(2), mistake.fix)):
                words = printed_log_command(context, {"<fix>": mistake.fix, "<one-line summary>": mistake.summary})
                if words is not None:  # a nudge with a Known fix may print no command: nothing to run
                    ours.cli(words[1:], env)
                    logged = ours.last_returncode == 0
                elif not found:
                    ours.result.problems.append(f"mixed session {index + 1} ({name}): a nudge without a `self-improve log` command: {context!r}")
            turns.append(Turn(step.mistake, context, logged, f"session {index + 1}"))
        ours.cli(["review", "--yes"], mixed_env(ours.env, session.day, 600))
    return turns, ours.result.problems


def play_mixed_reference(work: Path, rows: dict[str, dict], sessions: tuple[mixed_trace.Session, ...], source: str) -> list[Turn]:
    """The reference skill on the mixed trace: its detector (PostToolUse only); its agent appends an
    entry to .learnings/ERRORS.md whenever the detector fires. Nothing is ever recalled."""
    project = make_project(work / f"mixed-reference-{source}")
    env = {**base_env(work), "SOURCE": source}
    (project / ".learnings").mkdir()
    errors = project / ".learnings" / "ERRORS.md"
    errors.write_text("# Errors\n\n---\n", encoding="utf-8")
    turns: list[Turn] = []
    per_day: dict[str, int] = {}
    for index, session in enumerate(sessions):
        sid = session_id(index, "mixed")
        for step in session.steps:
            row = rows[step.row]
            text = ""
            if row["payload"].get("hook_event_name") == "PostToolUse":  # PostToolUseFailure never reaches it
                text = run(["bash", str(REFERENCE / "error-detector.sh")], bash_payload(project, sid, row), env, project)
            fired = "<error-detected>" in text
            if fired:
                day = mixed_day(session.day).strftime("%Y%m%d")
                per_day[day] = per_day.get(day, 0) + 1
                mistake = mixed_trace.MISTAKES[step.mistake]
                entry = REFERENCE_ENTRY.format(
                    id=f"ERR-{day}-{per_day[day]:03d}", name=row["command"].split()[0],
                    logged=f"{mixed_day(session.day).isoformat()}T09:00:00Z", summary=mistake.summary,
                    excerpt=row["output"][-200:], command=row["command"], fix=mistake.fix,
                )
                with errors.open("a", encoding="utf-8") as handle:
                    handle.write("\n" + entry)
            turns.append(Turn(step.mistake, text, fired, f"session {index + 1}"))
    return turns


def mixed_table(columns: list[tuple[str, MixedScore]]) -> str:
    scores = [score for _, score in columns]
    rows: list[tuple[str, list[str]]] = [
        ("mistakes' occurrences nudged", [f"{r.nudged}/{r.occurrences}" for r in scores]),
        ("wrong fixes injected (another mistake's fix; goal 0)", [str(r.wrong) for r in scores]),
        ("right fixes recalled / repeats with a known fix", [f"{r.right} / {r.repeats_known}" for r in scores]),
        ("  ... repeats with a known fix given no fix", [str(r.missed_no_fix) for r in scores]),
        ("  ... repeats with a known fix given a wrong fix", [str(r.missed_wrong_fix) for r in scores]),
        ("repeats in all (fix logged or not)", [str(r.repeats) for r in scores]),
        ("fixes logged by the agent", [str(r.logged) for r in scores]),
    ]
    widths = [max(len(name) for name, _ in rows)] + [max(8, len(head)) for head, _ in columns]
    lines = ["  ".join([" " * widths[0], *(f"{head:>{w}}" for (head, _), w in zip(columns, widths[1:], strict=True))])]
    for name, values in rows:
        lines.append("  ".join([f"{name:<{widths[0]}}", *(f"{v:>{w}}" for v, w in zip(values, widths[1:], strict=True))]))
    return "\n".join(lines)


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


MIXED_COLUMNS = {"ours": "ours", "baseline": "ours at --baseline", "reference_shipped": "reference as shipped",
                 "reference_stdin": "reference reading stdin"}


def play_mixed(work: Path, baseline: Path | None = None) -> dict:
    """The mixed trace for ours, for ``baseline`` (another checkout of ours) if given, and for the
    reference (as shipped, and reading stdin); scored, with each turn's recalled fix."""
    rows = corpus(MIXED_ROWS)
    sessions = mixed_trace.SESSIONS
    fixes = mixed_fixes()
    played: dict[str, list[Turn]] = {}
    problems: list[str] = []
    played["ours"], found = play_mixed_ours(work, rows, sessions)
    problems += found
    if baseline is not None:
        played["baseline"], found = play_mixed_ours(work, rows, sessions, product=baseline, name="mixed-baseline")
        problems += found
    played["reference_shipped"] = play_mixed_reference(work, rows, sessions, "env")
    played["reference_stdin"] = play_mixed_reference(work, rows, sessions, "stdin")
    out: dict = {"sessions": len(sessions), "days": sessions[-1].day - sessions[0].day, "mistakes": len(fixes),
                 "occurrences": sum(len(s.steps) for s in sessions), "problems": problems,
                 "baseline_path": str(baseline) if baseline is not None else None}
    for name, turns in played.items():
        out[name] = asdict(score_mixed(turns, fixes))
        out[name]["turns"] = [
            {"where": t.where, "mistake": t.mistake, "logged": t.logged,
             "known_fix": (m.group(2).strip() if (m := KNOWN_FIX.search(t.context)) else None)}
            for t in turns
        ]
    return out


def print_mixed(result: dict) -> None:
    print(f"mixed-subject trace: {result['mistakes']} mistakes, {result['occurrences']} scripted failures in "
          f"{result['sessions']} sessions over {result['days']} simulated days")
    if result["baseline_path"]:
        print(f"ours at --baseline: {result['baseline_path']}")
    print()
    columns = [(head, MixedScore(**{k: v for k, v in result[name].items() if k != "turns"}))
               for name, head in MIXED_COLUMNS.items() if name in result]
    print(mixed_table(columns))
    for head, score in columns:
        if score.wrong_details:
            print()
            print(f"{head}, wrong fixes injected:")
            for line in score.wrong_details:
                print(f"  {line}")
    if result["problems"]:
        print()
        print("problems (mixed trace):")
        shown: dict[str, int] = {}
        for problem in result["problems"]:  # a CLI's traceback: its first and last lines
            lines = problem.strip().splitlines()
            short = lines[0] if len(lines) < 3 else f"{lines[0]} ... {lines[-1]}"
            shown[short] = shown.get(short, 0) + 1
        for short, count in shown.items():
            print(f"  {short}" + (f" ({count} times)" if count > 1 else ""))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", choices=("main", "mixed", "both"), default="both",
                        help="the main trace, the mixed-subject trace, or both (default)")
    parser.add_argument("--sessions", type=int, default=len(trace.SESSIONS), help="play only the first N sessions of the main trace")
    parser.add_argument("--baseline", type=Path, help="another checkout of ours (its hooks/ and self_improve/), "
                        "played on the mixed trace beside this one, e.g. the tree before a change")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--keep", action="store_true", help="keep the temp projects (their path goes to stderr)")
    args = parser.parse_args(argv)
    if args.baseline is not None and not (args.baseline / "hooks" / "post-bash").is_file():
        parser.error(f"--baseline {args.baseline}: no hooks/post-bash there")
    sessions = trace.SESSIONS[: max(1, args.sessions)]
    work = Path(tempfile.mkdtemp(prefix="si-bench-replay-"))
    report: dict = {}
    try:
        if args.trace in ("main", "both"):
            rows = corpus()
            ours = Ours(work, rows).play(sessions)
            shipped = play_reference(work, rows, sessions, "env")
            stdin = play_reference(work, rows, sessions, "stdin")
            report.update(sessions=len(sessions), ours=asdict(ours), reference_shipped=asdict(shipped),
                          reference_stdin=asdict(stdin))
        if args.trace in ("mixed", "both"):
            report["mixed"] = play_mixed(work, args.baseline.resolve() if args.baseline else None)
    finally:
        if args.keep:
            sys.stderr.write(f"kept: {work}\n")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    if args.trace in ("main", "both"):
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
    if args.trace == "both":
        print()
        print()
    if args.trace in ("mixed", "both"):
        print_mixed(report["mixed"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
