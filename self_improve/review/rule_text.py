"""One rule out of a Suggested Action / Fix section: a whole imperative sentence, never a fragment.

Real sections are written for people: a code block, a numbered procedure, a note to self, a
wrapped paragraph. The last line of such a section is a rule only by luck ("```", "Then click
the first item.", "suggest writing this into memory"), so we read the section as its author
wrote it and take, in this order:

1. **The newest line**, when it is by itself a rule: that is where ``log --action`` appends the
   latest fix (fixes accumulate, newest last), and an agent writes it as one line. It is taken
   whole (after its list marker, label or emoji), as it was written.
2. **The first imperative sentence** of the section, in reading order.

A *unit* is one line outside code fences (a wrapped line, or an indented line under a list item,
is joined to the one before it); a *sentence* ends at ``.``/``!``/``?`` followed by a capital or
code (never inside backticks), or at ``。！？；``. A sentence is a rule when:

- it starts like an order: an imperative verb (``Use``, ``Run``, ``Check``…), a command
  (``pip install pyyaml``, a backticked command: an order to run it), an order word
  (``Always``, ``Never``, ``Don't``, ``Do not``, ``Avoid``, ``Prefer``, ``Only``, ``No``), or a
  condition followed by one (``When X, run Y``; ``In this repo, use pnpm``); in Chinese one of
  ``使用 运行 不要 必须 先 请 务必 避免 确保 禁止 始终`` and similar (``CN_STARTS``). A numbered step
  (``2. …``) counts only when it starts with an order word: a procedure is not a rule;
- it is not a fragment: no continuation word first (``Then``, ``Next``, ``And``, ``Also``, ``然后``,
  ``接着``…), not ending in ``:`` (it introduces what follows), not too short: two words at
  least ("Use pnpm."), and then not a vague object ("Fix it.", "See above."); a CJK character
  counts as a word and a CJK-only sentence needs 4, no note about where the lesson is written ("write
  this into memory", ``写入记忆``), no undecodable text (U+FFFD, a lone surrogate from a file that
  is not UTF-8, ``锟斤拷``);
- it is not a heading, a table row, a fence, code alone, or an HTML comment.

Nothing here invents words: a rule is the author's own sentence, or there is none ("needs a
rule", and the section is shown to the person who writes one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

_VERBS = frozenset(
    """
    activate add adjust align allow append apply ask assert assign attach audit back batch be block
    bound break build bump cache call cap catch cd change check choose clean clear clone close collect
    combine commit compare compile compute configure confirm connect convert copy count create cut
    debug declare decode deduplicate default defer define delete deploy describe detect disable
    document double-check download drop dump edit emit enable encode enforce ensure enter escape
    evaluate exclude execute exit expect explain export expose extract favor favour fetch filter find fix
    flush focus follow force format free generate get give grep group guard handle hide hold
    implement import include increase index initialise initialize inject insert inspect install invoke
    isolate join keep kill label launch leave limit link lint list load lock log look make map mark
    match measure merge migrate minimise minimize mock monitor mount move name normalise normalize
    notify omit open override parse pass patch pause persist pick pin place plan poll prefix prepend
    preserve prevent print profile prompt protect prune publish pull push put query quote raise re-run
    read rebase rebuild recheck record redirect reduce refactor refer refresh register reject release
    reload remember remove rename render repeat replace reply report reproduce request require rerun
    reset resolve respect respond restart restore restrict retain retry return reuse revert review
    rewrite roll route run sanitise sanitize save scan scope search select send separate serve set
    share shorten show sign simplify skip sleep sort source specify split squash stage start stash
    stay stick stop store strip submit substitute supply switch sync tag take tell terminate test
    throttle time toggle touch trace track transform translate treat trim trust try turn type
    uninstall unlock unpack unset unwrap update upgrade upload use validate verify wait warn watch
    wrap write
    """.split()
)
# A line that starts with a command is an order to run it ("pip install pyyaml", "`make deps`
# before the tests"): agents log their fixes so (``log --action``).
_COMMANDS = frozenset(
    """
    pip pip3 pipx uv poetry pdm conda python python3 node npm npx pnpm yarn bun deno cargo rustup go
    gem bundle rake rails mix composer php dotnet mvn gradle make cmake git gh docker podman kubectl
    helm terraform brew apt apt-get dnf yum apk sudo pytest ruff mypy tox nox eslint prettier tsc jest
    vitest cp mv mkdir rm ln chmod chown export source curl wget tar unzip ssh scp rsync systemctl
    """.split()
)
# Words that make a sentence an order by themselves: enough even for a numbered item.
_ORDER_WORDS = frozenset("always never don't dont do avoid prefer only no must ensure".split())
# Openers of a condition ("When X, run Y"): the word after the first comma decides.
_CONDITIONS = frozenset("when whenever if unless before after once while during for in on inside outside until".split())
# A sentence that starts with one of these continues a procedure or another sentence.
_CONTINUATIONS = frozenset("then next finally afterwards and or but also so otherwise again".split())
CN_STARTS = (
    "不要", "不得", "不能", "必须", "务必", "始终", "总是", "永远", "一律", "禁止", "避免", "切勿", "别", "确保", "优先",
    "只", "每次", "先", "请", "应", "需要", "使用", "运行", "用", "执行", "检查", "添加", "设置", "改用", "安装", "确认",
    "记得", "把", "将", "保持", "删除", "更新", "调用", "在", "当", "如果", "若", "遇到", "以后", "今后", "建议",
)
_CN_CONTINUATIONS = ("然后", "接着", "之后", "随后", "最后", "并且", "而且", "或者", "另外", "同时", "其次", "再")
# Notes about the lesson itself (where to write it), not rules about the work.
_NOTE = re.compile(
    r"(?i)\b(?:write|writing|add|adding|save|saving|record|recording|promote|promoting|log|logging|put|putting)\b.{0,40}"
    r"(?:\bmemory\b|\bmemories\b|MEMORY\.md|AGENTS\.md|CLAUDE\.md|SOUL\.md|TOOLS\.md|\.learnings)|"
    r"记忆|(?:写入|写进|记录到|记入)(?:到)?\s*(?:MEMORY|AGENTS|CLAUDE|SOUL|TOOLS)"
)
# "Fix it.", "See above.": two words that say nothing without the sentence before them.
_VAGUE_OBJECTS = frozenset("it this that them these those there here again now more above below so too".split())
_GARBLED = re.compile("[\ud800-\udfff\ufffd]|锟斤拷|ï¿½")
_NOT_PROSE = ("#", "|", "<", "![")  # headings, table rows, HTML and comments, images: never a sentence
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^(\s*)(?:([-*+])|(\d{1,3})[.)])\s+(?:\[[ xX]\]\s+)?")
_LABEL = re.compile(r"^(?:\*\*[^*\n]{1,40}?(?::\*\*|\*\*\s*[:：])|[A-Za-z][\w-]*(?: [\w-]+){0,2}:(?!//)|[^\s:：]{1,8}[：]|\d{4}-\d{2}-\d{2}(?:[T ][\d:]+Z?)?\s*[:：])\s*")
_ABBREVIATIONS = re.compile(r"(?i)\b(?:e\.g|i\.e|etc|vs|cf)\.")
_LEADING_SYMBOLS = re.compile(r"^[^\w`\"'(\[*]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[*\u4e00-\u9fff])|(?<=[。！？；])")
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]|[^\s\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")


@dataclass(frozen=True)
class Unit:
    """One line of the section, with the lines that continue it, as read (marker removed)."""

    text: str
    numbered: int  # the item's number in a numbered list; 0 otherwise


def is_garbled(text: str) -> bool:
    """Text decoded from bytes that were not UTF-8: never a rule (nobody can read it back)."""
    return bool(_GARBLED.search(text))


def _closes(line: str, fence: str) -> bool:
    found = _FENCE.match(line)
    if found is None:
        return False
    run = found.group(1)
    return run[0] == fence[0] and len(run) >= len(fence) and not line.strip().strip(fence[0])


def units(section: str) -> list[Unit]:
    """The section's lines outside code fences, wrapped and indented lines joined to theirs."""
    found: list[Unit] = []
    fence = ""
    ended = True  # whether the previous line ended a sentence (a wrapped line does not start one)
    for raw in section.splitlines():
        if fence:
            fence = "" if _closes(raw, fence) else fence
            continue
        opening = _FENCE.match(raw)
        line = raw.strip()
        if opening or not line or line.startswith(_NOT_PROSE):
            fence = opening.group(1) if opening else ""
            ended = True
            continue
        item = _LIST_ITEM.match(raw)
        if found and not item and (raw[:1].isspace() or (not ended and line[:1].islower())):
            found[-1] = Unit(f"{found[-1].text} {line}", found[-1].numbered)
        else:
            body = raw[item.end():].strip() if item else line
            found.append(Unit(body, int(item.group(3)) if item and item.group(3) else 0))
        ended = line.endswith((".", "!", "?", "。", "！", "？", ";", "；", ":", "："))
    return found


