"""The redaction corpus (tests/data/secrets.jsonl) through the real detector path.

Every secret, in every placement of tests/data/secret_corpus.py (on the error line, the next
line, the last line, the middle of a long output, across the 200-char excerpt boundary), must
be absent, in full and in part, from the Detection's excerpt and from ``redact(output)``.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from self_improve.detect.classify import detect
from self_improve.detect.redact import find_secret, redact
from self_improve.events import ToolResult

DATA = Path(__file__).resolve().parents[1] / "data"


def _corpus_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("secret_corpus", DATA / "secret_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CORPUS = _corpus_module()
RECORDS = [json.loads(line) for line in (DATA / "secrets.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_jsonl_is_what_the_generator_writes() -> None:
    assert RECORDS == list(CORPUS.records())


def test_the_corpus_is_big_and_varied() -> None:
    kinds = {r["kind"] for r in RECORDS}
    assert len(RECORDS) >= 200 and len(kinds) >= 100
    assert len({s for r in RECORDS for s in r["secrets"]}) == sum(len(r["secrets"]) for r in RECORDS)  # all different
    assert {r["split"] for r in RECORDS} == {"dev", "held-out"}
    assert len(CORPUS.placements("x", "token=abcdefghijklmnop", ["abcdefghijklmnop"])) >= 5


@pytest.mark.parametrize("record", RECORDS, ids=[r["id"] for r in RECORDS])
def test_no_secret_reaches_the_excerpt_or_the_redacted_output(record: dict[str, object]) -> None:
    secrets: list[str] = record["secrets"]  # type: ignore[assignment]
    failures = []
    for placement, output in CORPUS.placements(record["id"], record["line"], secrets).items():
        found = detect(ToolResult("./deploy.sh", output, 1, "session-1", "/tmp/project", False))
        assert found is not None, placement
        redacted = redact(output)
        for where, text in (("excerpt", found.excerpt), ("redact(output)", redacted)):
            failures += [f"{placement}: {where}: {leak}" for leak in CORPUS.leaks(text, output, secrets)]
        if find_secret(redacted) is not None:
            failures.append(f"{placement}: redact is not idempotent ({find_secret(redacted)})")
    assert failures == []


def test_a_boundary_placement_really_straddles_the_cut() -> None:
    # The secret starts before char 200 of the unredacted line and ends after it.
    outputs = CORPUS.placements("x", "token=" + "A1b2C3d4" * 4, ["A1b2C3d4" * 4])
    line = outputs["boundary-half"].split("\n")[0]
    start = line.index("A1b2C3d4")
    assert start < 200 < start + 32
    line = outputs["boundary-start"].split("\n")[0]
    assert line.index("A1b2C3d4") == 192


def test_an_excerpt_that_starts_inside_a_secret_shows_its_tag_not_its_tail() -> None:
    # On a long line the excerpt starts 40 chars before the hit: here inside a 40-char token.
    key = "ghp_" + "Zq9xW2" * 6
    output = "lorem ipsum " * 8 + key + " ModuleNotFoundError: No module named 'foo'"
    found = detect(ToolResult("python3 app.py", output, 1, "session-1", "/tmp/project", False))
    assert found is not None
    assert found.excerpt == "[REDACTED:github-token] ModuleNotFoundError: No module named 'foo'"


def test_an_excerpt_that_ends_inside_a_secret_drops_the_whole_tag() -> None:
    key = "sk-proj-" + "Ab3Cd4Ef5" * 8
    output = "ERROR: upload failed " + "x " * 85 + key + " trailing words"
    found = detect(ToolResult("./upload.sh", output, 1, "session-1", "/tmp/project", False))
    assert found is not None
    assert found.excerpt == "ERROR: upload failed " + "x " * 84 + "x…"
