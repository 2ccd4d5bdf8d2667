"""Contradictions: a newer lesson whose rule inverts a promoted one, proposed as a supersede.

A prevention rule says what to do and what not to do: "use yarn, not npm", "never use tabs",
"用 pnpm，不要用 npm". :func:`stances` reads those as stances, each a polarity and the thing it
is about, and :func:`conflicts` says on which things two rules take opposite stances ("use
npm" affirms ``npm``, "use yarn, not npm" negates it). ``review`` flags an entry whose rule
conflicts with a promoted rule as a **proposed supersede** (``self-improve supersede OLD --by
NEW``); it never applies one itself: which rule is right is for a person to say.

The parser is small, pure and precise rather than clever. It reads, per sentence:

- pairs: ``X, not Y`` · ``use X not Y`` · ``X instead of Y`` / ``rather than Y`` ·
  ``instead of Y, X`` · ``prefer X over Y`` / ``to Y`` · ``用X，不要(用)Y`` / ``别(用)Y`` /
  ``而不是Y`` / ``不用Y`` · ``用X代替Y`` (``替代``, ``取代``) · ``X而不是Y``;
- single stances, per comma clause: ``never X`` · ``don't X`` · ``do not X`` · ``avoid X`` ·
  ``stop X`` · ``不要X`` · ``别X`` · ``禁止X`` · ``切勿X`` (negative); ``always X`` · ``use X`` ·
  ``prefer X`` · ``run X`` · ``总是X`` · ``始终X`` · ``务必X`` · ``用X`` · ``使用X`` (positive).

The thing is compared exactly, after normalising both sides the same way: NFKC and case folding,
quotes and backticks dropped, one leading verb of use (``use``, ``run``, ``用``, ``使用`` …), a
leading article, fillers (``here``, ``instead``, ``in this repo``) and a trailing reason
(``because …``, ``因为…``) removed. So "use `npm`" and "用 npm" are about ``npm``, and "always run
npm test first" is about ``npm test first``, not ``npm``: a tool named in two unrelated rules is
no contradiction, and neither are two rules with different scopes ("never use tabs in Python",
"always use tabs in Makefiles"). What it misses (a paraphrase, a synonym) is for ``review``'s
reader; what it flags is always two rules that say "do" and "don't" of the same words.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from self_improve.review.candidates import usable
from self_improve.review.policy import PROMOTABLE_STATUSES, clean_rule, superseded_by
from self_improve.store.entry import Entry
from self_improve.store.store import Store, latest_action

MAX_THING_CHARS = 80
"""A longer "thing" is a sentence, not a tool or a habit: it takes no stance."""
MAX_RULE_CHARS = 400
"""A longer text is no prevention rule (``promotion.max_rule_chars`` is 200 by default): it takes
no stance, and the patterns' work stays bounded on a store's text."""

# ---- the parser (pure) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Stance:
    do: bool  # True: use / always; False: don't / never / instead of
    thing: str  # normalised (``thing``)


_SENTENCES = re.compile(r"[.!?;:](?=\s|$)|[。\n]")
_CLAUSES = re.compile(r"[,，]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

_EN_PAIRS = (
    re.compile(r"^(?:instead of|rather than)\s+(?P<neg>[^,]+),\s*(?P<pos>.+)$"),
    re.compile(r"^(?P<pos>.+?),?\s+(?:instead of|rather than)\s+(?P<neg>.+)$"),
    re.compile(r"^(?:(?:always|please)\s+)?prefer\s+(?P<pos>.+?)\s+(?:over|to)\s+(?P<neg>.+)$"),
    re.compile(r"^(?P<pos>.+?)\s*(?:,|—|–|\s-)\s*(?:and\s+)?not\s+(?P<neg>.+)$"),
    re.compile(r"^(?P<pos>(?:(?:always|please)\s+)?(?:use|prefer|run|pick|choose)\s+\S+)\s+not\s+(?P<neg>.+)$"),
)
_ZH_VERB = r"(?:请)?\s*(?:总是|始终|一直|务必)?\s*(?:用|使用|采用|改用)"
_ZH_PAIRS = (
    re.compile(rf"^{_ZH_VERB}\s*(?P<pos>.+?)\s*(?:来)?(?:代替|替代|取代|替换)\s*(?P<neg>.+)$"),
    re.compile(rf"^{_ZH_VERB}\s*(?P<pos>.+?)\s*[,、]?\s*(?:而不是|而非|不要|别|不用|不是)\s*(?P<neg>.+)$"),
    re.compile(r"^(?P<pos>.+?)\s*[,、]?\s*(?:而不是|而非)\s*(?P<neg>.+)$"),
)
_SINGLE = (
    (False, re.compile(r"^(?:(?:you|we)\s+)?(?:(?:should|must)\s+)?(?:never|don't|dont|do\s+not|avoid|stop|no\s+longer)\s+(?P<thing>.+)$")),
    (False, re.compile(r"^(?:请)?\s*(?:永远|千万|绝对|一定)?\s*(?:不要|别|不许|不准|禁止|切勿|勿|从不|不能|不再)\s*(?P<thing>.+)$")),
    (True, re.compile(r"^(?:(?:you|we)\s+)?(?:(?:should|must)\s+)?(?:always)\s+(?P<thing>.+)$")),
    (True, re.compile(r"^(?:(?:you|we)\s+)?(?:(?:should|must|please)\s+)?(?:use|prefer|pick|choose|run|switch\s+to)\s+(?P<thing>.+)$")),
    (True, re.compile(r"^(?:请)?\s*(?:总是|始终|一直|永远|务必|一定要|必须)\s*(?P<thing>.+)$")),
    (True, re.compile(rf"^{_ZH_VERB}\s*(?P<thing>.+)$")),
)

_QUOTES = str.maketrans({"`": " ", '"': " ", "“": " ", "”": " ", "„": " ", "「": " ", "」": " ", "『": " ", "』": " ",
                         "‘": "'", "’": "'"})
_PARENTHESES = re.compile(r"\([^()]*\)")
_REASON = re.compile(r"(?:\s+(?:because|since|so that|as it|otherwise|unless you)\b|因为|否则|以免).*$")
_LEAD = re.compile(
    r"^(?:(?:please|always|just|also|then|to|you|we|should|must)\s+)*"
    r"(?:(?:use|using|run|running|prefer|pick|choose|switch\s+to|go\s+with)\s+)?"
    r"(?:(?:the|a|an)\s+)?"
)
_ZH_LEAD = re.compile(r"^(?:请|总是|始终|一直|务必|再|去)*(?:用|使用|采用|改用|运行)?")
_FILLER = re.compile(
    r"(?:\s+(?:here|instead|please|for now|from now on|anymore|any more|"
    r"(?:in|for) this (?:repo|repository|project|codebase|workspace))"
    r"|这里|在这里|在这个项目里|在本项目中|吧|了|啊|哦|即可)+$"
)
_EDGES = " \t'.,;:!?()[]{}<>—–、"
# A pair's "do" side that is itself a negation ("do not use npm, not even for scripts") is no pair.
_NEGATED = re.compile(r"^(?:(?:you|we)\s+)?(?:(?:should|must)\s+)?(?:never|don't|dont|do\s+not|avoid|stop|no\s+longer)\b|^(?:请)?(?:不要|别|禁止|切勿|不用)")


def thing(phrase: str) -> str:
    """What a stance is about, normalised so that two wordings of one thing compare equal; ""
    when nothing is left or it is too long to be one thing."""
    text = _PARENTHESES.sub(" ", _fold(phrase))
    text = _REASON.sub("", text)
    text = " ".join(text.split()).strip(_EDGES)
    for _ in range(2):  # "please always use the X here" -> "X"; twice, for a filler left before an edge
        text = _LEAD.sub("", text)
        text = _ZH_LEAD.sub("", text).strip(_EDGES)
        text = _FILLER.sub("", text).strip(_EDGES)
    return text if len(text) <= MAX_THING_CHARS else ""


def _fold(text: str) -> str:
    """NFKC (full-width letters and punctuation become ASCII), case folded, quotes off."""
    return unicodedata.normalize("NFKC", text).casefold().translate(_QUOTES)


def stances(rule: str) -> tuple[Stance, ...]:
    """The stances of a rule, in order, each thing once (a rule both affirming and negating the
    same thing takes no stance on it)."""
    if len(rule) > MAX_RULE_CHARS:
        return ()
    found: list[Stance] = []
    for sentence in _SENTENCES.split(_fold(rule)):
        sentence = " ".join(sentence.split()).strip(_EDGES)
        if sentence:
            found.extend(_sentence_stances(sentence))
    polarity: dict[str, set[bool]] = {}
    for stance in found:
        polarity.setdefault(stance.thing, set()).add(stance.do)
    return tuple(Stance(polarities.pop(), name) for name, polarities in polarity.items() if len(polarities) == 1)


def _sentence_stances(sentence: str) -> list[Stance]:
    pairs = _ZH_PAIRS if _CJK.search(sentence) else ()
    for pattern in (*pairs, *_EN_PAIRS):
        match = pattern.match(sentence)
        if match and not _NEGATED.match(match["pos"]):
            pair = [Stance(True, thing(match["pos"])), Stance(False, thing(match["neg"]))]
            kept = [stance for stance in pair if stance.thing]
            if len(kept) == 2:
                return kept
    out = []
    for clause in _CLAUSES.split(sentence):
        clause = " ".join(clause.split()).strip(_EDGES)
        for do, pattern in _SINGLE:
            match = pattern.match(clause)
            if match:
                name = thing(match["thing"])
                if name:
                    out.append(Stance(do, name))
                break
    return out


def conflicts(new_rule: str, old_rule: str) -> tuple[str, ...]:
    """The things one rule affirms and the other negates, in the new rule's order."""
    old = {stance.thing: stance.do for stance in stances(old_rule)}
    return tuple(stance.thing for stance in stances(new_rule) if stance.thing in old and old[stance.thing] != stance.do)


