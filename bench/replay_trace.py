"""The scripted trace bench/replay.py plays: 12 sessions over 220 simulated days, 10 prompts each.

Every Bash result is a real one from the labelled corpus (tests/data/corpus/public.jsonl), named by
its id; a step without a command of its own runs the next passing result of the corpus, in corpus
order (real passing output, some of it full of words such as "error" or "failed").

What the trace contains, by design:
- recurring errors across sessions and days: a missing module (python, node, perl), failing tests
  (pytest, npm test, a `|| true` run that exits 0), `cd build` into a missing folder;
- retries: a failing command run again at once in the same step. Without help the retry fails the
  same way (that is the script); when a `Known fix` was injected for the first failure, the agent
  applies it and the retry passes instead (``PASS_AFTER_FIX``);
- a rule that goes stale: `git push` rejected in sessions 1-3 (days 0-5, the team then dropped the
  protected-branch workflow), never seen again;
- user corrections: the same one three times in near-identical words (pnpm, not npm), and the same
  complaint three times in different words (lint before committing);
- one-off and sporadic errors (docker daemon down twice, 81 days apart; a merge conflict).
"""

from __future__ import annotations

from typing import NamedTuple

START = "2025-03-03"  # day 0 (a Monday); every date in the run is START + day


class Step(NamedTuple):
    prompt: str
    commands: tuple[str, ...] = ()  # corpus ids, run in order; () = the next passing result
    rule: str = ""  # on a correction: the rule the agent records (its fixed --action)


class Session(NamedTuple):
    day: int
    steps: tuple[Step, ...]


PNPM = "Use pnpm (pnpm install, pnpm run), never npm: this repo is a pnpm workspace."
LINT = "Run `ruff check .` before every commit."

SESSIONS: tuple[Session, ...] = (
    Session(0, (
        Step("Generate this month's sales report"),
        Step("Run the report script", ("c001", "c001")),
        Step("Add a CSV export to the sales report"),
        Step("Run the tests"),
        Step("Check the logs for errors from last night"),
        Step("Commit the CSV export"),
        Step("Push the branch", ("c052",)),
        Step("Show me the git status"),
        Step("Update the README with the new flags"),
        Step("Summarise what changed today"),
    )),
    Session(2, (
        Step("Start the API server", ("c040",)),
        Step("Install the frontend dependencies with npm"),
        Step("No, that's wrong — use pnpm, not npm.", rule=PNPM),
        Step("Run the test suite", ("c095",)),
        Step("Refactor the parser into its own module"),
        Step("Run the build and tell me what breaks"),
        Step("Push the refactor", ("c052",)),
        Step("Look at the route table"),
        Step("Bump the version"),
        Step("Summarise the session"),
    )),
    Session(5, (
        Step("Push yesterday's fix", ("c052",)),
        Step("Regenerate the sales report", ("c001", "c001")),
        Step("Build the C extension", ("c057",)),
        Step("Add a --month flag to the report"),
        Step("Run the linters"),
        Step("Check the logs for errors"),
        Step("Write a changelog entry"),
        Step("Show the diff"),
        Step("Run the self test"),
        Step("Summarise the session"),
    )),
    Session(9, (
        Step("Install the dependencies"),
        Step("No, that's wrong: use pnpm, not npm", rule=PNPM),
        Step("Run the JavaScript tests", ("c041", "c041")),
        Step("Commit the cart fix"),
        Step("You forgot to run the linter before committing again.", rule=LINT),
        Step("Run the legacy Perl report", ("c078",)),
        Step("Fix the date parsing in the report"),
        Step("Check the build output"),
        Step("Tag the release candidate"),
        Step("Summarise the session"),
    )),
    Session(14, (
        Step("Add the dependency for the date picker"),
        Step("no, that's wrong, use pnpm not npm!", rule=PNPM),
        Step("Run the tests and show me the failures", ("c014",)),
        Step("Build the C extension again", ("c057",)),
        Step("Start the local containers", ("c074",)),
        Step("Update the API docs"),
        Step("Check the logs"),
        Step("Run the self test"),
        Step("Commit the docs"),
        Step("Summarise the session"),
    )),
    Session(21, (
        Step("Run the report for February", ("c001", "c001")),
        Step("Build the C extension", ("c057", "c057")),
        Step("Commit the report changes"),
        Step("I told you to run ruff before every commit.", rule=LINT),
        Step("Rename the config module"),
        Step("Run the tests"),
        Step("Merge the retry branch", ("c050",)),
        Step("Show the diff"),
        Step("Bump the version"),
        Step("Summarise the session"),
    )),
    Session(35, (
        Step("Run the test suite", ("c095", "c095")),
        Step("Fix the failing order test"),
        Step("Commit the fix"),
        Step("Stop committing without linting first; run ruff check.", rule=LINT),
        Step("Update the README"),
        Step("Check the logs for warnings"),
        Step("Run the build"),
        Step("Look at the route table"),
        Step("Write the release notes"),
        Step("Summarise the session"),
    )),
    Session(60, (
        Step("Build the C extension", ("c057", "c057")),
        Step("Start the API server", ("c040",)),
        Step("Add request logging"),
        Step("Run the tests"),
        Step("Check the logs"),
        Step("Commit the logging change"),
        Step("Show the git status"),
        Step("Run the self test"),
        Step("Update the changelog"),
        Step("Summarise the session"),
    )),
    Session(95, (
        Step("Regenerate the quarterly report", ("c001", "c001")),
        Step("Start the local containers", ("c074",)),
        Step("Add a chart to the report"),
        Step("Run the tests"),
        Step("Check the logs"),
        Step("Commit the chart"),
        Step("Show the diff"),
        Step("Run the build"),
        Step("Bump the version"),
        Step("Summarise the session"),
    )),
    Session(130, (
        Step("Run the JavaScript tests", ("c041", "c041")),
        Step("Build the C extension", ("c057",)),
        Step("Fix the quantity bug in the cart"),
        Step("Run the linters"),
        Step("Check the logs"),
        Step("Commit the cart fix"),
        Step("Show the git status"),
        Step("Run the self test"),
        Step("Update the docs"),
        Step("Summarise the session"),
    )),
    Session(190, (
        Step("Run the legacy Perl report", ("c078",)),
        Step("Run the test suite", ("c095",)),
        Step("Port the Perl report to Python"),
        Step("Run the build"),
        Step("Check the logs"),
        Step("Commit the port"),
        Step("Show the diff"),
        Step("Run the self test"),
        Step("Write the release notes"),
        Step("Summarise the session"),
    )),
    Session(220, (
        Step("Run the year-end report", ("c001", "c001")),
        Step("Build the C extension", ("c057",)),
        Step("Add the year-end summary table"),
        Step("Run the tests"),
        Step("Check the logs"),
        Step("Commit the summary table"),
        Step("Show the git status"),
        Step("Run the build"),
        Step("Tag the release"),
        Step("Summarise the session"),
    )),
)

