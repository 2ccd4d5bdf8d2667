"""What ``lint``, ``doctor`` and ``review`` report as problems, each as file:line and reason.

- malformed entries in the learnings files;
- git conflict markers left in any ``.learnings/`` Markdown file (the archive too);
- drift between the managed rule blocks and the store (``review/drift.py``).
"""

from __future__ import annotations

from self_improve.review.drift import find_drift
from self_improve.store.archive import archive_files
from self_improve.store.entry import KINDS, parse_text
from self_improve.store.lint import Problem, conflict_markers, lint_file
from self_improve.store.store import Store


def store_problems(store: Store) -> list[Problem]:
    """Problems of the store's own files: malformed entries and conflict markers."""
    store._require()
    problems: list[Problem] = []
    for kind, (prefix, _) in KINDS.items():
        path = store.file_for(kind)
        if path.exists():
            name = store.relative(path)
            text = store._read_text(path)
            problems.extend(lint_file(parse_text(text, file=name), name, prefix))
            problems.extend(conflict_markers(text, name))
    for archive in archive_files(store):
        path = store.dir / archive
        problems.extend(conflict_markers(store._read_text(path), store.relative(path)))
    return problems


def drift_problems(store: Store) -> list[Problem]:
    """Disagreements between the managed rule blocks and the store."""
    return [drift.problem() for drift in find_drift(store)]