# ---- in a store's entries (pure) --------------------------------------------------------------------

SUPERSEDE = "supersede"
REPLACE_RULE = "replace_rule"
RULE_KINDS = frozenset({"learning", "error"})


@dataclass(frozen=True)
class Contradiction:
    new: Entry  # the lesson that says otherwise (the old entry itself: its newest fix, for REPLACE_RULE)
    old: Entry  # the promoted entry
    new_rule: str
    old_rule: str  # as its rules block has it
    things: tuple[str, ...]

    @property
    def proposal(self) -> str:
        return REPLACE_RULE if self.new.id.upper() == self.old.id.upper() else SUPERSEDE


def lesson_rule(entry: Entry) -> str:
    """The rule an entry would promote (its newest fix), else its summary (a correction without
    a fix keeps the user's words there)."""
    return clean_rule(latest_action(entry)) or clean_rule(entry.summary)


def find_contradictions(entries: Sequence[Entry], promoted_rules: Mapping[str, str]) -> list[Contradiction]:
    """Each lesson (pending, in progress or resolved; a learning or an error, not superseded, not
    already superseding it) whose rule conflicts with a promoted rule; and each promoted entry
    whose newest fix, logged after its promotion, conflicts with its own rule.

    ``promoted_rules``: the rule text of each promoted entry's bullet, by upper-case ID (an entry
    without a bullet is taken at its own rule)."""
    ready = [entry for entry in usable(entries) if entry.kind in RULE_KINDS and not superseded_by(entry)]
    promoted = [entry for entry in ready if entry.status == "promoted"]
    lessons = [entry for entry in ready if entry.status in PROMOTABLE_STATUSES]
    found: list[Contradiction] = []
    for old in promoted:
        old_rule = promoted_rules.get(old.id.upper()) or lesson_rule(old)
        newest = lesson_rule(old)
        if newest and newest != old_rule and (things := conflicts(newest, old_rule)):
            found.append(Contradiction(old, old, newest, old_rule, things))
        for new in lessons:
            if old.id.upper() in _supersedes(new):
                continue
            new_rule = lesson_rule(new)
            if new_rule and (things := conflicts(new_rule, old_rule)):
                found.append(Contradiction(new, old, new_rule, old_rule, things))
    found.sort(key=lambda c: (c.new.id, c.old.id))
    return found


