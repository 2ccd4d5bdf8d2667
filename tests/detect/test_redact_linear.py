"""self_improve.detect.redact on adversarial inputs: long runs of what each rule loops on.

Every rule is written to be linear (see redact_rules.py); these inputs are the ones that made
the old URL pattern take 7-12 s on one 40 KB line.  The test asserts the exact output; the
timings of the same inputs, against a baseline, are printed by bench/redaction.py.
"""

from __future__ import annotations

import pytest

from self_improve.detect.redact import find_secret, redact

N = 40_000

UNCHANGED = {
    "letters": "a" * N,
    "colons": "a:" * (N // 2),
    "scheme-then-run": "://" + "a" * N,
    "ats": "x@" * (N // 2),
    "equals": "=" * N,
    "assignments-without-key": "a=" * (N // 2),
    "keys-without-separator": "password " * (N // 9),
    "schemes-without-at": "https://a:" * (N // 10),
    "userinfo-without-scheme": "a:b@" * (N // 4),
    "pem-begin-without-label": "-----BEGIN " * (N // 11),
    "commands-without-flag": "mysql " * (N // 6),
    "command-args": "mysql -u x " * (N // 11),
    "curl-user-without-colon": "curl -u " * (N // 8),
    "netrc-without-password": "machine x " * (N // 10),
    "netrc-block-without-password": "machine x\n login y\n" * (N // 20),
    "github-prefixes": "ghp_" * (N // 4),
    "repeated-mixed": "Aa1/" * (N // 4),
    "dashes": "a-" * (N // 2),
    "digits-and-colons": "1234567:" * (N // 8),
    "escaped-quotes": '\\"' * (N // 2),
    "dots": "x." * (N // 2),
    "bearer-words": "Bearer " * (N // 7),
    "discord-prefix-then-dots": "M" + "a" * 25 + "." * N,
    "webhook-hosts": "hooks.slack.com/services/" * (N // 25),
    "sas-params": "&sig=" * (N // 5),
    "heroku-words": "heroku " * (N // 7),
    "spaces": " " * N,
    "newlines": "\n" * N,
    "base64-of-one-pattern": "A1b2" * (N // 4),
    "hex-of-one-digit": "0" * N,
}


@pytest.mark.parametrize("text", UNCHANGED.values(), ids=UNCHANGED.keys())
def test_adversarial_ordinary_runs_are_left_alone(text: str) -> None:
    assert redact(text) == text
    assert find_secret(text) is None


CHANGED = {
    # a value runs to the next blank: the whole rest of the run is the value
    "password-equals": ("password=" * (N // 9), "password=[REDACTED]"),
    # a PEM block without END line is hidden to the end of the text
    "pem-begin-repeated": ("-----BEGIN PRIVATE KEY-----" * (N // 27), "[REDACTED:private-key]"),
    # three dotted parts make a JWT; the fourth unit has no second part left
    "jwt-parts": ("eyJaaaaa." * 4444, "[REDACTED:jwt]." * 1481 + "eyJaaaaa."),
    # a quoted value ends at the next quote
    "quoted-token-values": ('token: "' * (N // 8), 'token: "[REDACTED]"' * (N // 16)),
    # each -p takes the next argument
    "sshpass-flags": ("sshpass -p " * 3636, "sshpass -p [REDACTED] -p " * 1818),
    "authorization-headers": ("Authorization: " * 2666, "Authorization: [REDACTED] " * 1333),
    "azure-secret-run": ("abc8Q~" * (N // 6), "[REDACTED:api-key]"),
}


@pytest.mark.parametrize(("text", "expected"), CHANGED.values(), ids=CHANGED.keys())
def test_adversarial_runs_with_secret_shapes(text: str, expected: str) -> None:
    assert redact(text) == expected
    assert redact(expected) == expected


def test_a_window_reads_a_bounded_neighbourhood() -> None:
    # A secret 10 KB before the window cannot matter to it, and is not looked for.
    text = "token=" + "Zq9" * 20 + " " + "word " * 2000 + "tail"
    window = (len(text) - 4, len(text))
    assert redact(text, window=window) == "tail"
