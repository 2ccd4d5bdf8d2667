"""self_improve.detect.corrections_fr: the general French forms of issue 13 (train3), each by the
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
        # hedging formulas, conditionals of preference, "tu n'aurais pas ... ?"
        ("Sauf erreur de ma part, le quota est par projet et pas par utilisateur.", "fr.hedge-formula"),
        ("J'éviterais de toucher au scheduler juste avant la release.", "fr.hedge-formula"),
        ("Tu n'aurais pas oublié le fichier de migration ?", "fr.hedge-formula"),
        ("Ça me fait un peu peur de supprimer toute la colonne d'un coup.", "fr.hedge-formula"),
        # reproach questions not of the form "pourquoi tu as"
        ("Où est-ce que j'ai demandé de renommer les routes ?", "fr.reproach-3"),
        ("T'as pensé à quoi en mettant le cache en global ?", "fr.reproach-3"),
        # restating
        ("Pour la 4e fois, les logs vont dans stderr.", "fr.restate-3"),
        ("Je te l'avais dit dès le départ : pas de jQuery.", "fr.restate-3"),
        ("Je t'ai juste demandé de corriger le titre, pas de refaire la page.", "fr.not-asked-2"),
        # near misses of "tu te trompes", judgements of the agent's code
        ("Tu t'es trompé de bucket, c'est celui de préprod.", "fr.wrong-more"),
        ("Ce script ne compile pas, il manque un point-virgule ligne 12.", "fr.wrong-more"),
        # plain facts
        ("L'API attend un tableau, pas un objet.", "fr.fact-3"),
        ("Cette version est complètement obsolète depuis des années.", "fr.fact-3"),
        # house rules
        ("Aucun déploiement sans feu vert de l'équipe sécu.", "fr.rule-more"),
        ("Les images se versionnent avec un tag semver, jamais latest.", "fr.rule-more"),
        # praise, then the flaw; undo; stop; still broken
        ("Super le refacto, dommage que les perfs aient baissé de moitié.", "fr.praise-but"),
        ("Tu peux remettre l'ancienne version du formulaire ?", "fr.undo-more"),
        ("Arrête avec les emojis dans les messages de commit.", "fr.stop-more"),
        ("Après ton patch, l'écran reste encore noir au démarrage.", "fr.still-more"),
        # a bug fixed: "s'appelle" (singular) is a fact corrected
        ("Sur npm le paquet s'appelle date-fns, pas datefns.", "fr.factual"),
        # round 2: after a leading "Non," a reference to the agent's work keeps the correction
        ("Non, la table n'a jamais eu de colonne email, tu l'as inventée.", "fr.no"),
        ("Non, le serveur n'a que 4 Go, 16 workers c'est beaucoup trop.", "fr.no"),
        ("Non, pandas n'a pas de méthode append depuis la 2.0.", "fr.factual"),
        # round 2: a house rule, then what the agent did
        ("On ne pousse jamais de binaires dans le repo. Retire le .exe que tu as ajouté.", "fr.house"),
        # round 3: "Non, ..." then leave to go on still corrects where the answer rejects the agent's work
        ("Non, pas comme ça. Continue avec l'autre approche.", "fr.no"),
        ("Non, tu as mis le mauvais port. Continue après avoir corrigé.", "fr.wrong"),
        ("Le SDK que tu as ajouté est déprécié depuis la v3.", "fr.factual"),
        # round 5: the agent's change in the present tense
        ("Ton job de purge efface aussi les factures de l'année en cours.", "fr.you-now"),
        ("Dans le formulaire tu tronques les noms à 20 caractères.", "fr.you-now"),
        ("Depuis ton commit, la page d'accueil met huit secondes à charger.", "fr.you-now"),
        ("Le trigger que tu as ajouté bloque toutes les insertions en parallèle.", "fr.you-now"),
        # round 5: a fact against what the agent wrote, "A, pas B" / "A et non B"
        ("La caméra parle RTSP, pas HLS.", "fr.fact-not"),
        ("Le quota est de 500 requêtes par minute et non par seconde.", "fr.fact-not"),
        # round 5: a house rule, then the agent's deviation
        ("Les migrations ne tournent jamais au démarrage, tu les lances dans l'entrypoint.", "fr.rule-then-you"),
        # round 5: hedged, reproach, restating
        ("Ce ne serait pas plus prudent de garder l'ancien index ?", "fr.hedged-3"),
        ("Je ne pense pas qu'on ait besoin d'un deuxième cache.", "fr.hedged-3"),
        ("Je me demande si c'est vraiment utile de tout recharger à chaque clic.", "fr.hedged-3"),
        ("Qui a décidé de passer les montants en float ?", "fr.reproach-4"),
        ("Il fait quoi ce token en dur dans le script de déploiement ?", "fr.reproach-4"),
        ("Je t'avais pourtant demandé de ne pas toucher au schéma.", "fr.restate-4"),
        # round 6: the near misses of the round-6 vetoes still count: "Non, A, pas B" (not a place),
        # a rule then what the agent did, "il y a une raison de ne pas avoir ..."
        ("Non, le délai est en jours ouvrés, pas en jours calendaires.", "fr.no"),
        ("Non, les réservations ne sont jamais supprimées chez nous, remets le statut annulé.", "fr.no"),
        ("Chez nous tout passe par Kafka, et tu as branché un appel HTTP direct.", "fr.house"),
        ("Il y a une raison de ne pas avoir lancé les tests ?", "fr.more"),
        # round 11: short elliptical replacements, the agent's work redone another way, "c'était quoi
        # l'idée", "s'importe X mais le paquet ...", "Non, <ce qui a été changé> reste"
        ("Pas Gradle, Maven.", "fr.instead-short"),
        ("pas de parseur maison, `tomllib` de la lib standard", "fr.instead-short"),
        ("Fais-le avec une file de messages au lieu du cron, les jobs se chevauchent.", "fr.do-it-instead"),
        ("plutôt une vue matérialisée que trois jointures à chaque appel", "fr.do-it-instead"),
        ("C'était quoi le but de mettre un cache sur chaque route ?", "fr.reproach-idea"),
        ("Ça s'importe `bs4` mais le paquet c'est beautifulsoup4.", "fr.import-fact"),
        ("Non, les timeouts restent, ils sont alignés avec le fournisseur.", "fr.no-keep"),
        # round 12: praise after "Merci, " then a flaw
        ("Merci, ça tourne. Un hic : la pagination commence à zéro.", "fr.praise-but"),
        # round 12: a restatement that turns on the agent is still one, whatever introduces it
        ("Comme convenu, pas de console.log dans le code livré, et tu en as laissé trois.", "fr.general-rule"),
        # round 13: "non pas X, mais Y" / "pas sur X, mais sur Y"; "pas de X, on <verbe d'outil> ..."; "t'as testé au
        # moins ?"; "reviens en arrière"; "n'étaient pas demandés" / "totalement superflu"; "Non, je ne veux pas de ça"
        ("non pas avec cron, mais avec un timer systemd", "fr.instead-nonpas"),
        ("pas sur la branche develop, mais sur release", "fr.instead-nonpas"),
        ("pas de webpack, on build avec vite", "fr.instead-we"),
        ("Pas de MySQL, on reste sur Postgres.", "fr.instead-we"),
        ("t'as compilé au moins ?", "fr.reproach-checked"),
        ("bon, reviens en arrière, c'était mieux avant", "fr.undo-back"),
        ("Les commentaires en anglais n'étaient pas demandés.", "fr.unneeded-more"),
        ("ce wrapper est totalement superflu", "fr.unneeded-more"),
        ("Non, je ne veux pas de cette usine à gaz.", "fr.no"),
    ],
)
def test_general_french_forms(text: str, pattern: str) -> None:
    assert pattern_hit(text) == CorrectionHit(pattern, "fr")


@pytest.mark.parametrize(
    "text",
    [
        "Pour info, valable tout le projet : on ne commite jamais les .env.",  # a rule before any work
        "Écris un parser pour les CSV, en UTF-8 seulement, pas de Latin-1.",  # constraint up front
        "Non, pas encore, j'attends le retour du client.",  # "no" answering a question
        "Le fournisseur dit que l'API attend un tableau, pas un objet. Adapte le client.",  # third party
        "Il me semble que le serveur de staging est encore en Debian 11, tu peux vérifier ?",
        "Bon boulot ! Mais ajoute aussi les tests d'intégration.",  # praise, then more work
        "Joli travail sur la doc, par contre il faudra la traduire en anglais plus tard.",
        "Ça fait deux fois que le job échoue cette semaine, tu peux regarder les logs ?",
        "Je n'ai pas demandé à Paul, je vais le faire demain.",
        "Le build plante encore sur la CI du client, leur runner est trop vieux.",
        "On ne touche pas à la base pour l'instant, écris juste le front.",
        # rules for work not yet done: a clause of new work after the rule, or work announced
        "On ne merge jamais sans pipeline verte, donc configure le workflow des PR.",
        "Chez nous, toutes les images passent par le registre interne. Crée-en une pour le worker.",
        "On tague toujours en semver, respecte ça dans le script de release que tu vas écrire.",
        # somebody else's work judged or changed
        "La doc du fabricant est obsolète, le registre s'appelle désormais CTRL2. Code l'accès comme ça.",
        "Quelqu'un de l'équipe data a inversé les colonnes du CSV. Remets-les dans l'ordre dans le loader.",
        # praise, then the next request (a question)
        "Merci, c'est parfait. Mais une question : comment je le lance en local ?",
        # round 2: "Non, <a fact about the user's world>" answers the agent's question
        "Non, les capteurs ont seulement une sortie analogique.",
        "Non, le NAS est hébergé chez OVH, pas chez nous.",
        "Non, le broker n'a qu'une seule partition pour l'instant.",
        "Non, garde le nom actuel du bucket, ça ira.",
        # round 2: a rule, then a new request in a later clause or after a dash; a new feature opening
        "Pour ce client on ne livre jamais sans signature GPG ; prépare le script de release.",
        "Nouvelle demande : on ne garde jamais les logs plus de 30 jours. Code le job de purge.",
        "Dans notre boîte les mots de passe passent toujours par Argon2 — code le module d'inscription.",
        # round 2: old or somebody else's code judged
        "Le code historique du module de paie, c'est n'importe quoi. Par quoi je commence ?",
        "Le prestataire a codé le calcul des congés n'importe comment, c'est faux dès qu'il y a un jour férié. Corrige-le.",
        # round 2: a rule of the user's world as the answer, or announced before the work starts
        "Non, nous n'avons que des serveurs Debian.",
        "Petite précision avant que tu démarres : on utilise uniquement des UUID v7 comme clés. Crée le schéma.",
        # round 3: a fact that answers, then leave to go on; a restriction "n'... que"; the library we use;
        # a rule, then "Fais la ..." as the new request; a fact in a no-need-upfront request
        "Non, le parc n'utilise que des Raspberry Pi 4. Tu peux continuer.",
        "Non, pas de proxy sur ce réseau. Poursuis avec l'install.",
        "Non, les tickets de caisse sont imprimés en 58 mm uniquement.",
        "Le SDK qu'on utilise est déprécié depuis la v3, il faut migrer le client.",
        "Chez nous les devis sont toujours en HT, jamais en TTC. Fais le générateur de devis PDF.",
        "Pas besoin de gérer le cache, les tarifs sont uniquement en euros. Code le convertisseur.",
        # round 5: the agent's work praised, a step of new work, a fact for a new task, a question
        "Ton script envoie bien les mails, merci !",
        "Quand tu écrases le fichier, garde une sauvegarde.",
        "La caméra parle RTSP, pas HLS. Écris le client pour le flux.",
        "Est-ce que le plan de salle doit gérer les strapontins ou c'est inutile ?",
        "Règle maison : aucune donnée client hors UE. Intègre un outil d'emailing pour les relances.",
        "Les profils couleur des fichiers sont souvent faux, ce n'est pas notre faute mais il faut un avertissement.",
        "Je me demande si c'est possible de faire un export PDF.",
        "Le serveur est en UTC, pas en heure locale. Écris le convertisseur.",
        # round 6: "Non, <sujet> <verbe d'état> ..." answers (a bare "ne sert pas" too), the user's
        # experience; a rule then "tu peux me créer ... ?" or a pointer ("tu trouveras ..."); a
        # third party's claim reported; a question about new work
        "Non, la cantine ne sert pas le mercredi.",
        "Non, les drones remontent uniquement en 4G, pas de wifi à gérer.",
        "Non, dans l'atelier il n'y a pas de réseau, seulement au bureau.",
        "Non, nous n'avons jamais eu de plainte, c'est une simple précaution.",
        "On ne merge qu'avec la CI verte. Tu peux m'écrire un check de pré-merge pour le dépôt ?",
        "Tu peux créer une table pour les essais routiers ? Chez nous les plaques ne sont jamais stockées en clair.",
        "Chez nous rien ne part en prod sans ticket, tu trouveras le modèle dans le wiki.",
        "Chez nous tout passe par Kafka, tu peux regarder le consumer existant dans events/.",
        "L'agence dit que la police est Inter, pas Roboto.",
        "Il y a une raison de ne pas utiliser Redis pour le cache des sessions ?",
        # round 7: "Non, <sujet> <verbe> ..." (any plural verb, "seuls les ...", a bare name, "ne ... que"),
        # then a request built on the answer; an announced task or context; a colleague's mistake; a
        # question about practice
        "Non, les bus circulent uniquement en semaine, le week-end rien.",
        "Non, seules les cuisines ont une imprimante à tickets.",
        "Non, le robot ne lit que des QR codes, pas de code-barres.",
        "Non, Nextcloud tourne sur un VPS, pas en local. Explique-moi donc comment monter le partage.",
        "Prochaine étape : les fiches clients. Chez nous les numéros sont toujours au format international.",
        "À partir d'aujourd'hui on ne merge plus rien sans revue. Écris le modèle de PR.",
        "La collègue du support a mal saisi les codes postaux, c'est 75011, pas 75110. Fais un script de nettoyage.",
        "On ne devrait pas plutôt chiffrer les sauvegardes ? Quelle est la bonne pratique ?",
        # round 11: a rule up front then new work, a replacement for new work, "Non, c'est la première fois"
        "Pas de cloud pour le prototype, tout en local. Écris l'importeur.",
        "Pas de Docker pour l'outil, fais-en un seul binaire.",
        "Dans le nouveau module, utilise Pydantic plutôt que des dataclasses.",
        "Non, c'est la première fois que j'ouvre ce projet.",
        "Non, c'est mon compte de test, pas de vraies données.",
        # round 12: what was agreed introducing the next task; the user's doubt about their own work; a wish
        # for new work after "Au lieu de ..."; "plutôt X que Y" then new work; the agent's future work; work
        # built from scratch; somebody else changed it
        "Comme on l'a dit lundi, commence par le module d'import.",
        "Je ne suis pas sûr que mon schéma de base soit bon. Tu peux le relire ?",
        "Au lieu de recalculer les totaux à chaque affichage, j'aimerais les stocker. Comment tu ferais ?",
        "Plutôt SQLite que Postgres pour ce prototype, ensuite écris le modèle de données.",
        "Le service d'auth, fais-le avec Keycloak plutôt qu'avec du code maison quand tu le monteras.",
        "Utilise Vite au lieu de webpack et monte le projet de zéro.",
        "Un collègue a renommé la table des clients, maintenant l'export plante.",
        # round 13: a rule for something new; "Pas de souci, on ..."; "non pas ... mais" in a request for new work;
        # a plain question whether the agent tested; going back asked about; somebody else's work not useful; "Non,
        # je ne veux pas, ..." answering a proposal
        "Pour la nouvelle API : on ne commite jamais de secrets, toujours dans le vault.",
        "Pas de souci, on teste ça demain.",
        "Écris un rapport non pas par jour mais par mois.",
        "tu as testé sous Windows ?",
        "Si ça casse, on pourra revenir en arrière facilement ?",
        "La doc du fournisseur n'était pas vraiment utile.",
        "Non, je ne veux pas, c'est trop tôt.",
    ],
)
def test_french_hard_negatives(text: str) -> None:
    assert pattern_hit(text) is None
