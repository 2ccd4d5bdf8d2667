"""``self-improve lint [--fix [--dry-run] [--yes]]``: report problems as file:line, reason and
hint; exit 1 if any.

What it reports is ``review/problems.py``:

- what is really wrong in the learnings files (``store/lint.py``): duplicate IDs, leftover
  template entries, IDs that are no IDs, text that is not UTF-8, headers that are not the
  reference form, cut-off headers, unclosed code fences, values the reader cannot understand;
- git conflict markers left in any ``.learnings/`` Markdown file (the archive too);
- drift between the managed rule blocks and the store (``review/drift.py``): a block edited by
  hand, a bullet whose entry is unknown or not promoted, a promoted entry without its bullet,
  damaged markers. ``self-improve review`` offers to reconcile all but the last.

Plain ``lint`` never writes. ``--fix`` rewrites near-miss headers to the reference form
(``store/header_fix.py``), and only those lines: it prints the diff first, then applies it with
``--yes`` or a yes on a terminal; ``--dry-run`` only prints it. Then it reports what is left.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace

from self_improve.changes import unified_diff
from self_improve.commands._common import add_hidden_test_flags, add_json_flag, add_scope_flag, confirm, is_interactive, scope_suffix, shown_path, store_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.output import display_text, print_json
from self_improve.store.entry import KINDS, parse_text
from self_improve.store.header_fix import fix_headers
from self_improve.store.store import Store


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lint", help="report malformed entries, conflict markers and rule drift (--fix rewrites near-miss headers)",
        epilog="examples:\n"
        "  self-improve lint\n"
        "  self-improve lint --json",
    )
    add_json_flag(parser)
    parser.add_argument("--fix", action="store_true", help="rewrite near-miss headers (## ID, ### [ID], dated) to ## [ID] title, "
                        "showing the diff first")
    parser.add_argument("--dry-run", action="store_true", help="with --fix: print the diff and change nothing")
    parser.add_argument("--yes", action="store_true", help="with --fix: apply the diff without asking")
    add_scope_flag(parser)
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from self_improve.review.problems import drift_problems, store_problems

    store = store_from(args)
    if args.fix and args.json:
        raise UsageError("--fix shows a diff: run it without --json")
    if args.fix:
        fixed = fix(store, args)
        if fixed is not None:
            return fixed
    elif args.dry_run or args.yes:
        raise UsageError("--dry-run and --yes go with --fix")
    problems = store_problems(store) + drift_problems(store)
    if args.json:
        print_json([problem.as_json() for problem in problems])
    else:
        for problem in problems:
            # The user store's files are named from ~ (``~/.local/share/self-improve/LEARNINGS.md:9``).
            shown = replace(problem, file=shown_path(store, store.root / problem.file)) if store.scope == "user" else problem
            print(display_text(shown.render()))
        if not problems:
            print("no problems")
    return 1 if problems else 0


def planned_fixes(store: Store) -> list[tuple[str, str, str, int]]:
    """Per store file that changes: (its name in the store, its text, the fixed text, headers fixed)."""
    out = []
    for prefix, file_name in KINDS.values():
        text = store.read_file(file_name)
        if not text:
            continue
        fixed, fixes = fix_headers(parse_text(text, file=file_name), prefix)
        if fixes:
            out.append((file_name, text, fixed.render(), len(fixes)))
    return out


def fix(store: Store, args: argparse.Namespace) -> int | None:
    """Show the diff, then apply it when approved; the exit code when lint should stop here."""
    store._require()
    planned = planned_fixes(store)
    if not planned:
        if not args.json:
            print("no header to fix")
        return None
    for name, before, after, _ in planned:
        sys.stdout.write(display_text(unified_diff(before, after, store.relative(store.dir / name))))
    if args.dry_run:
        print("(dry run: nothing was written)")
        return 0
    if not args.yes:
        if not is_interactive(args):
            how = f"self-improve lint --fix --yes{scope_suffix(store)}"
            raise SelfImproveError(f"lint --fix changes files: read the diff above, then run `{how}` (nothing changed)")
        if not confirm("Rewrite these headers?"):
            raise SelfImproveError("cancelled: nothing changed")
    with store.lock():
        for name, before, _, _ in planned:
            if store.read_file(name) != before:
                raise SelfImproveError(f"{shown_path(store, store.dir / name)} changed meanwhile: run `self-improve lint --fix` again (nothing changed)")
        for name, _, after, count in planned:
            store.write_file(name, after)
            print(f"rewrote {count} header{'s' if count != 1 else ''} in {shown_path(store, store.dir / name)}")
    return None
