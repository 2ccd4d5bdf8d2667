"""The OpenClaw reminder block in the workspace ``AGENTS.md``: its text, and keeping it current.

OpenClaw (2026.9.6) injects the workspace ``AGENTS.md`` verbatim into every system prompt, HTML
comments included, so a managed block there reaches the model without any JavaScript. It costs
tokens on every turn, hence the short text (:data:`MAX_BLOCK_CHARS`). It plays the part of the
reference handler's ``SELF_IMPROVEMENT_REMINDER.md``: when to log, what never to log, where a
proven lesson ends up, in our own words and pointing at our CLI. ``TOOLS.md`` is not read by this
OpenClaw, so tool gotchas go to ``AGENTS.md``, never to ``TOOLS.md``.

The block carries one status line, ``Pending triage: N errors recorded since last review``.
:func:`refresh_pending_line` rewrites it (``watch`` and ``sweep`` call it after a pass that
recorded something); install keeps whatever count the block already shows, so re-running install
never resets it.

Every edit goes through :mod:`self_improve.review.managed_block` (``upsert_block`` /
``remove_block`` / ``edit_file``), the one place that edits between our markers.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from self_improve.review.managed_block import (
    OPENCLAW_MARKER,
    ManagedBlockError,
    edit_file,
    fits_limit,
    remove_block,
    upsert_block,
)

AGENTS_FILE = "AGENTS.md"
BLOCK_NOTE = "(managed by `self-improve install`)"
MAX_BLOCK_CHARS = 900
"""Budget for the whole block, markers included: it is paid on every prompt of every session."""

_PENDING = re.compile(r"^Pending triage: (\d+) errors? recorded since last review$", re.MULTILINE)
_OUR_BLOCK = re.compile(
    re.escape(f"<!-- {OPENCLAW_MARKER}:begin") + r".*?" + re.escape(f"<!-- {OPENCLAW_MARKER}:end -->"),
    re.DOTALL,
)

# Written for this block, not copied: the reference handler's reminder says the same things
# (when to log, never log secrets, where to promote) but points at hand-edited files.
_REMINDER = """\
## Self-improvement
Record lessons with the `self-improve` CLI (see the self-improvement skill), never by editing .learnings/. Log at once when:
- the user corrects you: `self-improve log learning --category correction --action "do X, not Y" "<their words>"`
- a command failed and you found why: `self-improve log error --action "<fix>" "<what failed>"`
- you learn something non-obvious (workaround, convention, tool gotcha): `--category insight`
- the user wants what the tools cannot do: `self-improve log feature "<request>"`
Never log secrets, tokens, personal data or raw transcripts: short summaries in your words.
`self-improve review` promotes proven lessons: behaviour to SOUL.md, workflows and tool gotchas to AGENTS.md."""


# --------------------------------------------------------------------------- text (pure)


def pending_line(count: int) -> str:
    """``Pending triage: N errors recorded since last review`` (singular for one)."""
    return f"Pending triage: {count} error{'' if count == 1 else 's'} recorded since last review"


def render_body(count: int = 0) -> str:
    """The block's content between the markers. The pending line comes last: it is the only
    part that changes between turns, and what precedes it then stays identical."""
    return f"{_REMINDER}\n{pending_line(max(0, count))}"


def has_block(text: str) -> bool:
    """Whether ``text`` holds our block (fenced code aside, as managed_block sees it)."""
    return remove_block(text, marker_name=OPENCLAW_MARKER) != text


def shown_pending_count(text: str) -> int:
    """The count the (first) block shows now; 0 without a block or a readable line."""
    block = _OUR_BLOCK.search(text)
    match = _PENDING.search(block.group(0)) if block else None
    return int(match.group(1)) if match else 0


def install_text(text: str) -> str:
    """``text`` with exactly one current block (duplicates collapse), keeping the shown count."""
    return upsert_block(
        text, render_body(shown_pending_count(text)), marker_name=OPENCLAW_MARKER, note=BLOCK_NOTE
    )


def uninstall_text(text: str) -> str:
    """``text`` without our block(s): the bytes from before install when nothing else moved."""
    return remove_block(text, marker_name=OPENCLAW_MARKER)


def refresh_text(text: str, count: int) -> str:
    """``text`` with the pending line showing ``count``; unchanged without a block.

    Never pushes the file past OpenClaw's limit: a count gaining a digit could, and OpenClaw would
    then cut the middle of the user's file without a word. A stale count is the lesser harm.
    """
    if not has_block(text):
        return text
    new = upsert_block(text, render_body(count), marker_name=OPENCLAW_MARKER, note=BLOCK_NOTE)
    return new if fits_limit(new) or not fits_limit(text) else text


# --------------------------------------------------------------------------- the file


def refresh_pending_line(workspace: Path, count: int) -> bool:
    """Show ``count`` in ``<workspace>/AGENTS.md``'s block; True when the file changed.

    No block (not installed, or uninstalled) or the same count: nothing is written. Raises
    :class:`ManagedBlockError` on damaged markers, a symlinked or non-UTF-8 file.
    """
    path = workspace / AGENTS_FILE
    if not path.is_file():  # no file means not installed: never create one from here
        return False
    return edit_file(path, workspace, lambda text: refresh_text(text, count)).changed


# --------------------------------------------------------------------------- the count


def _triage_counter() -> Callable[[Path], int]:
    """``pending_triage_count`` lives with ``review`` (it reads ``.state/last-review``)."""
    from self_improve.review.triage import pending_triage_count
    from self_improve.store.store import Store

    return lambda project: pending_triage_count(Store(project))


def pending_count(projects: Iterable[Path]) -> int:
    """Pending errors recorded since each project's last review, summed over ``projects``."""
    count = _triage_counter()
    return sum(count(project) for project in sorted(set(projects)))


def refresh_for_projects(projects: Iterable[Path], workspace: Path | None = None) -> None:
    """Recount over ``projects`` and refresh the workspace's line; warn on stderr, never raise.

    Runs after a watcher or sweep pass (the ``on_recorded`` callback): a damaged AGENTS.md must
    not stop the recording. ``workspace`` defaults to OpenClaw's (``$OPENCLAW_WORKSPACE_DIR``, else
    ``~/.openclaw/workspace``).
    """
    from self_improve.harnesses.openclaw import default_workspace

    where = workspace if workspace is not None else default_workspace()
    try:
        refresh_pending_line(where, pending_count(projects))
    except (ManagedBlockError, OSError) as exc:
        print(
            f"self-improve: warning: pending line in {where / AGENTS_FILE} not refreshed: {exc}",
            file=sys.stderr,
            flush=True,
        )
