"""self_improve.detect.corrections_ru: the general Russian forms of issue 13 (train3), each by the
exact pattern that names it, and the hard negatives next to them (no pattern at all).

The sentences are new (in no data file): each stands for a family of phrasing (a verb stem with
its endings, a rule frame, a hedging formula), not for itself.
"""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit, detect_correction_by_patterns
from self_improve.events import Prompt
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # house rules: a 1st-person-plural verb under "не", a reflexive rule after "у нас"
        ("Сгенерированные клиенты в git не кладём, они собираются в CI.", "ru.rule-verb"),
        ("Ресурсы везде тегируются по owner, а модуль vpc без тегов.", "ru.rule-verb"),
        ("Переменные окружения в Dockerfile не хардкодятся, их передаёт Helm.", "ru.rule-verb"),
        # house rules: absolute idioms, a review gate, "по нашим правилам", "для этого есть"
        ("Прямые запросы к базе из UI ни под каким видом, только через сервис.", "ru.rule-idiom"),
        ("Такой коммит линтер не пропустит, в сообщении нет номера задачи.", "ru.rule-idiom"),
        ("По внутреннему регламенту ключи ротируются раз в квартал, не раз в год.", "ru.rule-idiom"),
        ("Не пиши свой ретрай, для этого есть tenacity.", "ru.rule-idiom"),
        # plain facts: "no longer", declared deprecated, a version, "only"
        ("Kafka-клиент больше не поддерживает этот параметр.", "ru.fact-stem"),
        ("Этот хук помечен как устаревший, в React 19 его уже нет.", "ru.fact-stem"),
        ("Флаг --dry-run проверяет только синтаксис, права он не трогает.", "ru.fact-stem"),
        # praise, then the flaw (also a praise adjective inside the first clause)
        ("Шикарно вышло. Вот только шрифты на Android не подгрузились.", "ru.praise-but"),
        ("Экран логина аккуратный, но кнопка входа без aria-label.", "ru.praise-but"),
        # restating: "говорил же", "как я и просил", "мы это уже обсуждали"
        ("Предупреждал ведь: без новых зависимостей.", "ru.restate-stem"),
        ("Как я и просила, логи только в stderr.", "ru.restate-stem"),
        ("Мы ведь это уже обсуждали — без ORM.", "ru.restate-stem"),
        # hedging formulas
        ("Не хочу занудствовать, но тут утечка дескрипторов.", "ru.hedged-stem"),
        ("Поправь меня, если я не прав, но eviction тут никогда не сработает.", "ru.hedged-stem"),
        ("Может, всё же оставим старый формат ответа?", "ru.hedged-stem"),
        ("Как по мне, таймаут в 30 секунд рановато рвёт соединение.", "ru.hedged-stem"),
        # reproachful questions not of the form "зачем ты"
        ("С какой такой радости в проде включён debug?", "ru.reproach-stem"),
        ("Почему снова всё закомментировано?", "ru.reproach-stem"),
        ("Где обработчик отмены? В прошлой версии он был.", "ru.reproach-stem"),
        ("Снова мимо.", "ru.reproach-stem"),
        ("Откуда в бандле вылез moment.js?", "ru.whence"),
        # the formal "вы", a misreading of any gender, "never asked"
        ("Вы опять перепутали стейджинг и прод.", "ru.formal-you"),
        ("Ты неправильно поняла задачу: отчёт нужен за месяц.", "ru.formal-you"),
        ("Я тебя не просила трогать CI.", "ru.formal-you"),
        # round 2: after a leading "Нет," a reference to the agent's work keeps the correction
        ("Нет, в базе только одна схема, а ты создаёшь вторую.", "ru.no"),
        ("Нет, такой опции у ffmpeg нет.", "ru.factual"),
        # round 2: a house rule, then what the agent did
        ("Мы никогда не храним токены в localStorage, а ты их туда пишешь.", "ru.house"),
        ("Прошивку мы всегда гоняем на стенде. Убери из скрипта прямую заливку на роботов.", "ru.house"),
        # round 3: "Нет, ..." then leave to go on still corrects where the answer rejects the agent's work
        ("Нет, ты перепутал склады. Продолжай, но исправь.", "ru.no"),
        ("Нет, не так. Давай дальше, но с другой схемой.", "ru.no"),
        ("Хорошо, но добавь обратно проверку, которую ты убрал.", "ru.after-praise"),
        ("onChange с одним параметром объявлен устаревшим в iOS 17, нужен вариант с двумя параметрами.", "ru.fact-stem"),
        # issue 13 (train8): a norm set against the agent's work, facts with a code token, what the change
        # did, reproach, hedges, a rule followed by an order to redo, praise then "правда"
        ("Сроки у нас считаются в рабочих днях, а твой планировщик берёт календарные", "ru.your-contrast"),
        ("Твоя миграция дропает колонку без бэкапа", "ru.your-contrast"),
        ("Сборщик тут — meson, не cmake", "ru.fact-token"),
        ("В Python нет switch, там match", "ru.fact-token"),
        ("В коммит уехали бинарники из build/", "ru.you-did-3"),
        ("после твоего рефакторинга пропали все хуки", "ru.you-did-3"),
        ("ты пишешь таймстемпы строками", "ru.you-did-3"),
        ("доку-то хоть читал?", "ru.reproach-3"),
        ("Мы же договорились без ORM", "ru.reproach-3"),
        ("мне кажется, таймаут чересчур короткий", "ru.hedged-3"),
        ("я бы всё-таки оставил старую очередь", "ru.hedged-3"),
        ("Секреты в конфиг класть нельзя — убери токен", "ru.rule-redo"),
        ("Завелось, правда тесты теперь идут 20 минут", "ru.praise-but-2"),
        # issue 13 (train9): the new vetoes leave the same forms alone where they point at the agent's work
        ("Мне кажется, у тебя слишком много запросов в цикле", "ru.hedged-3"),
        ("После твоего рефакторинга пропал эндпоинт /health", "ru.you-did-3"),
        ("Логировать номера карт нельзя — убери из своего логгера", "ru.rule-redo"),
        ("Мы же договорились не трогать старый API", "ru.reproach-3"),
        ("В твоём коде нет проверки на пустой список", "ru.your-contrast"),
        ("В прод напрямую не пушим. Перенеси свой коммит в ветку", "ru.rule-verb"),
        ("Круто, но тестов нет ни одного", "ru.after-praise"),
        # issue 13 (train10): the narrowed "твои ..." and the new vetoes leave these corrections alone
        ("Твои правки сломали сборку", "ru.more"),
        ("В файле остались твои print-ы", "ru.more"),
        ("Ты опять забыл down в миграции, а коллега просил", "ru.you-did"),
        ("Нет, ты опять поменял порт", "ru.you-did"),
        ("Сторонние шрифты у нас под запретом, убери их из своей вёрстки", "ru.rule-idiom"),
        ("Сумма не сходится, ты потерял НДС", "ru.wrong"),
        # round 11: elliptical instead, facts without a judgement word, hedges, still broken after the fix
        ('Redis нам тут не нужен, хватит словаря в памяти', 'ru.instead-2'),
        ('Не клади токен в localStorage, используй httpOnly cookie', 'ru.instead-2'),
        ('Сделай через env, а не хардкодь ключи в коде', 'ru.instead-imp'),
        ('Ключи в Redis должны начинаться с префикса сервиса', 'ru.fact-must'),
        ('Имена таблиц в ClickHouse не могут начинаться с цифры', 'ru.fact-must'),
        ('в Lua индекс первого элемента — это 1', 'ru.fact-must'),
        ('Мне кажется, этот индекс будет мешать вставкам', 'ru.hedged-4'),
        ('Таймаут в 2 секунды — не маловато?', 'ru.hedged-4'),
        ('После твоей правки варнинги никуда не делись', 'ru.still-2'),
        # round 12: a thing in view judged needless
        ('Этот декоратор вообще не нужен, логируй прямо в функции', 'ru.unneeded-2'),
        ('Эти два флага не нужны, хватит одного', 'ru.unneeded-2'),
        # round 13: a stop at the start, a house habit in "we do" then a redo, too much of a thing, nothing changed
        ('стоп, не трогай миграции', 'ru.stop-2'),
        ('Погоди, не удаляй ветку', 'ru.stop-2'),
        ('стоп!', 'ru.stop-2'),
        ('функции называем в snake_case, переименуй', 'ru.we-do-redo'),
        ('отступы у нас держим в 4 пробела. переделай', 'ru.we-do-redo'),
        ('зачем так много логов', 'ru.too-much'),
        ('убери лишние проверки', 'ru.too-much'),
        ('перезапустил, но ничего не поменялось', 'ru.no-change'),
        ('Ничего не изменилось.', 'ru.no-change'),
    ],
)
def test_general_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "ru")


