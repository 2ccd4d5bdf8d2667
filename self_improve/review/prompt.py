"""The ``[e]dit`` question of the interactive review: a line of text that starts as the current
rule, so a person fixes a word instead of retyping the rule.

The plain question is the caller's (``commands/_common.ask``, passed in: review sits below the
commands and may not import them).
"""

from __future__ import annotations

import sys
from collections.abc import Callable

Ask = Callable[[str], "str | None"]


def ask_prefilled(ask: Ask, prompt: str, current: str) -> str | None:
    """A line of text whose input starts as ``current``, ready to edit (None at end of input).

    Pre-filling needs readline and a terminal. Off a terminal (scripted answers, the goldens)
    the question is asked as before, so a transcript reads the same. Without readline (Windows)
    the current value is shown, and an empty answer keeps it.
    """
    if not current or not sys.stdin.isatty():
        return ask(prompt)
    try:
        import readline
    except ImportError:
        indent = prompt[: len(prompt) - len(prompt.lstrip())]
        print(f"{indent}current: {current}")
        answer = ask(f"{prompt.rstrip()} (empty keeps it) ")
        return current if answer == "" else answer
    readline.set_startup_hook(lambda: readline.insert_text(current))
    try:
        return input(prompt).strip()  # input(), not ask(): readline edits only input()'s line
    except EOFError:
        sys.stdout.write("\n")
        return None
    finally:
        readline.set_startup_hook()  # the next question starts empty
