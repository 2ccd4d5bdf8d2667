"""self_improve.detect.corrections_es: the families added for issue 13 (train3), each pinned by
sentences of our own (in no data file), and the hard negatives they must leave alone."""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # house rules as impersonal frames
        ("Los domingos no se despliega nada, y el deploy salió igualmente.", "es.house-frame"),
        ("Aquí las claves se rotan cada trimestre, nada de tokens eternos.", "es.house-frame"),
        ("Ningún job se programa sin alerta, y al tuyo le falta.", "es.house-frame"),
        # plain facts
        ("La columna buena es `fecha_baja`, la otra está vacía.", "es.factual-2"),
        ("Ese endpoint devuelve segundos, no milisegundos.", "es.factual-2"),
        ("`componentWillMount` ya ni compila en React 19.", "es.factual-2"),
        # a transition after praise, across a sentence
        ("Me encanta el panel nuevo. Lo malo es que el filtro que pusiste ignora la zona horaria.", "es.after-praise-2"),
        # hedged disagreement and doubt
        ("A lo mejor me equivoco, pero el timeout del balanceador es de 60 segundos.", "es.hedged-3"),
        ("Mmm, ¿el índice no debería ir sobre la columna de fecha?", "es.hedged-4"),
        # reproach and restating of other shapes
        ("¿Pero no habíamos dicho que el esquema no se tocaba?", "es.reproach-3"),
        ("Nadie te dijo que cambiaras el proveedor de correo.", "es.reproach-3"),
        ("Ya van tres veces: los importes en céntimos.", "es.reproach-3"),
        ("Sigues sin actualizar el README con el flag nuevo.", "es.reproach-3"),
        # the issue-13 vetoes leave these alone: a judgement before a reported source, a rule
        # against work of the agent's
        ("Eso está mal, la documentación dice que el límite es 100.", "es.wrong"),
        ("Eso se eliminó en la 3.0, lo dice el changelog.", "es.factual"),
        ("Aquí siempre usamos tabs, así que pon tabs en el Makefile que escribiste.", "es.house"),
        # round 2: a leading "No," that turns on the agent's work stays a correction
        ("No, la factura no debe llevar IVA, quítalo de la plantilla.", "es.no"),
        ("No, ese no es el puerto, el broker escucha en el 8883.", "es.no"),
        # round 3: the vetoes of new work, third parties and answers leave these corrections alone
        ("¿Para qué has añadido un sleep en el bucle?", "es.reproach"),
        ("No, no, el descuento va en la línea, no en el total.", "es.no"),
        ("No, el descuento va en la línea y lo has puesto en el total.", "es.no"),
    ],
)
def test_new_spanish_families(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # a rule or a fact stated for new work
        "En este repo no se usa Docker todavía, así que escribe un script de instalación local.",
        "Solo Android en este proyecto. Escribe el test de la pantalla de login.",
        "La variable es `SENTRY_DSN`, añádela al fichero de ejemplo.",
        # a question about the user's own problem, or their own doubt
        "El servidor escucha en el 8080, no sé por qué no responde.",
        "No sé si es buena idea usar Kafka para esto, ¿qué opinas?",
        "Quizás me equivoque de sitio, ¿dónde se configura el logging?",
        "¿Por qué la app ahora tarda tanto en arrancar?",
        # praise, then the next request
        "Genial, funciona. Eso sí, mañana toca la parte de pagos.",
        "¿Hay algún motivo para no usar un enum aquí?",
        # issue 13: a house rule that motivates new work, an answer about access
        "En el equipo siempre etiquetamos las imágenes con el SHA. Prepara el workflow de build de la API.",
        "Aquí nunca tocamos producción en agosto, así que pon la ventana de mantenimiento en septiembre.",
        "No, desde la VPN no tengo acceso al bastión.",
        "Solo desplegamos los lunes; planifica el checklist de release con eso.",
        # somebody else's words, reported
        "Nuestro tutor dice que así no funcionan los lifetimes de Rust, pero no lo tengo claro. ¿Me lo explicas?",
        "El readme del SDK dice que el cliente síncrono se eliminó en la 4.0; porta nuestro uploader al asíncrono.",
        # round 2: "No, <a fact about the world>" answers; a rule, then ", <request>"; a question
        "No, el servidor de licencias corre en Windows Server 2019.",
        "No, todavía no usamos Kubernetes en esa oficina.",
        "Nosotros siempre firmamos los tags con GPG, crea el script de release.",
        "¿Es erróneo guardar los importes en céntimos como int?",
        # round 3: a purpose clause, "dicho esto, <new work>", a wish for new work, a third party judged,
        # "No, <fact>, no <place or means>", hearsay about nobody
        "Para que lo sepas: en la fábrica solo imprimimos etiquetas en ZPL. Diseña el módulo de impresión.",
        "Dicho esto, monta el endpoint de devoluciones con esa regla en mente.",
        "Necesito una API de fichajes; en RRHH solo usamos Postgres, nada de Mongo.",
        "El manual del fabricante está mal, el registro se llama 0x1F y no 0x10. Ajusta el driver.",
        "No, el inventario se sincroniza por SFTP, no por la API.",
        "No, que yo sepa nadie más lee ese topic. Adelante.",
    ],
)
def test_spanish_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 5: a value set against the agent's, reproachful questions, hedged doubt, what the
        # agent's change does, a rule then the agent's work that breaks it
        ("El bucket de logs está en eu-west-1, no en us-east-1.", "es.fact-contrast"),
        ("¿Desde cuándo metemos credenciales en el Dockerfile?", "es.reproach-4"),
        ("¿Y quién te ha pedido que cambies el proveedor de SMS?", "es.reproach-4"),
        ("¿En qué momento dije que había que borrar la caché?", "es.reproach-4"),
        ("¿Por qué demonios hay un print en el handler de pagos?", "es.reproach-4"),
        ("No tengo claro que haga falta un índice nuevo para esa consulta.", "es.hedged-5"),
        ("Creo que no deberíamos reintentar los cobros rechazados.", "es.hedged-5"),
        ("Me da la impresión de que tu consulta cuenta dos veces las devoluciones.", "es.hedged-5"),
        ("Este cambio borra las sesiones de todos los usuarios al desplegar.", "es.you-did-2"),
        ("Quita ese logger que pusiste en el bucle de render.", "es.you-did-2"),
        ("Los endpoints públicos siempre llevan rate limit, y el tuyo no.", "es.house-yours"),
    ],
)
def test_round5_spanish_families(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 5: a fact for new work, a reported claim, the user's own problem or doubt, an answer
        "Las facturas van en euros, no en dólares. Genera el informe trimestral.",
        "Esto rompe el build desde ayer, ¿lo miras?",
        "Tengo la sensación de que el servidor va lento, ¿puedes perfilarlo?",
        "mmm, creo que así no llegamos al viernes con el cliente",
        "no tengo claro qué librería usar para el PDF, ¿alguna idea?",
        "Para los horarios: nada de huecos. Haz el solver.",
        "No, mejor el lunes, hoy no hay nadie de guardia.",
        "No, esa rama ya no la usa nadie del equipo, puedes borrarla.",
    ],
)
def test_round5_spanish_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 6: next to each new veto, the correction it must leave alone
        ("No, la naviera solo admite reservas con DNI, así que hay que cambiar el formulario que hiciste.", "es.no"),
        ("Perfecto. Ahora bien, el total de la boda sale con IVA duplicado.", "es.after-praise-2"),
        ("Genial, pero para el caso vacío tu función peta.", "es.after-praise"),
        ("Los pedidos van por lote, no por unidad, y tu tabla los guarda por unidad.", "es.fact-more"),
        ("No, aquí solo usamos pnpm, cambia el lockfile.", "es.no"),
        ("Para la app de la guardería: nada sale sin revisión de la directora, y tú has publicado el menú sin ella.", "es.you-past"),
    ],
)
def test_round6_spanish_families(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 6: an answer whose duty follows from the fact ("así que hay que"), a verb of how a
        # place works, a rule for work still to come or under a heading, a wish for new work with
        # an article, praise then "Ahora, ...", a reported value, a present in -iste
        "No, la naviera solo admite reservas con DNI, así que hay que pedirlo en el formulario.",
        "No, el hangar no opera de noche. Sigue con los turnos de día.",
        "En el taller nunca guardamos matrículas en claro, así que el informe que vas a generar tiene que ocultarlas.",
        "Para la app de la guardería: nada sale sin revisión de la directora. Monta el flujo de aprobación que te pido.",
        "En la bodega solo usamos MariaDB. Necesito la tabla de barricas con su histórico.",
        "Perfecto. Ahora, la misma pantalla pero para las bodas de invierno.",
        "La naviera dice que el puerto de salida es Dénia, no Valencia.",
        "El proveedor insiste en que el token caduca a los 30 minutos.",
        "Los pedidos de la farmacia van por lote, no por unidad. Diseña la tabla de pedidos.",
        "No, aquí solo tenemos licencia de Office 2019.",
    ],
)
def test_round6_spanish_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 7: the new vetoes leave the agent-aimed forms alone
        ("No, la ordenanza da 2 horas y tú has puesto 3. Puedes seguir cuando lo cambies.", "es.you-past"),
        ("Preferiría que no hubieras cambiado el formato. Hazlo otra vez en CSV.", "es.hedged"),
        ("Genial, gracias. Ahora, el cálculo que hiciste está mal, pero lo demás vale.", "es.your-artefact"),
        ("La tabla nueva se llama `reservas_v2`, no `reservas`.", "es.factual"),
        ("No, eso está mal. Puedes seguir con lo demás.", "es.no"),
        ("Genial, justo lo que necesitaba. Añádele ahora el cálculo, pero el que hiciste está mal.", "es.after-praise-2"),
        ("Sigue con el resto del código, como en los otros módulos.", "es.house"),
    ],
)
def test_round7_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 7: a go-ahead closing the answer, "sigue con el resto"; a preference or a doubt about work to
        # come; several praise words, then the next request; "se llama dos veces" (is called, not named);
        # rules before "Empieza por ..." / "Maqueta ..."
        "No, el ayuntamiento cobra por hora completa en zona azul. Puedes seguir con eso.",
        "Que no, tranquilo, el dominio renueva en mayo. Sigue con el resto.",
        "Preferiría que el extracto saliera en PDF. Hazlo con reportlab.",
        "¿No sería mejor un enum para los estados de la plaza? Es para el diseño que vamos a hacer.",
        "Genial, gracias. Ahora, para la siguiente pantalla, necesito lo mismo pero para los voluntarios.",
        "Qué bien ha quedado. Pasa ya a la ficha del animal, aunque sin fotos de momento.",
        "Ni te molestes con la caché, el endpoint se llama tres veces al día. Haz la consulta directa.",
        "Requisitos:\n1. solo SQLite\n2. nada de ORM\nEmpieza por el esquema de los socios.",
        "Nada de frameworks, es una landing: HTML y CSS. Maqueta la página de la colecta.",
        "Genial, justo lo que buscaba. Añádele ahora un endpoint de exportación, pero en CSV.",
        "No. El datáfono de la feria es de Sumup y no tiene API pública.",
    ],
)
def test_round7_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 11: elliptical replacements, plain facts, reproach and hedged questions, restating, praise then regression
        ("No con `os.system`, con `subprocess.run`.", "es.instead-short"),
        ("con httpx, no con requests, que todo el servicio es async", "es.instead-short"),
        ("Mejor con un CTE que anidando tres subconsultas.", "es.instead-short"),
        ("no es `npm ci`, es `pnpm install --frozen-lockfile`", "es.instead-short"),
        ("Celery, no RQ.", "es.instead-short"),
        ("en Next los componentes de cliente tienen que llevar 'use client' arriba", "es.fact-plain"),
        ("`pkg_resources` es la api antigua de setuptools, mira importlib.metadata", "es.fact-plain"),
        ("Angular 17 requiere Node 18 como mínimo, con el 16 no arranca", "es.fact-plain"),
        ("¿cuál fue la idea de guardar las fechas como strings?", "es.reproach-5"),
        ("¿no ibas a revisar los logs antes de cerrar el ticket?", "es.reproach-5"),
        ("¿dónde está la validación del email que había en el formulario?", "es.reproach-5"),
        ("A lo mejor es manía mía, pero ese nombre de variable no dice nada.", "es.hedged-6"),
        ("me parece raro que la sesión dure un mes, ¿no debería caducar antes?", "es.hedged-6"),
        ("Lo hablamos en la daily: los ids van en UUID.", "es.restate-2"),
        ("Genial, ya funciona, pero ahora la página tarda cinco segundos en cargar.", "es.after-praise-3"),
    ],
)
def test_round11_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 11: a rule for work still to come (a new artefact, "que vamos a hacer", "tenlo en cuenta"); new content
        # described after "cámbialo por uno que" / "en lugar de ..., esta vez quiero"; the user's own experience after "No,";
        # "en local funciona" is a report, not praise
        "Aquí nunca usamos float para dinero. El módulo nuevo de nóminas tiene que respetarlo.",
        "En el equipo no se suben binarios al repo, tenlo en cuenta para el pipeline que vamos a montar.",
        "En la oficina no usamos ORM para los listados, SQL a mano. Hazme el listado de morosos.",
        "El aviso de mantenimiento es muy seco; cámbialo por uno que pida disculpas y dé la hora de vuelta.",
        "En vez de un csv diario, esta vez quiero un excel semanal para dirección.",
        "No, nunca he desplegado ese servicio.",
        "No, es la primera vez que abro este repo.",
        "no, en local funciona; el problema es solo en el contenedor",
        "Vale, no pasa nada.",
    ],
)
def test_round11_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 12: the narrowed round-11 patterns still catch the agent's wrong work
        ("Con Flask, no con FastAPI. Aquí nadie mantiene código async.", "es.instead-short"),
        ("En Astro las variables públicas tienen que empezar por PUBLIC_, por eso tu build no las lee.", "es.fact-plain"),
        ("Como dijimos antes, nada de ORM. Quita SQLAlchemy.", "es.restate-2"),
    ],
)
def test_round12_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 12: "X, no Y:" followed by a request for new work; a fact followed by "antes de empezar" / "tenlo en cuenta";
        # what was agreed introducing the next task; "en vez de ..., quiero que el nuevo ..."; "No, no hay prisa"
        "Con Ansible, no con Chef: prepara el playbook que instala nginx en los tres nodos.",
        "Django 5 exige Python 3.10 como mínimo, así que antes de empezar mira qué versión tiene el servidor.",
        "En Astro las variables públicas tienen que empezar por PUBLIC_; tenlo en cuenta para la web de la asociación.",
        "Lo acordamos ayer: la próxima tarea es el informe de asistencia. ¿Te pones con ello?",
        "Como quedamos antes, ahora seguimos con las notificaciones push.",
        "En vez de guardar los logs en disco, quiero que el servicio nuevo los mande a Loki.",
        "No, no corre prisa, míralo el lunes.",
    ],
)
def test_round12_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # round 13: still broken ("sigue sin arrancar", "no cambió nada"), a leading "detente" / "para!",
        # "no te había dicho que ...", a rule followed by its fix
        ("el contenedor sigue sin arrancar", "es.still-13"),
        ("probé tu versión: nada cambió, el menú sale vacío", "es.still-13"),
        ("Frena, no quiero que migres la base todavía", "es.stop-13"),
        ("te había dicho que los nombres van en inglés", "es.restate-13"),
        ("en este repo las ramas van con el número del ticket, cámbialas y arréglalo", "es.rule-fix-13"),
    ],
)
def test_round13_corrections(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "es")


@pytest.mark.parametrize(
    "text",
    [
        # round 13: the user's own service, asked about; "para" as a preposition; a rule for work still to come
        "mi servicio sigue sin arrancar desde que cambié de portátil, ¿qué miro?",
        "para el informe, usa los datos de marzo",
        "crea el módulo de envíos nuevo; en este proyecto los nombres van en inglés",
    ],
)
def test_round13_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
