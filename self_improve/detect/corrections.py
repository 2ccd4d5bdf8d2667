"""Is a user prompt a correction of the agent?

    class CorrectionHit:   # immutable record: CorrectionHit(pattern, language)
        pattern: str   # name of the pattern that matched, e.g. "en.thats-wrong"
        language: str  # "en" | "zh"

    def detect_correction(prompt: Prompt) -> CorrectionHit | None

A correction tells the agent that what IT did or said was wrong ("no, that's wrong", "I told
you...", "you forgot the tests", 不对, 别用 X, 我说过).  Talking about errors is not a correction:
"fix the error in foo.py", "why does this test fail?", "what's wrong with my query" ask for work
on the user's code and say nothing about the agent's behaviour.

Decisions on borderline forms (tests/data/corrections.jsonl holds labelled examples):
- "Actually, ..." with a comma is a correction: the user takes back or redirects what the agent
  is doing.  "actually run the tests" (no comma) is an instruction with emphasis: not one.
  "you didn't actually run the tests" is one, through "you didn't".
- "don't use X" alone can be the constraint of a first request; it counts only with a
  replacement ("don't use X, use Y"), or as "stop using X".
- A pattern that also fits a genuine question ("is this the wrong file?", 应该用哪个库？)
  is skipped when its sentence ends with a question mark; "why did you ...?" is always one.

Matching is on the case-folded prompt (str.casefold), with curly apostrophes straightened; of
a long prompt only the first 2,000 and last 500 characters are read.  A pattern is compiled
(once per process) only when one of its needles occurs in the prompt.

Every pattern is linear in the text (tests/detect/test_corrections_linear.py, timings in
bench/corrections_linear.py): blanks at a line start stay on that line (spanning blank lines
they were rescanned from each of them), "A then B in the same sentence" scans each sentence
once from its start, and blanks before a literal are matched possessively.
"""

from __future__ import annotations

from self_improve.events import Frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from self_improve.events import Prompt


class CorrectionHit(Frozen):
    """Which correction pattern matched (e.g. "en.i-told-you"), and the language ("en" | "zh")."""

    __slots__ = ("pattern", "language")
    pattern: str
    language: str

    def __init__(self, pattern: str, language: str) -> None:
        self._set(pattern, language)


class _Pattern(Frozen):
    """A named correction regex; ``skip_questions``: ignore a match whose sentence ends in "?"."""

    __slots__ = ("name", "regex", "skip_questions")
    name: str  # "<lang>.<what>"
    regex: str
    skip_questions: bool

    def __init__(self, name: str, regex: str, skip_questions: bool = False) -> None:
        self._set(name, regex, skip_questions)

    @property
    def language(self) -> str:
        return self.name.split(".", 1)[0]


_NEG = r"(?:don't|dont|do not|never|stop|let's not)"
# Things an agent does that a user complains about, after "you" / "you've".
_DID_WRONG = (
    r"forgot|forget|missed|broke|ignored|removed|deleted|overwrote|overwritten|skipped|misread"
    r"|misunderstood|messed up|keep|kept|didn't|did not|haven't|have not|still haven't"
    r"|did it again|changed the wrong|edited the wrong|used the wrong|introduced|reformatted"
    r"|rewrote|invented|hallucinated|made up|dropped|disabled|commented out|hardcoded|duplicated"
    r"|truncated|undid|reverted|renamed|replaced|made it worse|made things worse"
)
_NOUNS = (
    r"file|function|method|class|module|branch|directory|folder|path|command|approach|place"
    r"|variable|table|column|endpoint|version|repo|repository|server|port|environment|env|key"
    r"|name|one|line|test|package|library|dependency|config|type|order|format|way|field|option"
    r"|migration|commit|service|image|container|database|db|query|argument|parameter|value|url|thing"
)
_NO_ANSWER = r"(?:i haven't|i have not|not yet|thanks|thank you|it's fine|that's fine|worries|problem)"
# Where a sentence may start: a pattern that looks for B after A in the same sentence
# ("A[^.?!\n]*B") is anchored here and finds the first A lazily inside an atomic group, so each
# sentence is scanned once; from every A it would rescan the rest of the sentence (quadratic).
_SENTENCE_START = r"(?:^|(?<=[.?!]))"
_ZH_NOT = r"(?<![级类区特分个识告辨差性先])"  # 别 inside 级别/区别..., and 先别 ("not yet")

