"""The store room: the only code that reads and writes ``.learnings/``.

It knows the Markdown entry grammar (``entry``, lossless: the raw lines are the truth), the
settings and their defaults (``settings``, ``config``), the trust model of a store directory
(``trust``, ``settings``), and every write: ``Store.log`` merges an occurrence into a
matching entry or appends one, ``Store.update`` rewrites one entry, ``archive`` moves entries to
``.learnings/archive/``, ``merge`` is git's merge driver for these files. Every write holds the
store's lock and is atomic. The store imports only the rooms below it (``detect``, ``events``)
and the root modules, never review, harnesses, hooks or commands.

    from self_improve.store.store import LogRequest, Store
    store = Store(root)                        # store.dir == root / ".learnings"
    store.log(LogRequest(kind="error", summary=..., pattern_key=..., session=...))  # -> LogResult
    store.entries(kind=None) -> list[Entry];  store.get(entry_id) -> Entry
    store.update(entry_id, edit: Callable[[Entry], Entry]) -> Entry
"""
