"""The yardstick bots: ``random`` and ``simple``.

``simple`` is the Chinchón version of the "simple player" of the EAAI gin
rummy challenge and never changes once written: it takes the discard only if
the card joins a meld of its best arrangement, otherwise draws from the
stock; throws the loose card of highest value; closes as soon as it may.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from chinchon.actions import Action, Close, Discard, Draw, LayOff, Pass, ReEnter, Show
from chinchon.bots.base import Bot, number, register
from chinchon.cards import Card
from chinchon.melds import best_arrangement
from chinchon.observation import Observation
from chinchon.rules import Rules

__all__ = ["RandomBot", "SimpleBot", "joins_meld"]


def joins_meld(hand: Sequence[Card], card: Card, rules: Rules) -> bool:
    """Whether ``card``, added to ``hand``, is in a meld of the best arrangement.

    With two decks the hand may hold a copy of the card already: the card
    joins a meld only if one more copy is melded than before.
    """

    def melded(cards: list[Card]) -> int:
        return sum(meld.count(card) for meld in best_arrangement(cards, rules).melds)

    return melded([*hand, card]) > (melded(list(hand)) if card in hand else 0)


@register("random")
class RandomBot(Bot):
    """A uniformly random legal action."""

    name = "random"

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        return rng.choice(list(legal_actions))


@register("simple")
class SimpleBot(Bot):
    """The fixed yardstick; ``noise`` is the chance of a random legal action instead (0 by default)."""

    name = "simple"

    def __init__(self, noise: float = 0.0) -> None:
        self.noise = number("noise", noise, 0, 1)

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        legal = list(legal_actions)
        if self.noise and rng.random() < self.noise:
            return rng.choice(legal)
        closes = [a for a in legal if isinstance(a, Close)]
        if closes:
            return closes[0]
        rules = observation.rules
        if any(isinstance(a, Draw) for a in legal):
            top = observation.top_discard
            if top is not None and Draw("discard") in legal and joins_meld(observation.hand, top, rules):
                return Draw("discard")
            return Draw("stock") if Draw("stock") in legal else legal[0]
        discards = [a for a in legal if isinstance(a, Discard)]
        if discards:
            arrangement = best_arrangement(observation.hand, rules)
            loose = [a for a in discards if a.card in arrangement.loose]
            pool = loose or discards
            return max(pool, key=lambda a: (rules.value(a.card), a.card))
        shows = [a for a in legal if isinstance(a, Show)]
        if shows:
            return shows[0]
        layoffs = [a for a in legal if isinstance(a, LayOff)]
        if layoffs:
            return max(layoffs, key=lambda a: rules.value(a.card))
        if ReEnter(True) in legal:
            return ReEnter(True)
        return Pass() if Pass() in legal else legal[0]
