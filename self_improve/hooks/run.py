"""The hot path: what runs on every prompt and every Bash call.

Contract (shared/claude-code/README.md): read the harness's stdin JSON, print at most one small
block, exit 0. Never exit 2 (it erases the user's prompt), never crash, never be slow. Any failure
goes to a debug log (stderr too with ``SELF_IMPROVE_DEBUG=1``) and the hook prints nothing.

Only projects that ran ``self-improve init`` take part: without ``.learnings/`` both hooks print
and write nothing, unless the user-level config sets ``hooks.enabled_without_learnings``.

Bounded on any input (``hook_budget``): at most ``MAX_PARSED_BYTES`` of stdin are kept (the rest
is drained and dropped), and the whole call has a deadline, after which it gives up silently.

What a call printed for the model is journaled once it is out (``hooks/journal``, read back by
``self-improve stats --injected``).
"""

from __future__ import annotations

import os
import sys
import time

from self_improve.harnesses.registry import hook_adapter_for
from self_improve.hooks import state as hook_state
from self_improve.hooks.budget import BUDGET, DEADLINE_SECONDS, DeadlineExceeded, read_payload

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def debug(message: str, exc: BaseException | None = None) -> None:
    """``hooks.debug.debug``, imported only when there is something to log."""
    from self_improve.hooks import debug as log

    log.debug(message, exc)


# ---- entry points ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run(args[0] if args else "")


def run_script() -> None:
    """What ``hooks/entry.py`` runs: :func:`main`, then stdout and stderr flushed here, whatever
    happened. The script leaves through ``os._exit``: a stdout the harness already closed must
    fail this flush, not the interpreter's own final one (which would exit 120)."""
    try:
        main()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001 - the output is the harness's to lose, the exit status is ours
                pass


def run(name: str) -> int:
    """Run one hook on stdin within its budget (``hook_budget``): always 0, output whole or none."""
    started = time.perf_counter()
    printed = False
    BUDGET.arm()
    try:
        printed = _run_within_budget(name)
    except DeadlineExceeded:  # fired while a failure was being reported: that report stands
        pass
    finally:
        BUDGET.disarm()
        _journal(name, printed)
        _keep_compiled_patterns()
        if os.environ.get("SELF_IMPROVE_DEBUG") == "1":
            sys.stderr.write(f"self-improve hook {name}: {1000 * (time.perf_counter() - started):.1f} ms\n")
    return 0


