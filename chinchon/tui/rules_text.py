"""The rules of a game in words, in the current language: what ``chinchon rules`` prints and the help screen shows.

One paragraph per subject of RULES.md (deck, dealing and turns, melds,
values, closing, lay-offs, scoring, chinchón, limit, re-entry, first
player), each saying what the options of a ``Rules`` value make it.

>>> from chinchon.i18n import set_language
>>> set_language("en")
'en'
>>> paragraphs = rules_paragraphs(Rules())
>>> paragraphs[0].startswith("The deck is the Spanish deck of 40 cards")
True
>>> any("cannot come back" in p for p in paragraphs)
True
>>> rules_paragraphs(Rules(), "es")[0].startswith("Se juega con la baraja española")
True
"""

from __future__ import annotations

from contextvars import ContextVar

from chinchon import i18n
from chinchon.rules import Rules

__all__ = ["rules_paragraphs", "rules_title"]


# The language of the text being made: the current one (None), or one given to rules_paragraphs (the server
# answers many languages at once and never changes the process's current language).
_LANGUAGE: ContextVar[str | None] = ContextVar("rules_text_language", default=None)


def _(message: str) -> str:
    lang = _LANGUAGE.get()
    return i18n.translation(lang).gettext(message) if lang else i18n._(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    lang = _LANGUAGE.get()
    return i18n.translation(lang).ngettext(singular, plural, n) if lang else i18n.ngettext(singular, plural, n)


def rules_title(preset: str, lang: str | None = None) -> str:
    """The heading of the rules of a preset, in a language (by default the current one)."""
    token = _LANGUAGE.set(lang)
    try:
        return _("Rules: {preset}").format(preset=preset)
    finally:
        _LANGUAGE.reset(token)


def rules_paragraphs(rules: Rules, lang: str | None = None) -> list[str]:
    """The rules these options make, as paragraphs of plain text in a language (by default the current one).

    Raises:
        chinchon.i18n.LanguageError: there is no catalog for ``lang``.
    """
    token = _LANGUAGE.set(lang)
    try:
        return _paragraphs(rules)
    finally:
        _LANGUAGE.reset(token)


def _paragraphs(rules: Rules) -> list[str]:
    return [
        _deck(rules),
        _players(rules),
        _turns(rules),
        _melds(rules),
        _values(rules),
        _closing(rules),
        _layoffs(rules),
        _scoring(rules),
        _chinchon(rules),
        _limit(rules),
        _reentry(rules),
        _first_player(rules),
    ]


def _figures(rules: Rules) -> dict[str, str]:
    """The letters of the figures, as the cards on the screen show them: ``jack``, ``queen`` and ``king``."""
    letters = i18n.figure_letters(rules.deck, _LANGUAGE.get())
    return {"jack": letters["J"], "queen": letters["Q"], "king": letters["K"]}


def _join(*sentences: str) -> str:
    return " ".join(sentence for sentence in sentences if sentence)


def _deck(rules: Rules) -> str:
    if rules.deck == "spanish48":
        deck = _(
            "The deck is the Spanish deck of 48 cards: ace, 2 to 9, sota ({jack}), caballo ({queen}) and rey ({king}) "
            "in four suits, coins ♦, cups ♥, swords ♠ and clubs ♣."
        ).format(**_figures(rules))
    elif rules.deck == "french52":
        deck = _("The deck is the French deck of 52 cards: ace, 2 to 10, jack, queen and king in four suits.")
    else:
        deck = _(
            "The deck is the Spanish deck of 40 cards: ace, 2 to 7, sota ({jack}), caballo ({queen}) and rey ({king}) "
            "in four suits, coins ♦, cups ♥, swords ♠ and clubs ♣."
        ).format(**_figures(rules))
    decks = ""
    if rules.decks == 2:
        decks = _("Two decks are shuffled together.")
    elif rules.decks == "auto":
        two = [n for n in range(rules.min_players, rules.max_players + 1) if rules.decks_for(n) == 2]
        if two:
            decks = _("With {players} players or more, two decks are shuffled together.").format(players=two[0])
    wild = ""
    if rules.jokers:
        wild = ngettext(
            "Each deck has {count} joker, a wild card.", "Each deck has {count} jokers, wild cards.", rules.jokers
        ).format(count=rules.jokers)
    if rules.wild_ace_of_oros:
        wild = _join(wild, _("The ace of coins (A♦) is wild."))
    if wild:
        wild = _join(
            wild,
            ngettext(
                "A wild card stands for any one missing card of a meld; "
                "a meld holds at most {count} wild card and at least two natural cards.",
                "A wild card stands for any one missing card of a meld; "
                "a meld holds at most {count} wild cards and at least two natural cards.",
                rules.max_wilds_per_meld,
            ).format(count=rules.max_wilds_per_meld),
        )
    return _join(deck, decks, wild)


def _players(rules: Rules) -> str:
    return _("From {low} to {high} players.").format(low=rules.min_players, high=rules.max_players)


def _turns(rules: Rules) -> str:
    text = _(
        "Each player is dealt {size} cards; the next card is turned face up to start the discard pile "
        "and the rest is the stock. On your turn, take the top card of the stock or of the discard pile, "
        "then discard a card face up, or close."
    ).format(size=rules.hand_size)
    rediscard = _("You may not discard the card you have just taken from the discard pile.")
    refill = _("When the stock runs out, the discard pile but its top card is shuffled into a new stock.")
    void = ""
    if rules.max_reshuffles == 0:
        refill = _("When the stock runs out, the deal is void: nobody scores and the next dealer deals.")
    elif rules.max_reshuffles is not None:
        void = ngettext(
            "The stock is rebuilt at most {count} time in a deal; when it runs out again, the deal is void: "
            "nobody scores and the next dealer deals. A deal that goes round the deck so often is stuck, "
            "and this way every match comes to an end.",
            "The stock is rebuilt at most {count} times in a deal; when it runs out again, the deal is void: "
            "nobody scores and the next dealer deals. A deal that goes round the deck so often is stuck, "
            "and this way every match comes to an end.",
            rules.max_reshuffles,
        ).format(count=rules.max_reshuffles)
    return _join(text, rediscard if rules.forbid_rediscard else "", refill, void)


def _melds(rules: Rules) -> str:
    if rules.set_distinct_suits:
        text = _(
            "Melds are sets, three or four cards of one rank in different suits, and runs, "
            "three or more cards of one suit in a row. The ace is low only: {queen} {king} A is not a run."
        )
    else:
        text = _(
            "Melds are sets, three or more cards of one rank, and runs, "
            "three or more cards of one suit in a row. The ace is low only: {queen} {king} A is not a run."
        )
    text = text.format(**_figures(rules))
    examples = {"spanish40": "6 7 {jack}", "spanish48": "8 9 {jack}"}
    gap = ""
    if rules.deck in examples:
        gap = _("Ranks the deck lacks leave no gap: {example} of one suit is a run.").format(
            example=examples[rules.deck].format(**_figures(rules))
        )
    return _join(text, gap, _("A card belongs to one meld at most. Melds stay in the hand until someone closes."))


def _values(rules: Rules) -> str:
    if rules.values == "figures10":
        text = _(
            "A loose card counts its value: the ace 1, the number cards their number, "
            "{jack}, {queen} and {king} 10 each."
        )
    elif rules.values == "face_number":
        text = _(
            "A loose card counts the number printed on the Spanish card: "
            "the ace 1, the number cards their number, {jack} 10, {queen} 11 and {king} 12."
        )
    else:
        text = _(
            "A loose card counts its value: the ace 1, the number cards their number, "
            "{jack} 8, {queen} 9 and {king} 10."
        )
    text = text.format(**_figures(rules))
    if rules.jokers or rules.wild_ace_of_oros:
        text = _join(text, _("A loose wild card counts {points}.").format(points=rules.wild_value))
    return text


def _closing(rules: Rules) -> str:
    text = _(
        "You may close after drawing: put one card face down on the discard pile and show the other {size} "
        "in melds, with loose cards worth {limit} points at most."
    ).format(size=rules.hand_size, limit=rules.close_limit)
    cards = ""
    if rules.close_max_loose_cards is not None:
        count = rules.close_max_loose_cards
        cards = ngettext(
            "At most {count} card may be left loose.", "At most {count} cards may be left loose.", count
        ).format(count=count)
    first = "" if rules.close_on_first_turn else _("Nobody may close in the first round of turns.")
    return _join(text, cards, first)


def _layoffs(rules: Rules) -> str:
    if not rules.layoffs:
        return _(
            "There are no lay-offs: after a close, the other players show their hands "
            "and count the loose cards of their best arrangement."
        )
    text = _(
        "After a close, the other players in turn show their melds and lay off loose cards on the melds "
        "on the table (a set up to its four suits, a run at either end), round after round until nobody "
        "can add a card."
    )
    clean = (
        "" if rules.layoffs_on_clean_close else _("Nobody lays off on the melds of a closer who matched every card.")
    )
    closer = _("The closer lays off too.") if rules.closer_lays_off else ""
    runs = (
        _("With two decks, a run takes at most one card from each player in each round.")
        if rules.layoff_one_per_run_per_round
        else ""
    )
    passes = ""
    if rules.layoff_passes is not None:
        passes = ngettext(
            "Lay-offs go round the table only {count} time: then the deal is scored.",
            "Lay-offs go round the table only {count} times: then the deal is scored.",
            rules.layoff_passes,
        ).format(count=rules.layoff_passes)
    floats = ""
    if rules.wild_floats and (rules.jokers or rules.wild_ace_of_oros):
        floats = _(
            "A natural card may take the place of the wild card that stands for it in a run on the table; "
            "the wild card then moves to the top end of the run (to the bottom when the run reaches the top)."
        )
        if rules.wild_floats == "anywhere":
            floats = _join(
                floats,
                _(
                    "A wild card at one end of a run on the table may also move to the other end so that a card "
                    "laid off fits: [3♥ 4♥ 🃏] takes A♥, the wild card then standing for 2♥."
                ),
            )
    return _join(text, clean, closer, runs, floats, passes)


def _scoring(rules: Rules) -> str:
    text = _(
        "After each deal, every player adds the value of their loose cards to their total. "
        "Closing with every card matched scores {bonus} instead; totals may go below zero."
    ).format(bonus=rules.clean_close_bonus)
    if rules.score_floor is None:
        return text
    return _join(text, _("No total goes below {floor}.").format(floor=rules.score_floor))


def _chinchon(rules: Rules) -> str:
    text = _chinchon_run(rules)
    if rules.chinchon_sets:
        text = _join(text, _("A set of all {size} cards counts as a chinchón too.").format(size=rules.hand_size))
    return text


def _chinchon_run(rules: Rules) -> str:
    size = rules.hand_size
    if rules.chinchon == "win":
        text = _("A chinchón, a run of all {size} cards in one suit, wins the match at once.").format(size=size)
        if (rules.jokers or rules.wild_ace_of_oros) and rules.chinchon_needs_natural:
            text = _join(text, _("A chinchón may not hold a wild card."))
        return text
    if isinstance(rules.chinchon, int):
        return _("A chinchón, a run of all {size} cards in one suit, scores {points}.").format(
            size=size, points=rules.chinchon
        )
    return _("A chinchón, a run of all {size} cards in one suit, is a close with every card matched.").format(size=size)


def _limit(rules: Rules) -> str:
    if rules.eliminate_at == "reaching":
        text = _("Reaching {limit} points puts a player out.").format(limit=rules.limit)
    else:
        text = _("A total above {limit} puts a player out; exactly {limit} stays in.").format(limit=rules.limit)
    return _join(
        text,
        _("The last player left wins. If all the players still in go out in the same deal, the lowest total wins."),
    )


def _reentry(rules: Rules) -> str:
    if rules.reentry == "once":
        text = _("A player who goes out may re-enter once, with the highest total among the players still in.")
    elif rules.reentry == "unlimited":
        text = _(
            "A player who goes out may re-enter any number of times, with the highest total among the players still in."
        )
    else:
        text = _("A player who goes out cannot come back.")
    stake = ""
    if rules.stake:
        stake = ngettext(
            "Each player puts {stake} chip in the pot at the start and again at each re-entry; "
            "the winner takes the pot.",
            "Each player puts {stake} chips in the pot at the start and again at each re-entry; "
            "the winner takes the pot.",
            rules.stake,
        ).format(stake=rules.stake)
    return _join(text, stake)


def _first_player(rules: Rules) -> str:
    if rules.first_player == "high_card":
        return _("Each player draws a card and the highest starts; after each deal the deal passes on.")
    return _("The first player is drawn by lot; after each deal the deal passes on.")
