"""The derived model of an entry: what its fields say, read as their authors meant them.

A mixin of ``Entry`` (``store/entry.py``), which holds the raw lines and the structure parsed
from them; this half only reads values through ``Entry``'s accessors, so the lossless parser
and the tolerant reading of values (``store/tolerant.py``, ``store/summary.py``) stay apart.
"""

from __future__ import annotations

from self_improve import rx as re  # re, with compiled programs cached across processes
from self_improve.memo import cached_property  # functools.cached_property, without importing functools
from self_improve.store import headers, tolerant
from self_improve.decoding import readable
from self_improve.store.grammar import ACTION_SECTIONS, DETAILS_SECTIONS
from self_improve.store.occurrences import Occurrence, parse_occurrences
from self_improve.store.summary import summary_of



class EntryModel:
    """Derived values; every one is computed from ``Entry``'s lines and accessors."""

    __slots__ = ()

    # Provided by Entry.
    @property
    def form(self) -> str:
        raise NotImplementedError

    @property
    def bare_lines(self) -> tuple[str, ...]:
        raise NotImplementedError

    def field(self, name: str, default: str = "") -> str:
        raise NotImplementedError

    def meta(self, name: str, default: str = "") -> str:
        raise NotImplementedError

    def meta_or_field(self, name: str) -> str:
        raise NotImplementedError

    def value(self, name: str) -> str:
        raise NotImplementedError

    def section_text(self, *titles: str) -> str:
        raise NotImplementedError

    @property
    def status(self) -> str:
        return tolerant.status_of(readable(self.value("Status"))) or "pending"

    @property
    def priority(self) -> str:
        """Priority as it names one; else what Severity names ("" when it names none)."""
        written = readable(self.value("Priority"))
        if written.strip():
            return tolerant.priority_of(written) or written.strip().casefold()
        return tolerant.priority_of(readable(self.value("Severity")))

    @property
    def area(self) -> str:
        return self.value("Area").strip()

    @property
    def logged(self) -> str:
        return self.value("Logged").strip()

    @property
    def summary(self) -> str:
        """Where its author put it (``store/summary.py``), decoded when the file is not UTF-8."""
        return readable(summary_of(self))

    @property
    def details(self) -> str:
        return self.section_text(*DETAILS_SECTIONS)

    @property
    def suggested_action(self) -> str:
        return self.section_text(*ACTION_SECTIONS)

    @property
    def pattern_key(self) -> str:
        return self.meta_or_field("Pattern-Key").strip().strip("`")

    @property
    def see_also(self) -> tuple[str, ...]:
        value = self.meta_or_field("See Also")
        return tuple(v for v in re.split(r"[\s,;]+", value) if v)

    @cached_property
    def occurrences(self) -> tuple[Occurrence, ...]:
        # Cached (in Entry's __dict__): a listing reads it three or four times per entry.
        return parse_occurrences(self.meta("Occurrences"))

    @property
    def recurrence_count(self) -> int:
        """The count as written, annotation aside (``3+`` is 3); else one per occurrence."""
        counted = tolerant.count_of(self.meta_or_field("Recurrence-Count"))
        return counted if counted is not None else max(1, len(self.occurrences))

    @property
    def first_seen(self) -> str:
        """A day (a timestamp's date); else the day it was logged, or its dated header's."""
        written = self.meta_or_field("First-Seen").strip()
        return (tolerant.day_of(written) or written) or tolerant.day_of(self.logged) or self.logged[:10] or self.header_day

    @property
    def last_seen(self) -> str:
        written = self.meta_or_field("Last-Seen").strip()
        return (tolerant.day_of(written) or written) or self.first_seen

    @property
    def header_day(self) -> str:
        """The day a dated header names ("" for other headers)."""
        return headers.header_date(self.bare_lines[0]) if self.form == headers.DATED else ""

    @property
    def helpful(self) -> int:
        return _int(self.meta("Helpful"), default=0)

    @property
    def harmful(self) -> int:
        return _int(self.meta("Harmful"), default=0)

    @property
    def measured_helpful(self) -> int:
        """Recalled fixes this entry gave that were followed by the same intent passing (the hooks
        count them from exit codes, never from the agent's word: ``store/evidence.py``)."""
        return _int(self.meta("Measured-Helpful"), default=0)

    @property
    def measured_harmful(self) -> int:
        """Recalled fixes followed by the same fingerprint failing again."""
        return _int(self.meta("Measured-Harmful"), default=0)

    @property
    def observed_fix(self) -> str:
        """What the hooks saw fix this mistake (``- Observed-Fix:``, our words); "" without one."""
        return self.meta("Observed-Fix").strip()

    @property
    def recurred_after_promotion(self) -> int:
        """Occurrences recorded while the entry was promoted: its rule did not prevent them."""
        return _int(self.meta("Recurred-After-Promotion"), default=0)

    @property
    def recurred_after_resolution(self) -> int:
        """Occurrences recorded while the entry was resolved (each one reopened it)."""
        return _int(self.meta("Recurred-After-Resolution"), default=0)

    @property
    def promoted(self) -> str:
        """The file that holds its rule: our ``- Promoted-To:`` (written where the user has a
        ``Promoted`` line of their own), else the ``Promoted`` field."""
        return self.meta("Promoted-To").strip() or self.field("Promoted").strip() or self.meta("Promoted").strip()

    @property
    def promoted_on(self) -> str:
        """The day ``review``/``promote`` promoted it (``- Promoted-On: YYYY-MM-DD``); "" if unknown."""
        return self.meta("Promoted-On").strip()[:10]

def _int(value: str, default: int) -> int:
    try:
        return int(value.strip())
    except ValueError:
        return default
