"""Strip secrets from text before it is stored.

    def redact(text: str, window: tuple[int, int] | None = None) -> str
    def find_secret(text: str) -> str | None     # name of the first rule that still matches
    def shorten(text: str, limit: int) -> str    # cut to ``limit`` chars, never inside a tag

Every secret is replaced by ``[REDACTED]`` (a value whose key or flag told us it is secret) or
``[REDACTED:kind]`` (a value whose shape told us: ``private-key``, ``github-token``,
``slack-token``, ``aws-key``, ``api-key``, ``webhook``, ``jwt``, ``hex``, ``base64``).  The rules
(self_improve/detect/redact_rules.py) cover gitleaks' families:

- assignments to secret-looking keys (``API_KEY=…``, ``password: …``, ``"auth": "…"``,
  ``MYSQL_PWD=…``), ``--password …`` flags, ``Authorization:``/``Cookie:`` headers, ``Bearer …``;
- credentials in URLs (``scheme://user:[REDACTED]@host``; the password may hold ``@``), signed
  URL parameters (Azure SAS ``sig=``, ``X-Amz-Signature=``);
- command lines that carry a password: ``mysql -p…``, ``sshpass -p``, ``docker login -p``,
  ``redis-cli -a``, ``curl -u user:…``, ``openssl -passin pass:…``; ``.netrc`` entries;
- PEM private keys (to the end of the text when the END line is missing) and age keys;
- vendor token shapes (GitHub, GitLab, Slack and webhooks, AWS, OpenAI, Anthropic, Stripe,
  Google, Azure, Hugging Face, Discord, Twilio, npm, PyPI, Shopify, SendGrid, Mailgun, Square,
  Heroku, DigitalOcean, Telegram, Vault, … and JWTs);
- unlabelled tokens that look random (below): base64 and alphanumeric blobs, long hex.

What is NOT redacted, on purpose: paths, URLs without a password, identifiers and module names,
version strings, UUIDs, base64 that decodes to prose, and hex of 7 to 40 digits in one case (git
commit ids and short checksums fill git and CI output, and carry no secret by themselves: a hex
secret with a key, ``token=…``, or a prefix, ``dop_v1_…``, is still caught).  Longer hex is
redacted unless a digest label stands before it (``sha256:…``, ``--hash=…``, ``sha256sum``
output).

``redact`` is linear in the length of its input, idempotent, and never raises.  With ``window``,
it returns the redacted text[start:end] and reads only a bounded neighbourhood of it: a secret
that crosses the window's edge is replaced whole, never cut in two.  Patterns compile on first use.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import lru_cache  # functools.lru_cache, without importing functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    Judge = Callable[[re.Match[str]], Sequence[tuple[int, int]]]
    Gate = tuple[bool, tuple[str, ...]] | None

REDACTED = "[REDACTED]"
_HEX = frozenset("0123456789abcdefABCDEF")
_MAX_PASSES = 4
MARGIN = 4096  # context read on each side of a window: longer than any one-line secret or PEM key

_DIGESTS = ("sha1", "sha224", "sha256", "sha384", "sha512", "md5", "blake2b", "blake2s", "sha3-256", "sha3-512")
_SRI = tuple(f"{d}-" for d in _DIGESTS)  # subresource integrity, as npm prints it: sha512-<base64>
_ORDINARY_PREFIXES = (*(f"{d}{sep}" for d in _DIGESTS for sep in ":= "), *_SRI, "ssh-rsa ", "ssh-ed25519 ",
                      "ssh-dss ", "nistp256 ", "nistp384 ", "nistp521 ", "oid ", "digest: ", "hash ", "checksum ",
                      "commit ", "object ")
_MANGLED = ("_Z", "__Z", "_R")  # C++ (Itanium) and Rust symbol names in linker errors


def _tag(label: str | None) -> str:
    return REDACTED if label is None else f"[REDACTED:{label}]"


# ---------------------------------------------------------------------------------------------
# Unlabelled tokens: what looks random


def _random_chars(s: str) -> bool:
    """Alphanumerics drawn at random, not words: many distinct chars, many changes of class
    (upper, lower, digit), and few word-like chunks (identifiers are made of them).  Thresholds
    were set on random strings (>= 95 % caught at 20 chars) against the identifiers of the
    Python standard library (bench/redaction.py prints both rates)."""
    n = len(s)
    if n < 16 or len(set(s)) * 2 < min(n, 40):
        return False
    if set(s) <= _HEX and not (any(c.isupper() for c in s) and any(c.islower() for c in s)):
        return False  # hex in one case: the hex policy (_hex_is_secret) judges it, not this
    upper = sum(c.isupper() for c in s)
    lower = sum(c.islower() for c in s)
    digits = n - upper - lower
    runs = 1 + sum(_char_class(a) != _char_class(b) for a, b in zip(s, s[1:], strict=False))
    words = sum(len(w) for w in _word_chunks().findall(s))
    classes = (upper > 0) + (lower > 0) + (digits > 0)
    if classes == 3:  # 28+ distinct chars: no identifier has so many, a long random blob does
        return upper >= 2 and lower >= 2 and (len(set(s)) >= 28 or runs * 5 >= n * 2 and words * 100 <= n * 55)
    if classes == 2 and digits:  # one case and digits: only a dense, well-shuffled mix
        return n >= 20 and digits * 5 >= n and (upper + lower) * 4 >= n and runs * 10 >= n * 3
    return classes == 2 and n >= 20 and min(upper, lower) >= 3 and runs * 5 >= n * 2 and words * 100 <= n * 40


def _char_class(c: str) -> int:
    return 0 if c.isupper() else 1 if c.islower() else 2


def _mixed(part: str) -> bool:
    """Both cases, or letters and digits: what a random part has and a word does not."""
    if set(part) <= _HEX:
        return any(c.isupper() for c in part) and any(c.islower() for c in part)
    has_upper, has_lower = any(c.isupper() for c in part), any(c.islower() for c in part)
    return (has_upper and has_lower) or ((has_upper or has_lower) and any(c.isdigit() for c in part))


@lru_cache(maxsize=1)
def _word_chunks() -> re.Pattern[str]:
    return re.compile(r"[A-Z]?[a-z]{3,}+|[A-Z]{4,}+|[0-9]{4,}+")


def _decodes_to_prose(core: str) -> bool:
    """Base64 of ordinary words ("The quick brown fox"): printable, spaced, and no key or
    user:password in it."""
    import base64
    import binascii

    try:
        decoded = base64.b64decode(core.replace("-", "+").replace("_", "/") + "=" * (-len(core) % 4), validate=True)
        text = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return text.isprintable() and text.count(" ") * 12 >= len(text) and not any(c in text for c in ":=@")


def _looks_random(token: str, before: str, after: str) -> bool:
    core = token.rstrip("=")
    if core[:2] in ("0x", "0X") and all(c in _HEX for c in core[2:]):
        core = core[2:]  # a hex literal is judged as hex
    if len(core) < 20:
        return False
    if all(c in _HEX for c in core):
        return not core.isdigit() and _hex_is_secret(core, before, after)  # digits alone: a number
    if before.lower().endswith(_ORDINARY_PREFIXES) or core.lower().startswith(_SRI) or core.startswith(_MANGLED):
        return False  # a digest, an ssh public key, a mangled C++/Rust symbol
    if _decodes_to_prose(core):
        return False
    if "+" in core or token.endswith("="):  # standard base64: judge it whole
        return _random_chars(core.replace("+", "").replace("/", ""))
    parts = [p for p in re.split(r"[/_-]", core) if p]
    joined = "".join(parts)
    if any(len(p) >= 12 and _random_chars(p) for p in parts):
        return True
    # Many short parts: a path, a compound identifier or a generated name (pod-7d4b9c-x2kq9)
    # unless most of it is mixed, as in base64url with a few '-' and '_'.
    return sum(len(p) for p in parts if _mixed(p) and len(p) >= 4) * 4 >= len(joined) * 3 and _random_chars(joined)


def _hex_is_secret(core: str, before: str, after: str) -> bool:
    if len(set(core)) < 8:
        return False  # "0000…", "A1b2A1b2…": filler, not a key
    if any(c.isupper() for c in core) and any(c.islower() for c in core):
        return len(core) >= 32  # mixed case: not a digest, git never prints one
    if len(core) <= 40:
        return False  # git commit ids (7-40) and short checksums
    labelled = before.lower().endswith(_ORDINARY_PREFIXES)
    return not (labelled or after.startswith(("  ", " *")))  # "sha256:…", sha256sum's "<hex>  file"


def _unlabelled(match: re.Match[str]) -> Sequence[tuple[int, int]]:
    text, start, end = match.string, match.start(), match.end()
    if _looks_random(match.group(0), text[max(0, start - 16):start], text[end:end + 2]):
        return ((start, end),)
    return ()


# ---------------------------------------------------------------------------------------------
# The rules, compiled once


@lru_cache(maxsize=1)
def _rules() -> tuple[tuple[str, str, re.Pattern[str], Judge], ...]:
    """(name, tag, pattern, judge) in priority order: context first, then shapes, then blobs."""
    from self_improve.detect import redact_rules as r

    raw: list[tuple[str, str | None, str, Judge | None]] = list(r.context_rules())
    raw += [(name, label, pattern, None) for name, label, pattern in r.SHAPES]
    raw.append(("hex", "hex", r"(?<![A-Za-z0-9+/_-])[0-9a-fA-F]{32,}+(?![A-Za-z0-9+/_-])", _unlabelled))
    raw.append(("base64", "base64", r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}+={0,2}+", _unlabelled))
    return tuple((name, _tag(label), re.compile(pattern), judge or r.first_group)
                 for name, label, pattern, judge in raw)


# Which rules can match a text at all. ``patterns.needle`` proves, from a pattern's text, literals
# of which every match contains one; a rule whose literals are all absent from a text has nothing
# to find there and is not run (the vendor prefixes, the keywords: most of the 77, on most
# output). That proof is a cheap scan, but 77 of them cost a hook more than running the rules, so
# the hooks keep the literals in the cache dir (``save_gates``), keyed by the rules and by the
# code that derives them; any other process (the CLI's review must leave the user's folders as
# they were) only reads them.
_GATE_SOURCES = ("redact_rules.py", "redact.py", "patterns.py")
_unsaved_gates: tuple[tuple[str, ...], tuple[Gate, ...]] | None = None


@lru_cache(maxsize=1)
def _gates() -> tuple[Gate, ...]:
    """Per rule of ``_rules()``: (ignores case, literals of which each match contains one), or None
    when nothing is known (the rule always runs)."""
    from self_improve.detect import prescreen

    global _unsaved_gates
    texts = tuple(pattern.pattern for _name, _tag_text, pattern, _judge in _rules())
    cached = prescreen.read_cache("redact-needles", *_GATE_SOURCES)
    if isinstance(cached, tuple) and len(cached) == 2 and cached[0] == texts and _are_gates(cached[1], len(texts)):
        return cached[1]
    gates = tuple(_gate(name, pattern) for name, _tag_text, pattern, _judge in _rules())
    _unsaved_gates = (texts, gates)
    return gates


def save_gates() -> None:
    """Write the gates this process had to derive to the cache dir (the hooks call it as they
    finish; a no-op when they came from there)."""
    global _unsaved_gates
    if _unsaved_gates is not None:
        from self_improve.detect import prescreen

        prescreen.write_cache("redact-needles", _unsaved_gates, *_GATE_SOURCES)
        _unsaved_gates = None


def _gate(name: str, pattern: re.Pattern[str]) -> Gate:
    from self_improve.detect.patterns import needle
    from self_improve.detect.redact_rules import NEEDLES

    literals = NEEDLES.get(name) or needle(pattern.pattern)
    if not literals or pattern.flags & re.VERBOSE:
        return None
    if pattern.flags & re.IGNORECASE:
        # Compared with the text lowered, and only an ASCII text: there re's case-insensitive
        # match of an ASCII letter is exactly equality of the lowered letters (in other texts a
        # "ſ" matches "s", a Kelvin sign "k"...).
        if not all(literal.isascii() for literal in literals):
            return None
        return True, tuple(literal.lower() for literal in literals)
    return False, literals


def _are_gates(value: object, count: int) -> bool:
    return isinstance(value, tuple) and len(value) == count and all(
        gate is None or (isinstance(gate, tuple) and len(gate) == 2 and isinstance(gate[0], bool)
                         and isinstance(gate[1], tuple) and bool(gate[1]) and all(isinstance(x, str) for x in gate[1]))
        for gate in value
    )


def _runnable(text: str) -> list[tuple[int, tuple[str, str, re.Pattern[str], Judge]]]:
    """(index, rule) of the rules that can match ``text``, in priority order."""
    lowered = text.lower() if text.isascii() else None
    out = []
    for index, (rule, gate) in enumerate(zip(_rules(), _gates(), strict=True)):
        if gate is not None:
            ignore_case, literals = gate
            if ignore_case:
                if lowered is not None and not any(literal in lowered for literal in literals):
                    continue
            elif not any(literal in text for literal in literals):
                continue
        out.append((index, rule))
    return out


def _spans(text: str) -> list[tuple[int, int, int]]:
    """Every secret span of ``text`` as (start, end, rule index), overlaps merged."""
    found: list[tuple[int, int, int]] = []
    for index, (_name, _tag_text, pattern, judge) in _runnable(text):
        for match in pattern.finditer(text):
            found.extend((start, end, index) for start, end in judge(match))
    found.sort()
    merged: list[tuple[int, int, int]] = []
    for start, end, index in found:
        if merged and start < merged[-1][1]:
            last_start, last_end, last_index = merged[-1]
            merged[-1] = (last_start, max(last_end, end), min(last_index, index))
        else:
            merged.append((start, end, index))
    return merged


def _apply(text: str, spans: Sequence[tuple[int, int, int]], lo: int, hi: int) -> str:
    """text[lo:hi] with each span that touches it replaced by its tag (whole, even if it crosses
    lo or hi)."""
    rules = _rules()
    pieces: list[str] = []
    position = lo
    for start, end, index in spans:
        if end <= lo or start >= hi:
            continue
        pieces.append(text[position:max(start, lo)])
        pieces.append(rules[index][1])
        position = min(max(end, position), hi)
    pieces.append(text[position:hi])
    return "".join(pieces)


def redact(text: str, window: tuple[int, int] | None = None) -> str:
    """``text`` (or its slice ``window``) with every secret replaced; see the module docstring."""
    if not text:
        return text
    if window is None:
        return _until_stable(text)
    start, end = max(0, window[0]), min(len(text), window[1])
    lo, hi = max(0, start - MARGIN), min(len(text), end + MARGIN)
    cut = text.find("\n", lo, start)  # read from a line start: no half line can pose as one
    lo = cut + 1 if lo > 0 and cut >= 0 else lo
    cut = text.rfind("\n", end, hi)
    hi = cut if hi < len(text) and cut >= 0 else hi
    spans = [(s + lo, e + lo, i) for s, e, i in _spans(text[lo:hi])]
    return _until_stable(_apply(text, spans, start, end))


def _until_stable(text: str) -> str:
    """Redact again while a pass changes something: a tag can give a neighbour the context it
    lacked ("…-----mysql -pX" becomes "[REDACTED:private-key]mysql -pX").  Each pass is linear;
    a second one runs only after a first found something, and they are bounded."""
    for _ in range(_MAX_PASSES):
        spans = _spans(text)
        if not spans:
            break
        text = _apply(text, spans, 0, len(text))
    return text


def find_secret(text: str) -> str | None:
    """The name of the first rule (in priority order) that finds a secret in ``text``, or None:
    ``promote`` refuses text that still holds one, and tests check ``find_secret(redact(x))``."""
    for _index, (name, _tag_text, pattern, judge) in _runnable(text):
        for match in pattern.finditer(text):
            if judge(match):
                return name
    return None


def shorten(text: str, limit: int) -> str:
    """At most ``limit`` chars, ending in "…" when cut; never inside a ``[REDACTED…]`` tag."""
    if len(text) <= limit:
        return text
    cut = limit - 1
    tag = text.rfind("[", 0, cut)
    if tag >= 0 and text.startswith("[REDACTED", tag) and text.find("]", tag) >= cut:
        cut = tag
    return text[:cut].rstrip() + "…"
