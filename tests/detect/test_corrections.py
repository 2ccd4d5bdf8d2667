"""self_improve.detect.corrections: labelled prompts, exact figures, documented decisions, per
family and per language, languages, needles, the model, properties."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from self_improve.detect import corrections, corrections_model, patterns
from self_improve.detect.corrections import CorrectionHit, detect_correction
from self_improve.events import Prompt
from tests.detect.pattern_hits import pattern_hit

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "corrections.jsonl"  # the first 427 prompts (en, zh): all tune
MULTILINGUAL = REPO / "tests" / "data" / "corrections_multilingual.jsonl"  # split by a hash of the text
FIELDS = {"text", "label", "lang", "family", "split"}


def _bench(name: str) -> ModuleType:
    sys.path.insert(0, str(REPO / "bench"))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses need their module registered
    spec.loader.exec_module(module)
    return module


bench = _bench("corrections")


def hit(text: str) -> CorrectionHit | None:
    return detect_correction(Prompt(text, "session-1", "/tmp/project"))


def load(path: Path = DATA) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


# ---- the labelled prompts ---------------------------------------------------------------------------


def test_dataset_is_large_multilingual_and_well_formed() -> None:
    legacy, new = load(DATA), load(MULTILINGUAL)
    rows = legacy + new
    assert len(legacy) == 427 and len(rows) >= 1500
    assert all(set(r) == FIELDS for r in rows)
    assert {r["label"] for r in rows} == {"correction", "other"}
    assert {r["split"] for r in rows} == {"tune", "dev"}
    assert {r["lang"] for r in legacy} == {"en", "zh"}
    assert {r["lang"] for r in rows} == set(corrections.LANGUAGES)
    for lang in corrections.LANGUAGES:
        mine = [r for r in rows if r["lang"] == lang]
        assert len(mine) >= 300, lang
        assert 0.4 <= sum(r["label"] == "correction" for r in mine) / len(mine) <= 0.7, lang
        # hard negatives of every kind, in every language
        assert {"discuss-error", "no-answer", "no-need-upfront", "upfront-constraint", "third-party", "question", "praise"} \
            <= {r["family"] for r in mine if r["label"] == "other"}, lang
        assert {"house-rule", "factual", "after-praise", "restate", "hedged", "reproach-question", "you-did"} \
            <= {r["family"] for r in mine if r["label"] == "correction"}, lang
    assert len({r["text"] for r in rows}) == len(rows)  # no duplicates, across both files


def test_the_split_is_a_hash_of_the_text_assigned_up_front() -> None:
    # The first file's prompts were written against the patterns before any split: all tune.
    assert {r["split"] for r in load(DATA)} == {"tune"}
    for row in load(MULTILINGUAL):
        digest = int(hashlib.sha256(row["text"].encode("utf-8")).hexdigest()[:8], 16)
        assert row["split"] == ("dev" if digest % 10 < 3 else "tune") == bench.split_of(row["text"])
    dev = sum(r["split"] == "dev" for r in load(MULTILINGUAL))
    assert 0.25 <= dev / len(load(MULTILINGUAL)) <= 0.35


# Exact confusion counts (TP, FP, FN, TN) on the tune split, per language. The patterns were
# tuned and the model fitted on these prompts, so they are in-sample; bench/corrections.py
# reports dev, the held-out estimate (and honest figures on fresh batches are in its report).
TUNE = {
    "en": (946, 3, 1, 1227), "zh": (875, 1, 0, 1172), "es": (806, 1, 0, 1077), "de": (815, 1, 0, 1084),
    "fr": (821, 2, 0, 1085), "ja": (821, 0, 2, 1098), "pt": (811, 0, 0, 1094), "ru": (799, 1, 1, 1090),
}
TUNE_PATTERNS_ALONE = {
    "en": (897, 7, 50, 1223), "zh": (810, 1, 65, 1172), "es": (746, 5, 60, 1073), "de": (760, 4, 55, 1081),
    "fr": (759, 3, 62, 1084), "ja": (774, 2, 49, 1096), "pt": (732, 7, 79, 1087), "ru": (742, 1, 58, 1090),
}
# Every prompt of tune the detector gets wrong: (language, what it says, pattern).
TUNE_WRONG = {
    ('en', 'For the onboarding emails, use MJML templates instead of raw HTML.', 'en.should-not'),
    ('en', 'No, the data is in BigQuery, not on disk.', 'en.no'),
    ('en', 'No, the other one.', None),
    ('en', 'no need to containerise it, a systemd unit is enough', 'en.unneeded'),
    ('zh', '夜间任务还是会丢数据，你帮我排查一下原因。', 'zh.still-failing'),
    ('es', 'En lugar de enviar un correo por cada alerta, haz que se agrupen en un resumen diario.', 'es.instead'),
    ('de', 'Das Paket heisst auf PyPI python-dateutil, importiert wird es als dateutil. Nimm es bitte in die requirements auf.', 'de.factual'),
    ('fr', "Le paquet s'appelle python-dateutil sur PyPI, mais le module s'importe dateutil. Ajoute-le aux requirements.", 'fr.factual'),
    ('fr', "Pour les graphiques du tableau de bord, utilise Chart.js plutôt que D3, l'équipe le connaît mieux.", 'fr.instead'),
    ('ja', 'utils2.py って何？', None),
    ('ja', 'いいえ、ポートは 8080 です', None),
    ('ru', 'Вместо Makefile сделай justfile', 'ru.instead'),
    ('ru', 'да нет же, порт 8080', None),
}


@pytest.mark.parametrize("model", [True, False], ids=["patterns-and-model", "patterns-alone"])
def test_exact_figures_on_the_tune_split(model: bool) -> None:
    rows = [r for r in bench.load() if r.split == "tune"]
    for lang, expected in (TUNE if model else TUNE_PATTERNS_ALONE).items():
        score, _ = bench.evaluate([r for r in rows if r.lang == lang], model)
        assert (score.tp, score.fp, score.fn, score.tn) == expected, lang


def test_exactly_these_tune_prompts_are_misclassified() -> None:
    _, wrong = bench.evaluate([r for r in bench.load() if r.split == "tune"])
    assert {(row.lang, row.text, pattern) for row, pattern in wrong} == TUNE_WRONG


# ---- documented decisions (unchanged from the English and Chinese detector) -------------------------


@pytest.mark.parametrize(
    ("text", "pattern", "language"),
    [
        ("no, that's wrong", "en.no", "en"),
        ("That's incorrect, the API returns a list", "en.thats-wrong", "en"),
        ("that's not what I asked", "en.not-what-i-asked", "en"),
        ("don't use requests, use httpx", "en.dont-use-x-use-y", "en"),
        ("I told you to keep the tests", "en.i-told-you", "en"),
        ("stop doing that", "en.stop", "en"),
        ("you forgot the migration", "en.you-did-wrong", "en"),
        ("why did you delete the README?", "en.why-did-you", "en"),
        ("you edited the wrong file", "en.you-did-wrong", "en"),
        ("wrong file", "en.still-wrong", "en"),
        ("revert that", "en.revert", "en"),
        ("Actually, use the v2 endpoint", "en.actually", "en"),
        ("You’re using the wrong table", "en.wrong-thing", "en"),  # curly apostrophe
        ("不对", "zh.not-right", "zh"),
        ("错了，是另一个文件", "zh.wrong", "zh"),
        ("不是这样的", "zh.not-this", "zh"),
        ("应该用 pnpm", "zh.should-use", "zh"),
        ("别用 requests", "zh.dont", "zh"),
        ("不要用全局变量", "zh.dont", "zh"),
        ("我已经说过了，缩进用两个空格", "zh.told-you", "zh"),
    ],
)
def test_correction_forms(text: str, pattern: str, language: str) -> None:
    assert hit(text) == CorrectionHit(pattern, language)


@pytest.mark.parametrize(
    "text",
    [
        "fix the error in foo.py",
        "why does this test fail?",
        "what's wrong with my query",
        "actually run the tests",  # decided: emphasis on an instruction, not a correction
        "Actually I have a question about the build system",
        "No rush, take your time",
        "No problem, let's move on",
        "No, I haven't tried that yet — what would you suggest?",
        "Please revert commit 3f2a1b so we can release",
        "Stop the dev server and restart it",
        "Is this the wrong file?",
        "Should I use poetry instead?",
        "Write a script that uses requests. Don't use selenium.",
        "Can you double check you didn't leave any debug prints?",
        "The function returns the wrong result for negative numbers, please fix it",
        "为什么这个测试失败了？",
        "修复 foo.py 里的错误",
        "应该用哪个库来解析 YAML？",
        "帮我把日志级别改成 DEBUG",  # 别 inside 级别
        "先别提交，我还要再看一下",  # "not yet", not a correction
        "这段代码运行时出错了，帮我定位原因",
        "",
        "   ",
    ],
)
def test_discussing_errors_or_asking_is_not_correcting(text: str) -> None:
    assert hit(text) is None


def test_a_question_skips_question_prone_patterns_only() -> None:
    assert hit("Is this the wrong file?") is None
    assert hit("This is the wrong file.") == CorrectionHit("en.wrong-thing", "en")
    assert hit("Why did you change the port?") == CorrectionHit("en.why-did-you", "en")
    # a dot inside a name ends no sentence: the question mark is this sentence's
    assert pattern_hit("Неправильно ли использовать datetime.utcnow() в новом коде?") is None


def test_long_prompts_are_read_at_their_ends_only() -> None:
    filler = "please refactor the parser and keep the tests green " * 40_000  # ~2 MB
    assert hit("that's wrong. " + filler) == CorrectionHit("en.thats-wrong", "en")
    assert hit(filler + " I told you to use pnpm") == CorrectionHit("en.i-told-you", "en")
    assert hit(filler[:100_000] + " that's wrong " + filler[:100_000]) is None  # pasted material
    assert hit(filler) is None  # its cost, against a short prompt's: bench/corrections_linear.py


# ---- per family, per language ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # house rules: negative, absolute, conventions, "X only", "follow what is there"
        ("we never merge on Fridays", "en.house-never"),
        ("Our convention is kebab-case for file names.", "en.house-convention"),
        ("snake_case only in the SQL schema", "en.house-only"),
        ("Follow what's already there in handlers/.", "en.house-follow"),
        ("Nothing ships without a changelog entry.", "en.house-without"),
        # plain facts: an API, a version, a name, a flag
        ("That flag was removed in v3, it's --legacy-peer-deps now", "en.factual-gone"),
        ("There's no `--watch` flag on that command.", "en.factual-no-such"),
        ("The env var is SENTRY_DSN, not SENTRY_URL.", "en.not-y"),
        # after praise or a transition
        ("Nice, though the test you added never runs in CI", "en.after-praise"),
        ("Looks good. But the logger you picked isn't ours.", "en.after-praise"),
        # restating, hedging, reproachful questions, near misses
        ("As I said, the port is 5433.", "en.i-told-you"),
        ("Like I mentioned earlier, we target Node 20.", "en.restate"),
        ("I'm not sure that's right, the docs say it's async", "en.hedged"),
        ("since when do we vendor dependencies?", "en.reproach"),
        ("did you even compile it?", "en.i-told-you"),
        ("you completely ignored the linter", "en.you-did-adverb"),
        ("That is simply wrong.", "en.judged"),
        ("No, use the staging bucket.", "en.no"),
    ],
)
def test_english_families(text: str, pattern: str) -> None:
    assert hit(text) == CorrectionHit(pattern, "en")


@pytest.mark.parametrize(
    ("text", "pattern", "language"),
    [
        ("我们从来不在周五发版", "zh.house-rule", "zh"),
        ("我们的规范是文件名用短横线", "zh.house-rule", "zh"),
        ("那个参数在 3.0 里就移除了", "zh.factual", "zh"),
        ("不错，不过你加的测试在 CI 里根本不会跑", "zh.after-praise", "zh"),
        ("我都说了，端口是 5433", "zh.told-you", "zh"),
        ("我觉得这样不太对，文档说是异步的", "zh.hedged", "zh"),
        ("我们什么时候把依赖打包进仓库了？", "zh.reproach", "zh"),
        ("你又忘了更新 changelog", "zh.you-did-wrong", "zh"),
        ("Eso está mal, el puerto es el 5433", "es.wrong", "es"),
        ("No, usa el bucket de staging", "es.no", "es"),
        ("Ya te dije que el puerto es el 5433", "es.restate", "es"),
        ("Te olvidaste de actualizar el changelog", "es.you-did", "es"),
        ("Aquí nunca desplegamos los viernes", "es.house", "es"),
        ("No estoy seguro de que eso sea correcto", "es.hedged", "es"),
        ("¿Por qué borraste la migración?", "es.you-did", "es"),
        ("Esa opción ya no existe en la v3", "es.factual", "es"),
        ("Das ist falsch, der Port ist 5433", "de.wrong", "de"),
        ("Nein, nimm den Staging-Bucket", "de.no", "de"),
        ("Wie gesagt, der Port ist 5433", "de.restate", "de"),
        ("Du hast vergessen, das Changelog zu aktualisieren", "de.you-did", "de"),
        ("Wir deployen nie freitags", "de.house", "de"),
        ("Ich bin mir nicht sicher, ob das stimmt", "de.hedged", "de"),
        ("Warum hast du die Migration gelöscht?", "de.you-did", "de"),
        ("Die Option gibt es seit v3 nicht mehr", "de.factual", "de"),
        ("C'est faux, le port c'est 5433", "fr.wrong", "fr"),
        ("Non, utilise le bucket de staging", "fr.no", "fr"),
        ("Je te l'ai déjà dit, le port c'est 5433", "fr.restate", "fr"),
        ("Tu as oublié de mettre à jour le changelog", "fr.you-did", "fr"),
        ("Chez nous on ne déploie jamais le vendredi", "fr.house", "fr"),
        ("Je ne suis pas sûr que ce soit correct", "fr.hedged", "fr"),
        ("Pourquoi tu as supprimé la migration ?", "fr.you-did", "fr"),
        ("Cette option n'existe plus depuis la v3", "fr.factual", "fr"),
        ("Isso está errado, a porta é 5433", "pt.wrong", "pt"),
        ("Não, usa o bucket de staging", "pt.no", "pt"),
        ("Já te disse que a porta é 5433", "pt.restate", "pt"),
        ("Você esqueceu de atualizar o changelog", "pt.you-did", "pt"),
        ("A gente nunca faz deploy na sexta", "pt.house", "pt"),
        ("Não tenho certeza se isso está certo", "pt.hedged", "pt"),
        ("Por que você apagou a migration?", "pt.you-did", "pt"),
        ("Essa opção não existe mais na v3", "pt.factual", "pt"),
        ("Это неправильно, порт 5433", "ru.wrong", "ru"),
        ("Нет, используй staging-бакет", "ru.no", "ru"),
        ("Я же говорил, порт 5433", "ru.restate", "ru"),
        ("Ты забыл обновить changelog", "ru.you-did", "ru"),
        ("Мы никогда не деплоим по пятницам", "ru.house", "ru"),
        ("Не уверен, что это правильно", "ru.hedged", "ru"),
        ("Зачем ты удалил миграцию?", "ru.you-did", "ru"),
        ("Этой опции больше нет в v3", "ru.factual", "ru"),
        ("違います、ポートは 5433 です", "ja.wrong", "ja"),
        ("いや、staging のバケットを使って", "ja.no", "ja"),
        ("さっきも言ったけど、ポートは 5433", "ja.restate", "ja"),
        ("changelog の更新を忘れてる", "ja.you-did", "ja"),
        ("うちでは金曜日にデプロイすることは絶対にない", "ja.house", "ja"),
        ("なんでマイグレーションを消したの？", "ja.you-did", "ja"),
        ("そのオプションは v3 で廃止されました", "ja.factual", "ja"),
    ],
)
def test_families_in_each_language(text: str, pattern: str, language: str) -> None:
    assert hit(text) == CorrectionHit(pattern, language)


@pytest.mark.parametrize(
    ("text", "pattern"),
    [("no.", "en.no"), ("No!", "en.no"), ("nope.", "en.no"), ("\nno.", "en.no"), ("Nein.", "de.no"), ("Nein!", "de.no"),
     ("Non.", "fr.no"), ("Não.", "pt.no"), ("Нет.", "ru.no"), ("Нет!", "ru.no")],
)
def test_a_bare_no_with_its_full_stop_is_a_correction(text: str, pattern: str) -> None:
    """The veto for a "No," that answers (nothing corrective after it) needs something after it:
    "No." alone is the user stopping the agent, as "No" without the full stop is."""
    assert hit(text) == CorrectionHit(pattern, pattern.split(".", 1)[0])


@pytest.mark.parametrize(
    "text",
    [
        # a "No," that answers, "no need" up front, another's bug, a request about an error
        "No, I haven't deployed it yet. What's the command?",
        "No, nothing else, thanks!",
        "No need to add docs for this spike.",
        "The vendor's API returns the wrong currency code; add a mapping.",
        "Why does the build fail on ARM?",
        "修复 tests/test_api.py 里不稳定的测试",
        "用户反馈导出的金额不对，帮我查一下",  # 不对 about somebody else's report
        "同事说这个配置项写错了，你帮我确认一下对不对",  # 写错 by a colleague; 对不对 asks
        "不用写文档，这只是个试验",
        "写一个脚本，不要用 pandas",  # a constraint of a request for new work
        "为什么 ARM 上构建会失败？",
        "Arregla el test inestable de tests/test_api.py",
        "No, todavía no lo he desplegado. ¿Cuál es el comando?",
        "El cliente dice que el total de la factura está mal, revisa el redondeo",
        "Behebe den wackeligen Test in tests/test_api.py",
        "Nein, das habe ich noch nicht deployt. Wie lautet der Befehl?",
        "Corrige le test instable dans tests/test_api.py",
        "Non, je ne l'ai pas encore déployé. C'est quoi la commande ?",
        "Corrige o teste instável em tests/test_api.py",
        "Não, ainda não fiz o deploy. Qual é o comando?",
        "Почини нестабильный тест в tests/test_api.py",
        "Нет, я ещё не задеплоил. Какая команда?",
        "tests/test_api.py の不安定なテストを直して",
        "いいえ、まだデプロイしていません。コマンドは？",
        "月次レポートの消費税の計算が間違ってるので、直してテストも追加して",  # 計算が: not the agent's
    ],
)
def test_hard_negatives_in_each_language(text: str) -> None:
    assert hit(text) is None


# ---- the language -----------------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "pattern"), [
    ("Nein, die Spalte heißt vin.", "de.factual"), ("Nein, das Modul heißt yaml, das Paket PyYAML.", "de.factual"),
    ("No, la columna se llama vin.", "es.factual"), ("No, el módulo se llama yaml, el paquete PyYAML.", "es.factual"),
    ("Non, la colonne s'appelle vin.", "fr.factual"), ("Não, a coluna se chama vin.", "pt.factual"),
    ("Нет, колонка называется vin.", "ru.factual"),
])
def test_a_no_that_gives_a_name_is_a_factual_correction_not_an_answer(text: str, pattern: str) -> None:
    """The answer vetoes ("Nein, <subject> <verb of state>") leave a verb of naming alone: a name
    is what the module docstring's factual correction gives ("the module is called yaml")."""
    assert pattern_hit(text) == CorrectionHit(pattern, pattern.split(".", 1)[0])


