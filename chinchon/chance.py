"""Where a match's chance comes from: a seeded random source, or given deck orders.

A :class:`~chinchon.match.Match` asks its ``Chance`` for each deal's deck
order, each reshuffle of the stock, and the draw for the first player. The
record's replay hands out recorded outcomes instead (a subclass).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from chinchon.cards import Card
from chinchon.deal.deck import shuffle

__all__ = ["Chance"]


class Chance:
    """Where a match's chance comes from: a seeded random source, or given deck orders."""

    def __init__(self, rng: random.Random, decks: Iterable[Sequence[Card]] | None) -> None:
        self.rng = rng
        self.decks = iter(decks) if decks is not None else None

    def deck(self, cards: list[Card]) -> list[Card]:
        """The next deal's deck order: the next given order, else ``cards`` shuffled."""
        if self.decks is not None:
            deck = next(self.decks, None)
            if deck is not None:
                return list(deck)
            self.decks = None
        order = list(cards)
        shuffle(self.rng, order)
        return order

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        """The new stock, top first, made of these discards."""
        order = list(cards)
        shuffle(self.rng, order)
        return order

    def lot(self, seats: list[int]) -> int:
        """The seat drawn by lot to play first."""
        return seats[self.rng.randrange(len(seats))]

    def high_card(self, cards: list[Card]) -> list[Card]:
        """The cards in the order the seats draw them for the high card."""
        order = list(cards)
        shuffle(self.rng, order)
        return order