def _supersedes(entry: Entry) -> set[str]:
    return {item.strip().upper() for item in entry.meta("Supersedes").split(",") if item.strip()}


# ---- what review shows ----------------------------------------------------------------------------


@dataclass(frozen=True)
class SupersedeProposal:
    """A contradiction and the exact command that acts on it (``user_command``: scope, root)."""

    contradiction: Contradiction
    command: str

    def as_json(self) -> dict[str, Any]:
        c = self.contradiction
        return {
            "new_id": c.new.id,
            "old_id": c.old.id,
            "new_rule": c.new_rule,
            "old_rule": c.old_rule,
            "conflicts_on": list(c.things),
            "proposal": c.proposal,
            "target": c.old.promoted,
            "command": self.command,
        }

    def lines(self) -> list[str]:
        c = self.contradiction
        on = ", ".join(c.things)
        if c.proposal == REPLACE_RULE:
            return [
                f"  {c.old.id}  its newest fix inverts its own rule (on {on})",
                f"      rule:   {c.old_rule}",
                f"      newest: {c.new_rule}",
                f"      to make the newest fix the rule: {self.command}",
            ]
        return [
            f"  {c.new.id}  inverts the rule of {c.old.id} (on {on})",
            f"      new:    {c.new_rule}",
            f"      old:    {c.old_rule}{f' (in {c.old.promoted})' if c.old.promoted else ''}",
            f"      to supersede it: {self.command}",
        ]


