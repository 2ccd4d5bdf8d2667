"""The mixed-subject trace bench/replay.py plays (`--trace mixed`): one error class, many subjects.

12 mistakes, each with its own correct fix, in 6 sessions over 21 simulated days; every mistake
comes back 2-4 times, across sessions. Mistakes of the same error class sit side by side, so a
fix recalled by class alone reaches a sibling it does not fit:
- missing modules: Python yaml, numpy, requests; Node esbuild (once through require(), once
  through an ES import);
- missing commands: uv, docker, jq;
- Python exceptions: KeyError 'DATABASE_URL' in config.py:load_settings (reached from
  `python3 app.py`, from `pytest` and from `pytest | tail`), KeyError 'region' in
  reports/summary.py:summarise;
- rustc errors: E0432 (unresolved import `serde_json`) and E0425 (`parse_amount` not in scope),
  from `cargo build` and from `cargo build 2>&1 | tail` (exit 0: a PostToolUse payload);
- a plain pytest assertion failure (float money compared with ==), next to the KeyError that
  pytest reports.

Every Bash result is a real one: bench/capture_mixed.py ran each command in a scratch project
and wrote bench/data/mixed_subjects.jsonl (output, exit status, hook payload), named here by id.
"""

from __future__ import annotations

from typing import NamedTuple

START = "2025-03-03"  # day 0, as in replay_trace


class Mistake(NamedTuple):
    fix: str  # what the simulated agent passes as --action once it has fixed it
    summary: str  # the one-line summary it logs


class Step(NamedTuple):
    mistake: str  # a key of MISTAKES: the ground truth the scoring uses
    row: str  # a row id of bench/data/mixed_subjects.jsonl


class Session(NamedTuple):
    day: int
    steps: tuple[Step, ...]


MISTAKES: dict[str, Mistake] = {
    "py-yaml": Mistake("pip install pyyaml (the module is yaml, the package PyYAML)",
                       "load_config.py failed: PyYAML is not installed"),
    "py-numpy": Mistake("pip install numpy", "forecast.py failed: numpy is not installed"),
    "py-requests": Mistake("pip install requests", "sync_prices.py failed: requests is not installed"),
    "node-esbuild": Mistake("pnpm add -D esbuild", "The build script failed: esbuild is not installed"),
    "cmd-uv": Mistake("pipx install uv, then rerun the uv command", "uv is not installed on this machine"),
    "cmd-docker": Mistake("docker is not installed here: run the same command with podman",
                          "docker: command not found"),
    "cmd-jq": Mistake("jq is not installed: read the JSON with python3 -m json.tool instead",
                      "jq: command not found"),
    "key-database-url": Mistake("cp .env.example .env (it sets DATABASE_URL), then rerun",
                                "config.load_settings raised KeyError DATABASE_URL: no .env"),
    "key-region": Mistake("The 2024 export calls the column sales_region: read row['sales_region']",
                          "reports.summary raised KeyError region on the 2024 export"),
    "rust-e0432": Mistake("cargo add serde_json", "cargo build failed: E0432 unresolved import serde_json"),
    "rust-e0425": Mistake("Import it first: use crate::money::parse_amount;",
                          "cargo build failed: E0425 parse_amount not in scope"),
    "test-float-money": Mistake("Compare money with pytest.approx (or use Decimal), never ==",
                                "test_cart failed: float total compared with =="),
}

SESSIONS: tuple[Session, ...] = (
    Session(0, (
        Step("py-yaml", "m01"),
        Step("cmd-uv", "m06"),
        Step("key-database-url", "m12"),  # python3 app.py
        Step("rust-e0432", "m15"),
    )),
    Session(2, (
        Step("py-numpy", "m02"),
        Step("cmd-docker", "m08"),
        Step("key-region", "m14"),
        Step("rust-e0425", "m17"),
        Step("py-yaml", "m01"),
    )),
    Session(5, (
        Step("node-esbuild", "m04"),  # require('esbuild')
        Step("cmd-jq", "m10"),
        Step("key-database-url", "m13"),  # the same KeyError through pytest
        Step("test-float-money", "m20"),
        Step("rust-e0432", "m16"),  # cargo build 2>&1 | tail: exit 0
    )),
    Session(9, (
        Step("py-requests", "m03"),
        Step("cmd-uv", "m07"),
        Step("py-numpy", "m02"),
        Step("rust-e0425", "m18"),  # cargo build 2>&1 | tail: exit 0
        Step("cmd-docker", "m09"),
    )),
    Session(14, (
        Step("node-esbuild", "m05"),  # import from an .mjs: ERR_MODULE_NOT_FOUND
        Step("py-yaml", "m01"),
        Step("key-database-url", "m19"),  # pytest 2>&1 | tail: exit 0
        Step("key-region", "m14"),
        Step("cmd-jq", "m11"),
    )),
    Session(21, (
        Step("py-numpy", "m02"),
        Step("node-esbuild", "m04"),
        Step("py-requests", "m03"),
        Step("test-float-money", "m20"),
        Step("cmd-docker", "m08"),
        Step("rust-e0432", "m15"),
        Step("rust-e0425", "m17"),
        Step("key-database-url", "m12"),
    )),
)
