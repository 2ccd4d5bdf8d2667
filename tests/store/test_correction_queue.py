"""The correction queue (``store/correction_queue.py``): its exact bytes, its bound whatever
happens to it, the confirm rule, and that no secret of a prompt reaches it."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from self_improve.detect.redact import find_secret
from self_improve.store import correction_queue as queue
from self_improve.store.correction_queue import QueuedCorrection
from self_improve.store.trust import StoreDir, UntrustedStore
from tests.helpers import REPO

NOW = datetime(2026, 3, 1, 10, 0, tzinfo=UTC).timestamp()
FILE = ".state/corrections.jsonl"


def digest(second: float, session: str, pattern: str, language: str, excerpt: str) -> str:
    seed = "\0".join((str(int(second)), session, pattern, language, excerpt))
    return hashlib.sha256(seed.encode()).hexdigest()[:10]


@pytest.fixture()
def fs(tmp_path: Path) -> StoreDir:
    (tmp_path / ".learnings").mkdir()
    return StoreDir(str(tmp_path / ".learnings"))


def queued(fs: StoreDir) -> bytes:
    return (Path(fs.path) / FILE).read_bytes()


def test_an_added_correction_is_one_line_of_exact_bytes(fs: StoreDir) -> None:
    text = "No,  that's wrong.\n\tDon't use npm here, use \"pnpm\".\x1b[31m"
    item = queue.new_item(text, "s1", "en.thats-wrong", "en", now=NOW)
    assert queue.add(fs, item, 50)
    excerpt = "No, that's wrong. Don't use npm here, use \"pnpm\". [31m"
    expected_id = digest(NOW, "s1", "en.thats-wrong", "en", excerpt)
    assert queued(fs) == (
        f'{{"id": "{expected_id}", "date": "2026-03-01", "session": "s1", "pattern": "en.thats-wrong", "language": "en", '
        '"excerpt": "No, that\'s wrong. Don\'t use npm here, use \\"pnpm\\". [31m"}\n'
    ).encode()
    assert queue.read(fs) == [QueuedCorrection(expected_id, "2026-03-01", "s1", "en.thats-wrong", "en", excerpt)]


def test_the_excerpt_is_the_start_of_the_prompt_cut_at_200_characters(fs: StoreDir) -> None:
    text = "不对，" + "x" * 300
    item = queue.new_item(text, "s1", "zh.not-right", "zh", now=NOW)
    assert item.excerpt == "不对，" + "x" * 196 + "…"
    assert len(item.excerpt) == 200
    queue.add(fs, item, 50)
    assert json.loads(queued(fs))["excerpt"] == item.excerpt  # UTF-8 as it is, not escaped


def test_the_same_correction_seen_twice_is_queued_once(fs: StoreDir) -> None:
    item = queue.new_item("No, wrong file.", "s1", "en.no", "en", now=NOW)
    assert queue.add(fs, item, 50)
    before = queued(fs)
    assert not queue.add(fs, queue.new_item("No, wrong file.", "s1", "en.no", "en", now=NOW), 50)
    assert queued(fs) == before


def test_the_oldest_are_dropped_beyond_the_bound(fs: StoreDir) -> None:
    items = [queue.new_item(f"No, not {n}.", "s1", "en.no", "en", now=NOW + n) for n in range(5)]
    for item in items:
        queue.add(fs, item, 3)
    assert queue.read(fs) == items[2:]
    assert queued(fs) == b"".join(queue.render_line(item).encode() + b"\n" for item in items[2:])


def test_a_wrong_bound_is_the_default_and_the_cap_holds() -> None:
    assert queue.bound("50") == queue.bound(True) == queue.bound(None) == 50
    assert queue.bound(0) == 1 and queue.bound(10**9) == queue.MAX_ITEMS


def test_confirm_takes_the_oldest_of_the_first_session_that_has_one(fs: StoreDir) -> None:
    a1, b1, a2 = (queue.new_item(f"No, {n}.", session, "en.no", "en", now=NOW + n)
                  for n, session in enumerate(("a", "b", "a")))
    for item in (a1, b1, a2):
        queue.add(fs, item, 50)
    assert queue.confirm(fs, ["zzz", "", "a", "b"]) == a1
    assert queue.read(fs) == [b1, a2]
    assert queue.confirm(fs, ["b"]) == b1
    assert queue.confirm(fs, ["b", ""]) is None
    assert queue.read(fs) == [a2]
    assert queue.confirm(fs, ["a"]) == a2
    assert not (Path(fs.path) / FILE).exists()  # the last one out: no file at all
    assert queue.confirm(fs, ["a"]) is None


def test_an_item_of_no_session_is_confirmed_by_none(fs: StoreDir) -> None:
    item = queue.new_item("No, wrong.", "", "en.no", "en", now=NOW)
    queue.add(fs, item, 50)
    assert queue.confirm(fs, [""]) is None
    assert queue.read(fs) == [item]


def test_the_sessions_a_log_confirms_in() -> None:
    assert queue.sessions_for_log("s9", ["env"], "last") == ["s9"]
    assert queue.sessions_for_log("", ["env", "env2"], "last") == ["env", "env2", "last"]
    assert queue.sessions_for_log("", ["last"], "last") == ["last"]
    assert queue.sessions_for_log("", [], "") == []


def test_remove_takes_out_one_item_by_id(fs: StoreDir) -> None:
    first, second = (queue.new_item(f"No, {n}.", "s", "en.no", "en", now=NOW + n) for n in range(2))
    queue.add(fs, first, 50)
    queue.add(fs, second, 50)
    assert queue.remove(fs, "0000000000") is None
    assert queue.remove(fs, first.id) == first
    assert queue.read(fs) == [second]


def test_lines_that_are_not_ours_are_dropped_at_the_next_write(fs: StoreDir) -> None:
    good = queue.new_item("No, wrong.", "s1", "en.no", "en", now=NOW)
    line = queue.render_line(good)
    bad = [
        "not json",
        "[1, 2]",
        line.replace('"en.no"', '"EN.NO"'),
        line.replace(good.id, "XYZ"),
        line.replace("2026-03-01", "yesterday"),
        line.replace('"s1"', '"s\\u0007"'),
        line.replace('"No, wrong."', '"' + "x" * 201 + '"'),
        line[:-1] + ', "more": "x"}',
        '{"id": "' + "a" * 10 + '", "date": "2026-03-01", "session": 5, "pattern": "p", "language": "en", "excerpt": "x"}',
        "x" * (queue.MAX_LINE_BYTES + 1),
    ]
    (Path(fs.path) / ".state").mkdir()
    (Path(fs.path) / FILE).write_text("\n".join([*bad, line, line]) + "\n", encoding="utf-8")
    assert queue.read(fs) == [good]
    other = queue.new_item("No, other.", "s2", "en.no", "en", now=NOW + 1)
    queue.add(fs, other, 50)
    assert queued(fs) == f"{line}\n{queue.render_line(other)}\n".encode()


def test_a_link_in_place_of_the_file_is_refused(fs: StoreDir, tmp_path: Path) -> None:
    (Path(fs.path) / ".state").mkdir()
    target = tmp_path / "elsewhere"
    target.write_text("")
    (Path(fs.path) / FILE).symlink_to(target)
    with pytest.raises(UntrustedStore):
        queue.add(fs, queue.new_item("No.", "s", "en.no", "en", now=NOW), 50)
    assert target.read_text() == ""


# ---- no secret reaches the file -----------------------------------------------------------------

SECRETS = [json.loads(line) for line in (REPO / "tests/data/secrets.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("record", SECRETS, ids=lambda r: r["id"])
def test_no_secret_of_the_prompt_reaches_the_queue(record: dict[str, object]) -> None:
    prompt = f"No, that's wrong, use this one:\n{record['line']}\nand try again"
    excerpt = queue.new_item(prompt, "s1", "en.no", "en", now=NOW).excerpt
    assert len(excerpt) <= 200 and "\n" not in excerpt
    for secret in record["secrets"]:  # type: ignore[attr-defined]
        assert secret not in excerpt
        assert secret[:16] not in excerpt, excerpt  # nor the start of one, cut by the 200 characters
    assert find_secret(excerpt) is None


def test_a_secret_cut_by_the_excerpts_edge_is_redacted_whole() -> None:
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    excerpt = queue.excerpt_of("No, " + "x " * 95 + token)
    assert token[:8] not in excerpt and excerpt.endswith("…")


# ---- the bound, whatever happens ----------------------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8"), max_size=400) | st.text(st.sampled_from('"\\\n\t\x00\x1b\u2028é不🙂'), max_size=400)
OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("add"), TEXT, st.text(max_size=300), st.integers(-5, 500)),
        st.tuples(st.just("confirm"), st.lists(st.text(max_size=10), max_size=3)),
        st.tuples(st.just("remove"), st.integers(0, 60)),
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(operations=OPERATIONS, sessions=st.lists(st.text(max_size=300), min_size=1, max_size=4))
def test_the_queue_never_exceeds_its_bound(tmp_path_factory: pytest.TempPathFactory, operations: list[tuple[object, ...]],
                                           sessions: list[str]) -> None:
    root = tmp_path_factory.mktemp("queue")
    fs = StoreDir(str(root))
    limit = 50
    for n, operation in enumerate(operations):
        kind = operation[0]
        if kind == "add":
            _, text, session, limit_drawn = operation
            limit = queue.bound(limit_drawn)
            before = queue.read(fs)
            item = queue.new_item(str(text), sessions[n % len(sessions)] + str(session)[:3], "en.no", "en", now=NOW + n)
            queue.add(fs, item, limit_drawn)
            after = queue.read(fs)
            assert after[-1] == item  # the newest is always kept
            assert len(after) <= limit and len(after) <= len(before) + 1
        elif kind == "confirm":
            before = queue.read(fs)
            found = queue.confirm(fs, [*operation[1], *sessions])  # type: ignore[misc]
            assert len(queue.read(fs)) == len(before) - (found is not None)
        else:
            items = queue.read(fs)
            if items:
                queue.remove(fs, items[int(operation[1]) % len(items)].id)  # type: ignore[call-overload]
        items = queue.read(fs)
        assert len(items) <= queue.MAX_ITEMS and len(items) <= max(limit, 1)
        path = root / FILE
        raw = path.read_bytes() if path.exists() else b""
        assert len(raw) <= len(items) * queue.MAX_LINE_BYTES <= queue.MAX_FILE_BYTES
        assert raw.count(b"\n") == len(items) and all(len(line) <= queue.MAX_LINE_BYTES for line in raw.splitlines())
        for item in items:
            assert len(item.excerpt) <= queue.MAX_EXCERPT_CHARS and len(item.session) <= queue.MAX_SESSION_CHARS
            assert item.excerpt.isprintable() and item.session.isprintable()


@settings(max_examples=200, deadline=None)
@given(text=TEXT, session=st.text(max_size=400))
def test_any_prompt_makes_one_line_within_the_line_bound(text: str, session: str) -> None:
    item = queue.new_item(text, session, "en.no", "en", now=NOW)
    line = queue.render_line(item).encode()
    assert len(line) <= queue.MAX_LINE_BYTES and b"\n" not in line
    assert queue.parse_lines(line + b"\n") == [item]


def test_a_huge_prompt_costs_what_its_start_does() -> None:
    start = "No, that's wrong: " + "use pnpm " * 30
    assert queue.excerpt_of(start + "x" * (8 << 20)) == queue.excerpt_of(start + "x" * 5000)
