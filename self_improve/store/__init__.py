"""The only code that touches ``.learnings/``.

Contract used by hooks, review, watch/sweep and the merge driver (being written now by the lead):

    from self_improve.store.store import Store, LogRequest, LogResult
    store = Store(root)                 # root = project root; store.dir == root / ".learnings"
    store.exists() -> bool              # opt-in: only projects with .learnings/ take part
    store.entries(kind=None) -> list[Entry]
    store.get(entry_id) -> Entry        # raises StoreError("unknown ID ...")
    store.log(LogRequest(kind="error", summary=..., pattern_key=..., session=..., excerpt=...,
                         details=..., action=..., area=..., priority=..., category=..., now=datetime))
        -> LogResult(entry_id, created: bool, recurrence_count: int, tasks: int)
    store.update(entry_id, edit: Callable[[Entry], Entry]) -> Entry   # locked, atomic rewrite

    Entry (self_improve.store.entry): id, kind ("learning"|"error"|"feature"), category, status,
    priority, area, summary, pattern_key, recurrence_count, first_seen, last_seen,
    occurrences: tuple[Occurrence(date: str 'YYYY-MM-DD', task: str)], suggested_action (Suggested
    Action or Suggested Fix), details, helpful, harmful, promoted, file, line; with_field(),
    with_metadata(), with_status() ... returning new entries that keep every other byte.
"""
