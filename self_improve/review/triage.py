"""When the last review ran, and how many errors came in since: ``.learnings/.state/last-review``.

After an interactive or ``--yes`` review, :func:`record_review` records when it ran and each
error's Recurrence-Count then, so :func:`pending_triage_count` can say how many pending errors
gained an occurrence since (the "Pending triage: N errors recorded since last review" line).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping

from self_improve.errors import SelfImproveError
from self_improve.output import error_line
from self_improve.paths import STATE_DIR
from self_improve.store.entry import Entry
from self_improve.store.store import Store, iso, utcnow

LAST_REVIEW_FILE = "last-review"


def pending_triage(entries: Iterable[Entry], counts_at_review: Mapping[str, int] | None) -> int:
    """Pending errors that gained an occurrence since the last review (all of them if none yet).

    ``counts_at_review`` maps an entry ID to its Recurrence-Count when the review ran; an entry
    missing from it is new since then.
    """
    count = 0
    for entry in entries:
        if entry.kind != "error" or entry.status != "pending":
            continue
        if counts_at_review is None or entry.recurrence_count > counts_at_review.get(entry.id.upper(), 0):
            count += 1
    return count


def read_last_review(store: Store) -> dict[str, int] | None:
    """Each error's Recurrence-Count at the last review, or None if there was none (or it is
    unreadable: then every pending error counts, which errs on the side of a nudge)."""
    try:
        raw = store.fs.read(f"{STATE_DIR}/{LAST_REVIEW_FILE}", limit=16 << 20)
        data = json.loads(raw.decode("utf-8")) if raw else {}
        counts = data["counts"]
        return {str(key).upper(): int(value) for key, value in counts.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError, SelfImproveError):
        return None


def record_review(store: Store) -> None:
    """Remember this review: its time and every error's count (what "since" is measured from)."""
    counts = {entry.id.upper(): entry.recurrence_count for entry in store.entries("error") if entry.id}
    data = {"reviewed_at": iso(utcnow()), "counts": counts}
    try:
        store.fs.replace(f"{STATE_DIR}/{LAST_REVIEW_FILE}", json.dumps(data, sort_keys=True).encode("utf-8"))
    except (OSError, SelfImproveError) as exc:
        error_line(f"could not record the review time: {exc}")


def pending_triage_count(store: Store) -> int:
    """Pending errors with an occurrence since the last review (all pending errors before the
    first review). Never raises, so a caller on a hot path can use it as it is."""
    try:
        if not store.exists():
            return 0
        return pending_triage(store.entries("error"), read_last_review(store))
    except (OSError, SelfImproveError):
        return 0