def _keep_compiled_patterns() -> None:
    """What this call had to derive, kept in the cache dir for the next one: the regex programs it
    compiled (``rx.save``) and the redaction rules' needles (``redact.save_gates``). After the
    output, and only from the modules this call loaded. (The CLI writes none of it: ``review``
    must leave the user's folders as they were.)"""
    for module, function in (("self_improve.rx", "save"), ("self_improve.detect.redact", "save_gates")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            try:
                getattr(loaded, function)()
            except Exception as exc:  # noqa: BLE001 - a cache is best effort
                debug(f"could not keep {module}'s cache: {type(exc).__name__}: {exc}", exc)


def _journal(name: str, printed: bool) -> None:
    """What this call printed for the model, in the journal (``hooks/journal``), once it is out.
    Loaded only by a handler that had something to inject (``_injecting``)."""
    journal = sys.modules.get("self_improve.hooks.journal")
    if journal is not None:
        journal.flush(name, printed)


def _injecting(context: hook_state.Context, harness: str, block: str) -> str:
    """``block``, noted as what this call injects: journaled after it is printed (``_journal``)."""
    from self_improve.hooks import journal

    return journal.note(context, harness, block)


def _run_within_budget(name: str) -> bool:
    """Whether the call printed something."""
    try:
        output = _answer(name)
        BUDGET.disarm()  # from here nothing interrupts us: the output is written whole, or not at all
        if BUDGET.expired:
            raise DeadlineExceeded(BUDGET.stage)
        if output:
            sys.stdout.write(output)
            sys.stdout.write("\n")
            sys.stdout.flush()
            return True
    except DeadlineExceeded as exc:
        BUDGET.disarm()
        debug(f"{name}: gave up after the {DEADLINE_TEXT} deadline, while {exc}; printed nothing")
    except BaseException as exc:  # noqa: BLE001 - the contract is: never fail the session
        BUDGET.disarm()
        if not isinstance(exc, KeyboardInterrupt):
            debug(f"{name}: {type(exc).__name__}: {exc}", exc)
    return False


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


DEADLINE_TEXT = f"{DEADLINE_SECONDS:g} s"


def _context(cwd: str, session: str) -> hook_state.Context | None:
    """The project this event belongs to, if it takes part; its session remembered."""
    context = hook_state.Context.for_cwd(cwd, session)
    if context is not None:
        with BUDGET.critical("remembering the session"):
            context.remember_session()
    return context


# ---- post-bash -----------------------------------------------------------------------------------


def post_bash(payload: dict[str, Any]) -> str:
    adapter = hook_adapter_for(payload)
    result = adapter.parse_tool_result(payload)
    context = _context(result.cwd, result.session) if result is not None else None
    if result is None or context is None:
        return ""
    from self_improve.hooks.record import record_result

    recorded = record_result(context, result)  # the step ``self-improve scan`` shares (hooks/record.py)
    if recorded is None:
        return ""
    detection, seen = recorded
    nudge = render_error_nudge(detection.fingerprint, detection.title, seen)
    return adapter.format_context(adapter.tool_event(payload), _injecting(context, adapter.NAME, nudge))


def known_fix_line(fix: hook_state.Fix) -> str:
    """``Known fix (from ID logged DAY in this repo): TEXT``: the same line after a failure and
    before a command (the fix's fields are sanitised already: ``Context.known_fix``)."""
    logged = f" logged {fix.logged}" if fix.logged else ""
    return f"Known fix (from {fix.entry_id}{logged} in this repo): {fix.text}"


def render_error_nudge(fingerprint: str, title: str, seen: hook_state.Seen) -> str:
    """Our words, the fingerprint and sanitised store text only (``sanitise``): raw tool output
    is untrusted and never injected, and a store's text is somebody else's. The fingerprint's
    subject passed ``subjects.safe`` (a short string of ``[A-Za-z0-9._:/@+-]``), so the printed
    command carries it unquoted and lands on the entry the hook just wrote."""
    from self_improve.detect import sanitise
    from self_improve.detect.subjects import describe

    fingerprint, title = sanitise.inline(fingerprint, 120), sanitise.inline(title, 120)
    named = describe(fingerprint)
    history = ""
    if seen.count > 1:
        history = f" Seen {seen.count}x in {seen.sessions} session(s)."
    elif seen.count == 1:
        history = " First time here."
    if seen.fix is not None:
        return f"<error-detected>\n{named}: {title}.{history}\n{known_fix_line(seen.fix)}\n</error-detected>"
    return runnable(
        f"<error-detected>\n{named}: {title}.{history}\n"
        f"Once fixed, record the fix:\n"
        f'self-improve log error --pattern-key {fingerprint} --action "<fix>" "<one-line summary>"\n'
        f"</error-detected>"
    )


def runnable(block: str) -> str:
    """``block`` (one of our own templates, never store text) with each ``self-improve log`` and
    ``self-improve keys`` command spelled so that the agent's shell can run it as printed
    (``paths.cli_invocation``)."""
    from self_improve.paths import CLI_NAME, cli_invocation

    cli = cli_invocation()
    if cli == CLI_NAME:
        return block
    return block.replace(f"{CLI_NAME} log ", f"{cli} log ").replace(f"{CLI_NAME} keys", f"{cli} keys")


# ---- pre-bash ------------------------------------------------------------------------------------


def pre_bash(payload: dict[str, Any]) -> str:
    """Before a Bash command: the one known fix of a mistake this command made before and has not
    passed since (``hooks/credit.prevention``), as context. It never denies and never rewrites."""
    adapter = hook_adapter_for(payload)
    call = adapter.parse_tool_call(payload)
    context = hook_state.Context.for_cwd(call.cwd, call.session) if call is not None else None
    if call is None or context is None:
        return ""
    from self_improve.hooks.credit import prevention

    BUDGET.stage = "looking for a known fix"
    found = prevention(context, call)
    if found is None:
        return ""
    fingerprint, fix = found
    try:
        with BUDGET.critical("counting the prevention"):
            context.bump("preventions")
    except Exception as exc:  # noqa: BLE001 - counters are best effort
        debug(f"pre-bash: could not count the prevention: {type(exc).__name__}: {exc}", exc)
    block = render_prevention(fingerprint, fix)
    return adapter.format_context(adapter.tool_event(payload), _injecting(context, adapter.NAME, block))


def render_prevention(fingerprint: str, fix: hook_state.Fix) -> str:
    """Our words, the fingerprint (``subjects.safe``) and the sanitised fix only."""
    from self_improve.detect import sanitise
    from self_improve.detect.subjects import describe

    named = describe(sanitise.inline(fingerprint, 120))
    return f"<known-fix>\nThis command failed here before: {named}.\n{known_fix_line(fix)}\n</known-fix>"


# ---- prompt-submit -------------------------------------------------------------------------------

REMINDER = (
    "<self-improvement-reminder>\n"
    "Before finishing: non-obvious solution discovered? Workaround for unexpected behaviour? "
    "Project-specific pattern learned? Error that needed debugging?\n"
    'If so: self-improve log learning --pattern-key <self-improve keys, or new> --action "<do X, not Y>" "<summary>"\n'
    "</self-improvement-reminder>"
)
CORRECTION_NUDGE = (
    "<correction-detected>\n"
    "The user seems to be correcting you. Once you have it right, record it in the user's own words "
    "(reuse a fitting key: `self-improve keys`):\n"
    'self-improve log learning --category correction --pattern-key <area.topic> --action "<do X, not Y>" "<what the user said>"\n'
    "</correction-detected>"
)


def prompt_submit(payload: dict[str, Any]) -> str:
    adapter = hook_adapter_for(payload)
    prompt = adapter.parse_prompt(payload)
    context = _context(prompt.cwd, prompt.session) if prompt is not None else None
    if prompt is None or context is None:
        return ""
    from self_improve.detect.corrections import detect_correction

    correction = detect_correction(prompt)
    with BUDGET.critical("counting the prompt"):
        decision = context.on_prompt(correction=correction is not None)
    blocks = []
    if decision.first:
        block = _open_mistakes_block(context)
        if block:
            blocks.append(block)
    if correction is not None:
        try:  # kept until a lesson is logged for it, should the agent ignore the nudge
            context.queue_correction(correction, prompt.text)
        except Exception as exc:  # noqa: BLE001 - a queue we cannot write must not cost the nudge
            debug(f"prompt-submit: could not queue the correction: {type(exc).__name__}: {exc}", exc)
        blocks.append(runnable(CORRECTION_NUDGE))
    elif decision.remind:
        blocks.append(runnable(REMINDER))
    return _injecting(context, adapter.NAME, "\n".join(blocks)) if blocks else ""


def _open_mistakes_block(context: hook_state.Context) -> str:
    """The session's first prompt: the known fixes of commands that failed here and have not
    passed since (``hooks/credit.open_mistakes``), before the agent runs any of them. Claude
    Code shows a PreToolUse hook's context only after the command ran, so this is the one place
    where a known fix reaches the model before the command."""
    from self_improve.hooks.credit import open_mistakes

    try:
        found = open_mistakes(context)
    except Exception as exc:  # noqa: BLE001 - the prompt's own nudges stand without it
        debug(f"prompt-submit: could not read the open mistakes: {type(exc).__name__}: {exc}", exc)
        return ""
    if not found:
        return ""
    from self_improve.detect import sanitise
    from self_improve.detect.subjects import describe

    lines = [f"- {describe(sanitise.inline(fingerprint, 120))}: {known_fix_line(fix)}" for fingerprint, fix in found]
    try:
        with BUDGET.critical("counting the prevention"):
            context.bump("preventions", len(found))
    except Exception as exc:  # noqa: BLE001 - counters are best effort
        debug(f"prompt-submit: could not count the preventions: {type(exc).__name__}: {exc}", exc)
    return "<known-mistakes>\nCommands that failed in this project before and have not passed since:\n" + "\n".join(lines) + "\n</known-mistakes>"


def session_ready(payload: dict[str, Any]) -> str:
    from self_improve.hooks.ready import session_ready as answer  # once a session: off the tool path

    return answer(payload)


HANDLERS = {"post-bash": post_bash, "pre-bash": pre_bash, "prompt-submit": prompt_submit, "session-ready": session_ready}


if __name__ == "__main__":
    sys.exit(main())