def test_the_hit_names_the_prompts_language() -> None:
    # "No," is read in the prompt's language: a Spanish answer is not an English correction
    assert hit("No, es un repo privado, así que usa la URL SSH.") is None
    assert hit("No, usa pnpm") == CorrectionHit("es.no", "es")
    assert hit("No, use pnpm") == CorrectionHit("en.no", "en")
    # ... in the likeliest language only: Spanish decides, and the English "No," is not asked after
    # the Spanish one found an answer; a prompt no word decides is read as "No," in every language
    assert hit("No, no usamos Docker en local.") is None
    assert pattern_hit("No, no usamos Docker en local.") is None
    assert pattern_hit("no, el bidder corre en Kubernetes, no en Lambda") is None
    assert hit("No, no usamos Docker en local, quita el Dockerfile que añadiste.") == CorrectionHit("es.no", "es")
    assert hit("Non.") == CorrectionHit("fr.no", "fr")
    for text in ("Das ist falsch", "C'est faux", "Isso está errado", "Это неправильно", "違います", "不对"):
        found = hit(text)
        assert found is not None and found.pattern.startswith(found.language + ".")


# ---- needles ----------------------------------------------------------------------------------------


def test_the_needles_are_those_the_regexes_prove() -> None:
    needles = _bench("corrections_needles")
    assert needles.main(["--check"]) == 0  # corrections_<lang>_index.py and REST are fresh
    for lang in corrections.LANGUAGES:
        index, table = corrections._index(lang), corrections._table(lang)
        assert index.NAMES == tuple(row[0] for row in table.PATTERNS)
        assert len(index.FIRST) == len(table.REST) == len(table.PATTERNS)
        assert all(index.FIRST), lang


