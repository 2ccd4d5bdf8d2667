"""The hot path: what runs on every prompt and every Bash call.

Contract (shared/claude-code/README.md): read the harness's stdin JSON, print at most one small
block, exit 0. Never exit 2 (it erases the user's prompt), never crash, never be slow. Any failure
goes to a debug log (stderr too with ``SELF_IMPROVE_DEBUG=1``) and the hook prints nothing.

Only projects that ran ``self-improve init`` take part: without ``.learnings/`` both hooks print
and write nothing, unless the user-level config sets ``hooks.enabled_without_learnings``.

Imports are kept to the standard library and made lazily, so a successful command costs little
more than the interpreter's own start-up.

Bounded on any input (``hook_budget``): at most ``MAX_PARSED_BYTES`` of stdin are kept (the rest
is drained and dropped), and the whole call has a deadline, after which it gives up silently.
"""

from __future__ import annotations

import os
import sys
import time

from self_improve.hooks import state as hook_state
from self_improve.hooks.budget import BUDGET, DEADLINE_SECONDS, MAX_PARSED_BYTES, DeadlineExceeded, read_capped

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs milliseconds the hooks do not have
    from typing import Any

    from self_improve.events import Prompt, ToolResult

# ---- entry points ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run(args[0] if args else "")


def run(name: str) -> int:
    """Run one hook on stdin within its budget (``hook_budget``): always 0, output whole or none."""
    started = time.perf_counter()
    BUDGET.arm()
    try:
        _run_within_budget(name)
    except DeadlineExceeded:  # fired while a failure was being reported: that report stands
        pass
    finally:
        BUDGET.disarm()
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(f"self-improve hook {name}: {1000 * (time.perf_counter() - started):.1f} ms\n")
    return 0


def _run_within_budget(name: str) -> None:
    try:
        output = _answer(name)
        BUDGET.disarm()  # from here nothing interrupts us: the output is written whole, or not at all
        if BUDGET.expired:
            raise DeadlineExceeded(BUDGET.stage)
        if output:
            sys.stdout.write(output)
            sys.stdout.write("\n")
            sys.stdout.flush()
    except DeadlineExceeded as exc:
        BUDGET.disarm()
        debug(f"{name}: gave up after the {DEADLINE_TEXT} deadline, while {exc}; printed nothing")
    except BaseException as exc:  # noqa: BLE001 - the contract is: never fail the session
        BUDGET.disarm()
        if not isinstance(exc, KeyboardInterrupt):
            debug(f"{name}: {type(exc).__name__}: {exc}", exc)


def _answer(name: str) -> str:
    handler = HANDLERS.get(name)
    if handler is None:
        debug(f"unknown hook {name!r}")
        return ""
    payload = read_payload(sys.stdin.buffer, name)
    if payload is None:
        return ""
    BUDGET.stage = f"running {name}"
    return handler(payload)


def read_payload(stream: Any, name: str = "hook") -> dict[str, Any] | None:
    """The payload's JSON object, or None. Past ``MAX_PARSED_BYTES`` nothing is kept or parsed
    (one debug line): the rest of stdin is drained and dropped."""
    raw, size = read_capped(stream)
    if raw is None:
        debug(f"{name}: payload over {MAX_PARSED_BYTES >> 20} MiB ({size} bytes); ignored, printed nothing")
        return None
    if not raw:
        return None
    BUDGET.stage = "parsing the payload"
    payload = parse_json(raw.decode("utf-8", "replace"))
    return payload if isinstance(payload, dict) else None


DEADLINE_TEXT = f"{DEADLINE_SECONDS:g} s"


