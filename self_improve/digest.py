"""SHA-256 in hex, without ``hashlib``.

``hashlib`` loads OpenSSL (``_hashlib``): about 2 ms of a hook that records a failure, which
needs short digests only (the task's, ``store/tasks.py``; the provenance ledger's name). The
interpreter's own SHA-256 module (``_sha2``, ``_sha256`` before 3.12) gives the same digest;
``hashlib`` serves only where neither is built.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_sha256: Callable[[bytes], Any] | None = None


def sha256_hex(data: bytes) -> str:
    """``hashlib.sha256(data).hexdigest()``."""
    global _sha256
    if _sha256 is None:
        _sha256 = _builtin_sha256()
    return str(_sha256(data).hexdigest())


def _builtin_sha256() -> Callable[[bytes], Any]:
    for name in ("_sha2", "_sha256"):
        try:
            return getattr(__import__(name), "sha256")  # noqa: B009 - typeshed knows one of them per version
        except (ImportError, AttributeError):
            continue
    from hashlib import sha256

    return sha256