@pytest.mark.parametrize(
    ("regex", "groups"),
    [
        (r"\bfoo bar\b", (("foo bar",),)),
        # the cheapest group first ("nao "/"não ": the class [aã] spelled out), then the rarest
        (r"n[aã]o (?:sei|quero)", (("nao ", "não "), ("nao sei", "não sei", "nao quero", "não quero"))),
        (r"(?:no+|nope|nah)\b", (("nah", "no"),)),  # "no+" spells "no" (the parser factors the "n" out)
        (r"\byou(?:'ve| have)? (?:forgot|missed)\b",
         (("forgot", "missed"), ("you forgot", "you missed", "you've forgot", "you've missed", "you have forgot", "you have missed"))),
        (r"a|\bb\w+c", (("a", "b"),)),  # one literal of each alternative
    ],
)
def test_needles_are_derived_from_the_parsed_regex(regex: str, groups: tuple[tuple[str, ...], ...]) -> None:
    derive = _bench("corrections_needles")
    derive.LANGUAGE[0] = "en"
    assert tuple(map(frozenset, derive.needles_of(regex))) == tuple(map(frozenset, groups))


def test_needles_hold_wherever_a_pattern_matches_a_labelled_prompt() -> None:
    """Empirical soundness on the 3,000 labelled prompts: wherever a pattern's regex matches,
    each of its needle groups has a literal in the prompt (adversarial texts:
    test_corrections_linear.py)."""
    prompts = [corrections._normalise(r.text) for r in bench.load()]
    for pattern in corrections.PATTERNS:
        compiled = re.compile(pattern.regex, re.MULTILINE)
        groups = corrections.needles(pattern.name)
        for text in prompts:
            if compiled.search(text):
                assert all(any(n in text for n in group) for group in groups), (pattern.name, text)


