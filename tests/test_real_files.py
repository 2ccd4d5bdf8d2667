"""Issue 15's acceptance on the real-world fixtures (``tests/data/real_world/{tune,dev}``), through
the real CLI: ``bench/real_files.py`` runs every verb once per store (module-scoped, both splits)
and each test asserts one goal, naming the store, the file and what differs when it fails.

The judging rules (summary match, false alarms, fragments) are the bench's, documented there."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent


def _load_bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_real_files", REPO / "bench" / "real_files.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _load_bench()
SPLITS = bench.SPLITS


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Any]]:
    """Every CLI call of the acceptance, once per store and verb, for both splits."""
    return {split: bench.measure_split(split, tmp_path_factory.mktemp(f"real-{split}")) for split in SPLITS}


def _fail_if(problems: list[str], what: str) -> None:
    if problems:
        pytest.fail(f"{what}:\n" + "\n".join(problems), pytrace=False)


# ---- the fixtures themselves --------------------------------------------------------------------------


@pytest.mark.parametrize("split", SPLITS)
def test_manifest_lines_point_at_the_headers(split: str) -> None:
    """expected.json is generated with the files; a hand edit of either would desynchronise them."""
    manifest = json.loads((bench.DATA / split / "expected.json").read_text(encoding="utf-8"))
    wrong = []
    for name, spec in manifest["stores"].items():
        for file_name, meta in spec["files"].items():
            data = (bench.DATA / split / name / file_name).read_bytes().removeprefix(b"\xef\xbb\xbf")
            lines = data.decode(meta["encoding"], errors="replace").split("\n")
            for entry in meta["entries"]:
                found = lines[entry["line"] - 1].rstrip("\r")
                if found != entry["header"]:
                    wrong.append(f"{split}/{name}/{file_name}:{entry['line']}: {found!r}, manifest says {entry['header']!r}")
    _fail_if(wrong, "manifest out of step with its files (rerun tests/data/real_world/fixture_kit.py)")


# ---- the acceptance -----------------------------------------------------------------------------------


@pytest.mark.parametrize("split", SPLITS)
def test_list_json_is_valid_utf8_json(results: dict[str, list[Any]], split: str) -> None:
    _fail_if([f"{r.split}/{r.name}: {r.json_error}" for r in results[split] if r.json_error],
             "`list --json` is not valid UTF-8 JSON")


@pytest.mark.parametrize("split", SPLITS)
def test_entries_listed_equal_headers_present(results: dict[str, list[Any]], split: str) -> None:
    wrong = [f"{r.split}/{r.name}/{file_name}: {got} listed, {want} expected"
             for r in results[split] for file_name, (want, got) in r.counts.items() if want != got]
    _fail_if(wrong, "entries listed differ from the headers present (reference form plus near-misses)")


@pytest.mark.parametrize("split", SPLITS)
def test_files_byte_identical_after_read_verbs(results: dict[str, list[Any]], split: str) -> None:
    changed = [f"{r.split}/{r.name}: `{verb}` changed {', '.join(files)}"
               for r in results[split] for verb, files in r.changed.items() if files]
    _fail_if(changed, "pre-existing files changed by init / list / lint / review --json")


@pytest.mark.parametrize("split", SPLITS)
def test_summary_found_for_95_percent_of_entries(results: dict[str, list[Any]], split: str) -> None:
    summaries = [(r, s) for r in results[split] for s in r.summaries]
    found = sum(s["found"] for _, s in summaries)
    if found < 0.95 * len(summaries):
        missing = [f"{r.split}/{r.name}/{s['file']}:{s['line']} {s['id']}: got {s['got']!r}, expected {s['expected']!r}"
                   for r, s in summaries if not s["found"]]
        _fail_if(missing, f"summary found for {found}/{len(summaries)} entries, under 95%")


@pytest.mark.parametrize("split", SPLITS)
def test_lint_false_alarms_at_most_5_percent(results: dict[str, list[Any]], split: str) -> None:
    reports = [(r, p) for r in results[split] for p in r.reports]
    false = [f"{r.split}/{r.name}/{p['file']}:{p['line']}: {p['reason']}" for r, p in reports if not p["true"]]
    if len(false) > 0.05 * len(reports):
        _fail_if(false, f"{len(false)} of {len(reports)} lint reports are false alarms (over 5%)")


@pytest.mark.parametrize("split", SPLITS)
def test_no_proposed_rule_is_a_fragment(results: dict[str, list[Any]], split: str) -> None:
    fragments = [f"{r.split}/{r.name}: {rule['id']}: {rule['rule']!r} ({rule['fragment']})"
                 for r in results[split] for rule in r.rules if rule["fragment"]]
    _fail_if(fragments, "review proposed fragments as rules")


@pytest.mark.parametrize("split", SPLITS)
def test_review_yes_keeps_every_user_line(results: dict[str, list[Any]], split: str) -> None:
    lost = [f"{r.split}/{r.name}: {line}" for r in results[split] for line in r.lines_lost]
    _fail_if(lost, "`review --yes` lost user lines (file: first line missing, in order)")


@pytest.mark.parametrize("split", SPLITS)
def test_promote_then_retire_gives_user_files_back(results: dict[str, list[Any]], split: str) -> None:
    wrong = []
    for r in results[split]:
        trip = r.round_trip
        if trip is None:
            continue
        where = f"{r.split}/{r.name}: promote {trip['id']} --target {trip['target']}"
        if trip["promote_exit"] or trip["retire_exit"]:
            wrong.append(f"{where}: exit {trip['promote_exit']} / retire exit {trip['retire_exit']}: "
                         f"{trip['promote_stderr'] + trip['retire_stderr']}")
        wrong += [f"{where}: user line lost from the entry by promote: {line!r}" for line in trip["user_lines_lost"]]
        wrong += [f"{where}: instruction line lost by promote: {lost}" for lost in trip["instruction_lines_lost"]]
        wrong += [f"{where}: {name} not byte-identical after retire" for name in trip["changed"]]
    _fail_if(wrong, "promote + retire did not give the user's files back")


@pytest.mark.parametrize("split", SPLITS)
def test_empty_instruction_file_stays_empty(results: dict[str, list[Any]], split: str) -> None:
    trips = [r for r in results[split] if r.round_trip and r.round_trip["empty_files"]]
    assert trips, f"{split}: no store has an empty instruction file to round-trip"
    wrong = [f"{r.split}/{r.name}: {name} is not a 0-byte file after promote {r.round_trip['id']} + retire"
             for r in trips for name in r.round_trip["not_empty"]]
    _fail_if(wrong, "an empty instruction file did not come back empty")


@pytest.mark.parametrize("split", SPLITS)
def test_no_traceback(results: dict[str, list[Any]], split: str) -> None:
    crashes = [f"{r.split}/{r.name}: `self-improve {' '.join(c.args)}`: {c.stderr.strip().splitlines()[-1]}"
               for r in results[split] for c in r.tracebacks]
    _fail_if(crashes, "a traceback instead of a one-line error")


# ---- the bench's own judging rules ----------------------------------------------------------------------


def test_summary_match_rule() -> None:
    assert bench.summary_found("Use pnpm not npm", "Use pnpm not npm")
    assert bench.summary_found("Run pnpm dev from the root", "Run `pnpm dev` from the   root")  # markup, spaces
    assert bench.summary_found("What happened: the build broke.", "the build broke.")  # the expected inside
    assert not bench.summary_found("", "anything")
    assert not bench.summary_found("use", "Use pnpm not npm")  # a stray word is no summary
    assert not bench.summary_found("correction", "修改配置后没有重启服务")


def test_fragment_rule() -> None:
    def reason(rule: str | None, known: tuple[str, ...] = (), text: str = "", gbk: bool = False) -> str:
        return bench.fragment_reason(rule, {bench.normalise(k) for k in known}, text, gbk)

    assert reason("Run `make proto` after editing any .proto file.") == ""
    assert reason("提交前先运行 `make lint`，CI 会拒绝格式不对的代码。") == ""
    assert reason(None) == ""  # needs a rule: nothing proposed
    assert reason("```") == "a code fence"
    assert reason("") == "empty"
    assert reason("and then restart the worker pool.").startswith("starts lowercase")
    assert reason("Clear the cache before debugging:") == "ends mid-sentence"
    assert reason("Restart it").startswith("under 3 words")
    assert reason("Then click the first item within that sidebar.", known=("Then click the first item within that sidebar.",))
    assert reason("提交前先运行检查", text="提交前运行", gbk=True).startswith("garbled")
