"""The two ways a CLI verb fails on purpose; ``main`` turns them into one line and an exit code."""

from __future__ import annotations


class SelfImproveError(Exception):
    """A failure the user can act on: printed as one line on stderr, exit 1."""

    exit_code = 1


class UsageError(SelfImproveError):
    """The call's words are wrong: exit 2, like argparse."""

    exit_code = 2