def test_every_pattern_compiles_and_is_named_by_language() -> None:
    for pattern in corrections.PATTERNS:
        assert re.compile(pattern.regex)
        assert pattern.language in corrections.LANGUAGES
        assert pattern.name == pattern.name.casefold()
        assert patterns.fold_pattern(pattern.regex) == pattern.regex, pattern.name  # the prompt is case-folded
    assert len({p.name for p in corrections.PATTERNS}) == len(corrections.PATTERNS)


# ---- the model ----------------------------------------------------------------------------------------


def test_the_model_is_reproducible_from_the_tune_split() -> None:
    train = _bench("train_corrections_model")
    assert train.main(["--check"]) == 0  # the same weights and constants, byte for byte
    assert corrections_model.MODEL_TRAINED_ON == sum(r.split in train.FITTED for r in bench.load())
    assert len(corrections_model._weights()) == corrections_model.MODEL_BUCKETS


def test_model_features() -> None:
    buckets = corrections_model.MODEL_BUCKETS

    def bucket(feature: str) -> int:
        return int.from_bytes(feature.encode(), "little") % buckets

    found = set(corrections_model.features("no, use `pnpm` v9", buckets))
    assert {bucket("w:no"), bucket("w:use"), bucket("w:<c>"), bucket("s0:no"), bucket("b:no use")} <= found
    assert bucket("w:`pnpm`") not in found  # code is "<c>", whatever it says
    assert {bucket("c1:不"), bucket("c2:不对"), bucket("c3:不对吧")} <= set(corrections_model.features("不对吧", buckets))
    assert corrections_model.features("x" * 10_000) == corrections_model.features("x" * 400)  # head and tail only
    assert corrections_model.features("a b c") == sorted(corrections_model.features("a b c"))


