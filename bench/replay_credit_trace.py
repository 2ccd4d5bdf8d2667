"""The credit trace bench/replay.py plays (`--trace credit`): recurring mistakes with ground truth.

A cart service (a Python app reading config/app.yaml and DATABASE_URL from .env, pytest tests, a
pnpm workspace, a git remote that teammates push to), worked on in 8 sessions over 3 weeks. Every
Bash result is a real one: bench/capture_credit.py ran each command in a scratch copy of that
project and wrote bench/data/credit_rows.jsonl, named here by id (``RESULTS``).

Two kinds of mistake, written from what coding agents do, not from what the hooks can catch:
- wrong invocations the agent repeats because it has no memory between sessions; they never pass:
  `python app.py` where only python3 exists, `pytest --filter checkout` (pytest has -k), `npm
  install` in a pnpm workspace. The fix is the corrected command itself;
- environment mistakes that recur when the environment is fresh (the dev container is rebuilt,
  the clone is new, a teammate pushed): PyYAML missing from the new venv (`pip install pyyaml`, then
  the retry), no .env so DATABASE_URL is unset (`cp .env.example .env`, then the retry), `git push`
  rejected because the remote is ahead (`git pull --rebase`, then the push).
The agent does not always make the invocation mistake: in some sessions it types `python3 app.py`
straight away, as agents do. A fresh environment can chain mistakes: `python app.py` fails, then
`python3 app.py` fails on the missing module, then on the missing .env.

The environment is modelled by conditions (``Session.broken``, cleared by the commands that fix
them, ``CLEARS``); which real row a command returns depends on the conditions still broken
(``result``). A mistake's scripted attempts are the trace's, whatever the agent later does.
"""

from __future__ import annotations

from typing import NamedTuple

START = "2025-03-03"  # day 0 (a Monday)


class Mistake(NamedTuple):
    kind: str  # "invocation" (repeated for want of memory) | "environment" (recurs when the env is fresh)
    attempt: str  # the command that makes it
    fix: tuple[str, ...]  # ground truth: the commands that fix it (an invocation's: the corrected command)
    passes: str  # the command that then passes
    logged_fix: str  # what the cooperating agent passes as --action
    summary: str  # ... and as its one-line summary
    condition: str = ""  # an environment mistake's broken condition
    looks: tuple[str, ...] = ()  # read-only commands the agent runs to find the fix on its own

    @property
    def to_run(self) -> tuple[str, ...]:
        """The commands the agent runs to fix it and retry: the fix, then the passing command
        (once: an invocation's fix is the passing command)."""
        return self.fix if self.fix[-1] == self.passes else (*self.fix, self.passes)


MISTAKES: dict[str, Mistake] = {
    "python-not-installed": Mistake(
        "invocation", "python app.py", ("python3 app.py",), "python3 app.py",
        "Only python3 is installed here: run python3 app.py, not python", "python: command not found"),
    "pytest-filter": Mistake(
        "invocation", "pytest --filter checkout", ("pytest -k checkout",), "pytest -k checkout",
        "pytest has no --filter: select tests with -k, e.g. pytest -k checkout", "pytest: unrecognized argument --filter"),
    "npm-in-pnpm": Mistake(
        "invocation", "npm install", ("pnpm install",), "pnpm install",
        "This is a pnpm workspace (workspace: deps): run pnpm install, never npm install",
        "npm install failed: EUNSUPPORTEDPROTOCOL workspace:", looks=("ls",)),
    "yaml-missing": Mistake(
        "environment", "python3 app.py", ("pip install pyyaml",), "python3 app.py",
        "pip install pyyaml in the project venv (the module is yaml, the package PyYAML)",
        "app.py failed: PyYAML is not installed", condition="no-yaml"),
    "env-missing": Mistake(
        "environment", "python3 app.py", ("cp .env.example .env",), "python3 app.py",
        "cp .env.example .env (it sets DATABASE_URL) before starting the app",
        "config.load_settings raised KeyError DATABASE_URL: no .env", condition="no-env",
        looks=("grep -n DATABASE_URL config.py", "cat .env.example")),
    "push-rejected": Mistake(
        "environment", "git push", ("git pull --rebase",), "git push",
        "git pull --rebase first, then git push again", "git push rejected: the remote had new commits",
        condition="remote-ahead", looks=("git status",)),
}

