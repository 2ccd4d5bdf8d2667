"""``self-improve report --html FILE [--since DATE] [--by week|day] [--force]``: the learning curve
as one self-contained HTML page (``review/report_html.py``): the curve as an SVG chart, the top
recurring mistakes, each promoted rule's efficacy.

FILE is written atomically (a temporary file, then a rename: a reader never sees half a page).
An existing FILE is replaced only when it is a page this verb wrote (its ``<meta
name="generator" content="self-improve report">``) or with ``--force``: a demanding user does
not expect ``report`` to eat a file of theirs that happens to have that name. A link at FILE is
refused either way (we would replace the link, not what it points to). The page is a pure
function of the store and the day (``--today``/``SELF_IMPROVE_TODAY``): the same bytes for the
same store.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from self_improve.atomic import UnsafeFile, atomic_write
from self_improve.commands._common import add_hidden_test_flags, since_day, store_from, today_from
from self_improve.errors import SelfImproveError, UsageError
from self_improve.review.curve import BY, top_recurring
from self_improve.review.curve_text import curve_of, load
from self_improve.review.efficacy import efficacy
from self_improve.review.report_html import GENERATOR, render_page

SNIFF_BYTES = 4096  # our generator tag sits in the page's first lines


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "report",
        help="write the learning curve, top recurring mistakes and rule efficacy as one HTML page",
        epilog="examples:\n"
        "  self-improve report --html report.html\n"
        "  self-improve report --html /tmp/curve.html --since 2026-01-05 --by day",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--html", metavar="FILE", required=True, help="the page to write (self-contained: no external file)")
    parser.add_argument("--since", metavar="YYYY-MM-DD", type=since_day, default=None,
                        help="first day of the curve (inclusive; default: 12 weeks, or 28 days with --by day)")
    parser.add_argument("--by", choices=BY, default="week", help="one bar per ISO week (Monday start, the default) or per day")
    parser.add_argument("--force", action="store_true", help="replace FILE even when it is not a page report wrote")
    add_hidden_test_flags(parser)
    parser.set_defaults(func=run)


def _ours(path: Path) -> bool:
    try:
        with open(path, "rb") as handle:
            head = handle.read(SNIFF_BYTES)
    except OSError:
        return False
    return f'<meta name="generator" content="{GENERATOR}">'.encode() in head


def check_target(path: Path, force: bool) -> None:
    """Refuse a FILE we must not replace (module doc); nothing is written before this."""
    if path.is_symlink():
        raise SelfImproveError(f"{path} is a symbolic link: give the path of the page itself")
    if path.is_dir():
        raise SelfImproveError(f"{path} is a directory: give a file name, e.g. {path / 'report.html'}")
    if path.exists() and not force and not _ours(path):
        raise SelfImproveError(f"{path} exists and is not a page of self-improve report: pass --force to replace it")
    if not path.parent.is_dir():
        raise SelfImproveError(f"{path.parent} is not a directory: create it first")


def run(args: argparse.Namespace) -> int:
    today = today_from(args)
    if args.since is not None and args.since > today:
        raise UsageError(f"--since {args.since.isoformat()} is after today ({today.isoformat()})")
    path = Path(args.html)
    check_target(path, args.force)
    store = store_from(args)
    data = load(store)
    curve = curve_of(data, args.since, args.by, today)
    page = render_page(
        store.root.resolve().name,
        curve,
        top_recurring(data.entries, curve.since, today),
        [item.as_json() for item in efficacy(data.entries, data.archived)],
    )
    try:
        atomic_write(path, page.encode("utf-8", "surrogateescape"))
    except UnsafeFile:
        raise SelfImproveError(f"{path} is a symbolic link or not a regular file: nothing written") from None
    except OSError as exc:
        raise SelfImproveError(f"cannot write {path}: {exc.strerror or exc}") from None
    periods = len(curve.periods)
    print(f"wrote {os.fspath(path)}: {periods} {args.by}{'s' if periods != 1 else ''} from {curve.since.isoformat()} to {today.isoformat()}")
    return 0