# Order is irrelevant for the yes/no answer; the first match names the hit.
PATTERNS: tuple[_Pattern, ...] = (
    # --- English: the agent's output is judged wrong
    # "No, ...", "Nope.", "no no no," -- but not an answer such as "No, I haven't tried it".
    # It ends at a mark, or at the end of its line or text, unless an answer follows ("No, thanks").
    _Pattern("en.no", rf"^[^\S\n]*(?:(?:hmm++|well|ugh|wait|ok(?:ay)?)[\s,.]++)?(?:no+|nope|nah)(?:[\s,.!]++(?:no+|nope))*(?:\s*+[,.!;:\u2014\u2013-](?!\s*+{_NO_ANSWER})|(?=[^\S\n]*+(?:\n|\Z))\s*+(?!{_NO_ANSWER}))"),
    _Pattern("en.thats-wrong", r"(?<!\bif )(?<!\bwhether )\b(?:that's|thats|that is|that was|this is|this was|it's|it is|you're|you are|you were|this isn't|that isn't)\s+(?:(?:still|completely|totally|all|just|so|definitely|clearly|obviously|way)\s+)?(?:wrong|incorrect|off|not (?:right|correct|it|true))\b"),
    _Pattern("en.looks-wrong", r"\b(?:doesn't|does not|don't|didn't) (?:look|seem|sound) (?:right|correct)\b|\bway off\b|\b(?:that|this|it) (?:won't|will not|doesn't|does not|can't|cannot|wouldn't) (?:work|compile|run|build)\b|\b(?:that's|this is|it's) (?:a )?(?:hack|hacky|a mess|messy|sloppy|nonsense|garbage|worse)\b|(?<!\bif )(?<!\bwhen )(?<!\bwhether )\b(?:the|your) (?:answer|result|output|calculation)s? (?:is|are|was|were|looks?|seems?) (?:still )?(?:wrong|incorrect|off)\b", skip_questions=True),
    _Pattern("en.still-wrong", r"\bstill (?:wrong|incorrect|broken|not (?:right|working|fixed|correct))\b|^[^\S\n]*(?:wrong|incorrect)\b|\bsame (?:error|exception|problem|issue|failure|bug|mistake)\b|\bafter your (?:change|fix|edit|patch|commit)"),
    _Pattern("en.didnt-work", r"\b(?:your|the) (?:fix|change|patch|edit|solution|code|version|approach|suggestion)e?s?(?: you (?:made|wrote|did|suggested|proposed))? (?:still )?(?:doesn't|does not|didn't|did not|isn't|is not|won't) (?:work|help|compile|fix|solve)\b"),
    _Pattern("en.not-what-i-asked", r"\b(?:not|isn't|opposite of|different from) what i (?:asked|wanted|meant|said|requested|need|needed|had in mind)\b|\bnot (?:the|what) [^.?!\n]{0,40}?\b(?:i|we) (?:asked|wanted|meant|said|requested|discussed|agreed)\b|\byou(?:'ve)? got [^.?!\n]{0,30}?\b(?:backwards|wrong|reversed|mixed up|swapped)\b|\b(?:is|are|was|were|that's|it's) (?:made up|fabricated|hallucinated|invented|bogus)\b|\bwhere did you get\b"),
    _Pattern("en.i-wanted-x-not-y", rf"{_SENTENCE_START}(?>[^.?!\n]*?\bi (?:wanted|meant|asked for|needed|said)\b)[^.?!\n]*,\s*+not\b"),
    # A house rule stated against what the agent did: "we use tabs here, not spaces".
    _Pattern("en.we-use-x-not-y", r"\bwe (?:always |only |just )?(?:use|prefer|write|run|call|name|keep|put)\b[^.?!\n]{1,50}?,?\s+not\b", skip_questions=True),
    # A reproach about the past: "you should have run the linter first".
    # ("could have" / "would have" are left out: "you could have a look", "you would have to").
    # Only with a past participle: "you should have access now" is information, not a reproach.
    _Pattern("en.you-should-have", r"\byou should(?:'ve| have) (?:\w+ed|run|done|written|known|seen|read|built|made|taken|kept|left|put|set|told|thought|gone|been|chosen|given|found|got|gotten|begun|split|shown|stuck)\b", skip_questions=True),
    _Pattern("en.thats-not-how", r"\bthat's not (?:how|the way|what)\b|^[^\S\n]*not (?:like )?(?:that|this)\b|\bdoing it wrong\b"),
    _Pattern("en.unneeded", r"^[^\S\n]*(?:there's )?no need (?:for|to)\b|\b(?:that's|that is|this is|it's) (?:overkill|unnecessary|not necessary|too complicated|overcomplicated|way too much)\b|\b(?:wasn't|was not|weren't|were not) (?:needed|necessary|required|asked for)\b"),
    _Pattern("en.it-broke", r"\b(?:this|that|it|your (?:change|edit|commit|fix|patch|code)s?|the (?:change|edit|fix|patch)e?s? you (?:made|did|wrote)) (?:just )?(?:broke|breaks|has broken|is breaking|killed|ruined)\b"),
    # --- English: the agent ignored an earlier instruction
    _Pattern("en.i-told-you", rf"\bi (?:already |just |literally )?(?:told|asked) you\b|\bas i (?:already |just )?(?:said|mentioned|explained|told you)\b|(?<!\bif )(?<!\bwhen )\bi (?:already |just |literally )?said\b(?! (?:in|on|at|to|during|that we|we|something|anything|yes|no|ok|okay)\b)|\bi meant\b|\bi (?:never|didn't|did not) (?:ask|say|tell|want|request)(?:ed|s)?\b|\bi never (?:said|told)\b|{_SENTENCE_START}(?>[^.?!\n]*?\bi asked (?:you )?(?:for|to) )[^.?!\n]*,? not\b|\b(?:didn't|did) i (?:not )?(?:say|tell you|ask|mention)\b|\bi (?:explicitly |specifically |clearly |only )?asked (?:for|you)\b|\bi (?:explicitly|specifically|clearly) (?:said|told|asked|wanted|mentioned|requested)\b|\bdid you (?:even|actually|really) \w+"),
    _Pattern("en.already-discussed", r"\b(?:we|i) already (?:discussed|talked about|agreed|went over|covered|explained)\b|\bwe (?:discussed|talked about|agreed on) (?:this|that) (?:already|before)\b|\b(?:second|third|fourth|fifth|\d+(?:nd|rd|th)|umpteenth) time (?:i|i'm|i've|now|that)\b|\bhow many times\b"),
    # --- English: the agent did something it should not have
    _Pattern("en.you-did-wrong", rf"(?<!\bcheck )(?<!\bsure )(?<!\bif )(?<!\bthat )(?<!\bwhat )\byou(?:'ve| have| seem to have| appear to have| accidentally| just)? (?:{_DID_WRONG})\b"),
    _Pattern("en.you-again", rf"{_SENTENCE_START}(?>[^.?!\n]*?\byou \w+ed\b)[^.?!\n]*\bagain\b"),
    _Pattern("en.you-are-doing", r"\byou(?:'re| are) (?:ignoring|overcomplicating|overthinking|overengineering|over-engineering|not listening|not following|going in circles|mixing up|confusing|hallucinating|making (?:things|stuff) up|breaking|deleting|removing)\b"),
    _Pattern("en.you-were-supposed", r"\byou (?:shouldn't|should not|mustn't|must not) (?:have|be|touch|edit|change|modify|delete|remove|add|use|commit|push|run|create|write)\b|\byou(?:'re| are|'re not| are not| were| weren't| aren't)(?: not)? (?:supposed|allowed|meant) to\b|\b(?:the )?same mistake\b"),
    _Pattern("en.why-did-you", r"\bwhy (?:on earth |the hell |in the world )?(?:did|would|didn't|did not|haven't|wouldn't) you (?!think|know|suggest|recommend|prefer|need|want|like|say)\w+|\bwhy (?:are|were) you \w+ing\b|\bwhy'd you\b"),
    # "wrong X" only when aimed at the agent: "you ... the wrong file", "that's the wrong one".
    _Pattern("en.wrong-thing", rf"(?:\byou\b[^.?!\n]{{0,40}}?|\b(?:that's|that is|this is|it's|it is|that was)\s+(?:the |a |an )?|^[^\S\n]*)wrong (?:{_NOUNS})s?\b", skip_questions=True),
    # --- English: undo it, stop it, do it the other way
    # What is named stops at most 60 characters on, before a mark or a blank; inside a run of
    # blanks only at its first one (the others would rescan the run), or just before [,;.].
    _Pattern("en.dont-use-x-use-y", rf"\b{_NEG} (?:use|using) (?:[^.;!?\n]|[^.;!?\n]{{2,60}}?(?:(?<!\s)|(?=[,;.])))(?:[,;.]|\s)\s*+(?:use|try|switch to|go with|stick (?:to|with)|we use|like the rest|just)\b"),
    _Pattern("en.use-instead", r"\b(?:use|try|switch to|go with) [^.;!?\n]{1,40}? instead\b(?! of)", skip_questions=True),
    # A negative imperative about a repeated behaviour: "don't rewrite the file every time".
    _Pattern("en.dont-again", rf"{_SENTENCE_START}(?>[^.?!\n]*?\b(?:don't|do not|dont|stop|quit)\b)[^.?!\n]*\b(?:every time|each time|again|anymore|any more|all the time|another|yet another)\b"),
    _Pattern("en.dont-invent", r"\b(?:don't|do not|dont|stop) (?:invent|inventing|make up|making up|hallucinate|hallucinating|guess|guessing|assume|assuming|pretend|pretending)\b"),
    _Pattern("en.stop", r"^[^\S\n]*stop\s*+[.!]|\bstop (?:doing|using|adding|changing|making|creating|writing|touching|editing|modifying|deleting|removing|ignoring|guessing|putting|calling|rewriting|reformatting|breaking|committing|pushing|installing|asking|apologi[sz]ing|that|it)\b"),
    _Pattern("en.dont-do-that", r"\b(?:don't|do not|dont) (?:do|change|touch) (?:that|this|it)\b|\bleave (?:it|that|them|those|the [\w-]+) (?:alone|as (?:it was|they were|is|it is))\b"),
    _Pattern("en.revert", r"\b(?:revert|undo|roll ?back|reset) (?:that|this|it|those|these|them|everything|all (?:of )?(?:that|those|your|the) changes?|your (?:last )?(?:change|changes|edit|edits|commit)|what you (?:just )?(?:did|changed|wrote|added)|the (?:last|previous) (?:change|edit|commit))\b|\brevert(?: it| that| this| them| those| everything)?\s*[.!]*$|\b(?:put|bring|change|set|move|add|roll) (?:it|them|that|those|this|these|everything|(?:the|my) (?:old|original|previous) [^.?!,;\n]{0,30}?) back\b|\b(?:go|switch|revert) back to (?:the |your |my )?(?:previous|old|original|earlier|prior)\b", skip_questions=True),
    _Pattern("en.actually", r"^[^\S\n]*actually\s*+[,.!:\u2014\u2013-]|^[^\S\n]*(?:wait|hold on|hold up)\s*+[,.!\u2014\u2013-]++\s*+(?:no|don't|do not|stop|that|you|not)\b"),
    # --- Chinese
    _Pattern("zh.not-right", r"不对(?!劲|称|齐|外|的时候|时|的话)", skip_questions=True),
    _Pattern("zh.wrong", r"(?<![报出没不])错了|(?:搞|弄|改|写|理解|看|用|删|想|记)错|(?:是|都是|完全|全)错的", skip_questions=True),
    _Pattern("zh.not-this", r"不是(?:这样|这个意思|我要的|我想要的|我说的|让你|叫你|要你)|不是[^，,。！？!?]{1,20}[，,]\s*(?:是|而是|要|用|应该)|(?:我要的是|我要|我想要|我说的是|要的是)[^。！？]{1,40}[，,]\s*(?:不是|而不是)"),
    _Pattern("zh.still-broken", r"还是不行|(?:同样|一样)的(?:报错|错误|问题|异常)|我(?:没|没有|并没有|从没|又没)(?:让|叫|要)你|谁让你|(?:搞|弄|写|理解|看|放)反|这样(?:不行|不对|不好|不可以)|说好的|你却|(?:加|放|改|弄)回(?:来|去)|还是(?:报错|失败|不对|错)|(?:跟|和)之前一样|(?:破坏|搞坏|弄坏|改坏)了|没(?:有)?必要|原来的(?:逻辑|写法|代码|版本|实现|命名|方案)?(?:是对的|没问题|更好)"),
    _Pattern("zh.should-use", r"应该(?:用|是|改|放在|写成|使用)", skip_questions=True),
    _Pattern("zh.dont", rf"{_ZH_NOT}(?:别|不要|不许|不准|禁止)(?:再|擅自|私自|随意|随便|乱|自己|自作主张)?(?:用|动|改|删|碰|加|推|提交|使用|修改|写|跳过|猜|瞎)|{_ZH_NOT}(?:别|不要)(?:再|瞎|乱)|不用(?:\s*+[^，,。\s][^，,。]{{0,19}}+|\s++)[，,]\s*+(?:用|改用|换成)"),
    _Pattern("zh.told-you", r"我(?:已经|刚才|刚刚|之前|早就|明明|都|不是)*(?:说过|说了|讲过|讲了|告诉过你|告诉你了|提过|强调过)(?!算)|跟你说(?:过|了)|说了(?:多少|好几|很多|几)(?:遍|次)"),
    _Pattern("zh.you-did-wrong", r"你(?:又|怎么又|还是|居然|竟然)|怎么又|你(?:忘了|漏了|没有|没|删了|忽略了|跳过了)|你怎么(?:把|能|会|还)|你把[^，,。！？]{0,20}(?:覆盖|删|改坏|弄坏|搞坏|去掉|弄丢|搞丢)|你这样(?:改|写|做)|你(?:改|写|加|删|做)的[^，,。！？]{0,12}(?:有问题|不对|错|不行|有bug|没|不能)"),
    _Pattern("zh.why-did-you", r"为什么你|你为什么|为什么要?(?:把|删掉|删了|改了|跳过)"),
    _Pattern("zh.revert", r"(?:撤销|撤回|还原|回滚|回退)(?:到)?(?:刚才|你的|你|这个|这次|那个|上次|上一个|上个|之前|原来|掉|吧|一下)|改回(?:去|来)|恢复(?:原样|原来)", skip_questions=True),
)

