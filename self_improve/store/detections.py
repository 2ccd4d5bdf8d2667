"""A detected failure, recorded: the one way the hooks and the OpenClaw watcher write it.

Whichever harness reported the command, the same :class:`~self_improve.events.ToolResult` at the
same time gives the same occurrence of the same ERR entry:

- the header names the program (``python3`` for ``cd x && python3 app.py``), else the
  Pattern-Key;
- Context holds the command line (whitespace collapsed, at most 200 characters) and its exit
  code, so a reader sees what failed without the transcript;
- the Error section holds the detector's excerpt;
- the occurrence is dated ``now`` (the watcher passes when the command ran; the hooks pass None:
  the store's clock) and counted in the result's session.

Everything goes through ``Store.log``, whose ``cleaned`` redacts every free-text field; the
command is redacted before it is quoted too, so its fence fits the text that is kept.
"""

from __future__ import annotations

from self_improve.errors import SelfImproveError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime
    from typing import Protocol

    from self_improve.events import ToolResult
    from self_improve.store.store import LogResult, Store

    class DetectionLike(Protocol):
        """What ``detect.classify.detect`` returns (and a test's stand-in)."""

        @property
        def pattern_key(self) -> str: ...
        @property
        def title(self) -> str: ...
        @property
        def excerpt(self) -> str: ...
        @property
        def fingerprint(self) -> str: ...

MAX_COMMAND_CHARS = 200


def record_detection(store: Store, detection: DetectionLike, result: ToolResult, now: datetime | None = None) -> LogResult | None:
    """Log one occurrence of ``detection``; None (nothing written) when ``hooks.record_errors``
    is off for this store."""
    from self_improve.detect.shell import program_name
    from self_improve.store.store import LogRequest

    if store.setting("hooks.record_errors") is False:
        return None
    request = LogRequest(
        kind="error",
        summary=detection.title,
        pattern_key=detection.fingerprint,
        category=program_name(result.command) or detection.pattern_key,
        details=command_context(result),
        session=result.session,
        excerpt=detection.excerpt,
        source="error",
        now=now,
        logged_by="hook",
    )
    try:
        return store.log(request)
    except SelfImproveError:
        # The cheap path stays first: only a failed log looks for a missing ERRORS.md.
        if not recreate_missing(store, "error"):
            raise
        return store.log(request)


def recreate_missing(store: Store, kind: str) -> bool:
    """Create ``kind``'s file with ``init``'s header when it is missing; True when it now exists.

    A deleted ERRORS.md would otherwise stop the recording silently while the nudges go on. The
    rules are ``init``'s: an ``O_EXCL`` create in the existing store, so nothing is overwritten,
    and a store that is not there (or not trusted) stays as it is.
    """
    from self_improve.store.entry import KINDS
    from self_improve.store.store import HEADERS
    from self_improve.store.trust import UntrustedStore

    name = KINDS[kind][1]
    try:
        if store.fs.is_file(name):
            return False  # the log failed for another reason: it is not ours to hide
        with store.lock():
            store.fs.create(name, HEADERS[kind].encode("utf-8"))
        return store.fs.is_file(name)
    except (OSError, UntrustedStore):
        return False


def command_context(result: ToolResult) -> str:
    """``Command: `make test` (exit 2)``, the command redacted; "" without a command."""
    from self_improve.store.store import clean_text

    command = " ".join(result.command.split())[:MAX_COMMAND_CHARS]
    if not command:
        return ""
    shown = clean_text(command)
    fence = "`` " if "`" in shown else "`"  # Markdown inline code: a backtick needs a longer fence
    code = "unknown" if result.exit_code is None else str(result.exit_code)
    return f"Command: {fence}{shown}{fence[::-1]} (exit {code})"


def quoted_command(context: str) -> str:
    """The command ``command_context`` quoted in an entry's Context section, or "": its reader."""
    for line in context.splitlines():
        if line.startswith("Command: "):
            quoted = line[len("Command: ") :].rsplit(" (exit ", 1)[0].strip()
            return quoted.strip("`").strip()
    return ""
