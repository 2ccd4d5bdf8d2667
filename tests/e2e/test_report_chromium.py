"""End-to-end: ``self-improve report --html`` rendered by a real headless Chromium (Debian's
``chromium``), driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``: the
standard library only, no port, no extra package).

    .venv/bin/python -m pytest -m e2e tests/e2e/test_report_chromium.py -rs -s

- the chart's bars, as the browser laid them out (``getBBox``), match the curve's numbers exactly:
  one ``rect.bar`` per series and period, its ``data-value`` the count, its height count × scale;
- the page loads nothing (no resource entry in ``performance``), runs no script, logs nothing:
  no ``Runtime.consoleAPICalled`` of level error or warning, no ``Runtime.exceptionThrown``, no
  ``Log.entryAdded`` error (a failed load of an external asset would be one). The negative
  test proves the watch works: a page with a deliberate ``console.error``, one that throws and
  one with a missing image are each caught;
- an entry titled ``<script>…`` shows as text;
- a screenshot is saved under the test's tmp dir (its path is printed: run with ``-s``).

Chromium comes from Debian's packages: when ``/usr/bin/chromium`` is missing the fixture runs
``apt-get install -y chromium`` (as root), and skips, with the reason, only when the package
archive cannot be reached; under ``CI=true`` that skip is a failure (``tests/conftest.py``), as
with ``SELF_IMPROVE_E2E_REQUIRED`` (``npm_client.skip_or_fail``).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import select
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from self_improve.commands import report
from self_improve.review.curve import SERIES
from self_improve.review.curve_text import curve_of, load
from self_improve.store import counters
from self_improve.store.store import Store
from tests.e2e.conftest import Timings
from tests.e2e.debian import ensure_debian_package
from tests.helpers import TODAY, day, entry_text, write_project

pytestmark = pytest.mark.e2e

SECTION = "chromium e2e"
CHROMIUM = "/usr/bin/chromium"
CDP_TIMEOUT = 30.0
# ---- Chromium from Debian's packages ------------------------------------------------------------


@dataclass(frozen=True)
class ChromiumInstall:
    binary: str
    version: str
    how: str

    def describe(self) -> str:
        return f"{self.version}: {self.how}"


def ensure_chromium() -> ChromiumInstall:
    how = ensure_debian_package(CHROMIUM, "chromium")
    proc = subprocess.run([CHROMIUM, "--version"], capture_output=True, text=True, timeout=60, check=False)
    found = re.search(r"Chromium [\d.]+", proc.stdout)
    if proc.returncode != 0 or found is None:
        pytest.fail(f"`{CHROMIUM} --version` failed (exit {proc.returncode}): {(proc.stdout + proc.stderr)[-500:]}")
    return ChromiumInstall(CHROMIUM, found.group(0), how)


@pytest.fixture(scope="session")
def chromium(e2e_timings: Timings) -> ChromiumInstall:
    return e2e_timings.installed(SECTION, ensure_chromium())


# ---- the DevTools protocol over a pipe ----------------------------------------------------------------


class DevTools:
    """One headless Chromium, spoken to as ``--remote-debugging-pipe`` wants: JSON messages ended
    by NUL, ours on the child's fd 3, its own on fd 4."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_child, self._write = os.pipe()
        self._read, from_child = os.pipe()

        def fds() -> None:  # in the child: our pipes become fds 3 and 4 (high numbers first, no clash)
            os.dup2(to_child, 100)
            os.dup2(from_child, 101)
            os.dup2(100, 3)
            os.dup2(101, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe", "--no-first-run",
             f"--user-data-dir={profile}", "--window-size=1200,1000", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=fds, start_new_session=True,
        )
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._next = 0
        self.events: list[dict[str, Any]] = []

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self._read], [], [], left)
            if ready:
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise EOFError(f"chromium closed the pipe (exit {self.proc.poll()})")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        parsed: dict[str, Any] = json.loads(message)
        return parsed

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._write, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + CDP_TIMEOUT
        while True:
            answer = self._receive(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                result: dict[str, Any] = answer["result"]
                return result
            self.events.append(answer)

    def wait_for(self, method: str) -> None:
        deadline = time.monotonic() + CDP_TIMEOUT
        while not any(event.get("method") == method for event in self.events):
            self.events.append(self._receive(deadline))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (OSError, RuntimeError, TimeoutError, EOFError):
            pass
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)  # its own process group: only what we started
            self.proc.wait(timeout=15)
        os.close(self._write)
        os.close(self._read)


@dataclass
class Rendered:
    problems: list[str]  # console errors and warnings, exceptions, failed loads: empty for a clean page
    value: Any  # what the probe expression returned
    screenshot: bytes