# Row ids of bench/data/credit_rows.jsonl, per command: [(conditions that must be broken, row)], the
# first match wins; a failing row names the mistake it is.
RESULTS: dict[str, tuple[tuple[frozenset[str], str, str], ...]] = {
    "python app.py": ((frozenset(), "k01", "python-not-installed"),),
    "python3 app.py": ((frozenset({"no-yaml"}), "k02", "yaml-missing"), (frozenset({"no-env"}), "k04", "env-missing"),
                       (frozenset(), "k08", "")),
    "pip install pyyaml": ((frozenset({"no-yaml"}), "k03", ""), (frozenset(), "k09", "")),
    "grep -n DATABASE_URL config.py": ((frozenset(), "k05", ""),),
    "cat .env.example": ((frozenset(), "k06", ""),),
    "cp .env.example .env": ((frozenset(), "k07", ""),),
    "pytest --filter checkout": ((frozenset(), "k10", "pytest-filter"),),
    "pytest -k checkout": ((frozenset(), "k11", ""),),
    "pytest -q": ((frozenset(), "k12", ""),),
    "npm install": ((frozenset(), "k13", "npm-in-pnpm"),),
    "ls": ((frozenset(), "k14", ""),),
    "pnpm install": ((frozenset({"no-node-modules"}), "k15", ""), (frozenset(), "k16", "")),
    "pnpm test": ((frozenset(), "k17", ""),),
    "git status": ((frozenset(), "k18", ""),),
    "git add -A": ((frozenset(), "k19", ""),),
    'git commit -m "Add with_tax to the cart"': ((frozenset(), "k20", ""),),
    "git push": ((frozenset({"remote-ahead"}), "k21", "push-rejected"), (frozenset(), "k23", "")),
    "git pull --rebase": ((frozenset({"remote-ahead"}), "k22", ""), (frozenset(), "k24", "")),
    "git log --oneline -3": ((frozenset(), "k25", ""),),
}

# What a passing command repairs in the environment.
CLEARS: dict[str, str] = {
    "pip install pyyaml": "no-yaml",
    "cp .env.example .env": "no-env",
    "pnpm install": "no-node-modules",
    "git pull --rebase": "remote-ahead",
}


def result(command: str, broken: frozenset[str] | set[str]) -> tuple[str, str]:
    """The row a command returns with these conditions broken, and the mistake it makes ("" if none)."""
    for needs, row, mistake in RESULTS[command]:
        if needs <= broken:
            return row, mistake
    raise KeyError(command)


class Step(NamedTuple):
    prompt: str
    commands: tuple[str, ...]  # what the agent means to run, in order (before any help)


class Session(NamedTuple):
    day: int
    broken: frozenset[str]  # the environment at the session's start
    steps: tuple[Step, ...]


COMMIT = ("git add -A", 'git commit -m "Add with_tax to the cart"', "git push")
FRESH = frozenset({"no-yaml", "no-node-modules"})  # the dev container was rebuilt

SESSIONS: tuple[Session, ...] = (
    Session(0, FRESH | {"no-env"}, (  # a fresh clone on day one
        Step("Get the cart app running locally", ("python app.py",)),
        Step("Install the frontend packages", ("npm install",)),
        Step("Run only the checkout tests", ("pytest --filter checkout",)),
        Step("Add with_tax to the cart and push it", ("pytest -q", *COMMIT)),
    )),
    Session(1, frozenset({"remote-ahead"}), (
        Step("Check the app still starts", ("python3 app.py",)),
        Step("Run the test suite", ("pytest -q",)),
        Step("Commit and push the tax change", COMMIT),
    )),
    Session(3, FRESH | {"remote-ahead"}, (  # container rebuilt; a teammate pushed
        Step("Start the app", ("python app.py",)),
        Step("Run the frontend tests", ("npm install", "pnpm test")),
        Step("Run the checkout tests", ("pytest --filter checkout",)),
        Step("Push the refund fix", COMMIT),
    )),
    Session(7, frozenset(), (
        Step("Run the app to check the refund route", ("python app.py",)),
        Step("Add the new ui package's dependencies", ("npm install",)),
        Step("Commit and push", COMMIT),
    )),
    Session(9, frozenset({"no-env", "remote-ahead"}), (  # someone ran git clean -fdx
        Step("Run the checkout tests", ("pytest --filter checkout",)),
        Step("Start the app", ("python3 app.py",)),
        Step("Push the discount change", COMMIT),
    )),
    Session(14, FRESH, (  # container rebuilt
        Step("Get the app running", ("python app.py",)),
        Step("Install the frontend", ("npm install", "pnpm test")),
        Step("Run only the checkout tests", ("pytest --filter checkout",)),
        Step("Commit and push", COMMIT),
    )),
    Session(17, frozenset({"remote-ahead"}), (
        Step("Start the app and look at the routes", ("python app.py",)),
        Step("Run the tests", ("pytest -q",)),
        Step("Push the route change", COMMIT),
    )),
    Session(21, FRESH | {"no-env", "remote-ahead"}, (  # a new clone on another machine
        Step("Set up and start the app", ("python app.py",)),
        Step("Install the frontend packages", ("npm install",)),
        Step("Run the checkout tests", ("pytest --filter checkout",)),
        Step("Commit and push the release", COMMIT),
    )),
)