def command_for(contradiction: Contradiction) -> tuple[str, ...]:
    """The verb and arguments that act on it: supersede OLD --by NEW, or re-promote the entry
    (its newest fix becomes the rule, in the same file)."""
    if contradiction.proposal == REPLACE_RULE:
        return ("promote", contradiction.old.id)
    return ("supersede", contradiction.old.id, "--by", contradiction.new.id)


# ---- reading the rules (the one part that reads files) ------------------------------------------------


def rules_in_blocks(store: Store, entries: Iterable[Entry]) -> dict[str, str]:
    """The text of every rule bullet in the store's instruction files, by upper-case entry ID."""
    from self_improve.review.drift import scan_files

    rules: dict[str, str] = {}
    for scan in scan_files(store, list(entries)).values():
        for block in scan.blocks:
            for rule in block.rules:
                rules.setdefault(rule.entry_id.upper(), rule.text)
    return rules


def supersede_proposals(store: Store, command: Callable[..., str]) -> list[SupersedeProposal]:
    """The store's contradictions, each with its command (``command(*verb)``: ``user_command``)."""
    store._require()
    entries = store.entries()
    found = find_contradictions(entries, rules_in_blocks(store, entries))
    return [SupersedeProposal(contradiction, command(*command_for(contradiction))) for contradiction in found]


def not_applied_line(proposal: SupersedeProposal) -> str:
    """What ``review --yes`` and the interactive review say of one: it is never applied for you."""
    c = proposal.contradiction
    if c.proposal == REPLACE_RULE:
        return f"contradiction (not applied): the newest fix of {c.old.id} inverts its rule; to make it the rule: {proposal.command}"
    return f"contradiction (not applied): {c.new.id} inverts the rule of {c.old.id}; to supersede it: {proposal.command}"
