"""Secret redaction: coverage on tests/data/secrets.jsonl, the same for detect-secrets and gitleaks'
rules, false positives on ordinary tokens, and the cost of adversarial inputs.

    .venv/bin/python bench/redaction.py [--detect-secrets-path DIR] [--quick]

- Coverage (ours): each secret in each placement (error line, next line, last line, middle of a
  long output, across the 200-char excerpt boundary) goes through the real detector
  (errors.detect on a failing ToolResult); a leak is the secret, or 10 chars of it, in the
  Detection's excerpt or in redact(output).  The dev and held-out splits are reported apart.
- Comparison: detect-secrets (its default plugins, through scan_line) and a regex approximation
  of gitleaks' default rules (bench/gitleaks_approx.py) scan each record's lines; a record is
  found when a finding shares 10+ chars with each of its secrets (any finding counts for a PEM
  block).  detect-secrets is never a dependency: install it apart, e.g.
  `pip install --target /tmp/ds-pkgs detect-secrets`, and pass that directory (default
  /tmp/ds-pkgs).  What cannot be imported is said so.
- Timing: each adversarial input of tests/detect/test_redact_linear.py (40 KB), as a ratio to
  one linear regex scan of the same text in the same run, and the growth when the input is 4x
  longer (linear: about 4; quadratic: about 16).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import random
import re
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "data"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import gitleaks_approx  # noqa: E402
import secret_corpus  # type: ignore[import-not-found]  # noqa: E402
from self_improve import rx  # noqa: E402
from self_improve.detect import redact as redact_module  # noqa: E402
from self_improve.detect.classify import detect  # noqa: E402
from self_improve.detect.redact import redact  # noqa: E402
from self_improve.events import ToolResult  # noqa: E402

DATA = ROOT / "tests" / "data" / "secrets.jsonl"
Record = dict[str, object]


def load() -> list[Record]:
    return [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


def our_coverage(records: list[Record]) -> None:
    print("Ours (errors.detect excerpt and redact(output), every placement):")
    for split in ("dev", "held-out"):
        rows = [r for r in records if r["split"] == split]
        cases = leaked = 0
        leaking: list[str] = []
        for r in rows:
            secrets: list[str] = r["secrets"]  # type: ignore[assignment]
            for placement, output in secret_corpus.placements(r["id"], r["line"], secrets).items():
                cases += 1
                found = detect(ToolResult("./deploy.sh", output, 1, "bench", "/tmp/bench", False))
                excerpt = found.excerpt if found else ""
                leaks = secret_corpus.leaks(excerpt, output, secrets) + secret_corpus.leaks(redact(output), output, secrets)
                if leaks:
                    leaked += 1
                    leaking.append(f"{r['id']}/{placement}: {leaks[0][:80]}")
        print(f"  {split:8}: {len(rows)} secrets x {cases // max(1, len(rows))} placements = {cases} cases,"
              f" {leaked} leaks ({100 * (cases - leaked) / max(1, cases):.1f} % covered)")
        for line in leaking[:10]:
            print(f"    leak: {line}")


def _covers(findings: list[str], record: Record) -> bool:
    secrets: list[str] = record["secrets"]  # type: ignore[assignment]
    if "BEGIN" in str(record["line"]) and findings:
        return True
    return all(any(_shares(f, s) for f in findings) for s in secrets)


def _shares(finding: str, secret: str) -> bool:
    if finding in secret or secret in finding:
        return min(len(finding), len(secret)) >= 8 or finding == secret
    return any(secret[i:i + 10] in finding for i in range(max(1, len(secret) - 9)))


def _detect_secrets(path: str) -> Callable[[str], list[str]] | str:
    """detect-secrets as its users run it: scan_file on a file holding the text (scan_line is
    its ad-hoc mode, with lowered thresholds, which flags every word)."""
    sys.path.insert(0, path)
    try:
        from detect_secrets import SecretsCollection  # type: ignore[import-not-found]
        from detect_secrets.settings import default_settings  # type: ignore[import-not-found]
    except ImportError as exc:
        return f"not installed ({exc}); e.g. pip install --target {path} detect-secrets"
    import tempfile

    def scan(text: str) -> list[str]:
        with tempfile.TemporaryDirectory() as tmp:
            target = Path(tmp) / "output.log"
            target.write_text(text + "\n", encoding="utf-8")
            collection = SecretsCollection()
            with default_settings():
                collection.scan_file(str(target))
            return [secret.secret_value or "" for _file, secret in collection]
    return scan


def tool_coverage(records: list[Record], ds_path: str) -> None:
    print("Scanners on the same records (each record's lines), and on the ordinary outputs of"
          " tests/detect/test_redact.py (false alarms):")
    sys.path.insert(0, str(ROOT / "tests" / "detect"))
    from test_redact import ORDINARY_OUTPUTS as ordinary  # type: ignore[import-not-found]
    tools: dict[str, Callable[[str], list[str]] | str] = {
        "detect-secrets 1.5 (default plugins)": _detect_secrets(ds_path),
        "gitleaks rules (regex approximation)": gitleaks_approx.findings,
        "ours (redact, same scoring)": lambda text: _our_findings(text),
    }
    for name, tool in tools.items():
        if isinstance(tool, str):
            print(f"  {name}: {tool}")
            continue
        for split in ("dev", "held-out"):
            rows = [r for r in records if r["split"] == split]
            hits = sum(_covers(tool(str(r["line"])), r) for r in rows)
            print(f"  {name:40} {split:8}: {hits}/{len(rows)} ({100 * hits / len(rows):.0f} %)")
        flagged = [key for key, text in ordinary.items() if tool(text)]
        print(f"  {name:40} ordinary outputs flagged: {len(flagged)}/{len(ordinary)} {flagged}")
    print("  gitleaks binary: not installable here (not in Debian's index; npm/PyPI only carry wrappers that"
          " download a release binary)")


def _our_findings(text: str) -> list[str]:
    return [text[s:e] for s, e, _i in redact_module._spans(text)]


def false_positives(quick: bool) -> None:
    """Unlabelled-token judge: random strings it misses, and ordinary tokens it flags."""
    rng = random.Random(7)
    alphabet = string.ascii_letters + string.digits
    print("Unlabelled tokens (the entropy judge alone):")
    for length in (20, 32, 40, 64):
        n = 500 if quick else 3000
        missed = sum(not redact_module._looks_random("".join(rng.choice(alphabet) for _ in range(length)), " ", " ")
                     for _ in range(n))
        print(f"  random alphanumeric of {length}: {100 * missed / n:.1f} % missed")
    stdlib = Path(string.__file__).parent
    names: set[str] = set()
    data: set[str] = set()
    for path in sorted(stdlib.rglob("*.py"))[: 300 if quick else None]:
        text = path.read_text(encoding="utf-8", errors="replace")
        data.update(re.findall(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{20,}={0,2}", text))
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):  # real identifiers: names, attributes, functions, classes, arguments
            name = getattr(node, "id", None) or getattr(node, "attr", None) or getattr(node, "arg", None)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = node.name
            if isinstance(name, str) and len(name) >= 20:
                names.add(name)
    flagged = sorted(t for t in names if redact_module._looks_random(t, " ", " "))
    print(f"  identifiers of 20+ chars in the interpreter's lib/ (stdlib and site-packages; ast names): {len(flagged)}/{len(names)}"
          f" flagged ({100 * len(flagged) / max(1, len(names)):.2f} %) {flagged[:5]}")
    other = data - names
    print(f"  other 20+ char tokens in its source (paths, base64 test vectors, digests, prose): "
          f"{sum(redact_module._looks_random(t, ' ', ' ') for t in other)}/{len(other)} flagged")


def _best(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def timing(quick: bool) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "detect"))
    import test_redact_linear as adversarial  # type: ignore[import-not-found]

    baseline = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}+={0,2}+")  # one rule of ours
    repeat = 1 if quick else 3
    print("Adversarial inputs (40 KB each): redact time, ratio to one linear regex scan, growth at 4x length")
    inputs = dict(adversarial.UNCHANGED)
    inputs.update({k: v[0] for k, v in adversarial.CHANGED.items()})
    worst = 0.0
    for name, text in inputs.items():
        longer = text * 4
        ours = _best(functools.partial(redact, text), repeat)
        scan = _best(functools.partial(baseline.findall, text), repeat)
        growth = _best(functools.partial(redact, longer), repeat) / ours
        worst = max(worst, growth)
        print(f"  {name:32} {ours * 1000:7.1f} ms  {ours / scan:6.0f}x one scan  x{growth:4.1f} at 4x")
    print(f"  worst growth at 4x length: x{worst:.1f} (linear is about 4)")
    re.purge()  # re caches compiled patterns: measure a fresh process's first redact
    rx._compiled.clear()  # and so does rx, which loads the compiled programs from the cache dir again
    rx._programs = None
    redact_module._rules.cache_clear()
    redact_module._gates.cache_clear()
    start = time.perf_counter()
    redact_module._gates()
    print(f"  building the rules (first redact in a process, programs and needles from the cache dir): "
          f"{(time.perf_counter() - start) * 1000:.1f} ms")
    output = ("step ok\n" * 130_000) + "ERROR: deploy failed: token=" + "Zq9xW2" * 6 + "\n"
    found = _best(lambda: detect(ToolResult("./x", output, 1, "b", "/tmp", False)), repeat)
    print(f"  errors.detect on a 1 MB failing output (excerpt redacted in a bounded window): {found * 1000:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--detect-secrets-path", default="/tmp/ds-pkgs")
    parser.add_argument("--quick", action="store_true", help="fewer samples and repeats")
    args = parser.parse_args()
    records = load()
    print(f"Corpus: {len(records)} secrets of {len({r['kind'] for r in records})} kinds ({DATA.relative_to(ROOT)})")
    our_coverage(records)
    tool_coverage(records, args.detect_secrets_path)
    false_positives(args.quick)
    timing(args.quick)


if __name__ == "__main__":
    main()