def problems_of(events: list[dict[str, Any]]) -> list[str]:
    out = []
    for event in events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
            words = " ".join(str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", []))
            out.append(f"console.{params['type']}: {words}")
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            out.append(f"exception: {details.get('exception', {}).get('description', details.get('text', ''))}")
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            entry = params["entry"]
            out.append(f"log {entry['level']} ({entry.get('source', '')}): {entry.get('text', '')} {entry.get('url', '')}".rstrip())
    return out


@contextmanager
def devtools(install: ChromiumInstall, profile: Path) -> Iterator[DevTools]:
    tools = DevTools(install.binary, profile)
    try:
        yield tools
    finally:
        tools.close()


def render(install: ChromiumInstall, page: Path, probe: str, profile: Path) -> Rendered:
    """Load ``page``, wait for its load event, evaluate ``probe`` (JSON-serialisable), screenshot it."""
    with devtools(install, profile) as tools:
        target = tools.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = tools.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for method in ("Page.enable", "Runtime.enable", "Log.enable"):
            tools.call(method, session=session)
        tools.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        tools.wait_for("Page.loadEventFired")
        result = tools.call("Runtime.evaluate", {"expression": probe, "returnByValue": True}, session=session)
        if "exceptionDetails" in result:
            pytest.fail(f"the probe failed in the page: {result['exceptionDetails']}")
        shot = tools.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
        return Rendered(problems_of(tools.events), result["result"].get("value"), base64.b64decode(shot["data"]))


# ---- the page --------------------------------------------------------------------------------------

HOSTILE = '<script>console.error("pwned")</script><img src=x onerror=alert(1)>'
ENTRIES = [
    entry_text("ERR-20260201-aaa", HOSTILE, status="promoted", promoted="CLAUDE.md", pattern_key="deps.module-not-found/python:yaml",
               occurrences=[(40, "1a1a1a1a"), (20, "2b2b2b2b"), (15, "2b2b2b2b"), (5, "3c3c3c3c"), (1, "4d4d4d4d")],
               meta=[("Promoted-On", day(10)), ("Measured-Helpful", "2")]),
    entry_text("ERR-20260202-bbb", "make fails", pattern_key="build.make-error/x",
               occurrences=[(25, "4d4d4d4d"), (10, "5e5e5e5e"), (8, "6f6f6f6f"), (2, "7a7a7a7a")]),
    entry_text("LRN-20260203-ccc", "Use pnpm", status="retired", occurrences=[(30, "1a1a1a1a"), (0, "8b8b8b8b")],
               meta=[("Promoted-On", day(28))]),
]
PROBE = """JSON.stringify({
  scale: Number(document.querySelector('svg#curve').dataset.scale),
  bars: [...document.querySelectorAll('svg#curve rect.bar')].map(r => ({
    series: r.dataset.series, period: r.dataset.period, value: Number(r.dataset.value),
    height: r.getBBox().height, width: r.getBBox().width})),
  scripts: document.querySelectorAll('script').length,
  images: document.querySelectorAll('img').length,
  resources: performance.getEntriesByType('resource').map(e => e.name),
  title: document.querySelector('#recurring tr[data-id="ERR-20260201-aaa"] td:nth-child(3)').textContent,
  width: document.documentElement.scrollWidth,
})"""


def test_report_renders_the_curve_exactly_with_no_console_error(chromium: ChromiumInstall, tmp_path: Path,
                                                                 e2e_timings: Timings) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".git").mkdir()
    store = write_project(project, ENTRIES)
    counters.bump_daily(store.fs, {"measured_helpful": 1}, day(4))
    counters.bump_daily(store.fs, {"rules_retired": 2}, day(9))
    page = tmp_path / "report.html"
    args = argparse.Namespace(root=str(project), scope="project", html=str(page), since=None, by="week", force=False,
                              today=TODAY.isoformat(), interactive=False)
    assert report.run(args) == 0
    curve = curve_of(load(Store(project)), None, "week", TODAY)
    assert curve.series["recorded"] and sum(curve.total(name) for name in SERIES) > 0  # the chart has something to show
    with e2e_timings.timed(SECTION, "page render(s)"):
        rendered = render(chromium, page, PROBE, tmp_path / "profile")
    shot = tmp_path / "report.png"
    shot.write_bytes(rendered.screenshot)
    print(f"\nscreenshot of the report: {shot}")
    assert rendered.screenshot.startswith(b"\x89PNG\r\n\x1a\n")
    assert rendered.problems == []
    data = json.loads(rendered.value)
    assert (data["scripts"], data["images"], data["resources"]) == (0, 0, [])
    assert data["title"] == HOSTILE  # shown as the text it is
    expected = [(name, period.label, curve.series[name][index])
                for index, period in enumerate(curve.periods) for name in SERIES]
    assert [(bar["series"], bar["period"], bar["value"]) for bar in data["bars"]] == expected
    largest = max(max(curve.series[name]) for name in SERIES)
    assert data["scale"] == pytest.approx(200 / largest, abs=0.005)
    for bar in data["bars"]:  # the height the browser laid out, not only the attribute
        assert bar["height"] == pytest.approx(bar["value"] * 200 / largest, abs=0.01), bar
        assert bar["width"] == 8
    assert data["width"] <= 1200  # 12 weeks fit the window without a horizontal scroll


@pytest.mark.parametrize(
    "body, expected",
    [
        ('<script>console.error("deliberate")</script>', "console.error: deliberate"),
        ("<script>throw new Error('thrown on purpose')</script>", "exception: Error: thrown on purpose"),
        ('<img src="missing.png" alt="">', "log error (network): Failed to load resource: net::ERR_FILE_NOT_FOUND"),
    ],
)
def test_the_console_watch_catches_a_broken_page(chromium: ChromiumInstall, tmp_path: Path, body: str, expected: str,
                                                 e2e_timings: Timings) -> None:
    page = tmp_path / "broken.html"
    page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>x</title></head><body>{body}</body></html>")
    with e2e_timings.timed(SECTION, "page render(s)"):
        rendered = render(chromium, page, "1 + 1", tmp_path / "profile")
    assert rendered.value == 2
    assert len(rendered.problems) == 1
    assert rendered.problems[0].startswith(expected)
