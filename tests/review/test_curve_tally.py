"""The dated tallies the curve reads (``store/counters.py``, ``.state/daily.json``): one key per
name and day, added under the state lock, bounded to the newest days, foreign keys dropped."""

from __future__ import annotations

from pathlib import Path

from self_improve.store import counters
from self_improve.store.store import Store


def store_at(tmp_path: Path) -> Store:
    (tmp_path / ".git").mkdir()
    store = Store(tmp_path)
    store.init()
    return store


def test_add_read_and_the_file_as_written(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    assert counters.read_daily(store.fs) == {}
    counters.bump_daily(store.fs, {"measured_helpful": 1}, "2026-03-01")
    counters.bump_daily(store.fs, {"measured_helpful": 2, "rules_retired": 1, "zero": 0}, "2026-03-01")
    counters.bump_daily(store.fs, {"measured_helpful": 1}, "2026-02-27")
    assert counters.read_daily(store.fs) == {
        "measured_helpful": {"2026-02-27": 1, "2026-03-01": 3},
        "rules_retired": {"2026-03-01": 1},
    }
    assert (store.dir / ".state" / "daily.json").read_text() == (
        '{"measured_helpful.2026-02-27": 1, "measured_helpful.2026-03-01": 3, "rules_retired.2026-03-01": 1}'
    )
    assert counters.read(store.fs) is None  # the totals' file is not touched by a daily bump


def test_bump_counted_adds_the_total_and_the_day_under_one_lock(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    counters.bump_counted(store.fs, {"rules_retired": 1, "entries_archived": 2}, "2026-03-01")
    assert counters.read(store.fs) == {"entries_archived": 2, "rules_retired": 1}
    assert counters.read_daily(store.fs) == {"rules_retired": {"2026-03-01": 1}}  # archive is no daily counter


def test_a_bad_day_writes_nothing_and_foreign_keys_are_dropped(tmp_path: Path) -> None:
    store = store_at(tmp_path)
    counters.bump_daily(store.fs, {"measured_helpful": 1}, "yesterday")
    assert not (store.dir / ".state" / "daily.json").exists()
    (store.dir / ".state").mkdir(exist_ok=True)
    (store.dir / ".state" / "daily.json").write_text(
        '{"measured_helpful.2026-03-01": 2, "noday": 4, "x.2026-3-1": 1, "y.2026-03-01": -1, "z.2026-03-01": "3"}'
    )
    assert counters.read_daily(store.fs) == {"measured_helpful": {"2026-03-01": 2}}


def test_only_the_newest_days_are_kept(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    store = store_at(tmp_path)
    monkeypatch.setattr(counters, "MAX_DAYS", 3)
    for day in ("2026-02-01", "2026-02-03", "2026-02-02", "2026-02-05", "2026-02-04"):
        counters.bump_daily(store.fs, {"measured_helpful": 1, "rules_retired": 1}, day)
    kept = ["2026-02-03", "2026-02-04", "2026-02-05"]
    assert counters.read_daily(store.fs) == {name: dict.fromkeys(kept, 1) for name in ("measured_helpful", "rules_retired")}
