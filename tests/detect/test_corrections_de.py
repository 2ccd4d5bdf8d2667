"""self_improve.detect.corrections_de: the general German forms of issue 13 (train3), each by the
exact pattern that names it, and the hard negatives next to them (no pattern at all).

The sentences are new (in no data file): each stands for a family of phrasing, not for itself.
"""

from __future__ import annotations

import pytest

from self_improve.detect.corrections import CorrectionHit
from tests.detect.pattern_hits import pattern_hit


@pytest.mark.parametrize(
    ("text", "pattern"),
    [
        # hedging formulas and polite disagreement
        ("Vielleicht irre ich mich, aber so rum wird das Bild gespiegelt.", "de.hedge-formula"),
        ("Da muss ich widersprechen, der Cache gehört vor den Loadbalancer.", "de.hedge-formula"),
        ("Kann es sein, dass du die Achsen beim Plot vertauscht hast?", "de.hedge-formula"),
        ("Ich halte das für keine gute Idee, den Token im LocalStorage abzulegen.", "de.hedge-formula"),
        # house rules: a rule frame then the agent's work, "durchgehend", a passive rule
        ("Unsere Regel für Migrationen: immer mit Rollback. Deine hat keinen.", "de.rule-frame"),
        ("Die Commit-Messages sind bei uns durchgehend auf Englisch.", "de.rule-frame"),
        # what the agent did: a damaging participle after "weil du ... hast"
        ("Der Build ist rot, weil du die Env-Variable umbenannt hast.", "de.you-more"),
        # reproach questions not of the form "warum hast du"
        ("Was hat ein print-Statement im Produktionscode zu suchen?", "de.reproach-3"),
        ("Wo genau hab ich verlangt, dass du das Schema änderst?", "de.reproach-3"),
        ("Was hast du dir bei dem globalen Lock gedacht?", "de.reproach-3"),
        # restating
        ("Wie schon ganz oben geschrieben, nur Python 3.9.", "de.restate-3"),
        ("Sagte ich doch schon: keine Umlaute in Dateinamen.", "de.restate-3"),
        # not what was asked or agreed
        ("Von einem neuen Logger war nie die Rede.", "de.not-asked-2"),
        ("Das war so nicht vereinbart, wir wollten nur die API dokumentieren.", "de.not-asked-2"),
        # judgement near misses: one word away from "das ist falsch"
        ("Das ist doch totaler Murks, die Schleife läuft nie durch.", "de.wrong-more"),
        ("So kompiliert das nicht, der Trait fehlt.", "de.wrong-more"),
        ("Stimmt leider immer noch nicht, der Header fehlt.", "de.wrong-more"),
        # plain facts: a version and a name
        ("Seit Version 3 heißt die Option einfach strict.", "de.fact-3"),
        # praise, then the flaw
        ("Sieht sauber aus. Blöd nur, dass die Tests jetzt doppelt so lange laufen.", "de.praise-but"),
        ("Nimm wieder die alte Farbpalette, die neue ist zu grell.", "de.undo-more"),
        ("Schluss mit den Sleep-Aufrufen, nimm einen richtigen Retry.", "de.stop-more"),
        ("Nach deiner Änderung hängt der Upload weiterhin bei 99 Prozent.", "de.still-more"),
        # round 2: a leading "Nein," that turns on the agent's work stays a correction; praise, ", nur" a flaw
        ("Nein, der Drucker soll nicht über USB angesprochen werden, nimm das Netzwerk.", "de.no"),
        ("Nein, die Tabelle hast du falsch benannt.", "de.no"),
        ("Top, nur fehlt in deinem Export die Kopfzeile.", "de.after-praise"),
        # round 3: a rule, then a redo of the agent's work is no new work; "A, nicht B" of values stays
        ("Wir committen nie direkt auf main, mach bitte einen Branch.", "de.house"),
        ("Nein nein, das Timeout ist in Sekunden, nicht in Millisekunden.", "de.no"),
        ("Nein, die Zeitzone ist falsch, du rechnest in UTC.", "de.no"),
        # round 5: the agent's change in the present tense
        ("Dein Backup-Skript überschreibt jede Nacht das Archiv vom Vortag.", "de.you-now"),
        ("Im Importer verschluckst du die Zeilen mit leerem Datum.", "de.you-now"),
        ("Mit deiner Änderung ist der Warenkorb nach dem Login leer.", "de.you-now"),
        ("Der Webhook, den du eingerichtet hast, sendet jede Bestellung dreimal.", "de.you-now"),
        # round 5: a fact against what the agent wrote, "A, nicht B"
        ("Die Kamera spricht RTSP, kein HLS.", "de.fact-not"),
        ("Den Parameter `--dry` gibt es bei rsync nicht.", "de.fact-not"),
        ("In Django 4.0 wurde `force_text` entfernt.", "de.fact-not"),
        ("`zoneinfo` gibt es erst ab Python 3.9.", "de.fact-not"),
        # round 5: a house rule, then the agent's deviation
        ("Ohne Ticketnummer kein Commit, deine Messages haben keine.", "de.rule-then-you"),
        # round 5: hedged, reproach, praise then a flaw
        ("Wäre es nicht robuster, das Timeout konfigurierbar zu machen?", "de.hedged-3"),
        ("Ich würde den Cache eher pro Mandant anlegen.", "de.hedged-3"),
        ("Geht das nicht auch ohne zweite Datenbank?", "de.hedged-3"),
        ("Vielleicht eher ein Enum als drei Booleans?", "de.hedged-3"),
        ("Seit wann committen wir Build-Artefakte?", "de.reproach-4"),
        ("Wozu auf einmal ein eigener HTTP-Server?", "de.reproach-4"),
        ("Gute Arbeit! Einziger Haken: die Suche ignoriert jetzt Umlaute.", "de.praise-flaw"),
        # round 6: the near misses of the round-6 vetoes still count: "Nein, A, nicht B" (not a place),
        # "Nein, <fact>, du ..." and a rule then what the agent did
        ("Nein, die Kabine hat 180 Sitze, nicht 189.", "de.no"),
        ("Nein, Buchungen werden bei uns nie gelöscht, du hast gerade ein DELETE eingebaut.", "de.no"),
        ("Wir speichern Passwörter nie im Klartext, und du hast sie in die users-Tabelle geschrieben.", "de.house"),
        # round 7: a verdict or an undoing after "Nein, <Subjekt> ..." still counts
        ("nö, das macht den Export kaputt, die Spalten fehlen jetzt", "de.no"),
        ("Nein, lösch die Spalte nicht, der Report braucht sie.", "de.no"),
        # round 11: short elliptical replacements, the agent's work redone another way, a tool's naming
        # rule, "was war der Gedanke", "wäre ein X nicht einfacher", "Nein, <das Geänderte> bleibt"
        ("Nicht Gradle, Maven.", "de.instead-short"),
        ("kein eigener Parser, nimm `tomllib` aus der Standardbibliothek", "de.instead-short"),
        ("Löse das über eine Queue statt über den Cronjob, die Jobs überlappen sonst.", "de.do-it-instead"),
        ("Bei Expo müssen die öffentlichen Variablen mit `EXPO_PUBLIC_` beginnen.", "de.fact-tool"),
        ("Der Proxy hat damit nichts zu tun, das Zertifikat ist abgelaufen.", "de.fact-tool"),
        ("Was war eigentlich die Idee dabei, jede Route einzeln zu cachen?", "de.reproach-idea"),
        ("Wäre eine View hier nicht schneller als die drei Joins?", "de.hedged-would"),
        ("Nein, die Timeouts bleiben so, die sind mit dem Provider abgestimmt.", "de.no-keep"),
        # round 12: "das ist der falsche X" names the agent's choice the wrong one
        ("Das war leider schon wieder der falsche Branch, wir mergen nach develop.", "de.wrong-the"),
        ("Das ist der falsche Bucket, die Backups liegen in archive-eu.", "de.wrong-the"),
        # round 12: a restatement that turns on the agent is still one, whatever introduces it
        ("Wie besprochen, keine neuen Abhängigkeiten, du hast schon wieder lodash drin.", "de.restate"),
        # round 13: a house rule with "hier" after the verb and a contrast; the means in parallel ("mit X, nicht
        # mit Y"); "kein X, wir <Werkzeugverb> ..."; "stopp!"/"halt," then a halt; "das brauchen wir nicht" / "war nicht
        # nötig"; "Nein, das will ich so nicht" is no answer
        ("Tests schreiben wir hier mit pytest, nicht mit unittest.", "de.house-here"),
        ("Bitte über die REST-API abfragen, nicht über den Datenbank-Dump.", "de.instead-prep"),
        ("kein Webpack, wir bauen mit Vite", "de.instead-we"),
        ("Nicht Terraform, wir setzen auf Pulumi.", "de.instead-we"),
        ("stopp, nicht die Logs löschen!", "de.stop-word"),
        ("Halt! Lass die Migrationen in Ruhe.", "de.stop-word"),
        ("Die zusätzlichen Typ-Hints waren gar nicht nötig.", "de.unneeded-more"),
        ("Nein, das möchte ich so nicht.", "de.no"),
    ],
)
def test_general_german_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "de")


