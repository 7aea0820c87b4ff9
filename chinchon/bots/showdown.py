"""A seat's showdown decision from its observation alone: what leaves its own cards fewest points.

The engine's :meth:`~chinchon.match.Match.best_showdown_action` searches the
whole deal, every hand included; a player cannot. :func:`own_showdown_choice`
searches only the seat's own moves: each legal action, then every sequence of
its own lay-offs onto the melds on the table (its shown melds included),
taking the table as it is now; what the others will still show or add is
hidden, so it counts on nothing from them. Ties keep the engine's order of
the legal actions (the best arrangement first, lay-offs before passing).

>>> from chinchon.actions import Close, Draw
>>> from chinchon.cards import Card, parse_cards
>>> from chinchon.deal import stack_deck
>>> from chinchon.match import Match
>>> from chinchon.rules import Rules
>>> rules = Rules()
>>> closer, ana = parse_cards("K♣ K♦ K♠ 4♥ 5♥ 6♥ A♣"), parse_cards("7♣ 7♦ 7♠ 7♥ J♥ Q♠ A♠")
>>> deck = stack_deck(rules, [closer, ana], discard=Card.parse("3♦"), stock=parse_cards("2♣"))
>>> match = Match(["Ana", "Bot"], rules, 1, first=1, decks=[deck])
>>> match.apply(Draw("stock"), seat=1)
>>> match.apply(Close(Card.parse("2♣"), (tuple(parse_cards("K♣ K♦ K♠")), tuple(parse_cards("4♥ 5♥ 6♥")))), seat=1)
>>> str(own_showdown_choice(match.observation(0)))  # keeps 7♥ to lay it off, then J♥ after it
'show [7♦ 7♠ 7♣]'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from chinchon.actions import Action, LayOff, Show
from chinchon.cards import Card
from chinchon.melds import meld_extensions, normalize_meld
from chinchon.observation import Observation
from chinchon.rules import Rules

__all__ = ["own_showdown_choice", "own_showdown_points"]

_Melds = tuple[tuple[Card, ...], ...]
_MOST_STATES = 20_000
"""How many positions the search may weigh before it stops laying off (a bound the game never nears)."""


def own_showdown_choice(observation: Observation) -> Action:
    """The legal showdown action after which the seat's own moves leave it the fewest loose points."""
    legal = list(observation.legal_actions)
    if len(legal) == 1:
        return legal[0]
    best: tuple[int, Action] | None = None
    for action, points in own_showdown_points(observation):
        if best is None or points < best[0]:
            best = (points, action)
    assert best is not None
    return best[1]


def own_showdown_points(observation: Observation) -> list[tuple[Action, int]]:
    """Each legal showdown action with the fewest loose points the seat's own moves can leave it after it.

    The table is taken as it is now: the others' later melds and additions are not counted on.
    """
    rules = observation.rules
    hand = list(observation.hand)
    table = tuple(meld.cards for meld in observation.table if meld.open)
    search = _Search(rules)
    out: list[tuple[Action, int]] = []
    for action in observation.legal_actions:
        if isinstance(action, Show):
            rest = Counter(hand)
            rest.subtract(card for meld in action.melds for card in meld)
            shown = tuple(normalize_meld(meld, rules) or tuple(meld) for meld in action.melds)
            points = search.least(_cards(rest), table + shown)
        elif isinstance(action, LayOff):
            rest = Counter(hand)
            rest[action.card] -= 1
            points = search.least(_cards(rest), _laid(table, observation, action, rules))
        else:
            points = sum(rules.value(card) for card in hand)
        out.append((action, points))
    return out


def _cards(counts: Counter[Card]) -> tuple[Card, ...]:
    return tuple(sorted(counts.elements()))


def _laid(table: _Melds, observation: Observation, action: LayOff, rules: Rules) -> _Melds:
    """The open melds once ``action`` is played (its index counts every meld, open or not)."""
    target = observation.table[action.meld_index].cards
    extended = meld_extensions(target, rules)[action.card]
    melds = list(table)
    melds[melds.index(target)] = extended
    return tuple(melds)


class _Search:
    """The fewest loose points a hand can reach by laying its cards off onto these melds."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.memo: dict[tuple[tuple[Card, ...], _Melds], int] = {}

    def least(self, cards: tuple[Card, ...], melds: _Melds) -> int:
        key = (cards, melds)
        known = self.memo.get(key)
        if known is not None:
            return known
        best = sum(self.rules.value(card) for card in cards)
        if len(self.memo) < _MOST_STATES:
            for index, meld in enumerate(melds):
                for card, extended in meld_extensions(meld, self.rules).items():
                    if card in cards:
                        best = min(best, self.least(_without(cards, card), _replaced(melds, index, extended)))
        self.memo[key] = best
        return best


def _without(cards: tuple[Card, ...], card: Card) -> tuple[Card, ...]:
    at = cards.index(card)
    return cards[:at] + cards[at + 1 :]


def _replaced(melds: Sequence[tuple[Card, ...]], index: int, meld: tuple[Card, ...]) -> _Melds:
    return (*melds[:index], meld, *melds[index + 1 :])