# The simulated agent's fixed fix and summary per Pattern-Key (what it passes to `log error`).
FIXES: dict[str, tuple[str, str]] = {
    "deps.module-not-found": (
        "Install the project's dependencies first (pip install -r requirements.txt; pnpm install)",
        "Script failed: a dependency was not installed",
    ),
    "test.failures": (
        "Run the one failing test with -x and read its assertion before changing code",
        "Test suite had failing tests",
    ),
    "fs.no-such-file": (
        "Create the build dir first: cmake -S . -B build, then build in it",
        "cd build failed: the build directory does not exist",
    ),
    "vcs.push-rejected": (
        "git pull --rebase origin main before git push",
        "git push rejected: the remote had new commits",
    ),
    "docker.daemon-unavailable": (
        "Start the Docker daemon (sudo systemctl start docker) before docker commands",
        "Docker daemon was not running",
    ),
    "vcs.merge-conflict": (
        "Resolve the conflict markers, git add the files, then git commit",
        "Merge stopped on a conflict",
    ),
}
DEFAULT_FIX = ("Read the whole error output before retrying", "Command failed")

# The passing result a retry gives once the agent has applied an injected known fix.
PASS_AFTER_FIX: dict[str, str] = {
    "c001": "c124",  # python3 report.py -> python3 boot.py, clean
    "c040": "c128",  # node server.js -> npm run build, clean
    "c078": "c175",  # perl report.pl -> a perl one-liner, clean
    "c041": "c099",  # npm test -> the suite passing
    "c095": "c102",  # pytest -v -> the suite passing
    "c014": "c096",
    "c057": "c109",  # cd build && make -> cmake configure and build
    "c052": "c134",  # git push -> git status, clean
    "c074": "c160",
    "c050": "c139",  # git merge, clean
}

# The rule meant to go stale (for the report: a retirement of anything else is listed as such).
STALE_BY_DESIGN = ("vcs.push-rejected",)
