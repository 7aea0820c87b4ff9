"""The ``human`` bot: plays as a person does, with the habits that make a weaker player.

Each knob is one habit a person learning the game has, and all of them at
their defaults play exactly as ``greedy`` does (``plan``) or as ``simple``
does (``plan=false``): the levels below the top of
:data:`chinchon.bots.levels.LADDER` are this bot with some habits on.

- ``pile=P`` overlooks the discard pile: it looks at the pile's top card on
  a turn with the chance ``P`` (0: never, it always draws from the stock),
  and takes it as the bot it plays as would.
- ``high=P`` keeps high cards: on a turn, with the chance ``P``, it throws
  the loose card with the fewest partners in its hand (:func:`partners`),
  whatever its points, and of those the lowest.
- ``plan=false`` does not think a draw ahead: it throws its dearest loose
  card, as ``simple`` does, and closes as soon as it may; with ``plan`` it
  chooses its discard and when to close as ``greedy`` does.
- ``close=N`` closes late: only with ``N`` loose points or fewer (0: only a
  close with every card matched), never with more even when the rules allow
  it (by default, with whatever the rules allow).
- ``layoffs=P`` misses lay-offs: it sees each lay-off it could make with the
  chance ``P`` (0: never lays off), and passes when it does not.
- ``memory=N`` forgets what was discarded: of the cards under the top of the
  discard pile it remembers the last ``N`` thrown and counts the others as
  cards still to come when it weighs its draws (``plan``) or the partners of
  its cards (``high``); by default it remembers them all.

The chances come from the ``rng`` the bot is given, so a level plays the
same for a seed. Its showdown and re-entry are those of the bot it plays
as (``greedy`` or ``simple``).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence

from chinchon.actions import Action, Close, Discard, Draw, LayOff, Pass
from chinchon.bots.base import Bot, flag, number, register, whole
from chinchon.bots.greedy import GreedyBot, unseen_cards
from chinchon.bots.simple import SimpleBot
from chinchon.cards import Card
from chinchon.melds import best_arrangement
from chinchon.observation import Observation
from chinchon.rules import Rules

__all__ = ["UNLIMITED", "HumanBot", "loose_points_after", "partners", "remembered_unseen"]

UNLIMITED = 1_000
"""The default of ``close`` and ``memory``: more loose points than a close allows, more cards than a pile holds."""


def partners(card: Card, hand: Sequence[Card], rules: Rules, unseen: Counter[Card]) -> int:
    """How many cards of ``hand`` could still make a meld of three with ``card``.

    A partner is a card of its rank in another suit, or of its suit within
    two ranks, whose third card (any of the rank's other suits; the card
    that extends or fills the run) is in ``unseen`` or in the hand.
    """
    if card.rank is None or card.suit is None or card.rank not in rules.ranks or rules.is_wild(card):
        return 0
    ranks = rules.ranks
    position = ranks.index(card.rank)
    held = Counter(hand)
    held[card] -= 1
    count = 0
    for other in hand:
        if other == card or other.rank is None or other.suit is None or rules.is_wild(other):
            continue
        if other.rank == card.rank and other.suit != card.suit:
            thirds = [Card(card.rank, s) for s in type(card.suit) if s not in (card.suit, other.suit)]
        elif other.suit == card.suit and other.rank in ranks and 0 < abs(ranks.index(other.rank) - position) <= 2:
            low, high = sorted((position, ranks.index(other.rank)))
            spots = [low + 1] if high - low == 2 else [low - 1, high + 1]
            thirds = [Card(ranks[p], card.suit) for p in spots if 0 <= p < len(ranks)]
        else:
            continue
        if any(unseen[c] or (held[c] and c != other) for c in thirds):
            count += 1
    return count


def remembered_unseen(observation: Observation, memory: int) -> Counter[Card]:
    """The cards a seat that remembers only the last ``memory`` discards under the pile's top takes as unseen.

    The top of the discard pile is always in view; the cards below it that
    were thrown longer ago are forgotten, and so counted with the cards in
    the stock and the other hands.
    """
    unseen = unseen_cards(observation)
    buried = observation.discard_pile[:-1]
    if memory < len(buried):
        unseen.update(buried[: len(buried) - memory])
    return unseen


def loose_points_after(hand: Sequence[Card], close: Close, rules: Rules) -> int:
    """The loose points a close leaves in the closer's hand (``close.melds`` None: the best arrangement)."""
    rest = list(hand)
    rest.remove(close.discard)
    if close.melds is None:
        return best_arrangement(rest, rules).points
    for meld in close.melds:
        for card in meld:
            rest.remove(card)
    return sum(rules.value(c) for c in rest)