class _ScannerContext:
    """What ``_json.make_scanner`` reads from a decoder: the same settings as ``json.loads``."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    memo: dict[str, Any] = {}

    @staticmethod
    def parse_constant(name: str) -> float:
        return float(name.replace("Infinity", "inf"))


_WHITESPACE = " \t\n\r"


def parse_json(text: str) -> Any:
    """``json.loads`` without importing ``json``: its ``re`` import alone would cost ~6 ms.

    The C scanner behind ``json`` parses the whole document; None for anything that is not
    exactly one JSON value.
    """
    try:
        import _json

        scan = _json.make_scanner(_ScannerContext())
    except (ImportError, AttributeError, TypeError):
        try:
            return json_module().loads(text)
        except ValueError:
            return None
    start = len(text) - len(text.lstrip(_WHITESPACE))
    try:
        value, end = scan(text, start)
    except (StopIteration, ValueError, RecursionError):
        return None
    if text[end:].strip(_WHITESPACE):
        return None
    return value


def json_module() -> Any:
    import json

    return json


# ---- adapters ------------------------------------------------------------------------------------


def tool_result_from(payload: dict[str, Any]) -> tuple[str, ToolResult] | None:
    """(harness event name, result) from whichever harness sent the payload.

    Codex first: its PostToolUse payload also fits Claude's shape, but carries the output as a
    plain string that Claude's parser would read as an empty, successful result.
    """
    from self_improve.harnesses.claude import adapter as claude
    from self_improve.harnesses.codex import adapter as codex

    if codex.matches(payload):
        result = codex.parse_tool_result(payload)
        return (str(payload.get("hook_event_name") or "PostToolUse"), result) if result is not None else None
    result = claude.parse_tool_result(payload)
    return (str(payload.get("hook_event_name")), result) if result is not None else None


def prompt_from(payload: dict[str, Any]) -> Prompt | None:
    from self_improve.harnesses.claude import adapter as claude
    from self_improve.harnesses.codex import adapter as codex

    if codex.matches(payload):
        return codex.parse_prompt(payload)
    return claude.parse_prompt(payload)


def format_context(event: str, text: str) -> str:
    from self_improve.harnesses.claude import adapter as claude

    return claude.format_context(event, text)


# ---- post-bash -----------------------------------------------------------------------------------


def post_bash(payload: dict[str, Any]) -> str:
    found = tool_result_from(payload)
    if found is None:
        return ""
    event, result = found
    context = hook_state.Context.for_cwd(result.cwd, result.session)
    if context is None:
        return ""
    with BUDGET.critical("remembering the session"):
        context.remember_session()
    overrides = context.detect_overrides()
    if overrides is None:
        from self_improve.detect.prescreen import clearly_clean

        if clearly_clean(result.output, result.exit_code, result.interrupted):
            return ""
    from self_improve.detect.classify import detect, load_rules

    BUDGET.stage = "detecting"
    detection = detect(result, load_rules(overrides))
    _report_pattern_timeouts()
    if detection is None:
        return ""
    try:
        with BUDGET.critical(f"recording {detection.pattern_key}"):
            seen = context.record_error(detection, result)
    except Exception as exc:  # noqa: BLE001 - a store we cannot write must not cost the nudge
        debug(f"post-bash: could not record {detection.pattern_key}: {type(exc).__name__}: {exc}", exc)
        seen = hook_state.Seen(0, 0, None)
    try:
        with BUDGET.critical("counting the nudge"):
            context.note_error_nudge(recall=seen.fix is not None)
    except Exception as exc:  # noqa: BLE001 - counters are best effort
        debug(f"post-bash: could not count the nudge: {type(exc).__name__}: {exc}", exc)
    return format_context(event, render_error_nudge(detection.pattern_key, detection.title, seen))


def _report_pattern_timeouts() -> None:
    """One debug line per ``[detect]`` pattern that ran out of time (``detect.user_patterns``)."""
    patterns = sys.modules.get("self_improve.detect.user_patterns")
    if patterns is not None:
        for line in patterns.take_timeouts():
            debug(f"post-bash: {line}")


def render_error_nudge(pattern_key: str, title: str, seen: hook_state.Seen) -> str:
    """Our words, the Pattern-Key and sanitised store text only (``sanitise``): raw tool output
    is untrusted and never injected, and a store's text is somebody else's."""
    from self_improve.detect import sanitise

    pattern_key, title = sanitise.inline(pattern_key, 80), sanitise.inline(title, 120)
    history = ""
    if seen.count > 1:
        history = f" Seen {seen.count}x in {seen.sessions} session(s)."
    elif seen.count == 1:
        history = " First time here."
    if seen.fix is not None:
        logged = f" logged {seen.fix.logged}" if seen.fix.logged else ""
        return (
            f"<error-detected>\n{pattern_key}: {title}.{history}\n"
            f"Known fix (from {seen.fix.entry_id}{logged} in this repo): {seen.fix.text}\n</error-detected>"
        )
    return (
        f"<error-detected>\n{pattern_key}: {title}.{history}\n"
        f"Once fixed, record the fix:\n"
        f'self-improve log error --pattern-key {pattern_key} --action "<fix>" "<one-line summary>"\n'
        f"</error-detected>"
    )


# ---- prompt-submit -------------------------------------------------------------------------------

REMINDER = (
    "<self-improvement-reminder>\n"
    "Before finishing: non-obvious solution discovered? Workaround for unexpected behaviour? "
    "Project-specific pattern learned? Error that needed debugging?\n"
    'If so: self-improve log learning --action "<do X, not Y>" "<one-line summary>"\n'
    "</self-improvement-reminder>"
)
CORRECTION_NUDGE = (
    "<correction-detected>\n"
    "The user seems to be correcting you. Once you have it right, record it in the user's own words:\n"
    'self-improve log learning --category correction --pattern-key <area.topic> --action "<do X, not Y>" "<what the user said>"\n'
    "</correction-detected>"
)


def prompt_submit(payload: dict[str, Any]) -> str:
    prompt = prompt_from(payload)
    if prompt is None:
        return ""
    context = hook_state.Context.for_cwd(prompt.cwd, prompt.session)
    if context is None:
        return ""
    with BUDGET.critical("remembering the session"):
        context.remember_session()
    from self_improve.detect.corrections import detect_correction

    correction = detect_correction(prompt)
    with BUDGET.critical("counting the prompt"):
        decision = context.on_prompt(correction=correction is not None)
    blocks = []
    if correction is not None:
        blocks.append(CORRECTION_NUDGE)
    elif decision.remind:
        blocks.append(REMINDER)
    return "\n".join(blocks)


HANDLERS = {"post-bash": post_bash, "prompt-submit": prompt_submit}


# ---- debug log -----------------------------------------------------------------------------------


def debug(message: str, exc: BaseException | None = None) -> None:
    """One line in the debug log; never raises."""
    line = f"{time.strftime('%Y-%m-%dT%H:%M:%S')} pid={os.getpid()} {message}\n"
    try:
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(line)
            if exc is not None:
                import traceback

                traceback.print_exception(exc, file=sys.stderr)
        path = hook_state.debug_log_path()
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "a", encoding="utf-8", errors="replace") as handle:
            handle.write(line)
    except BaseException:  # noqa: BLE001
        pass


if __name__ == "__main__":
    sys.exit(main())

