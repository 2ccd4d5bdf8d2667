"""Builds the real-world fixture stores and their ground-truth manifests (issue 15).

Each split (``tune/``, ``dev/``) has a ``_source.py`` describing its stores as Python values: the
raw text of every file, cut into parts, each entry annotated with what its author meant (summary,
status, priority, count, Pattern-Key) and each real problem with the lines it lives on. This
module renders those parts to the exact bytes a real user's editor would have written (BOM, CRLF,
no final newline, GBK, a stray Latin-1 byte) and writes ``<split>/<store>/…`` plus
``<split>/expected.json``. Line numbers in the manifest are computed here while concatenating, so
they can never drift from the files.

    .venv/bin/python tests/data/real_world/fixture_kit.py          # rewrites both splits

The manifest is the author's intent, never the product's reading: nothing here imports
``self_improve``.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
SPLITS = ("tune", "dev")
# A byte that is valid neither in UTF-8 nor as a GB18030 lead byte before ASCII: a Latin-1 "é"
# pasted into a UTF-8 file. Written in the sources as this placeholder, replaced after encoding.
LATIN1_E = "\u0000LATIN1-E\u0000"


@dataclass(frozen=True)
class Problem:
    """A real problem lint should report. ``offsets`` are lines relative to the part's first line
    where a report counts as catching it; ``span`` accepts any line of the part (a template entry is
    junk as a whole, so a complaint about any of its fields is fair). ``required=False``: a report
    there is fair (not a false alarm) but its absence is not a miss."""

    label: str
    offsets: tuple[int, ...] = (0,)
    required: bool = True
    span: bool = False
    group: str = ""  # problems of one file sharing a group are one problem (a duplicate ID's two headers)


@dataclass(frozen=True)
class Entry:
    """One entry as its author meant it. ``None`` means "the author said nothing": not measured."""

    text: str  # LF line endings; the first line is the header
    id: str  # the ID, or the date of a dated header
    summary: str | None
    status: str | None = None
    priority: str | None = None
    recurrence_count: int | None = None
    pattern_key: str | None = None
    problems: tuple[Problem, ...] = ()
    fragments: tuple[str, ...] = ()  # lines of its action section that are no rule on their own
    hand_promoted: bool = False  # promoted by its user, by hand (never to be retired by age)


@dataclass(frozen=True)
class Text:
    """Lines that are not an entry (a preamble, a heading, a cut-off header)."""

    text: str
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class File:
    parts: tuple[Entry | Text, ...]
    encoding: str = "utf-8"  # or "gbk"
    bom: bool = False
    crlf: bool = False
    final_newline: bool = True


@dataclass(frozen=True)
class RoundTrip:
    """``promote ID --target T --yes`` then ``retire ID --yes``: instruction files must come back
    byte for byte (an empty one as 0 bytes). ``rule`` None: let promote take the entry's own."""

    id: str
    target: str
    rule: str | None = None


@dataclass(frozen=True)
class Store:
    name: str
    learnings: dict[str, File]  # LEARNINGS.md / ERRORS.md / FEATURE_REQUESTS.md
    root: dict[str, str] = field(default_factory=dict)  # CLAUDE.md, AGENTS.md, SOUL.md, … ("" = 0 bytes)
    root_crlf: tuple[str, ...] = ()  # root files written with CRLF
    round_trip: RoundTrip | None = None
    user_lines: tuple[str, ...] = ()  # learnings lines the user wrote that promote must keep
    # IDs to ``promote ID --yes`` without --rule on a fresh copy, judged only on "no traceback": the
    # rule then comes from the entry's own (GBK) text, the path that crashed (issue 15, item 11).
    promote_probes: tuple[str, ...] = ()
    styles: tuple[str, ...] = ()  # the real-world styles this store exercises (for the report)


def _encode(text: str, spec: File) -> bytes:
    if not spec.final_newline:
        text = text.rstrip("\n")
    if spec.crlf:
        text = text.replace("\n", "\r\n")
    pieces = text.split(LATIN1_E)
    data = b"\xe9".join(piece.encode(spec.encoding) for piece in pieces)
    return (b"\xef\xbb\xbf" if spec.bom else b"") + data


def render_file(name: str, spec: File) -> tuple[bytes, dict, list[dict]]:
    """The file's bytes, its manifest entry and its real problems."""
    text = ""
    entries: list[dict] = []
    problems: list[dict] = []
    for part in spec.parts:
        assert part.text.endswith("\n"), f"{name}: every part ends with a newline: {part.text[:40]!r}"
        first_line = text.count("\n") + 1
        part_lines = part.text.count("\n")
        for problem in part.problems:
            lines = list(range(first_line, first_line + part_lines)) if problem.span else [first_line + o for o in problem.offsets]
            same = [p for p in problems if problem.group and p.get("group") == problem.group and p["label"] == problem.label]
            if same:
                same[0]["lines"].extend(lines)
                continue
            problems.append({"file": name, "label": problem.label, "lines": lines, "required": problem.required,
                             **({"group": problem.group} if problem.group else {})})
        if isinstance(part, Entry):
            entries.append({
                "line": first_line,
                "id": part.id,
                "header": part.text.split("\n", 1)[0],
                "summary": part.summary,
                "status": part.status,
                "priority": part.priority,
                "recurrence_count": part.recurrence_count,
                "pattern_key": part.pattern_key,
                "hand_promoted": part.hand_promoted,
                "fragments": list(part.fragments),
            })
        text += part.text
    meta = {"encoding": spec.encoding, "bom": spec.bom, "crlf": spec.crlf, "final_newline": spec.final_newline, "entries": entries}
    return _encode(text, spec), meta, problems


def build_split(split: str) -> dict:
    source = _load_source(HERE / split / "_source.py")
    stores: list[Store] = source.STORES
    out_dir = HERE / split
    for old in out_dir.iterdir():
        if old.is_dir() and not old.name.startswith("_"):
            shutil.rmtree(old)
    manifest: dict = {"split": split, "stores": {}}
    for store in stores:
        store_dir = out_dir / store.name
        (store_dir / ".learnings").mkdir(parents=True)
        files: dict[str, dict] = {}
        real: list[dict] = []
        for file_name, spec in store.learnings.items():
            rel = f".learnings/{file_name}"
            data, meta, problems = render_file(rel, spec)
            (store_dir / rel).write_bytes(data)
            files[rel] = meta
            real.extend(problems)
        for file_name, content in store.root.items():
            body = content.replace("\n", "\r\n") if file_name in store.root_crlf else content
            (store_dir / file_name).write_bytes(body.encode("utf-8"))
        manifest["stores"][store.name] = {
            "styles": list(store.styles),
            "files": files,
            "root_files": sorted(store.root),
            "real_problems": real,
            "round_trip": None if store.round_trip is None else vars(store.round_trip),
            "user_lines": list(store.user_lines),
            "promote_probes": list(store.promote_probes),
        }
    (out_dir / "expected.json").write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return manifest


def _load_source(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"real_world_{path.parent.name}_source", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    # The source imports ``fixture_kit``: make that this very module, so its parts are the classes
    # ``render_file`` checks against even when this file runs as ``__main__``.
    sys.modules.setdefault("fixture_kit", sys.modules[__name__])
    sys.modules[spec.name] = module  # dataclasses resolve their module through sys.modules
    spec.loader.exec_module(module)
    return module


def main() -> None:
    for split in SPLITS:
        manifest = build_split(split)
        count = sum(len(f["entries"]) for s in manifest["stores"].values() for f in s["files"].values())
        print(f"{split}: {len(manifest['stores'])} stores, {count} entries")


if __name__ == "__main__":
    main()
