"""A deal's deck: a stacked deck order that deals chosen hands (:func:`stack_deck`), and the check of a deck given.

>>> from chinchon.cards import parse_cards
>>> from chinchon.rules import Rules
>>> deck = stack_deck(Rules(), [parse_cards("3♥ 4♥ 5♥"), parse_cards("2♣")], discard=Card.parse("4♣"))
>>> len(deck), [str(card) for card in deck[:4]], str(deck[14])
(40, ['3♥', '2♣', '4♥', '5♦'], '4♣')
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.rules import Rules

__all__ = ["shuffle", "stack_deck"]

_T = TypeVar("_T")


def shuffle(rng: random.Random, items: MutableSequence[_T]) -> None:
    """Shuffle ``items`` in place as ``rng.shuffle(items)`` does: the same order from the same state of ``rng``,
    and the same state after (CPython's Fisher-Yates on ``getrandbits``, written out so that the compiled build
    runs it as native code). A subclass of ``random.Random`` shuffles its own way."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        items[i], items[j] = items[j], items[i]


def stack_deck(
    rules: Rules,
    hands: Sequence[Sequence[Card]],
    discard: Card | None = None,
    stock: Sequence[Card] = (),
    *,
    decks: int | None = None,
) -> list[Card]:
    """A full deck order that deals these hands (the first player's first), this
    face-up card and this stock top; the other cards follow in the rules' order.

    Hands may be partial: their missing cards come from the rest of the deck.

    Raises:
        ValueError: the cards asked for are more than the deck holds.
    """
    players = len(hands)
    if decks is None:
        decks = rules.decks_for(players)
    rest = rules.cards(decks=decks)

    def take(card: Card) -> Card:
        if card not in rest:
            raise ChinchonError(N_("the deck has no more {card} to stack"), card=card)
        rest.remove(card)
        return card

    wanted = [[take(card) for card in hand] for hand in hands]
    top = take(discard) if discard is not None else None
    stock_top = [take(card) for card in stock]
    size = rules.hand_size
    for hand in wanted:
        if len(hand) > size:
            raise ChinchonError(N_("a hand holds {count} cards; the rules deal {size}"), count=len(hand), size=size)
    filler = iter([card for card in rest if card not in stock_top])
    rest_cards = list(rest)
    for hand in wanted:
        while len(hand) < size:
            card = next(filler)
            rest_cards.remove(card)
            hand.append(card)
    deck = [wanted[i % players][i // players] for i in range(size * players)]
    if top is None:
        top = rest_cards.pop(0)
    return [*deck, top, *stock_top, *rest_cards]


def _check_deck(deck: list[Card], cards: list[Card], rules: Rules) -> None:
    # Cards are interned: the same objects, as many times each, are the same cards (the common case, checked fast).
    if len(deck) == len(cards) and sorted(map(id, deck)) == sorted(map(id, cards)):
        return
    have, want = Counter(deck), Counter(cards)
    for card, count in have.items():
        if not isinstance(card, Card):
            raise ChinchonError(N_("the deck holds something that is not a card: {text}"), text=repr(card))
        if count > want.get(card, 0):
            if not want.get(card):
                raise ChinchonError(
                    N_("the deck holds {card}, which the {deck} deck does not have"), card=card, deck=rules.deck
                )
            raise ChinchonError(
                N_("the deck holds {card} {count} times; the game has {expected}"),
                card=card,
                count=count,
                expected=want[card],
            )
    for card, count in want.items():
        if have.get(card, 0) < count:
            raise ChinchonError(N_("the deck is missing {card}"), card=card)
