"""Which languages' correction patterns to try on a prompt, likeliest first.

    def languages(text: str) -> tuple[str, ...]   # text case-folded; e.g. ("es", "pt")

The script decides for zh (Han), ja (kana) and ru (Cyrillic); for Latin script, function words and
accents score en, es, de, fr and pt.  Every language within reach of the best one is tried (of all
five for a short prompt without any function word), so "No, es un repo privado" never meets the
English "No," pattern, and a short prompt of an unclear language still meets its own.  Standard
library only, no regex: it runs on every prompt.
"""

from __future__ import annotations


# Function words (case-folded), per language; a word several languages share ("no", "que",
# "de") is in each of their sets.  Frozenset literals: built at import without a Python loop.
_FUNCTION_WORDS: tuple[tuple[str, frozenset[str]], ...] = (
    ("en", frozenset({
        'the', 'you', 'your', "you're", "it's", "that's", 'this', 'that', 'is', 'are', 'was', 'were', 'and',
        'to', 'of', 'it', 'i', "i'm", "i've", "don't", "didn't", "doesn't", "isn't", 'not', 'with', 'for',
        'what', 'why', 'we', 'our', 'should', 'please', 'have', 'did', 'do', 'just', 'can', 'from', 'be',
        'will', 'would', 'there', 'here', 'again', 'already', 'said', 'told', 'also', 'only', 'never',
        'instead', 'they', 'my', 'me', 'an', 'on', 'at', 'if', 'so', 'but', 'or', 'use', 'wrong', "we're", "can't", "won't", "wasn't", 'no', 'a', 'thanks', 'thank', 'nothing', 'else', 'yes', 'yeah',
        'ok', 'okay', 'sure', 'all', 'any', 'some', 'more', 'now', 'then', 'still', 'yet', 'one', 'up', 'out',
        'get', 'got', 'need', 'want', 'like', 'could', 'must', 'its', "let's", 'sorry', 'nope', 'nah', 'yep',
        'by', 'as', 'how', 'when', 'which', 'who', 'into', 'than', 'them', 'their', 'these', 'those', 'been',
    })),
    ("es", frozenset({
        'el', 'los', 'las', 'es', 'está', 'esta', 'están', 'eso', 'esto', 'ya', 'te', 'lo', 'se', 'por',
        'para', 'con', 'una', 'un', 'del', 'pero', 'como', 'más', 'muy', 'hay', 'aquí', 'aqui', 'también',
        'dije', 'usa', 'usar', 'usamos', 'hace', 'falta', 'porque', 'qué', 'cuándo', 'desde', 'sin', 'sí',
        'tú', 'mi', 'nos', 'nosotros', 'nunca', 'siempre', 'solo', 'sólo', 'todo', 'otra', 'vez',
        'cambiaste', 'estoy', 'eres', 'quería', 'quiero', 'puedes', 'sigue', 'vale', 'deja', 'sale', 'hemos',
        'has', 'he', 'ha', 'haz', 'añade', 'quita', 'pon', 'vuelve', 'no', 'que', 'de', 'a', 'la', 'me', 'y',
        'tu',
        'gracias', 'favor', 'oye', 'pues', 'bueno', 'nada', 'algo', 'mucho', 'hacer', 'tengo', 'tienes', 'puede',
    })),
    ("pt", frozenset({
        'o', 'os', 'um', 'uma', 'é', 'não', 'nao', 'você', 'voce', 'isso', 'isto', 'já', 'eu', 'em', 'na',
        'nos', 'do', 'da', 'dos', 'das', 'com', 'pra', 'pro', 'mas', 'tá', 'ta', 'aqui', 'porque', 'também',
        'tambem', 'falei', 'disse', 'tem', 'foi', 'seu', 'sua', 'meu', 'minha', 'gente', 'só', 'tudo', 'vc',
        'né', 'então', 'agora', 'ainda', 'depois', 'quando', 'onde', 'pode', 'faz', 'fazer', 'usa', 'usar',
        'mais', 'muito', 'ficou', 'errado', 'certo', 'pelo', 'pela', 'ao', 'está', 'deixa', 'coloca', 'tira',
        'volta', 'no', 'que', 'de', 'a', 'se', 'me', 'ja', 'tu',
        'e', 'aos', 'num', 'numa', 'pros', 'pras', 'seus', 'suas', 'esse', 'essa', 'nós', 'valeu', 'obrigado',
        'obrigada', 'beleza', 'sim', 'favor', 'por',
    })),
    ("fr", frozenset({
        'le', 'les', 'des', 'du', 'un', 'une', 'est', 'pas', 'ne', 'je', 'tu', 'il', 'elle', 'nous', 'vous',
        'on', "c'est", 'ce', 'ça', 'ca', 'qui', 'et', 'en', 'pour', 'avec', 'dans', 'sur', 'mais', 'ou',
        'où', "j'ai", "t'as", "n'est", 'déjà', 'deja', 'dit', 'fait', 'faut', 'très', 'plus', 'bien',
        'aussi', 'alors', 'donc', 'comme', 'tout', 'rien', 'jamais', 'toujours', 'utilise', 'moi', 'toi',
        'mon', 'ton', 'ma', 'ta', 'mes', 'tes', 'au', 'aux', 'y', 'ai', 'as', 'été', 'était', 'suis', 'sont',
        'peux', 'veux', "l'ai", "n'ai", "d'un", "qu'il", 'que', 'de', 'a', 'la', 'me',
        'merci', 'oui', 'voilà', 'voila', 'vas-y', 'ok',
    })),
    ("de", frozenset({
        'der', 'die', 'das', 'und', 'ist', 'nicht', 'ich', 'du', 'wir', 'ein', 'eine', 'einen', 'zu', 'mit',
        'auf', 'für', 'fur', 'sie', 'bitte', 'den', 'dem', 'doch', 'schon', 'habe', 'hab', 'hast', 'hat',
        'kein', 'keine', 'warum', 'wieso', 'aber', 'noch', 'auch', 'nur', 'immer', 'nie', 'niemals', 'wie',
        'was', 'wer', 'wo', 'dass', 'dann', 'jetzt', 'mal', 'bei', 'uns', 'mir', 'dir', 'dich', 'mich',
        'sind', 'war', 'wird', 'soll', 'sollte', 'muss', 'kann', 'nein', 'nee', 'gesagt', 'falsch',
        'richtig', 'nochmal', 'da', 'hier', 'von', 'vom', 'zum', 'zur', 'im', 'am', 'um', 'oder', 'sondern',
        'statt', 'gibt', 'geht', 'weil', 'es', 'so', 'ja',
        'danke', 'alles', 'nichts', 'etwas',
    })),
)
# Letters that only some of the Latin languages write.
_LETTERS = {"ñ": "es", "¿": "es", "¡": "es", "ã": "pt", "õ": "pt", "ê": "pt fr", "â": "pt fr", "ô": "pt fr",
            "ç": "pt fr", "è": "fr", "à": "fr pt", "ù": "fr", "î": "fr", "û": "fr", "ë": "fr", "ï": "fr",
            "œ": "fr", "ä": "de", "ö": "de", "ü": "de", "í": "es pt", "ó": "es pt", "ú": "es pt", "á": "es pt"}