@pytest.mark.parametrize(("text", "expected"), [
    # a house rule with a negation, in two languages: the same classes, so the same cue features
    ("we never ship without a changelog", ["k:house", "k:neg", "k0:house", "k0:neg", "kk:house&neg"]),
    ("мы никогда не шлём релиз без changelog", ["k:house", "k:neg", "k0:house", "k0:neg", "kk:house&neg"]),
    # praise, then a contrast aimed at the agent
    ("great, but you forgot the tests", [
        "k:agentact", "k:contrast", "k:praise", "k:you", "k0:contrast", "k0:praise", "k0:you",
        "kk:agentact&contrast", "kk:agentact&praise", "kk:agentact&you", "kk:contrast&praise", "kk:contrast&you",
        "kk:praise&you"]),
    # Chinese and Japanese by substrings of the run; a question is one more class
    ("我们这里不用yarn", ["k:house", "k:neg", "kk:house&neg"]),
    ("なぜ消した？", ["k:agentact", "k:q", "kk:agentact&q"]),
    ("borraste el test", ["k:agentact", "k:you", "k0:agentact", "k0:you", "kk:agentact&you"]),  # es: by its ending too
    ("refactor the parser", []),
])
def test_model_cues(text: str, expected: list[str]) -> None:
    tokens = text.translate(corrections_model._TOKEN_MARKS).split()
    assert corrections_model.cues(tokens, text.endswith(("?", "？"))) == expected


