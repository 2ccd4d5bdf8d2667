"""Strip secrets from text before it is stored.

    def redact(text: str) -> str

Every secret is replaced by ``[REDACTED]`` (a value whose key told us it is secret) or
``[REDACTED:kind]`` (a value whose shape told us: ``private-key``, ``github-token``,
``slack-token``, ``aws-key``, ``api-key``, ``jwt``, ``hex``, ``base64``).  Forms covered:

- assignments to secret-looking keys: ``API_KEY=…``, ``token: …``, ``"password": "…"``,
  ``export GITHUB_TOKEN=…``, ``--password=…``, ``--token …``;
- ``Authorization:`` headers and ``Bearer …`` tokens;
- credentials in URLs: ``scheme://user:[REDACTED]@host`` (the user name is kept);
- PEM private-key blocks (to the end of the text when the END line is missing);
- GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), Slack (xoxa-, xoxb-, xoxp-, xoxr-, xoxs-),
  AWS access key ids (AKIA…, ASIA…), OpenAI/Stripe-style ``sk-``/``sk_live_`` keys, npm and
  GitLab tokens, JWTs (eyJ….….…);
- long blobs: hex of 32+ digits, base64 of 40+ characters mixing upper case, lower case and
  digits (a long lower-case path or identifier is not a secret).

``redact`` is idempotent and never raises.  Patterns are compiled on first use.
"""

from __future__ import annotations

import re
from functools import lru_cache

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hooks import this module: keep collections.abc's import off the hot path
    from collections.abc import Callable

REDACTED = "[REDACTED]"

_SECRET_KEY = (
    r"(?:api[_-]?key|apikey|access[_-]?key|secret[_-]?key|secret|token|passwd|password|passphrase"
    r"|private[_-]?key|client[_-]?secret|credentials?)"
)


def _tag(kind: str) -> str:
    return f"[REDACTED:{kind}]"


def _assignment(match: re.Match[str]) -> str:
    """Keep the key, the separator and the quotes; hide the value."""
    key, separator = match.group("key"), match.group("sep")
    if match.group("dq") is not None:
        return f'{key}{separator}"{REDACTED}"'
    if match.group("sq") is not None:
        return f"{key}{separator}'{REDACTED}'"
    return f"{key}{separator}{REDACTED}"


def _base64(match: re.Match[str]) -> str:
    """Only blobs that look random: several upper-case letters, lower-case letters and digits,
    one base64 alphabet (not both "+/" and "-_", as in a dated path), and not a path."""
    blob = match.group(0).rstrip("=")
    standard, url_safe = any(c in "+/" for c in blob), any(c in "-_" for c in blob)
    if (
        sum(c.isdigit() for c in blob) >= 2
        and sum(c.isupper() for c in blob) >= 3
        and sum(c.islower() for c in blob) >= 3
        and not (standard and url_safe)
        and blob.count("/") * 16 <= len(blob)
    ):
        return _tag("base64")
    return match.group(0)


Replacement = "str | Callable[[re.Match[str]], str]"  # a string: evaluating it would need collections.abc


@lru_cache(maxsize=1)
def _rules() -> tuple[tuple[re.Pattern[str], Replacement], ...]:
    """(pattern, replacement), in order: context-named secrets first (so that a token assigned
    to a key becomes plain [REDACTED]), shapes after, the loosest (hex, base64) last."""
    raw: list[tuple[str, Replacement, int]] = [
        (r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z0-9 ]*PRIVATE KEY-----|\Z)",
         _tag("private-key"), 0),
        (r"\b([a-z][a-z0-9+.-]*://)([^/\s:@\[\]]+):([^/\s@]+)@", rf"\1\2:{REDACTED}@", re.I),
        (r"\b((?:proxy-)?authorization[\"']?[ \t]*[:=][ \t]*[\"']?)(?:(basic|bearer|token|digest|negotiate)[ \t]+)?"
         r"[^\s\"',;]+", lambda m: f"{m.group(1)}{m.group(2) + ' ' if m.group(2) else ''}{REDACTED}", re.I),
        (r"\b(bearer)[ \t]+[A-Za-z0-9._~+/-]{8,}=*", rf"\1 {REDACTED}", re.I),
        (rf"(?<![A-Za-z0-9_.-])(?P<key>[A-Za-z0-9_.-]*?{_SECRET_KEY}[\"']?)"
         r"(?P<sep>[ \t]*(?:=>|[:=])[ \t]*)"
         r"(?!\[REDACTED)(?:\"(?P<dq>[^\"\n]+)\"|'(?P<sq>[^'\n]+)'|(?P<bare>[^\s\"',;&}\]\)=>\[][^\s\"',;&}\]\)]*))",
         _assignment, re.I),
        (rf"(--?{_SECRET_KEY}[ \t]+)(?!-)[^\s\"']+", rf"\1{REDACTED}", re.I),
        (r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})", _tag("github-token"), 0),
        (r"\bxox[abprs]-[A-Za-z0-9-]{6,}", _tag("slack-token"), 0),
        (r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", _tag("aws-key"), 0),
        (r"\b(?:sk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
         r"|npm_[A-Za-z0-9]{36}|glpat-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})", _tag("api-key"), 0),
        (r"\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*", _tag("jwt"), 0),
        (r"(?<![A-Za-z0-9])[0-9a-fA-F]{32,}(?![A-Za-z0-9])", _tag("hex"), 0),
        (r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{40,}={0,2}", _base64, 0),
    ]
    return tuple((re.compile(pattern, flags), replacement) for pattern, replacement, flags in raw)


def redact(text: str) -> str:
    """``text`` with every secret it holds replaced; see the module docstring for the forms."""
    if not text:
        return text
    for pattern, replacement in _rules():
        text = pattern.sub(replacement, text)
    return text