def _without_decoration(text: str) -> str:
    """The sentence without a leading emoji or label (``**Fix**:``, ``Fix:``, ``修复：``); a plain
    label only when the text does not already start an order ("Use pnpm: it is faster")."""
    text = _LEADING_SYMBOLS.sub("", text.strip())
    label = _LABEL.match(text)
    if label and len(text) > label.end() and (text.startswith("**") or not _starts_an_order(text, False)):
        text = _LEADING_SYMBOLS.sub("", text[label.end():])
    return text.strip()


def sentences(text: str) -> list[str]:
    """The sentences of one unit; a full stop inside backticks or of "e.g." ends none."""
    masked = _ABBREVIATIONS.sub(lambda m: "x" * len(m.group(0)), re.sub(r"`[^`]*`", lambda m: "x" * len(m.group(0)), text))
    out, start = [], 0
    for end in _SENTENCE_END.finditer(masked):
        out.append(text[start:end.start()].strip())
        start = end.end()
    out.append(text[start:].strip())
    return [sentence for sentence in out if sentence]


def _first_word(text: str) -> str:
    word = re.match(r"[\w'’-]+", text.lstrip("*_\"'(["))
    return word.group(0).casefold().replace("’", "'") if word else ""


def _starts_an_order(text: str, numbered: bool) -> bool:
    if _CJK.match(text):
        if text.startswith(_CN_CONTINUATIONS):
            return False
        return text.startswith(CN_STARTS) and not (numbered and text.startswith(("使用", "运行", "用", "执行", "点击", "打开")))
    word = _first_word(text)
    if word in _ORDER_WORDS:
        return True
    if word in _COMMANDS or (text.startswith("`") and _WORD.findall(text.split("`", 2)[-1])):
        return not numbered  # a backticked command counts with words after it: code alone is no rule
    if word in _CONDITIONS and not numbered:
        head, comma, rest = text.partition(",")
        return bool(comma) and len(head) <= 80 and _first_word(rest.strip()) in _VERBS | _ORDER_WORDS
    return word in _VERBS and not numbered


