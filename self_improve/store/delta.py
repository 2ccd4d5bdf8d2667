"""The log of one request into one learnings file, as a pure function of the two (``log_delta``).

``Store.log`` holds the lock, reads the file, calls this and writes what it returns; ``log
--dry-run`` calls it on the same text and writes nothing. So what a real run and a preview do can
never differ. The entry the request merges into is found in this order: the same Pattern-Key;
else a near-identical summary (``store/scan.py``); else, for an agent's or a person's lesson (not
a hook's failure, which its fingerprint keys), another wording of the same lesson that
``store/duplicates.py`` is nearly sure of. An entry that ``self-improve merge`` merged away
hands the occurrence on to the entry that kept its lesson.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes

from self_improve.store import occurrences as occ
from self_improve.store.entry import Entry, render_new, split_lines
from self_improve.store.record import LogRequest, LogResult, merge_occurrence, new_entry, utcnow
from self_improve.store.scan import FileScan, IdsIn, closest, related
from self_improve.store.similarity import tokens
from self_improve.store.tasks import task_hash

Span = tuple[int, int]


def log_delta(
    request: LogRequest, text: str, relative: str, *, max_occurrences: int, similarity_threshold: float
) -> tuple[LogResult, str | None, str]:
    """The log of ``request`` (its session already chosen) into the file ``relative`` holding
    ``text``: the result, and the file's new text when an entry merges, else the text to append.
    ``max_occurrences`` and ``similarity_threshold`` are the store's ``log.*`` settings."""
    now = request.now or utcnow()
    occurrence = occ.Occurrence(now.strftime("%Y-%m-%d"), task_hash(request.session))
    scan = FileScan(text, tokens(request.summary))
    key = request.pattern_key.strip()
    match = _find_match(scan, key, similarity_threshold)
    nearby = None
    # Other wordings (store/duplicates.py): not for a hook's failure, which its fingerprint
    # keys, nor for a request that found its own Pattern-Key.
    if request.logged_by != "hook" and not (match is not None and key and _keyed(scan, match, key)):
        from self_improve.store.duplicates import DuplicateScan

        nearby = DuplicateScan(scan, request.summary, key)
        if match is not None and nearby.opposite(match):
            match = None  # the same words saying the opposite ("use npm, not yarn") are another lesson
        if match is None:
            match = nearby.certain()  # another wording of an entry's lesson, nearly sure
    if match is not None:
        start, end = match
        entry = Entry(tuple(split_lines(text[start:end])), file=relative)
        updated = merge_occurrence(entry, request, occurrence, max_occurrences)
        merged = LogResult(updated.id, False, updated.recurrence_count, occ.distinct_tasks(updated.occurrences), relative)
        return merged, text[:start] + updated.text + text[end:], ""
    from self_improve.store.ids import new_id  # only a new entry needs an ID

    entry_id = new_id(request.kind, now, IdsIn(text))
    eol = "\r\n" if text.count("\r\n") * 2 > text.count("\n") else "\n"
    see_also = request.see_also or related(scan)
    body = render_new(new_entry(request, entry_id, now, occurrence, see_also), eol)
    prefix = ""
    if text and not text.endswith("\n"):
        prefix = eol + eol
    elif text and not text.endswith(eol + eol) and text.strip():
        prefix = eol
    likely = tuple(nearby.likely()) if nearby is not None else ()
    created = LogResult(entry_id, True, 1, 1 if occurrence.task != "-" else 0, relative, likely)
    return created, None, prefix + body


def _find_match(scan: FileScan, key: str, threshold: float) -> Span | None:
    """The span of the active entry a request merges into: same Pattern-Key first; else a
    near-identical summary among active entries that have no Pattern-Key or the same one (so
    one summary logged twice never gives two entries)."""
    span = scan.active_keyed(key) if key else None
    if span is not None and _merged_away(scan, span):
        from self_improve.store.duplicates import keyed_successor

        span = keyed_successor(scan, key)  # `self-improve merge` moved its lesson: the entry that kept it
    if span is not None:
        return span
    span = closest(scan.similar(threshold), scan.wanted, key, threshold)
    if span is not None and _merged_away(scan, span):
        from self_improve.store.duplicates import successor

        span = successor(scan, span, key)
    return span


def _keyed(scan: FileScan, span: Span, key: str) -> bool:
    """Whether the entry at ``span`` has this Pattern-Key (a search of its text only)."""
    pattern = rf"(?im)^[-*][ \t]+Pattern-Key:[ \t]*{re.escape(key)}[ \t]*\r?$"
    return re.search(pattern, scan.text[span[0] : span[1]]) is not None


def _merged_away(scan: FileScan, span: Span) -> bool:
    """Whether the entry at ``span`` may carry ``- Superseded-By:`` (a cheap test of its text)."""
    return "superseded-by" in scan.text[span[0] : span[1]].casefold()