# Literals of which every match of a pattern contains one (case-folded).  A pattern is compiled
# and tried only when one of its needles is in the prompt: compiling all of them costs ~10 ms,
# more than a hook can spend.  tests/detect/test_corrections.py proves each list sound.
_NEEDLES: dict[str, tuple[str, ...]] = {
    'en.no': ('no', 'nah'),
    'en.thats-wrong': (
        "it's", 'it is', 'thats', "that's", "you're", 'that is', 'this is', 'you are', 'that was',
        'this was', 'you were',
    ),
    'en.looks-wrong': (
        "it's", " can't", ' right', " won't", "that's", ' answer', ' cannot', ' output', ' result',
        'this is', 'way off', ' correct', " doesn't", ' does not', ' will not', " wouldn't",
        ' calculation',
    ),
    'en.still-wrong': ('wrong', 'incorrect', 'same ', 'still ', 'after your '),
    'en.didnt-work': ("isn't", "won't", "didn't", 'is not', 'did not', "doesn't", 'does not'),
    'en.not-what-i-asked': (
        ' got ', ' bogus', 'not the', ' made up', 'not what', ' invented', ' fabricated',
        ' what i need', ' what i said', ' hallucinated', ' what i asked', ' what i meant',
        ' what i wanted', ' what i requested', 'where did you get', ' what i had in mind',
    ),
    'en.i-wanted-x-not-y': ('i said', 'i meant', 'i needed', 'i wanted', 'i asked for'),
    'en.we-use-x-not-y': ('we ',),
    'en.you-should-have': ('you should',),
    'en.thats-not-how': ('not ', 'doing it wrong'),
    'en.unneeded': (
        ' needed', ' overkill', ' required', ' asked for', ' necessary', 'no need to',
        'no need for', ' unnecessary', ' way too much', ' overcomplicated', ' too complicated',
    ),
    'en.it-broke': ('broke', 'breaks', 'killed', 'ruined', 'is breaking'),
    'en.i-told-you': (
        'did', 'said', 'told', 'as i ', 'asked', 'i meant', 'i never', 'i clearly', 'i explicitly',
        'i specifically',
    ),
    'en.already-discussed': (' time', 'we ', 'already', 'how many times'),
    'en.you-did-wrong': (
        ' keep', ' kept', ' broke', ' undid', " didn't", ' forget', ' forgot', ' missed',
        ' deleted', ' did not', ' dropped', " haven't", ' ignored', ' made up', ' misread',
        ' removed', ' renamed', ' rewrote', ' skipped', ' disabled', ' have not', ' invented',
        ' replaced', ' reverted', ' hardcoded', ' messed up', ' overwrote', ' truncated',
        ' duplicated', ' introduced', ' overwritten', ' reformatted', ' did it again',
        ' hallucinated', ' commented out', ' made it worse', ' misunderstood', ' used the wrong',
        ' edited the wrong', ' changed the wrong', ' made things worse',
    ),
    'en.you-again': ('again',),
    'en.you-are-doing': (
        ' breaking', ' deleting', ' ignoring', ' removing', ' confusing', ' mixing up',
        ' making stuff', ' overthinking', ' hallucinating', ' making things', ' not following',
        ' not listening', ' overengineering', ' going in circles', ' over-engineering',
        ' overcomplicating',
    ),
    'en.you-were-supposed': (
        "you're", 'you are', 'you were', "you mustn't", 'same mistake', 'you must not',
        "you shouldn't", 'you should not',
    ),
    'en.why-did-you': (' you ', 'why are', 'why were', "why'd you"),
    'en.wrong-thing': ('wrong ',),
    'en.dont-use-x-use-y': ('dont', 'stop', "don't", 'never', 'do not', "let's not"),
    'en.use-instead': (' instead',),
    'en.dont-again': (
        'again', 'another', 'anymore', 'any more', 'each time', 'every time', 'all the time',
    ),
    'en.dont-invent': (
        ' guess', ' assume', ' invent', ' make up', ' pretend', ' assuming', ' making up',
        ' hallucinate', ' hallucinating',
    ),
    'en.stop': ('stop',),
    'en.dont-do-that': (
        'dont', "don't", 'do not', 'leave it', 'leave that', 'leave the ', 'leave them',
        'leave those',
    ),
    'en.revert': ('roll', 'undo', ' back', 'reset', 'revert'),
    'en.actually': ('wait', 'hold on', 'hold up', 'actually'),
    'zh.not-right': ('不对',),
    'zh.wrong': ('写', '删', '弄', '想', '搞', '改', '用', '看', '记', '理解', '错了', '错的'),
    'zh.not-this': ('不是', '我要', '我想要', '要的是', '我说的是'),
    'zh.still-broken': (
        '写', '弄', '搞', '放', '看', '你却', '回去', '回来', '必要', '我没', '改坏', '理解', '破坏', '原来的', '我从没',
        '我又没', '的异常', '的报错', '的错误', '的问题', '说好的', '谁让你', '还是错', '之前一样', '我并没有', '还是不对', '还是不行',
        '还是失败', '还是报错', '这样不好', '这样不对', '这样不行', '这样不可以',
    ),
    'zh.should-use': ('应该改', '应该是', '应该用', '应该使用', '应该写成', '应该放在'),
    'zh.dont': ('别', '不准', '不用', '不要', '不许', '禁止'),
    'zh.told-you': ('提过', '讲了', '讲过', '说了', '说过', '强调过', '告诉你了', '告诉过你'),
    'zh.you-did-wrong': (
        '你做', '你写', '你删', '你加', '你又', '你把', '你改', '你没', '你居然', '你忘了', '你漏了', '你竟然', '你还是', '怎么又',
        '你忽略了', '你怎么会', '你怎么把', '你怎么能', '你怎么还', '你跳过了', '你这样做', '你这样写', '你这样改',
    ),
    'zh.why-did-you': ('为什么',),
    'zh.revert': ('回滚', '回退', '撤回', '撤销', '还原', '改回去', '改回来', '恢复原来', '恢复原样'),
}

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_SENTENCE_END = r"[?？.!。！\n]"