def fragment_problem(sentence: str) -> str:
    """Why a sentence is no rule on its own ("" when it is one)."""
    if is_garbled(sentence):
        return "it is garbled (text that was not UTF-8)"
    if sentence.startswith(_NOT_PROSE) or _FENCE.match(sentence):
        return "it is not a sentence"
    if sentence.rstrip().endswith((":", "：")):
        return "it introduces what follows"
    if _CJK.match(sentence) and sentence.startswith(_CN_CONTINUATIONS) or _first_word(sentence) in _CONTINUATIONS:
        return "it continues another sentence"
    words = _WORD.findall(sentence)
    vague = len(words) == 2 and words[1].strip(".!?,;*`").casefold() in _VAGUE_OBJECTS
    if len(words) < 2 or vague or (all(_CJK.match(word) for word in words) and len(words) < 4):
        return "it is too short to be a rule"
    if _NOTE.search(sentence):
        return "it is a note about the lesson, not a rule"
    return ""


def is_rule(sentence: str, numbered: bool = False) -> bool:
    return not fragment_problem(sentence) and _starts_an_order(sentence, numbered)


@dataclass(frozen=True)
class Distilled:
    """The rule found (its sentence and the unit it came from), or the first reason a would-be
    rule was refused (``problem``, from ``check``); both empty: nothing looks like a rule."""

    text: str = ""
    source: str = ""
    problem: str = ""


def candidates(section: str) -> Iterator[tuple[str, str]]:
    """(rule, the unit it came from) in the order of the module doc: the newest unit's first
    sentence, then every imperative sentence in reading order. A numbered item is strict (an
    order word first) when the section is a procedure: two numbered items or more."""
    found = units(section)
    procedure = sum(1 for unit in found if unit.numbered) >= 2
    newest = [(found[-1], 1)] if found else []
    for unit, limit in [*newest, *((unit, len(unit.text)) for unit in found)]:
        for sentence in sentences(_without_decoration(unit.text))[:limit]:
            sentence = _without_decoration(sentence)
            if is_rule(sentence, procedure and unit.numbered > 0):
                yield sentence, unit.text


def distill(section: str, check: Callable[[str], str]) -> Distilled:
    """The first candidate that ``check`` accepts (``check`` returns why not, "" when fine)."""
    refused = ""
    for text, source in candidates(section):
        problem = check(text)
        if not problem:
            return Distilled(text, source)
        refused = refused or problem
    return Distilled(problem=refused)
