"""The player's language: translated messages, card names and right-to-left text.

Messages are gettext messages of the ``chinchon`` domain; the catalogs ship in
``chinchon/locale`` for English, Spanish, Portuguese, French, Polish and
Arabic. One language is current at a time, for the whole process, as for a
terminal program; :func:`translation` gives any language's catalog without
changing the current one.

>>> set_language("es")
'es'
>>> suit_name(Suit.BASTOS), card_name(Card.parse("J♥"))
('bastos', 'sota de copas')
>>> card_name(Card.parse("Q♠"), deck="french52")
'reina de picas'
>>> set_language("en")
'en'
>>> card_name(Card.parse("7♦"))
'7 of coins'
"""

from __future__ import annotations

import gettext
import os
import re
from pathlib import Path

from bidi import get_display

from chinchon.cards import Card, Rank, Suit
from chinchon.errors import N_, ChinchonError

__all__ = [
    "DOMAIN",
    "LANGUAGES",
    "LOCALE_DIR",
    "LanguageError",
    "_",
    "cannot_close_reason",
    "canonical_letters",
    "card_letters",
    "card_name",
    "figure_letters",
    "for_terminal",
    "get_language",
    "is_rtl",
    "language_from_environment",
    "ngettext",
    "pgettext",
    "rank_name",
    "set_language",
    "suit_name",
    "translate_error",
    "translation",
]

DOMAIN = "chinchon"
"""The gettext domain of the catalogs."""

LANGUAGES: tuple[str, ...] = ("en", "es", "pt", "fr", "pl", "ar")
"""The languages with a catalog, English (the language of the source) first."""

RTL_LANGUAGES = frozenset({"ar"})
"""The languages written right to left."""

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
"""The folder of the catalogs: ``<language>/LC_MESSAGES/chinchon.mo``."""

# The environment variables gettext reads, in its order of precedence.
_ENVIRONMENT = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


class LanguageError(ChinchonError):
    """A language without a catalog."""


_catalogs: dict[str, gettext.NullTranslations] = {}
_language = "en"