LATIN = ("en", "es", "pt", "fr", "de")  # what a short prompt no function word decides is tried in
PUNCTUATION = str.maketrans({c: " " for c in ",.;:!?¿¡()[]{}\"`*<>/=|\\#@~^&+$%"})
SHORT = 160  # below this, a prompt without a clear language is tried in every Latin language


def languages(text: str) -> tuple[str, ...]:
    """The languages whose patterns to try, likeliest first (``text`` is case-folded)."""
    if not text.isascii():
        kana = han = cyrillic = 0
        for char in set(text):
            code = ord(char)
            if 0x3040 <= code <= 0x30FF:
                kana += 1
            elif 0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF:
                han += 1
            elif 0x0400 <= code <= 0x04FF:
                cyrillic += 1
        if kana >= 2:
            return ("ja",)
        if han >= 2:
            return ("zh",)
        if cyrillic >= 3:
            return ("ru",)
    scores = dict.fromkeys(LATIN, 0)
    for word in text[:600].translate(PUNCTUATION).split():
        for lang, vocabulary in _FUNCTION_WORDS:
            if word in vocabulary:
                scores[lang] += 1
    if not text.isascii():
        for char in set(text) & _LETTERS.keys():
            for lang in _LETTERS[char].split():
                scores[lang] += 2
    best = max(scores.values())
    if best == 0:
        return LATIN if len(text) < SHORT else ("en",)
    # Every language within reach of the best one, likeliest first ("en" wins a tie).
    floor = best - 1 if len(text) < SHORT else best * 0.75
    close = [lang for lang in LATIN if scores[lang] >= floor and scores[lang] > 0]
    return tuple(sorted(close, key=lambda lang: -scores[lang]))
