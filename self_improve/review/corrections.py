"""Corrections the hooks caught that no lesson came of yet, in ``review``.

The queue is ``store/correction_queue`` (``.learnings/.state/corrections.jsonl``). ``review``
lists its items first ("3 corrections you have not turned into lessons"), ``review --json`` has
them as ``corrections`` (id, date, session, pattern, language, excerpt), and the interactive
walk-through offers, for each: log (the excerpt becomes the summary of a ``correction``
learning, through ``Store.log``, in the session it was said in), edit (the summary and the
action are asked for first), drop (out of the queue, nothing logged), skip, quit.

Inside an agent session ``review`` only lists the queue (the walk-through is for a person, as
for promotions), with the ``log`` command by which the agent makes an item a lesson itself
(which confirms it, ``commands/log.py``); only a person's review logs an excerpt as it is or
drops an item, so an agent cannot make a correction disappear unrecorded. ``review --yes`` and
``--dry-run`` leave the queue as it is everywhere: a lesson needs somebody's words about what
to do, not the excerpt alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from self_improve.errors import SelfImproveError
from self_improve.output import colour
from self_improve.store import correction_queue as queue
from self_improve.store.correction_queue import QueuedCorrection
from self_improve.store.record import LogRequest, LogResult
from self_improve.store.store import Store
from self_improve.store.trust import UntrustedStore

LOG_COMMAND = 'self-improve log learning --category correction --session SESSION --action "<do X, not Y>" "<what the user said>"'


def pending(store: Store) -> list[QueuedCorrection]:
    """The queued items, oldest first; [] when there is no queue (or it cannot be read: review
    lists the rest)."""
    try:
        return queue.read(store.fs)
    except (OSError, UntrustedStore):
        return []


def corrections_json(items: Sequence[QueuedCorrection]) -> list[dict[str, Any]]:
    return [item.as_json() for item in items]


def title(count: int) -> str:
    return f"{count} correction{'s' if count != 1 else ''} you have not turned into lessons"


def item_lines(item: QueuedCorrection) -> list[str]:
    session = f"session {item.session}" if item.session else "session unknown"
    return [f"  {item.date}  {item.excerpt}", f"      {session}; caught by {item.pattern or 'a correction pattern'}"]


def listing_lines(items: Sequence[QueuedCorrection]) -> list[str]:
    """The listing's group (with a blank line after it); [] without items."""
    if not items:
        return []
    out = [colour(title(len(items)), "bold")]
    for item in items:
        out += item_lines(item)
    out += [
        f"  to turn one into a lesson: {LOG_COMMAND}",
        "  (or, in a terminal, `self-improve review` logs, edits or drops each one)",
        "",
    ]
    return out


def yes_line(count: int) -> str:
    """What ``review --yes`` says of the queue it leaves alone."""
    return f"{title(count)}: `self-improve review` in a terminal logs, edits or drops each one (--yes leaves them queued)"


def outcome_text(logged: int, dropped: int) -> str:
    """The end of the interactive summary line: ", 1 correction logged, 2 dropped" ("" for none)."""
    text = f", {logged} correction{'s' if logged != 1 else ''} logged" if logged else ""
    return text + (f", {dropped} dropped" if dropped else "")


def log_item(store: Store, item: QueuedCorrection, logged_by: str, summary: str = "", action: str = "") -> LogResult:
    """Log ``item`` as a ``correction`` learning (``summary`` defaults to its excerpt), counted in
    its session (an item of no known session: in the last one the hooks saw, as ``log`` does);
    then take it out of the queue. A refusal of ``Store.log`` leaves it queued."""
    result = store.log(
        LogRequest(
            kind="learning",
            summary=summary.strip() or item.excerpt,
            category="correction",
            action=action.strip(),
            source="user_feedback",
            session=item.session,
            logged_by=logged_by,
        )
    )
    drop_item(store, item)
    return result


def drop_item(store: Store, item: QueuedCorrection) -> bool:
    """Take ``item`` out of the queue; False when it was gone already."""
    try:
        with queue.lock(store.fs):
            return queue.remove(store.fs, item.id) is not None
    except UntrustedStore as exc:
        raise SelfImproveError(f"refusing to use {store.relative(store.dir)}/: {exc} (see README, Trust)") from None
    except OSError as exc:
        raise SelfImproveError(f"cannot update the correction queue: {exc.strerror or exc}") from None