def translation(lang: str) -> gettext.NullTranslations:
    """The catalog of a language, as :func:`set_language` accepts it.

    Raises:
        LanguageError: there is no catalog for the language.
    """
    code = _normalize(lang)
    if code is None:
        raise LanguageError(
            N_("unknown language {value}; known languages: {known}"), value=repr(lang), known=", ".join(LANGUAGES)
        )
    if code not in _catalogs:
        with open(LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo", "rb") as mo:
            _catalogs[code] = gettext.GNUTranslations(mo)
    return _catalogs[code]


def _normalize(lang: str) -> str | None:
    """The catalog's code for a language or locale name (``es_ES.UTF-8`` → ``es``), if there is one."""
    code = lang.strip().split(".")[0].split("@")[0].replace("-", "_").lower()
    for candidate in (code, code.split("_")[0]):
        if candidate in LANGUAGES:
            return candidate
    return None


def language_from_environment() -> str:
    """The language the environment asks for (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``, ``LANG``), else English.

    Languages without a catalog are skipped, as gettext does.
    """
    for variable in _ENVIRONMENT:
        value = os.environ.get(variable, "")
        if not value:
            continue
        for name in value.split(":"):
            code = _normalize(name) if name else None
            if code is not None:
                return code
        if variable != "LANGUAGE":
            # gettext stops at the first of LC_ALL, LC_MESSAGES and LANG that is set.
            break
    return "en"


def set_language(lang: str | None) -> str:
    """Make a language current and return its code; ``None`` takes it from the environment.

    Accepts a code (``es``) or a locale name (``pt_BR``, ``fr_FR.UTF-8``).

    Raises:
        LanguageError: there is no catalog for the language.
    """
    global _language
    code = language_from_environment() if lang is None else _normalize(lang)
    if code is None:
        raise LanguageError(
            N_("unknown language {value}; known languages: {known}"), value=repr(lang), known=", ".join(LANGUAGES)
        )
    translation(code)
    _language = code
    return code


def get_language() -> str:
    """The code of the current language."""
    return _language


def _(message: str) -> str:
    """The message in the current language."""
    return translation(_language).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural message, as the current language says for ``n``."""
    return translation(_language).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """The message in the current language, in a context that tells same words apart."""
    return translation(_language).pgettext(context, message)


def translate_error(exc: ChinchonError) -> str:
    """The error's message in the current language.

    Falls back to the English message if a translation does not fit the error's parameters.
    """
    try:
        return _(exc.template).format(**exc.params)
    except (KeyError, IndexError, ValueError):
        return str(exc)


# -- card names ----------------------------------------------------------------------


def cannot_close_reason(close_limit: int, close_max_loose_cards: int | None) -> str:
    """Why a hand holding the card just drawn cannot close, in the current language."""
    if close_max_loose_cards is None:
        reason = _("This hand cannot close: every discard leaves more than {limit} points loose.")
    else:
        reason = ngettext(
            "This hand cannot close: every discard leaves more than {limit} points or more than {cards} card loose.",
            "This hand cannot close: every discard leaves more than {limit} points or more than {cards} cards loose.",
            close_max_loose_cards,
        )
    return reason.format(limit=close_limit, cards=close_max_loose_cards)


def suit_name(suit: Suit, deck: str = "spanish40") -> str:
    """The name of a suit in the current language: the Spanish suits, or the French ones with ``french52``."""
    if deck == "french52":
        names = {
            Suit.OROS: pgettext("French deck", "diamonds"),
            Suit.COPAS: pgettext("French deck", "hearts"),
            Suit.ESPADAS: pgettext("French deck", "spades"),
            Suit.BASTOS: pgettext("French deck", "clubs"),
        }
    else:
        names = {
            Suit.OROS: pgettext("Spanish deck", "coins"),
            Suit.COPAS: pgettext("Spanish deck", "cups"),
            Suit.ESPADAS: pgettext("Spanish deck", "swords"),
            Suit.BASTOS: pgettext("Spanish deck", "clubs"),
        }
    return names[suit]


def rank_name(rank: Rank, deck: str = "spanish40") -> str:
    """The name of a rank in the current language: a word for the ace and the figures, else the number.

    On Spanish decks J, Q and K are the sota, the caballo and the rey.
    """
    if deck == "french52":
        figures = {
            Rank.ACE: pgettext("French deck", "ace"),
            Rank.JACK: pgettext("French deck", "jack"),
            Rank.QUEEN: pgettext("French deck", "queen"),
            Rank.KING: pgettext("French deck", "king"),
        }
    else:
        figures = {
            Rank.ACE: pgettext("Spanish deck", "ace"),
            Rank.JACK: pgettext("Spanish deck", "jack"),
            Rank.QUEEN: pgettext("Spanish deck", "knight"),
            Rank.KING: pgettext("Spanish deck", "king"),
        }
    return figures.get(rank, str(int(rank)))


def card_name(card: Card, deck: str = "spanish40") -> str:
    """The name of a card in the current language: ``sota de copas``, ``7 of coins``, ``joker``."""
    if card.rank is None or card.suit is None:
        return pgettext("card", "joker")
    # One pattern per suit, so that each language can inflect the suit or elide.
    if deck == "french52":
        patterns = {
            Suit.OROS: pgettext("French deck", "{rank} of diamonds"),
            Suit.COPAS: pgettext("French deck", "{rank} of hearts"),
            Suit.ESPADAS: pgettext("French deck", "{rank} of spades"),
            Suit.BASTOS: pgettext("French deck", "{rank} of clubs"),
        }
    else:
        patterns = {
            Suit.OROS: pgettext("Spanish deck", "{rank} of coins"),
            Suit.COPAS: pgettext("Spanish deck", "{rank} of cups"),
            Suit.ESPADAS: pgettext("Spanish deck", "{rank} of swords"),
            Suit.BASTOS: pgettext("Spanish deck", "{rank} of clubs"),
        }
    return patterns[card.suit].format(rank=rank_name(card.rank, deck))


_FIGURE = re.compile(r"(?<![\w])([JQK])(?=[♦♥♠♣])")


def figure_letters(deck: str = "spanish40", lang: str | None = None) -> dict[str, str]:
    """The letters a language (by default the current one) writes the figures with, by their letter in the
    notation (``J Q K``).

    On Spanish decks they are the sota's, the caballo's and the rey's (``S C R`` in Spanish); the
    French deck keeps ``J Q K`` in every language.
    """
    if deck == "french52":
        return {"J": "J", "Q": "Q", "K": "K"}
    if lang is not None:
        catalog = translation(lang)
        return {letter: catalog.pgettext("Spanish deck card letter", letter) for letter in "JQK"}
    return {
        "J": pgettext("Spanish deck card letter", "J"),
        "Q": pgettext("Spanish deck card letter", "Q"),
        "K": pgettext("Spanish deck card letter", "K"),
    }


def card_letters(text: str, deck: str = "spanish40") -> str:
    """Text with the figures of its cards in the current language's letters (``S♥`` for ``J♥`` in Spanish).

    The one notation every text for people uses; JSON and records keep the canonical ``J♥``.
    """
    letters = figure_letters(deck)
    if all(key == value for key, value in letters.items()):
        return text
    return _FIGURE.sub(lambda match: letters[match.group(1)], text)


def canonical_letters(text: str, deck: str = "spanish40") -> str:
    """Cards written with the current language's figure letters (``S♥``, ``Sh``) in the canonical notation (``J♥``).

    A figure letter is read as one only directly before a suit, as :func:`card_letters` writes it.
    """
    letters = {local.lower(): key for key, local in figure_letters(deck).items() if local != key}
    if not letters:
        return text
    figure = re.compile(f"(?<![\\w])([{''.join(letters)}])(?=[♦♥♠♣]|[dhsc](?![\\w]))", re.IGNORECASE)
    return figure.sub(lambda match: letters[match.group(1).lower()], text)


# -- right-to-left text --------------------------------------------------------------


def is_rtl(lang: str | None = None) -> bool:
    """Whether a language (by default the current one) is written right to left."""
    code = _language if lang is None else _normalize(lang)
    return code in RTL_LANGUAGES


_CARD = r"(?:10|[2-9A-Z])[♦♥♠♣]|🃏"
_CARD_TOKEN = rf"\[?(?:{_CARD})\]?"
# A run of cards (a hand, melds in brackets) reads left to right in any language.
_RTL_LETTER = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]")
_CARD_RUN = re.compile(rf"{_CARD_TOKEN}(?: +{_CARD_TOKEN})*")
# So does a path or an address (/tmp/x.json, C:\\x.json, tcp://host:8786): a word with a slash and no
# right-to-left letter, less the punctuation around it.
_WORD = re.compile(r"\S+")
_OPENING = "([{«\"'"
_CLOSING = ":.,;!?)]}»\"'\u060c\u061b\u061f"
_LRI, _PDI = "\u2066", "\u2069"
_MIRRORED = {"(": ")", ")": "(", "[": "]", "]": "[", "{": "}", "}": "{", "«": "»", "»": "«"}
_OPENERS = "([{«"


def for_terminal(text: str, lang: str | None = None) -> str:
    """Text laid out for a terminal that shows characters left to right.

    For a right-to-left language (by default the current one), each line is
    put in visual order by the Unicode bidirectional algorithm, with runs of
    cards, file paths and addresses kept left to right; other languages'
    text is returned unchanged.
    """
    if not is_rtl(lang):
        return text
    return "\n".join(_visual_line(line) for line in text.split("\n"))


# Runs of left-to-right words (Latin letters and digits, with what is attached to them): isolated, each keeps its
# own order. Left to the algorithm, the dashes of "--resume" or the dots of "c…" at a run's edges would take the
# direction of the Arabic around them and move to the run's other side ("resume--").
_RTL_CHARS = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"
_ISOLATED = re.compile("\u2066[^\u2066\u2069]*\u2069")
_TOKENS = re.compile(f"[^\\s\u2066-\u2069{_RTL_CHARS}]+(?: +[^\\s\u2066-\u2069{_RTL_CHARS}]+)*")
_LTR_WORD = re.compile("[^ ]*[A-Za-z][^ ]*")
_LTR_TOKEN = re.compile("[^ ]*[A-Za-z0-9][^ ]*")
_PAIRS = {")": "(", "]": "[", "}": "{", "»": "«"}


def _unpaired(words: str) -> int | None:
    """The place of the first bracket of ``words`` that is not closed or opened inside it, if any."""
    openers: list[int] = []
    for i, char in enumerate(words):
        if char in _OPENERS:
            openers.append(i)
        elif char in _PAIRS:
            if not openers or words[openers[-1]] != _PAIRS[char]:
                return i
            openers.pop()
    return openers[0] if openers else None


def _isolated_words(words: str) -> str:
    """Words with no right-to-left letter, their left-to-right part isolated (brackets unpaired there stay out)."""
    split = _unpaired(words)
    if split is not None:
        return _isolated_words(words[:split]) + words[split] + _isolated_words(words[split + 1 :])
    start, end = 0, len(words)
    # Spaces, closing punctuation and an unpaired quote at its edges belong to the sentence.
    while end > start and (
        words[end - 1].isspace()
        or (words[end - 1] in _CLOSING and words[end - 1] not in _PAIRS and words[end - 1] not in "\"'")
        or (words[end - 1] in "\"'" and words.count(words[end - 1], start, end) % 2 == 1)
    ):
        end -= 1
    while start < end and (
        words[start].isspace() or (words[start] in "\"'" and words.count(words[start], start, end) % 2 == 1)
    ):
        start += 1
    # From the first word with a Latin letter (a run of numbers alone is left to the algorithm) to the last
    # word with a letter or a digit.
    first = _LTR_WORD.search(words, start, end)
    if first is None:
        return words
    last = [word for word in _LTR_TOKEN.finditer(words, first.start(), end)][-1]
    start, end = first.start(), last.end()
    while end > start and words[end - 1] in _CLOSING and words[end - 1] not in _PAIRS and words[end - 1] not in "\"'":
        end -= 1
    return words[:start] + _LRI + words[start:end] + _PDI + words[end:]


def _isolate_runs(text: str) -> str:
    """``text`` with every left-to-right run outside the runs isolated already put between LRI and PDI."""
    out = []
    last = 0
    for isolated in _ISOLATED.finditer(text):
        out.append(_TOKENS.sub(lambda words: _isolated_words(words.group(0)), text[last : isolated.start()]))
        out.append(isolated.group(0))
        last = isolated.end()
    out.append(_TOKENS.sub(lambda words: _isolated_words(words.group(0)), text[last:]))
    return "".join(out)


def _visual_line(line: str) -> str:
    if not _RTL_LETTER.search(line):
        return line
    isolated = _CARD_RUN.sub(lambda match: _LRI + match.group(0) + _PDI, line)
    isolated = _WORD.sub(_isolated_path, isolated)
    isolated = _isolate_runs(isolated)
    # The paragraph is right to left even when it opens with a Latin name or a card.
    visual = str(get_display(isolated, base_dir="R")).replace(_LRI, "").replace(_PDI, "")
    return _mirror_reversed_pairs(visual)


def _isolated_path(match: re.Match[str]) -> str:
    word = match.group(0)
    end = len(word.rstrip(_CLOSING))
    start = len(word) - len(word.lstrip(_OPENING))
    core = word[start:end]
    if ("/" not in core and "\\" not in core) or _RTL_LETTER.search(core):
        return word
    return word[:start] + _LRI + core + _PDI + word[end:]


def _mirror_reversed_pairs(text: str) -> str:
    """Swap the glyphs of bracket pairs that reordering left closing-first, as ``)x(``."""
    chars = list(text)
    stack: list[int] = []
    for i, char in enumerate(chars):
        if char not in _MIRRORED:
            continue
        if stack:
            top = chars[stack[-1]]
            if _MIRRORED[top] == char:
                if top not in _OPENERS:
                    chars[stack[-1]], chars[i] = char, top
                stack.pop()
                continue
        stack.append(i)
    return "".join(chars)