def test_the_trainer_simulates_the_detector_exactly() -> None:
    # The cut-offs are chosen by simulating the detector (train.predict): the simulation must be
    # what detect_correction does, or they were chosen for another detector.
    train = _bench("train_corrections_model")
    rows = [r for r in bench.load() if r.split == "calib"][::7]
    scores = [corrections_model.correction_logit(corrections._normalise(r.text)) for r in rows]
    cutoffs = (corrections_model.MODEL_THRESHOLD, corrections_model.MODEL_NO_VETO)
    simulated = [train.predict(row, *cutoffs) for row in train.calib_rows(rows, scores)]
    assert [hit(r.text) is not None for r in rows] == simulated
    assert sum(simulated) >= 50  # the rows hold both answers


def test_the_model_speaks_where_no_pattern_does_and_vetoes_a_leading_no() -> None:
    for row in bench.load()[:300]:
        by_patterns = pattern_hit(row.text)
        found = hit(row.text)
        logit = corrections_model.correction_logit(corrections._normalise(row.text))
        if found is not None and found.pattern.endswith(".model"):
            assert logit >= corrections_model.MODEL_THRESHOLD
        elif found is not None:
            assert found == by_patterns or (by_patterns is not None and corrections.is_leading_no(by_patterns.pattern))
        else:
            assert logit < corrections_model.MODEL_THRESHOLD