@register("human")
class HumanBot(Bot):
    """A player with a person's habits, one knob each: see the module's description."""

    name = "human"

    def __init__(
        self,
        pile: float = 1.0,
        high: float = 0.0,
        plan: bool = True,
        close: int = UNLIMITED,
        layoffs: float = 1.0,
        memory: int = UNLIMITED,
    ) -> None:
        self.pile = number("pile", pile, 0, 1)
        self.high = number("high", high, 0, 1)
        self.plan = flag("plan", plan)
        self.close = whole("close", close, 0)
        self.layoffs = number("layoffs", layoffs, 0, 1)
        self.memory = whole("memory", memory, 0)
        self._base: GreedyBot | SimpleBot = GreedyBot() if self.plan else SimpleBot()

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        legal = list(legal_actions)
        if len(legal) == 1:
            return legal[0]
        if any(isinstance(a, Draw) for a in legal):
            if self.pile < 1 and Draw("stock") in legal and rng.random() >= self.pile:
                return Draw("stock")
            return self._base.choose(observation, legal, rng)
        if any(isinstance(a, Discard | Close) for a in legal):
            return self._discard_or_close(observation, legal, rng)
        if (
            self.layoffs < 1
            and any(isinstance(a, LayOff) for a in legal)
            and Pass() in legal
            and rng.random() >= self.layoffs
        ):
            return Pass()
        return self._base.choose(observation, legal, rng)

    def _discard_or_close(self, observation: Observation, legal: list[Action], rng: random.Random) -> Action:
        rules = observation.rules
        hand = observation.hand
        closes = [a for a in legal if isinstance(a, Close)]
        allowed = [a for a in closes if loose_points_after(hand, a, rules) <= self.close]
        discards = [a for a in legal if isinstance(a, Discard)]
        if not allowed and not discards:
            allowed = closes
        keeps_high = self.high > 0 and rng.random() < self.high
        if keeps_high and not allowed:
            return self._keep_high(observation, discards)
        if self.plan:
            greedy = self._base
            assert isinstance(greedy, GreedyBot)
            unseen = remembered_unseen(observation, self.memory)
            ranked = greedy.ranked_discards(observation, discards, unseen)
            kept = [a for a in legal if not isinstance(a, Close) or a in allowed]
            return greedy.discard_or_close(observation, kept, ranked, unseen)
        if allowed:
            return min(allowed, key=lambda a: loose_points_after(hand, a, rules))
        return self._discard(observation, discards)

    def _discard(self, observation: Observation, discards: list[Discard]) -> Discard:
        """The discard of a player who does not think a draw ahead: the dearest loose card."""
        rules = observation.rules
        loose = set(best_arrangement(observation.hand, rules).loose)
        pool = [a for a in discards if a.card in loose] or discards
        return max(pool, key=lambda a: (rules.value(a.card), a.card))

    def _keep_high(self, observation: Observation, discards: list[Discard]) -> Discard:
        """The discard of a player who keeps its high cards: the loosest loose card, the lowest of those."""
        rules = observation.rules
        hand = list(observation.hand)
        loose = set(best_arrangement(hand, rules).loose)
        pool = [a for a in discards if a.card in loose] or discards
        unseen = remembered_unseen(observation, self.memory)
        return min(pool, key=lambda a: (partners(a.card, hand, rules, unseen), rules.value(a.card), a.card))
