"""Replay a multi-session trace through our hooks and through the reference skill's hooks.

    .venv/bin/python bench/replay.py [--trace main|mixed|credit|both|all] [--sessions N] [--credit-sessions N] [--json]

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

The credit trace (bench/replay_credit_trace.py, `--trace credit`; scoring in
bench/replay_credit_score.py): 6 recurring mistakes (3 wrong invocations, 3 environment mistakes)
with ground-truth fix commands, 8 sessions over 21 days, every result captured by
bench/capture_credit.py. Played by two simulated agents, each on a project (and a home) of its own,
with our hooks: PreToolUse (hooks/pre-bash, if the checkout has it) and PostToolUse /
PostToolUseFailure around every Bash call, SessionStart and UserPromptSubmit as Claude Code runs them.
- both follow the managed rules Claude Code loads (CLAUDE.md's block, `.claude/rules/self-improve.md`) as they stand when a session starts, and the
  `<known-mistakes>` list of the session's first prompt: a rule or a listed fix naming a mistake's
  fix makes the agent type the corrected command (an invocation) or run the fix first (an
  environment mistake, once a session, needed or not), so the mistake is not made;
- both follow an injected fix (pre-bash's or post-bash's `Known fix`). The pre-bash block cannot
  stop the command it was injected for (it never denies, and Claude Code shows it with the
  command's result): that command still runs and fails, and the agent acts on the fix after it. A fix that is another mistake's is followed too (its
  commands, then the retry, which fails again); then, or when no fix was given, the agent finds
  the fix itself: the mistake's read-only looks, its fix commands, the retry, which passes;
- the cooperating agent also runs the `self-improve log …` line a nudge printed (through the Bash
  tool, so the hooks see that call too), with the mistake's fix, unless the nudge gave its fix;
  the non-cooperating one never calls `self-improve`.
`review --yes` runs between sessions for both (the human's step). The reference skill (reading
stdin) is played by the non-cooperating agent's behaviour; nothing of it is ever recalled.
Figures: see bench/replay_credit_score.py; goals are printed next to them, met or not.

The non-cooperating agent is not played on the main and mixed traces (``NOT_PLAYED`` says why):
their recorded results hold no fix commands and no passing retry of the same command.
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

import replay_credit_score as credit_score  # noqa: E402 - after the sys.path line above
import replay_credit_trace as credit_trace  # noqa: E402
import replay_mixed_trace as mixed_trace  # noqa: E402
import replay_trace as trace  # noqa: E402
from replay_credit_score import same_text  # noqa: E402

HOOKS = REPO / "hooks"
REFERENCE = REPO / "bench" / "reference"
FIXTURES = REPO / "tests" / "fixtures" / "claude"
CORPUS = REPO / "tests" / "data" / "corpus" / "public.jsonl"  # a copy of shared/corpus
MIXED_ROWS = REPO / "bench" / "data" / "mixed_subjects.jsonl"  # written by bench/capture_mixed.py
BLOCK = re.compile(r"(\r?\n)?<!-- self-improve:begin.*?<!-- self-improve:end -->(\r?\n)?", re.DOTALL)
KNOWN_FIX = re.compile(r"^Known fix \(from (\S+)[^)]*\): (.*)$", re.MULTILINE)
LISTED_FIX = re.compile(r"^- [^\n]*?: Known fix \(from \S+[^)]*\): (.*)$", re.MULTILINE)  # a <known-mistakes> line
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
    """sha256 of every file except .learnings/**; the rules files (CLAUDE.md, AGENTS.md and our
    own .claude/rules/self-improve*.md) without our managed block."""
    out: dict[str, str] = {}
    ours: list[str] = []
    for path in sorted(project.rglob("*")):
        rel = path.relative_to(project).as_posix()
        if rel == ".learnings" or rel.startswith(".learnings/") or path.is_dir():
            continue
        data = path.read_bytes()
        if rel in ("CLAUDE.md", "AGENTS.md") or rel.startswith(".claude/rules/self-improve"):
            ours.append(rel)
            data = BLOCK.sub("", data.decode("utf-8", "surrogateescape"), count=1).encode("utf-8", "surrogateescape")
        out[rel] = hashlib.sha256(data).hexdigest()
    for name in ours:  # a file we created holding only our block counts as absent
        if out.get(name) == hashlib.sha256(b"").hexdigest():
            del out[name]
    return out


def claude_rule_files(project: Path, scoped: bool) -> list[Path]:
    """CLAUDE.md and our rules files that exist: ``.claude/rules/self-improve.md``, and with
    ``scoped`` the path-scoped ``self-improve-*.md`` (loaded only once a matching file is read)."""
    rules = project / ".claude" / "rules"
    found = [project / "CLAUDE.md", rules / "self-improve.md"]
    if scoped and rules.is_dir():
        found += sorted(rules.glob("self-improve-*.md"))
    return [path for path in found if path.is_file()]


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
    revise: list[str] | None = None  # ids review --json proposed for revision; None: it has no `revise` list
    working_retired: int = 0  # retired rules other than the one meant to go stale (goal 0)
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
        if "revise" in plan:
            self.result.revise = sorted({*(self.result.revise or []), *(item["id"] for item in plan["revise"])})
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
                self.result.working_retired += not meant
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
        for path in [*claude_rule_files(self.project, scoped=True), self.project / "AGENTS.md"]:
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


# ---- the credit trace: two simulated agents -------------------------------------------------------


CREDIT_ROWS = REPO / "bench" / "data" / "credit_rows.jsonl"  # written by bench/capture_credit.py
PRE_BASH_ABSENT = "n/a"  # how the report shows a figure the checkout cannot give yet


def credit_day(offset: int) -> date:
    return date.fromisoformat(credit_trace.START) + timedelta(days=offset)


def credit_env(env: dict[str, str], offset: int, minute: int) -> dict[str, str]:
    day = credit_day(offset).isoformat()
    return {**env, "SELF_IMPROVE_NOW": f"{day}T{9 + minute // 60:02d}:{minute % 60:02d}:00Z", "SELF_IMPROVE_TODAY": day}


def pre_tool_payload(project: Path, session: str, command: str, tool_use_id: str) -> bytes:
    """What Claude Code pipes to a PreToolUse hook on Bash (the fields of its PostToolUse payload
    before the result exists)."""
    return json.dumps({
        "session_id": session, "transcript_path": f"{project}/.claude-transcripts/{session}.jsonl",
        "cwd": str(project), "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command, "description": "run"}, "tool_use_id": tool_use_id,
    }).encode()


def post_tool_payload(project: Path, session: str, row: dict, tool_use_id: str) -> bytes:
    data = dict(row["payload"], cwd=str(project), session_id=session, tool_use_id=tool_use_id,
                transcript_path=f"{project}/.claude-transcripts/{session}.jsonl")
    return json.dumps(data).encode()


def passing_payload(command: str, output: str) -> dict:
    """A PostToolUse payload for a command the bench ran for real (the agent's `self-improve log`)."""
    return {"payload": {"hook_event_name": "PostToolUse", "tool_name": "Bash", "permission_mode": "default",
                        "tool_input": {"command": command, "description": "run"},
                        "tool_response": {"stdout": output.rstrip("\n"), "stderr": "", "interrupted": False,
                                          "isImage": False, "noOutputExpected": False}}}


def known_fix_text(context: str) -> str | None:
    found = KNOWN_FIX.search(context)
    return found.group(2).strip() if found else None


@dataclass
class CreditRun:
    """One agent's play of the credit trace (the figures are scored from ``occurrences``)."""

    agent: str
    occurrences: list[credit_score.Occurrence] = field(default_factory=list)
    promoted: int = 0
    revise: list[str] | None = None  # ids review --json proposed for revision; None: no `revise` list
    retired: list[str] = field(default_factory=list)
    working_retired: list[str] = field(default_factory=list)
    archived: int = 0
    needless_fix_runs: int = 0  # fix commands a rule made the agent run when nothing was broken
    tokens: dict[str, float] = field(default_factory=lambda: {"session-start": 0.0, "prompt": 0.0, "pre-bash": 0.0,
                                                               "post-bash": 0.0})
    pre_bash_notes: int = 0  # pre-bash blocks injected
    pre_bash_on_passing: int = 0  # ... before a command that then passed
    pre_bash: bool = True  # the checkout has hooks/pre-bash
    events: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    files_touched: list[str] = field(default_factory=list)


class CreditHooks:
    """Our hooks on a project of their own: what each hook injects, the CLI, CLAUDE.md's rules."""

    reference = False

    def __init__(self, work: Path, name: str, product: Path = REPO) -> None:
        self.project = work / name
        self.project.mkdir(parents=True)
        # A home of its own: a shared one would let the user-level store carry one agent's
        # lessons into the other's project.
        self.env = base_env(work / f"{name}.user")
        self.hooks = product / "hooks"
        if product != REPO:
            self.env.update(PYTHONPATH=str(product), SELF_IMPROVE_PYTHON=interpreter())
        self.has_pre_bash = (self.hooks / "pre-bash").is_file()

    def hook(self, name: str, stdin: bytes, env: dict[str, str]) -> str:
        if not (self.hooks / name).is_file():
            return ""
        output = run([str(self.hooks / name)], stdin, env, self.project)
        return injected(output) if output.strip() else ""

    def cli(self, args: list[str], env: dict[str, str]) -> tuple[int, str, str]:
        done = subprocess.run([interpreter(), "-m", "self_improve", *args], check=False, capture_output=True, env=env,
                              cwd=self.project, timeout=60)
        return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")

    def rules(self) -> dict[str, str]:
        """The managed rules in what Claude Code loads at a session's start: CLAUDE.md and our
        unscoped rules file (``.claude/rules/self-improve.md``, the default target)."""
        rules: dict[str, str] = {}
        for path in claude_rule_files(self.project, scoped=False):
            found = BLOCK.search(path.read_text(encoding="utf-8"))
            if found:
                rules.update(credit_score.managed_rules(found.group(0)))
        return rules


class ReferenceHooks(CreditHooks):
    """The reference skill reading stdin (its shipped $CLAUDE_TOOL_OUTPUT is never set: it would see
    nothing at all): the activator on every prompt, the detector on PostToolUse only; its agent
    appends an entry to .learnings/ERRORS.md whenever the detector fires. Nothing is recalled."""

    reference = True

    def __init__(self, work: Path, name: str) -> None:
        super().__init__(work, name)
        self.env["SOURCE"] = "stdin"
        self.has_pre_bash = False
        (self.project / ".learnings").mkdir()
        self.errors = self.project / ".learnings" / "ERRORS.md"
        self.errors.write_text("# Errors\n\n---\n", encoding="utf-8")
        self.per_day: dict[str, int] = {}

    def hook(self, name: str, stdin: bytes, env: dict[str, str]) -> str:
        if name == "prompt-submit":
            return run(["bash", str(REFERENCE / "activator.sh")], stdin, env, self.project)
        if name != "post-bash" or json.loads(stdin).get("hook_event_name") != "PostToolUse":
            return ""  # no session-start or pre-bash hook; PostToolUseFailure never reaches the detector
        return run(["bash", str(REFERENCE / "error-detector.sh")], stdin, env, self.project)

    def rules(self) -> dict[str, str]:
        return {}


class CreditAgent:
    """A simulated agent on the credit trace (the module doc of bench/replay.py says what it does)."""

    def __init__(self, hooks: CreditHooks, rows: dict[str, dict], cooperating: bool, agent: str) -> None:
        self.hooks = hooks
        self.rows = rows
        self.cooperating = cooperating
        self.out = CreditRun(agent=agent, pre_bash=hooks.has_pre_bash)
        self.calls = 0
        self.minute = 0
        self.broken: set[str] = set()
        self.rules: dict[str, str] = {}
        self.ruled: set[str] = set()  # environment mistakes whose rule the agent applied this session
        self.notes: list[str] = []  # this session's <known-mistakes> fixes
        self.session = (0, "", 0)  # (index, session id, day)

    # ---- one Bash call, as the harness runs it: PreToolUse, the command, PostToolUse ----

    def env(self) -> dict[str, str]:
        self.minute += 1
        return credit_env(self.hooks.env, self.session[2], self.minute)

    def tokens(self, source: str, context: str) -> None:
        self.out.tokens[source] += len(context) / 4

    def bash(self, command: str, row: dict | None = None) -> tuple[str, str, str]:
        """Run ``command`` through the hooks: (pre-bash context, post-bash context, mistake made or "")."""
        self.calls += 1
        tool_use_id = f"toolu_credit_{self.calls:04d}"
        _, sid, _ = self.session
        pre = self.hooks.hook("pre-bash", pre_tool_payload(self.hooks.project, sid, command, tool_use_id), self.env())
        self.tokens("pre-bash", pre)
        mistake = ""
        if row is None:
            row_id, mistake = credit_trace.result(command, self.broken)
            row = self.rows[row_id]
            if not mistake and command in credit_trace.CLEARS:
                self.broken.discard(credit_trace.CLEARS[command])
        if "<known-fix>" in pre:
            self.out.pre_bash_notes += 1
            self.out.pre_bash_on_passing += not mistake
        post = self.hooks.hook("post-bash", post_tool_payload(self.hooks.project, sid, row, tool_use_id), self.env())
        self.tokens("post-bash", post)
        if self.hooks.reference and "<error-detected>" in post:
            self.reference_logs(command, row)
        return pre, post, mistake

    def reference_logs(self, command: str, row: dict) -> None:
        hooks = self.hooks
        assert isinstance(hooks, ReferenceHooks)
        day = credit_day(self.session[2]).strftime("%Y%m%d")
        hooks.per_day[day] = hooks.per_day.get(day, 0) + 1
        entry = REFERENCE_ENTRY.format(
            id=f"ERR-{day}-{hooks.per_day[day]:03d}", name=command.split()[0], logged=f"{credit_day(self.session[2])}T09:00:00Z",
            summary="Command output mentioned an error", excerpt=row["output"][-200:], command=command, fix="None needed")
        with hooks.errors.open("a", encoding="utf-8") as handle:
            handle.write("\n" + entry)

    # ---- the agent ----

    def play(self, sessions: tuple[credit_trace.Session, ...]) -> CreditRun:
        before = snapshot(self.hooks.project)
        if not self.hooks.reference:
            self.cli(["init"], credit_env(self.hooks.env, sessions[0].day, 0))
        for index, session in enumerate(sessions):
            self.session = (index, session_id(index, "credit"), session.day)
            self.minute = 0
            self.broken = set(session.broken)
            self.ruled = set()
            self.rules = self.hooks.rules()  # CLAUDE.md as the session starts
            self.notes = []  # the Known fix texts of the first prompt's <known-mistakes> list
            self.tokens("session-start", self.hooks.hook("session-start", json.dumps({
                "session_id": self.session[1], "cwd": str(self.hooks.project), "hook_event_name": "SessionStart",
                "source": "startup", "transcript_path": f"{self.hooks.project}/.claude-transcripts/{self.session[1]}.jsonl",
            }).encode(), self.env()))
            for step in session.steps:
                said = self.hooks.hook("prompt-submit", prompt_payload(self.hooks.project, self.session[1], step.prompt), self.env())
                self.tokens("prompt", said)
                if "<known-mistakes>" in said:  # the agent reads it before it runs anything
                    self.notes += [found.group(1).strip() for found in LISTED_FIX.finditer(said)]
                for command in step.commands:
                    chain: list[str] = []
                    self.attempt(self.follow_rules(command), chain)
            if not self.hooks.reference:
                self.review(index, session)
        self.out.files_touched = touched(before, snapshot(self.hooks.project))
        return self.out

    def follow_rules(self, command: str) -> str:
        """What the agent runs instead of ``command`` under CLAUDE.md's rules: a rule naming an
        invocation mistake's fix makes it type the corrected command; one naming an environment
        mistake's fix makes it run the fix first (once a session, needed or not)."""
        where = f"session {self.session[0] + 1}"
        changed = True
        while changed:
            changed = False
            for name, mistake in credit_trace.MISTAKES.items():
                by_rule = any(credit_score.names_fix(r, mistake) for r in self.rules.values())
                if mistake.attempt != command or not (by_rule or any(credit_score.names_fix(n, mistake) for n in self.notes)):
                    continue
                by = "rule" if by_rule else "prompt"
                if mistake.kind == "invocation":
                    self.out.occurrences.append(credit_score.Occurrence(name, where, prevented=True, prevented_by=by))
                    command, changed = mistake.passes, True
                    break
                if name in self.ruled:
                    continue
                self.ruled.add(name)
                needed = mistake.condition in self.broken
                for fix in mistake.fix:
                    self.bash(fix)
                if needed:
                    self.out.occurrences.append(credit_score.Occurrence(name, where, prevented=True, prevented_by=by))
                else:
                    self.out.needless_fix_runs += len(mistake.fix)
        return command

    def attempt(self, command: str, chain: list[str]) -> None:
        """Run ``command``; on a mistake, get it fixed (the given fix, else its own) and retry."""
        pre, post, name = self.bash(command)
        if not name:
            return
        mistake = credit_trace.MISTAKES[name]
        occ = credit_score.Occurrence(name, f"session {self.session[0] + 1}", before=known_fix_text(pre),
                                      after=known_fix_text(post), exempt=tuple(chain))
        self.out.occurrences.append(occ)
        given = [text for text in (occ.after, occ.before) if text is not None]
        right = any(credit_score.names_fix(text, mistake) for text in given)
        if not right and given:  # it follows the fix it was given: another mistake's, or nobody's
            other = next((o for text in given for o in credit_score.owners(text, credit_trace.MISTAKES) if o != name), None)
            if other is not None:
                for fix in credit_trace.MISTAKES[other].fix:
                    if fix != command:
                        self.bash(fix)
                _, _, again = self.bash(command)
                occ.failed_again = again == name
                if not again:
                    return
        if not right:  # it finds the fix itself
            for look in mistake.looks:
                self.bash(look)
        for fix in mistake.to_run[:-1]:
            self.bash(fix)
        self.attempt(self.follow_rules(mistake.to_run[-1]), [*chain, name])
        if self.cooperating and not right and "<error-detected>" in post:
            occ.logged = self.log(post, mistake)

    def log(self, nudge: str, mistake: credit_trace.Mistake) -> bool:
        """Run the `self-improve log …` line the nudge printed, through the Bash tool (so the hooks see it)."""
        words = printed_log_command(nudge, {"<fix>": mistake.logged_fix, "<one-line summary>": mistake.summary})
        if words is None:
            if known_fix_text(nudge) is None:
                self.out.problems.append(f"session {self.session[0] + 1}: a nudge without a `self-improve log` command: {nudge!r}")
            return False
        command = shlex.join(["self-improve", *words[1:]])
        _, sid, _ = self.session
        self.calls += 1
        tool_use_id = f"toolu_credit_{self.calls:04d}"
        self.tokens("pre-bash", self.hooks.hook("pre-bash", pre_tool_payload(self.hooks.project, sid, command, tool_use_id), self.env()))
        code, stdout, stderr = self.hooks.cli(words[1:], self.env())
        if code != 0:  # the Bash tool would show the agent a failure; what matters here is the log
            self.out.problems.append(f"`{command[:60]}…` exited {code}: {stderr.strip()}")
        row = passing_payload(command, stdout)
        self.tokens("post-bash", self.hooks.hook("post-bash", post_tool_payload(self.hooks.project, sid, row, tool_use_id), self.env()))
        return code == 0

    def cli(self, args: list[str], env: dict[str, str]) -> str:
        code, stdout, stderr = self.hooks.cli(args, env)
        if code != 0:
            self.out.problems.append(f"`self-improve {' '.join(args[:3])}` exited {code}: {stderr.strip()}")
        return stdout

    def review(self, index: int, session: credit_trace.Session) -> None:
        """The human's step between sessions: `review --yes` (and --json, for the revise list)."""
        env = credit_env(self.hooks.env, session.day, 600)
        plan = json.loads(self.cli(["review", "--json"], env) or "{}")
        if "revise" in plan:
            self.out.revise = sorted({*(self.out.revise or []), *(item["id"] for item in plan["revise"])})
        rules = self.hooks.rules()
        where = f"review after session {index + 1} (day {session.day})"
        for line in self.cli(["review", "--yes"], env).splitlines():
            verb, _, rest = line.partition(" ")
            entry_id = rest.split(" ", 1)[0]
            if verb == "promoted":
                self.out.promoted += 1
                self.out.events.append(f"{where}: promoted {entry_id}: {self.hooks.rules().get(entry_id, '?')!r}")
            elif verb == "retired":
                self.out.retired.append(entry_id)
                working = credit_score.working_rules_retired([entry_id], rules, credit_trace.MISTAKES)
                self.out.working_retired += working
                self.out.events.append(f"{where}: retired {entry_id}: {rules.get(entry_id, '?')!r}"
                                       + (" (a WORKING rule)" if working else ""))
            elif verb == "archived":
                self.out.archived += 1
        for entry_id in (self.out.revise or []):
            marker = f"{where}: proposed for revision: {entry_id}"
            if entry_id in {item["id"] for item in plan.get("revise", [])} and marker not in self.out.events:
                self.out.events.append(marker)


CREDIT_COLUMNS = {"cooperating": "cooperating", "non_cooperating": "non-cooperating", "reference": "reference (stdin)"}


def play_credit(work: Path, sessions: tuple[credit_trace.Session, ...] | None = None) -> dict:
    """The credit trace for the two agents on our hooks and for the reference; scored."""
    rows = corpus(CREDIT_ROWS)
    sessions = sessions or credit_trace.SESSIONS
    runs = {
        "cooperating": CreditAgent(CreditHooks(work, "credit-cooperating"), rows, True, "cooperating").play(sessions),
        "non_cooperating": CreditAgent(CreditHooks(work, "credit-non-cooperating"), rows, False, "non-cooperating").play(sessions),
        "reference": CreditAgent(ReferenceHooks(work, "credit-reference"), rows, False, "reference").play(sessions),
    }
    out: dict = {"sessions": len(sessions), "days": sessions[-1].day - sessions[0].day, "mistakes": len(credit_trace.MISTAKES)}
    for name, played in runs.items():
        score = credit_score.score_credit(played.occurrences, credit_trace.MISTAKES)
        figures = asdict(played)
        figures["occurrences"] = [asdict(o) for o in played.occurrences]
        figures["score"] = {**asdict(score), "before": score.before, "right": score.right}
        figures["goals"] = ([] if name == "reference" else
                            [{"goal": g, "figure": f, "met": m} for g, f, m in credit_score.goals(score, name == "cooperating")])
        figures["tokens_total"] = sum(played.tokens.values())
        out[name] = figures
    return out


def credit_table(result: dict) -> str:
    def na(run: dict, value: str, pre_bash: bool = False, revise: bool = False) -> str:
        if run["agent"] == "reference":
            return value
        if pre_bash and not run["pre_bash"]:
            return PRE_BASH_ABSENT
        if revise and run["revise"] is None:
            return PRE_BASH_ABSENT
        return value

    columns = [result[name] for name in CREDIT_COLUMNS]
    rows: list[tuple[str, list[str]]] = [
        ("scripted attempts at a mistake", [str(r["score"]["attempts"]) for r in columns]),
        ("repeats of a known mistake", [str(r["score"]["repeats"]) for r in columns]),
        ("  ... right fix before the command: a rule it loads", [str(r["score"]["before_rule"]) for r in columns]),
        ("  ... right fix before the command: first prompt's list", [str(r["score"]["before_prompt"]) for r in columns]),
        ("  ... right fix with the command: pre-bash (shown with the result)",
         [na(r, str(r["score"]["with_command_pre_bash"]), pre_bash=True) for r in columns]),
        ("  ... right fix just in time (post-bash)", [str(r["score"]["just_in_time"]) for r in columns]),
        ("  ... right fix in all", [f"{r['score']['right']}/{r['score']['repeats']}" for r in columns]),
        ("  ... given no fix / only a wrong one", [f"{r['score']['missed_no_fix']} / {r['score']['missed_wrong_fix']}" for r in columns]),
        ("wrong fixes (another mistake's; goal 0)", [str(r["score"]["wrong_fixes"]) for r in columns]),
        ("recalled texts that are no mistake's fix", [str(r["score"]["unrelated_fixes"]) for r in columns]),
        ("failing commands run", [str(r["score"]["failures_run"]) for r in columns]),
        ("fixes logged by the agent", [str(r["score"]["logged"]) for r in columns]),
        ("rules promoted", [str(r["promoted"]) for r in columns]),
        ("rules proposed for revision", [na(r, str(len(r["revise"] or [])), revise=True) for r in columns]),
        ("working rules wrongly retired (goal 0)", [str(len(r["working_retired"])) for r in columns]),
        ("fix commands a rule ran needlessly", [str(r["needless_fix_runs"]) for r in columns]),
        ("pre-bash blocks (on a command that then passed)",
         [na(r, f"{r['pre_bash_notes']} ({r['pre_bash_on_passing']})", pre_bash=True) for r in columns]),
        ("tokens injected: session start + prompts", [f"{r['tokens']['session-start'] + r['tokens']['prompt']:.0f}" for r in columns]),
        ("tokens injected: pre-bash", [na(r, f"{r['tokens']['pre-bash']:.0f}", pre_bash=True) for r in columns]),
        ("tokens injected: post-bash", [f"{r['tokens']['post-bash']:.0f}" for r in columns]),
        ("tokens injected: total (chars/4)", [f"{r['tokens_total']:.0f}" for r in columns]),
        ("files touched outside .learnings/ + our block", [str(len(r["files_touched"])) for r in columns]),
    ]
    heads = list(CREDIT_COLUMNS.values())
    widths = [max(len(name) for name, _ in rows)] + [max(10, len(h)) for h in heads]
    lines = ["  ".join([" " * widths[0], *(f"{h:>{w}}" for h, w in zip(heads, widths[1:], strict=True))])]
    for name, values in rows:
        lines.append("  ".join([f"{name:<{widths[0]}}", *(f"{v:>{w}}" for v, w in zip(values, widths[1:], strict=True))]))
    return "\n".join(lines)


def print_credit(result: dict) -> None:
    print(f"credit trace: {result['mistakes']} mistakes, {result['sessions']} sessions over {result['days']} simulated days "
          "(every Bash result a real capture: bench/capture_credit.py)")
    if not result["cooperating"]["pre_bash"]:
        print("hooks/pre-bash is absent from this checkout: its figures are n/a")
    print()
    print(credit_table(result))
    print()
    print("goals (printed, never tuned to):")
    for name in ("non_cooperating", "cooperating"):
        for goal, figure, met in (tuple(g.values()) for g in result[name]["goals"]):
            print(f"  {CREDIT_COLUMNS[name]:<16} {goal:<42} {figure:<14} {'met' if met else 'MISSED'}")
    for name, head in CREDIT_COLUMNS.items():
        run = result[name]
        details = run["score"]["wrong_details"]
        if run["events"] or details or run["problems"]:
            print()
            print(f"{head}:")
            for line in [*run["events"], *(f"wrong fix: {d}" for d in details), *(f"problem: {p}" for p in run["problems"])]:
                print(f"  {line}")


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
        ("working rules wrongly retired (goal 0)", [str(r.working_retired) for r in columns]),
        ("rules proposed for revision", [str(len(r.revise)) if r.revise is not None else "n/a" for r in columns]),
        ("entries archived", [str(r.archived) for r in columns]),
        ("tokens injected: prompt hook (reminders)", [f"{r.reminder_tokens:.0f}" for r in columns]),
        ("tokens injected: error blocks / known fixes", [f"{r.error_tokens:.0f}" for r in columns]),
        ("tokens injected: total (chars/4)", [f"{r.tokens:.0f}" for r in columns]),
        ("tokens of managed rules at the end", [f"{r.managed_block_tokens:.0f}" for r in columns]),
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


# Why the non-cooperating agent is not played on the older traces (printed, and in --json).
NOT_PLAYED = {
    "main": ("not played: the corpus holds no captured fix commands for its failures, and the passing "
             "results a retry gives (PASS_AFTER_FIX) are other commands, so no fix could be observed honestly"),
    "mixed": ("not played: the trace is failures only (no captured fix commands or passing retries), and most "
              "of its fixes are code edits or need the network (pip/pnpm/cargo installs), which this machine cannot capture"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", choices=("main", "mixed", "credit", "both", "all"), default="all",
                        help="one trace; both = main and mixed; all (default) = main, mixed and credit")
    parser.add_argument("--sessions", type=int, default=len(trace.SESSIONS), help="play only the first N sessions of the main trace")
    parser.add_argument("--credit-sessions", type=int, default=len(credit_trace.SESSIONS),
                        help="play only the first N sessions of the credit trace")
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
        if args.trace in ("main", "both", "all"):
            rows = corpus()
            ours = Ours(work, rows).play(sessions)
            shipped = play_reference(work, rows, sessions, "env")
            stdin = play_reference(work, rows, sessions, "stdin")
            report.update(sessions=len(sessions), ours=asdict(ours), reference_shipped=asdict(shipped),
                          reference_stdin=asdict(stdin), non_cooperating=NOT_PLAYED["main"])
        if args.trace in ("mixed", "both", "all"):
            report["mixed"] = play_mixed(work, args.baseline.resolve() if args.baseline else None)
            report["mixed"]["non_cooperating"] = NOT_PLAYED["mixed"]
        if args.trace in ("credit", "all"):
            report["credit"] = play_credit(work, credit_trace.SESSIONS[: max(1, args.credit_sessions)])
    finally:
        if args.keep:
            sys.stderr.write(f"kept: {work}\n")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return 0
    if args.trace in ("main", "both", "all"):
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
        print()
        print(f"ours is the cooperating agent here; the non-cooperating agent: {NOT_PLAYED['main']}")
    if args.trace in ("both", "all"):
        print()
        print()
    if args.trace in ("mixed", "both", "all"):
        print_mixed(report["mixed"])
        print()
        print(f"ours is the cooperating agent here; the non-cooperating agent: {NOT_PLAYED['mixed']}")
    if args.trace == "all":
        print()
        print()
    if args.trace in ("credit", "all"):
        print_credit(report["credit"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