@pytest.mark.parametrize(("text", "answer"), [
    ("No, the printer is a Zebra, so ZPL.", True),  # an answer to the agent's question
    ("No, that's the wrong bucket, prod is acme-prod.", False),  # a rejection of what it did
])
def test_a_leading_no_that_answers_is_no_correction(text: str, answer: bool) -> None:
    assert pattern_hit(text) == CorrectionHit("en.no", "en")
    logit = corrections_model.correction_logit(corrections._normalise(text))
    assert (logit < corrections_model.MODEL_NO_VETO) is answer
    assert (hit(text) is None) is answer


# ---- properties -------------------------------------------------------------------------------------


def test_hit_is_an_immutable_record() -> None:
    found = hit("no, that's wrong")
    assert found == CorrectionHit("en.no", "en")
    with pytest.raises(AttributeError):
        found.pattern = "x"  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(text=st.text(max_size=500))
def test_never_raises(text: str) -> None:
    found = hit(text)
    assert found is None or (found.language in corrections.LANGUAGES and found.pattern.startswith(found.language + "."))


# ---- the prompts of issue 13 ----------------------------------------------------------------------------

TRAIN2 = REPO / "tests" / "data" / "corrections_train2.jsonl"  # new scenarios, all tune
TRAIN3 = REPO / "tests" / "data" / "corrections_train3.jsonl"  # other domains, all tune
CALIB = REPO / "tests" / "data" / "corrections_calib.jsonl"  # the model's cut-offs; no pattern written on it
FRESH = REPO / "tests" / "data" / "corrections_fresh.jsonl"  # held out: never trained or tuned on
FRESH2 = REPO / "tests" / "data" / "corrections_fresh2.jsonl"  # held out to round 10, then retired to tune
FRESH3 = REPO / "tests" / "data" / "corrections_fresh3.jsonl"  # held out, hard negatives of every family


