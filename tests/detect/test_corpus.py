"""Quality on the labelled corpus of real Bash results (tests/data/corpus/public.jsonl, a copy of shared/corpus).

Each row is rebuilt from its hook ``payload`` exactly as the Claude Code adapter sees it
(PostToolUse: exit 0 + tool_response.stdout; PostToolUseFailure: "Exit code N\\n<output>").
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _load_bench():  # bench/detect.py: the very parsing and scoring the benchmark prints
    spec = importlib.util.spec_from_file_location("bench_detect", REPO / "bench" / "detect.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need their module registered
    spec.loader.exec_module(module)
    return module


bench = _load_bench()

CORPUS = bench.DEFAULT_CORPUS



@pytest.fixture(scope="module")
def cases() -> list[bench.Case]:
    return bench.load_corpus(CORPUS)


def test_payloads_are_parsed_like_the_hook(cases: list[bench.Case]) -> None:
    assert len(cases) == 109
    failing = [c for c in cases if c.result.exit_code != 0]
    assert failing and all(c.result.exit_code is not None and c.result.interrupted is False for c in failing)
    timeout = next(c for c in cases if c.id == "c062")
    assert (timeout.result.exit_code, timeout.result.output) == (124, "")


def test_precision_and_recall(cases: list[bench.Case]) -> None:
    score, false_pos, false_neg = bench.score(cases, bench.ours_detects)
    assert (false_pos, false_neg) == ([], [])  # measured P=1.000 R=1.000
    assert score.precision >= 0.97 and score.recall >= 0.95


def test_pattern_key_accuracy(cases: list[bench.Case]) -> None:
    right, total, wrong = bench.key_accuracy(cases)
    assert total == 57
    # The one difference is deliberate: "ERROR: failed to connect ...: connection refused" (exit 0)
    # is labelled by its exit code in the corpus; we name the symptom.
    assert wrong == [("c083", "app.error-exit0", "net.connection-refused")]
    assert right / total >= 0.98


def test_reference_skill_score_is_reproduced(cases: list[bench.Case]) -> None:
    on_stdin, _, _ = bench.score(cases, bench.reference_on_stdin)
    assert (round(on_stdin.precision, 2), round(on_stdin.recall, 2)) == (0.69, 0.60)  # as the README says
    on_output, _, _ = bench.score(cases, bench.reference_on_output)
    assert (on_output.tp, on_output.fp) == (34, 14)


def test_text_alone_still_finds_almost_every_error(cases: list[bench.Case]) -> None:
    """With exit codes hidden, only 'nothing to commit' (no error words) and a silent timeout
    go unseen, and nothing ok is flagged: the text rules do not lean on the exit code."""
    _, false_pos, false_neg = bench.score(cases, bench.ours_text_only)
    assert (false_pos, false_neg) == ([], ["c053", "c062"])