@pytest.mark.parametrize(
    "text",
    [
        "Kurz vorweg: bei uns wird nie direkt auf main gepusht.",  # a rule before any work
        "Schreib ein Skript für die Backups, bitte nur POSIX-sh, kein bash.",  # constraint up front
        "Nee, hab ich noch nicht ausprobiert.",  # "no" answering a question
        "Nein, Windows-Support ist kein Thema.",
        "Die Hersteller-Doku ist kompletter Quatsch, der Pin ist anders belegt. Schreib den Treiber nach Schaltplan.",
        "Mir scheint, der Cronjob läuft nicht, kannst du nachsehen?",  # a question, not a correction
        "Nach deinem Fix läuft alles wieder, danke!",
        "Danke, dass du die alten Dateien gelöscht hast.",
        "Kannst du mir sagen, ob das so eine gute Idee ist?",
        "Super, das klappt. Allerdings brauche ich noch eine zweite Variante für Staging.",
        "Der Server hat 32 GB und nicht 16, reicht das für den Index?",
        # rules for work not yet done: a clause of new work after the rule, or work announced ("gleich")
        "Wir mergen nie ohne grüne Pipeline, also richte bitte den Workflow für die PRs ein.",
        "Bei uns gibt es nur Tabs. Leg bitte die .editorconfig für das neue Repo an.",
        "Wir taggen immer mit semver, halt das im Release-Skript ein, das du gleich schreibst.",
        # somebody else's work judged or changed
        "Die Doku vom Hersteller ist veraltet, das Register heisst inzwischen CTRL2. Bau den Zugriff so.",
        # praise, then the next request
        "Prima. Nur noch das Logging, dann machen wir Feierabend.",
        # round 2: "Nein, <a fact about the world>" answers; a rule, then "; <new work>"; "nur" of a quantity
        "Nein, die Messwerte kommen alle über MQTT rein.",
        "Nee, im Lager gibt es nur WLAN, kein LAN-Kabel.",
        "Wir deployen nie nach 16 Uhr; bereite den Cronjob für das nächtliche Update vor.",
        "Super, der Import hat nur zwei Sekunden gebraucht. Jetzt die Validierung.",
        # round 3: "Nein, <fact>, nicht <place or means>", "auf den ...", "hat keine API" after "Nein,";
        # a rule, then "Aufgabe: Schreib ..." or "mach ... fertig"
        "Nein, die Scanner laufen bei uns alle mit Android 11, nicht mit iOS.",
        "Nein, auf den Kassen läuft überall Windows 10 IoT.",
        "Nein, das Lager hat keine eigene API, die Bestände kommen per FTP.",
        "Wichtig: Preise speichern wir bei uns ausschliesslich in Cent. Aufgabe: Schreib das Modul für Rabatte.",
        "Bestellungen exportieren wir immer als UTF-8; mach den CSV-Export für die Buchhaltung fertig.",
        # round 5: the agent's work praised, a rule then what the user's helper is, a fact for a new task
        "Deine Lösung rechnet jetzt richtig, danke!",
        "Bei uns läuft alles auf Kubernetes, du brauchst also einen Helm-Chart.",
        "Die Sensoren laufen mit 3,3 V und nicht mit 5 V, bau den Treiber dafür.",
        "Wenn du die Datei überschreibst, leg vorher ein Backup an.",
        "Danke! Ein Haken fehlt noch in der Checkbox-Liste, füg ihn bitte hinzu.",
        "Seit wann läuft der Export schon so langsam?",
        "Die API liefert Sekunden, nicht Millisekunden; schreib den Timeout-Helper.",
        # round 6: "Nein, <a bare noun phrase or an adverb> <verb of state> ..." answers, "wir müssen
        # nicht", "mach mit ... weiter"; a rule then "Kannst du mir ... schreiben?" or a pointer ("du
        # findest ...", "schau dir ... an"); a third party's claim reported
        "Nein, Fähren laufen im Winter nur zweimal täglich, Sommerfahrplan brauchen wir erst ab April.",
        "Nein, bislang gab es keine Beschwerden, das ist nur eine Vorsichtsmassnahme.",
        "Nein, die Drohnen melden sich nur über LTE, wir müssen kein WLAN unterstützen.",
        "Nein, für die Beete gibt es noch keine Sensoren. Mach mit den Bienenstöcken weiter.",
        "Wir mergen nur mit grünem CI. Kannst du mir einen Pre-Merge-Check für das Repo schreiben?",
        "Kannst du eine neue Tabelle für die Probefahrten anlegen? Kennzeichen speichern wir bei uns nie im Klartext.",
        "Bei uns wird nichts ohne Ticket deployt, du findest die Vorlage im Wiki unter Ops/Release.",
        "Wir speichern Passwörter nie im Klartext, du findest den Hash-Helper in utils/crypto.py.",
        "Die Agentur meint, die Schrift ist Inter, nicht Roboto.",
        # round 7: "Nein, <Subjekt> <beliebiges Verb> ..." answers (a separable "findet ... statt" too), an
        # announced context or task before the request, a new request's fact, a question about practice
        "Nein, die Seilbahn pausiert im November komplett, da läuft nichts.",
        "Nee, die Termine finden nur vormittags statt.",
        "Nein, im Lager stehen die Regale in festen Reihen, mehr muss die Karte nicht darstellen.",
        "Zum Hintergrund: Bei uns wird nie ohne Protokoll gewogen. Leg das Formular für die Wiegung an.",
        "Nächste Aufgabe: die Kundenkartei. Telefonnummern speichern wir nur mit Ländervorwahl.",
        "Mach mir eine Übersicht der Schichten. Im Keller gibt's kein WLAN, also offline-fähig.",
        "Sollte man die Schlüssel nicht eher in einem Vault ablegen? Wie macht man das normalerweise?",
        # round 11: a rule up front then new work, a replacement for new work, "Nein, das ist mein ..."
        "Keine Cloud-Dienste im Prototyp nötig, alles lokal. Schreib den Importer.",
        "Kein Docker für das Tool, bau es als einzelnes Binary.",
        "Im neuen Modul bitte Pydantic statt Dataclasses verwenden.",
        "Nein, das ist mein Testkonto, keine echten Daten drauf.",
        # round 12: what was agreed introducing the next task; the user's doubt about their own work; a
        # wish for new work after "Statt ... zu ..."; work built from scratch; a symptom "bei uns kommt kein";
        # "Nein, <Ort> haben wir nur ..." (the model decides); somebody else's "das ist die falsche ..."
        "Wie im Meeting besprochen geht es jetzt an die Suchfunktion.",
        "Wie vereinbart: erstell bitte das Grundgerüst für die Mobile-App.",
        "Ich bin mir nicht sicher, ob meine Indexe sinnvoll sind. Schau mal drüber.",
        "Statt die PDFs nachts zu erzeugen, möchte ich sie on demand rendern. Wie fange ich an?",
        "Nimm für den Parser Lark statt Regexen und bau ihn von Grund auf.",
        "Seit dem Release bei uns kommt keine Bestätigungsmail mehr an, was kann das sein?",
        "Nein, in der Testumgebung haben wir nur zwei Nodes, Sharding lohnt sich da nicht.",
        "Der Kunde sagt, das ist die falsche Filiale.",
        # round 13: a rule for something new ("Für den neuen Service: ...", "Richte bitte ein neues Repo ein, ...");
        # "Kein Problem, wir ..."; "Moment," then the user's own step; somebody else's verdict "war nicht nötig";
        # the means as a constraint of new work; a fact about the user's world "per X, nicht per Y"
        "Für den neuen Service: wir loggen immer im JSON-Format.",
        "Richte bitte ein neues Repo ein, wir committen immer mit Conventional Commits.",
        "Für die neue App nutzen wir ausschliesslich Kotlin, nicht Java.",
        "Kein Problem, wir testen das morgen.",
        "Moment, ich schicke dir noch die Config.",
        "Die alte Version von Bootstrap war nicht nötig für die Seite, sagt der Kollege.",
        "Schreib ein Skript mit Bash, nicht mit Python.",
        "Der Kunde zahlt per Rechnung, nicht per Lastschrift.",
    ],
)
def test_german_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