@pytest.mark.parametrize(("path", "split", "total", "per_language"), [
    (TRAIN2, "tune", 1200, 150), (TRAIN3, "tune", 1350, 165), (FRESH2, "tune", 800, 100), (CALIB, "calib", 3800, 475),
])
def test_the_new_training_prompts_cover_every_language(path: Path, split: str, total: int, per_language: int) -> None:
    rows = load(path)
    assert len(rows) >= total and all(set(r) == FIELDS for r in rows)
    assert {r["split"] for r in rows} == {split}
    assert path in bench.DEFAULT_DATA
    for lang in corrections.LANGUAGES:
        mine = [r for r in rows if r["lang"] == lang]
        assert len(mine) >= per_language, lang
        assert 0.4 <= sum(r["label"] == "correction" for r in mine) / len(mine) <= 0.6, lang


def test_the_model_is_fitted_on_tune_and_calib_only() -> None:
    train = _bench("train_corrections_model")
    assert train.FITTED == ("tune", "calib")
    assert {r.split for r in bench.load()} == {"tune", "dev", "calib"}
    # calib's misses are never listed, like the held-out sets': no pattern is written against them
    assert bench.UNLISTED == ("calib", "fresh", "fresh3")


def test_the_fresh_prompts_are_held_out_from_training_and_tuning() -> None:
    fresh = load(FRESH)
    assert len(fresh) >= 400 and all(set(r) == FIELDS for r in fresh)
    assert {r["split"] for r in fresh} == {"fresh"}
    for lang in corrections.LANGUAGES:
        mine = [r for r in fresh if r["lang"] == lang]
        assert len(mine) >= 50, lang
        assert 0.45 <= sum(r["label"] == "correction" for r in mine) / len(mine) <= 0.55, lang
    texts = {r["text"] for r in fresh}
    assert len(texts) == len(fresh)
    # Not among the prompts the bench and the trainer read by default, and no text shared.
    assert bench.FRESH_DATA == FRESH and FRESH not in bench.DEFAULT_DATA
    assert not texts & {r.text for r in bench.load()}


def test_the_third_fresh_set_is_held_out_and_balanced() -> None:
    rows = load(FRESH3)
    assert len(rows) == 800 and all(set(r) == FIELDS for r in rows)
    assert {r["split"] for r in rows} == {"fresh3"}
    for lang in corrections.LANGUAGES:
        assert sum(r["lang"] == lang and r["label"] == "correction" for r in rows) == 50, lang
        assert sum(r["lang"] == lang and r["label"] == "other" for r in rows) == 50, lang
    texts = {r["text"] for r in rows}
    assert len(texts) == len(rows)
    assert bench.FRESH3_DATA == FRESH3 and FRESH3 not in bench.DEFAULT_DATA
    # fresh2, retired to tune, is among the prompts bench.load() reads
    assert not texts & ({r.text for r in bench.load()} | {r["text"] for r in load(FRESH)})


@pytest.mark.parametrize(("text", "vetoable"), [
    ("No.", False), ("Noooooo!", False), ("nein!", False), ("いや", False), ("いやいや。", False),  # nothing to read
    ("No, use pnpm", False), ("Nein, nimm den Staging-Bucket", False), ("いや、staging のバケットを使って", False),
    ("No, the printers are all Zebra", True), ("Нет, принтер Zebra, не HP.", True),
    ("いや、ローカルではまだ試してないです。", True),
])
def test_which_leading_no_the_model_may_veto(text: str, vetoable: bool) -> None:
    assert corrections.answers_can_veto(corrections._normalise(text)) is vetoable