@pytest.mark.parametrize(
    "text",
    [
        # a request for new work with its rules up front
        "Добавь экран оплаты. Конфиги у нас всегда версионируются вместе с кодом.",
        "Напиши деплой-скрипт, никаких ручных шагов.",
        # praise, then a new request; praise inside a word ("ровно", "нужно") is no "но"
        "Отлично, теперь нужно добавить пагинацию.",
        "Класс, всё встало ровно как надо.",
        "Спасибо, но дальше я сам.",
        "Сделай экран оплаты, у нас только Stripe.",
        # an answer, a question, a failure, somebody else's claim
        "Нет, про такой флаг не слышал. Что он делает?",
        "Нет, пока только Android.",
        "Где лежит конфиг после переезда? Раньше был в /etc.",
        "У нас не деплоится сервис, посмотри логи.",
        "Вендор пишет, что их SDK больше не поддерживает Android 7.",
        "Откуда взялась эта ошибка в логах?",
        "Начиная с версии 3 нужно обновить конфиг, сделай это.",
        "Боюсь, я не успею проверить сегодня, мержи сам.",
        "По-моему, сервер слишком долго отвечает, найди почему.",
        # train5: a rule in a request of new work; a fact about the business, not the code
        "Настрой линтер для репозитория. У нас правило: один конфиг на весь монорепо.",
        "Покупатели у нас только из Казахстана, так что валюта одна.",
        # train5: somebody else's work judged (a vendor, a colleague, legacy code, upstream)
        "В доке поставщика ошибка: поле называется amount_total, а не total. Обнови маппинг.",
        "Коллега считает, что в этом модуле всё неправильно с транзакциями. Глянешь?",
        "В легаси-модуле отчётов даты хранятся строками, это неправильно. Переделай на date.",
        "В апстриме Grafana переименовали этот параметр в 11-й версии, поправь наш дашборд.",
        # train5: a failure on a schedule; a genuine question
        "Та же ошибка авторизации вылезает в логах каждое утро около 9:00. Что запускается в это время?",
        "Есть причина не брать здесь pydantic?",
        # round 2: "Нет, <a fact about the user's world>" answers the agent's question
        "Нет, на стенде только один контроллер.",
        "Нет, у заказчика нет Kubernetes, всё на голых виртуалках.",
        "Нет, этот скрипт я не менял с прошлого года.",
        "Нет, название бакета оставь, норм.",
        # round 2: a rule, then a new request in a later clause; a rule announced up front
        "В проекте мы всегда пишем тесты на pytest — подготовь каркас для модуля оплаты.",
        "Сразу скажу: у нас никогда не используют ORM, только чистый SQL. Напиши репозиторий для заказов.",
        "Ключи у нас никогда не лежат в репозитории, так что заведи загрузку из Vault.",
        # round 2: the user's build picks the wrong thing; no need up front; a question about upstream
        "В образе подтягивается не та версия libpq, помоги разобраться.",
        "Мультиарендность поддерживать незачем; напиши просто для одного клиента.",
        "В новой версии Terraform этот провайдер выпилили?",
        # round 2: somebody else's (a contractor's) files
        "Подрядчик прислал выгрузку, в ней нет колонки ИНН. Как быть?",
        # round 2: a rule of the user's world as the answer; a team habit, then a request
        "Нет, у нас только Debian-серверы.",
        "Нет, пользователи никогда не имеют доступа к шеллу.",
        "В команде мы всегда ревьюим PR вдвоём; напиши CONTRIBUTING с учётом этого.",
        "Кстати, у нас в компании запрещены зависимости под AGPL. Нужен парсер PDF.",
        # round 3: a fact that answers, then leave to go on; how the world works "теперь/только"; the SDK we
        # use; a fact, then a new request in its own sentence; praise, then "допиши ещё"
        "Нет, на складе только ТСД Zebra, других нет. Продолжай.",
        "Нет, фото лежат на отдельном NAS, не в базе. Давай дальше.",
        "нет, теперь отчёты выгружаются только через SFTP, факсов больше нет",
        "Нет, в базе от силы 10 тысяч записей, хватит одного шарда.",
        "SDK, которым мы пользуемся, устарел, надо обновить клиент.",
        "Старый сканер не умеет читать DataMatrix. Сделай распознавание через камеру.",
        "Отлично, всё работает. Но допиши ещё экспорт в XLSX.",
        # issue 13 (train8): answers "not yet", constraints up front, requests, somebody else's SDK, a hedge
        # about the user's system with a request to look into it
        "Нет, ключ от песочницы ещё не пришёл",
        "Сделай конвертер в PNG, а не в JPEG",
        "Напиши парсер на Go, а не на Python",
        "Ты можешь сейчас проверить логи?",
        "Ты сейчас напишешь миграцию, а я проверю",
        "Твой скрипт работает, спасибо. Теперь добавь CLI",
        "Мне кажется, у поставщика SDK слишком старый",
        "Запросы в прод без ревью нельзя, поэтому напиши чек-лист для ревьюеров",
        "В PR коллеги попал .env, напиши pre-commit хук от этого",
        "Мне кажется, буфер переполняется при задержке, посмотри почему",
        # issue 13 (train9): praise then the next request or a pause; "No, <a thing> is absent, what we do";
        # work still to come (когда закончишь, если будешь, ты отвечаешь за ...: начни); a new or outside rule
        # (по закону, с 1 сентября) or legacy code; the user's own system looked into; data a third party sends
        "Супер, но только ещё прикрути фильтр по дате",
        "Нормально, но на сегодня хватит",
        "Спасибо, работает. Правда, я ещё не проверил на проде, потом напишу",
        "Твои тесты проходят, спасибо. Теперь добавь экспорт в CSV.",
        "В твоём коде из прошлого ответа всё ок, теперь добавь логирование",
        "Нет, доступа к боевому API ещё нет, пиши на заглушках",
        "Нет, стенда у банка нет, тестируем на копии прода",
        "Отчёт по остаткам можно собрать одним запросом? Хранимки не используем.",
        "Когда ты закончишь, напиши короткое резюме изменений",
        "Если ты пишешь тесты, ставь pytest, а не unittest",
        "Ты работаешь в монорепе, так что тесты запускай через make test",
        "Ты отвечаешь за бэкенд бронирования, у нас всегда UTC в базе. Начни со схемы.",
        "Пароли мы храним только в Vault, а не в env — учти это, когда будешь писать сервис",
        "С 1 сентября хранить номера карт у себя нельзя по PCI. Перепиши модуль оплаты на токены.",
        "Логировать персональные данные нельзя по закону, поэтому старый модуль биллинга надо почистить — убери оттуда ФИО.",
        "После коммита Серёжи сломался деплой на стейдж, посмотри логи",
        "Кто одобрил этот PR? Найди в истории мержей",
        "Почему в логах ставок таймауты? Мы храним их только неделю, так что смотри свежие",
        "Мне кажется, у нас слишком много алертов в Grafana, давай настроим группировку",
        "Мы же решили переезжать на Postgres 16, так что давай начнём с миграции схемы",
        "В апстриме так не делают, посмотри как у них устроена авторизация",
        "Я бы оставил старый эндпоинт ещё на месяц, так что сделай новый рядом, с версией v2",
        "Клиент прислал CSV в cp1251, а не utf-8, перекодируй при импорте",
        "Нет, логи шлём в Datadog, CloudWatch не используем",
        "В документации вендора написано, что в v3 метод удалили, это правда?",
        "В прод напрямую мы не пушим, так что в инструкцию по релизу добавь раздел про ветки",
        "В этом репо импорты всегда абсолютные. Новый модуль делай так же.",
        "Круто, но не горит — как будет время, добавь тайп-хинты",
        # issue 13 (train10): "Нет, <how the user's world is>", rules before a nominal request, third parties
        "Нет, пароли у нас хранятся в Vault.",
        "Нет, ID заказа — это UUID из платёжки.",
        "Нет, я это пока никому не отдавал, правь смело",
        "Имена бакетов называются по шаблону env-team-purpose. Нужен скрипт создания бакетов.",
        "Никаких сторонних SDK (только REST). Бот для уведомлений о заказах.",
        "Сторонние шрифты под запретом. Сверстай лендинг для зоопарка.",
        "По нашему стайлгайду функции не длиннее 40 строк — пиши модуль с учётом этого.",
        "Итоговая сумма не сходится с выпиской. Помоги найти, где расхождение.",
        "Ночная сборка всё ещё падает с той же ошибкой, девопсы уже смотрят. Пока займись отчётом.",
        "Стажёр, похоже, забыл индексы в миграции. Сформулируй замечание.",
        "В официальном гайде ключ API лежит прямо в коде, так нельзя. Подготовь пример на переменных окружения.",
        "Твои тесты проходят, спасибо. Теперь экспорт в CSV",
        "В changelog пакета написано, что в v4 метод устарел, а замены нет. Поищи альтернативу.",
        # round 11: No + the user's setup or history, a rule announced for coming work, an alternative asked for,
        # a new thing then its verb, a question about the user's own spec
        'Нет, я впервые запускаю этот скрипт',
        'нет, мы пока на Node 18',
        'Нет, этот баг был и раньше, до твоих правок',
        'Имей в виду, что у нас запрещено писать в мастер-базу, поэтому отчёт пусть читает с реплики',
        'Сделай ещё вариант на aiohttp вместо requests, сравним скорость',
        'Персональные данные в логи не пишем. Новый сервис уведомлений сделай с маскированием телефонов',
        'Частота опроса 5 секунд не маловато для датчика?',
        # round 12: as agreed, then the next task; a rule for something new; No + the user's own doing;
        # a thing no longer needed; a new thing asked for beside it
        'Как и договорились, тесты на pytest. Теперь напиши тесты для модуля скидок.',
        'У нас нельзя ходить во внешние API с прода, так что для нового воркера очереди используй прокси.',
        'Нет, я сама удаляла эту ветку, она была лишняя.',
        'Нет, я его пока не запускал.',
        'Эта колонка больше не нужна, подготовь миграцию.',
        'Нужен новый сервис отчётов, этот старый не нужен будет после запуска.',
        # round 13: a pause of the user's own, a question after "стоп", a habit then new work, somebody
        # else's unchanged result, a question about the config
        'подожди, я сейчас скину логи',
        'стоп, а как работает этот кэш?',
        'стой, я не успел закоммитить',
        'мы логируем через structlog, напиши новый обработчик заказов',
        'у коллеги ничего не изменилось после обновления',
        'ничего не изменилось в конфиге с прошлой недели?',
    ],
)
def test_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


# round 11: "Нет, …не <imperative>" rejects the agent's step even where the model vetoes the leading "Нет,";
# "Нет, не волнуйся, …" reassures and stays with the model.
@pytest.mark.parametrize(("text", "expected"), [
    ("Нет, таблицу не дропай", "ru.no-imperative"),
    ("нет, конфиг прода не трогай", "ru.no-imperative"),
    ("Нет, не волнуйся, сделай как считаешь нужным", None),
])
def test_no_imperative_without_leading_no(text: str, expected: str | None) -> None:
    hit = detect_correction_by_patterns(Prompt(text, "session-1", "/tmp/project"), skip_leading_no=True)
    assert (hit.pattern if hit else None) == expected