# A correction is said in a sentence or two; a long prompt is mostly pasted material (logs,
# code), so only its start and its end are read.
HEAD_CHARS = 2000
TAIL_CHARS = 500


_COMPILED: dict[str, Any] = {}


def _compile(regex: str) -> Any:
    """Compiled once per process (``rx``: once per machine); the regex machinery is loaded only
    once a needle has matched, so a prompt that is clearly no correction costs none at all."""
    found = _COMPILED.get(regex)
    if found is None:
        from self_improve import rx

        found = _COMPILED[regex] = rx.compile(regex, rx.MULTILINE)
    return found


def _normalise(text: str) -> str:
    if len(text) > HEAD_CHARS + TAIL_CHARS:
        text = f"{text[:HEAD_CHARS]}\n{text[-TAIL_CHARS:]}"
    return text.translate(_APOSTROPHES).casefold()


def _in_question(text: str, end: int, seen: list[int] | None = None) -> bool:
    """Does the sentence holding position ``end`` end with a question mark?

    ``seen`` ([searched from, stop found]) carries the last search over: the many matches of
    one long sentence then cost one scan to its end, not one each (quadratic).
    """
    if seen is not None and seen[0] <= end <= seen[1]:
        stop = seen[1]
    else:
        found = _compile(_SENTENCE_END).search(text, end)
        stop = found.start() if found is not None else len(text)
        if seen is not None:
            seen[:] = (end, stop)
    return stop < len(text) and text[stop] in "?？"


def detect_correction(prompt: Prompt) -> CorrectionHit | None:
    """The first correction pattern that matches the prompt, or None."""
    text = _normalise(prompt.text or "")
    if not text.strip():
        return None
    seen = [len(text) + 1, len(text) + 1]  # nothing searched yet
    for pattern in PATTERNS:
        needles = _NEEDLES.get(pattern.name, ())
        if needles and not any(n in text for n in needles):
            continue
        for match in _compile(pattern.regex).finditer(text):
            if pattern.skip_questions and _in_question(text, match.end(), seen):
                continue
            return CorrectionHit(pattern.name, pattern.language)
    return None
