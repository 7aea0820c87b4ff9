"""The ``greedy`` bot: a strong heuristic player.

It takes the discard only when it joins a meld (or, with ``take``, when it
lowers the hand's value by at least that much); discards the card that
leaves the fewest loose points expected after its next draw from the unseen
cards (a close then counting for a ``bonus``), avoiding cards the next
player collects; closes at once unless waiting for a clean close (-10) is
worth the risk that someone else closes first, weighed with the match
scores; re-enters when its chance to win the match
(:mod:`chinchon.bots.odds`) is worth the stake it costs
(:func:`reentry_gain`); shows the arrangement that leaves the others fewest
lay-offs and lays off its dearest cards. In a deal that has lasted three
times as many turns as the deck has cards (:func:`stalled`), where the low
cards can be locked in the hands and every card going round thrown straight
back for ever, it keeps the cards that the ones going round could meld, dear
or not.

With two players (and no jokers), the choice among its three
best discards follows a model learned from play against ``simple``
(:func:`discard_features`, ``chinchon/bots/discards.json``, fitted by
``scripts/train_discards.py``): the advantage in a deal's points of each
candidate over the others, judged by playing each one out. ``model=FILE``
plays another model fitted by that script instead.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from chinchon.actions import Action, Close, Discard, Draw, LayOff, Pass, ReEnter, Show
from chinchon.bots.base import Bot, BotError, flag, number, register
from chinchon.bots.odds import loose_points, win_chances
from chinchon.bots.simple import joins_meld
from chinchon.bots.trees import Trees, load_model, read_model
from chinchon.cards import Card
from chinchon.errors import N_
from chinchon.melds import best_arrangement, best_discard, meld_extensions
from chinchon.observation import Observation
from chinchon.rules import Rules

__all__ = [
    "FEATURES",
    "GreedyBot",
    "Outlook",
    "clean_close_outs",
    "close_by_odds",
    "close_urgency",
    "completing_pairs",
    "discard_features",
    "draw_outlook",
    "hand_value",
    "meld_chance",
    "reentry_gain",
    "stalled",
    "unseen_cards",
]

#: The features of a candidate discard (:func:`discard_features`), in order.
FEATURES: tuple[str, ...] = (
    "rank_in_greedy",
    "lookahead",
    "lookahead_gap",
    "card_value",
    "loose_points_kept",
    "loose_cards_kept",
    "dearest_loose_kept",
    "same_rank_kept",
    "run_partners_kept",
    "same_rank_unseen",
    "run_partners_unseen",
    "close_outs",
    "clean_close_outs",
    "meld_chance",
    "feeds_next",
    "next_last_discard",
    "next_discards",
    "turn",
    "next_taken",
    "rank_in_pile",
    "loose_pairs_kept",
    "unseen",
    "loose_points_now",
)

#: How many of the heuristic's best discards the learned model chooses among.
LEARNED_WIDTH = 3


def unseen_cards(observation: Observation) -> Counter[Card]:
    """The cards the seat has not seen: in other hands (not known) or in the stock."""
    pool = Counter(observation.rules.cards(decks=observation.decks))
    pool.subtract(observation.hand)
    pool.subtract(observation.discard_pile)
    for seat, taken in enumerate(observation.taken):
        if seat != observation.seat:
            pool.subtract(taken)
    for meld in observation.table:
        pool.subtract(meld.cards)
    return +pool


def _neighbours(card: Card, rules: Rules) -> list[tuple[Card, ...]]:
    """The pairs of cards that would make a run of three with this card."""
    if card.rank is None or card.suit is None or card.rank not in rules.ranks:
        return []
    ranks = rules.ranks
    i = ranks.index(card.rank)
    out = []
    for low in range(i - 2, i + 1):
        if low < 0 or low + 2 >= len(ranks):
            continue
        others = tuple(Card(ranks[p], card.suit) for p in range(low, low + 3) if p != i)
        out.append(others)
    return out


def hand_value(hand: Sequence[Card], rules: Rules, unseen: Counter[Card], weight: float = 0.45) -> float:
    """Loose points of the best arrangement, less a share for loose cards with live partners."""
    arrangement = best_arrangement(hand, rules)
    loose = arrangement.loose
    if not loose:
        return float(arrangement.points)
    held = Counter(loose)
    total = 0.0
    for card in loose:
        value = rules.value(card)
        if rules.is_wild(card):
            total += value
            continue
        live = 0.0
        # A pair of the rank whose third card is still unseen.
        same_rank = [c for c in held if c.rank == card.rank and c != card]
        if same_rank:
            missing = sum(n for c, n in unseen.items() if c.rank == card.rank and c.suit != card.suit)
            live = max(live, min(1.0, missing / 2))
        for pair in _neighbours(card, rules):
            have = [c for c in pair if held[c]]
            need = [c for c in pair if not held[c]]
            if len(have) == 1 and need and unseen[need[0]]:
                live = max(live, 0.8 if unseen[need[0]] else 0.0)
        total += value * (1.0 - weight * live)
    return total


class Outlook(NamedTuple):
    """What drawing one of the unseen cards promises a hand that has just discarded."""

    #: The loose points expected after the draw, a close counting ``bonus`` less.
    value: float
    #: How many unseen cards would let it close.
    close_outs: int
    #: How many would let it close with no loose card.
    clean_outs: int


def draw_outlook(rest: Sequence[Card], rules: Rules, unseen: Counter[Card], bonus: float) -> Outlook:
    """The :class:`Outlook` of ``rest`` (a hand after its discard) over the ``unseen`` cards."""
    total = count = 0.0
    closes = clean = 0
    limit = rules.close_limit
    for card, copies in unseen.items():
        points = best_discard([*rest, card], rules).points
        if points <= limit:
            total += copies * (points - bonus)
            closes += copies
            if points == 0:
                clean += copies
        else:
            total += copies * points
        count += copies
    value = total / count if count else float(best_arrangement(rest, rules).points)
    return Outlook(value, closes, clean)


def completing_pairs(card: Card, rules: Rules) -> list[tuple[Card, ...]]:
    """The pairs of other cards that make a meld of three with ``card``: two of its rank, or run neighbours."""
    if card.rank is None or card.suit is None or card.rank not in rules.ranks:
        return []
    others = [Card(card.rank, suit) for suit in type(card.suit) if suit != card.suit]
    return [(a, b) for i, a in enumerate(others) for b in others[i + 1 :]] + _neighbours(card, rules)


def _next_seat(observation: Observation) -> int:
    seats = observation.seats
    return seats[(seats.index(observation.seat) + 1) % len(seats)]


def meld_chance(observation: Observation, card: Card, unseen: Counter[Card] | None = None) -> float:
    """The chance that the next seat holds two cards that make a meld with ``card``.

    The cards it took from the discard pile and still holds count as held;
    its other cards are taken as dealt at random from the cards the observing
    seat has not seen (one deck, no wild cards). Exact under that assumption:
    inclusion-exclusion over the pairs that could make the meld.
    """
    nxt = _next_seat(observation)
    if unseen is None:
        unseen = unseen_cards(observation)
    known = set(observation.taken[nxt])
    hidden = observation.hand_sizes[nxt] - len(known)
    pool = sum(unseen.values())
    # The cards of each possible pair that the seat would also need among its hidden ones.
    needs = [
        frozenset(c for c in pair if c not in known)
        for pair in completing_pairs(card, observation.rules)
        if all(c in known or unseen[c] for c in pair)
    ]

    def all_held(cards: frozenset[Card]) -> float:
        chance = 1.0
        for k in range(len(cards)):
            chance *= (hidden - k) / (pool - k) if pool > k else 0.0
        return chance

    total = 0.0
    for size in range(1, len(needs) + 1):
        for group in itertools.combinations(needs, size):
            total += (-1) ** (size + 1) * all_held(frozenset().union(*group))
    return total


def discard_features(
    observation: Observation, candidates: Sequence[Card], outlooks: Sequence[Outlook], unseen: Counter[Card]
) -> list[list[float]]:
    """One row of :data:`FEATURES` for each candidate discard, the heuristic's favourite first.

    ``outlooks`` are the candidates' :func:`draw_outlook`, with the bonus the heuristic uses.
    """
    rules = observation.rules
    hand = list(observation.hand)
    nxt = _next_seat(observation)
    last = 0
    count = 0
    for seat, card in observation.discards:
        if seat == nxt:
            last = rules.value(card)
            count += 1
    pile_ranks = Counter(c.rank for c in observation.discard_pile)
    total_unseen = sum(unseen.values())
    now = best_arrangement(hand, rules).points
    rows = []
    for i, card in enumerate(candidates):
        rest = list(hand)
        rest.remove(card)
        arrangement = best_arrangement(rest, rules)
        loose = arrangement.loose
        near = {other for pair in _neighbours(card, rules) for other in pair}
        outlook = outlooks[i]
        loose_ranks = Counter(c.rank for c in loose)
        rows.append(
            [
                float(i),
                outlook.value,
                outlook.value - outlooks[0].value,
                float(rules.value(card)),
                float(arrangement.points),
                float(len(loose)),
                float(max((rules.value(c) for c in loose), default=0)),
                float(sum(1 for c in rest if c.rank == card.rank)),
                float(sum(1 for c in rest if c in near)),
                float(sum(n for c, n in unseen.items() if c.rank == card.rank)),
                float(sum(unseen[c] for c in near)),
                outlook.close_outs / max(1, total_unseen),
                outlook.clean_outs / max(1, total_unseen),
                meld_chance(observation, card, unseen),
                float(_feeds(card, observation)),
                float(last),
                float(count),
                float(observation.turn),
                float(len(observation.taken[nxt])),
                float(pile_ranks[card.rank]),
                float(sum(1 for n in loose_ranks.values() if n >= 2)),
                float(total_unseen),
                float(now),
            ]
        )
    return rows


def _learned_applies(observation: Observation) -> bool:
    """Whether the discard model was learned or checked for this play: two players, no jokers.

    It learned from two players, one deck and no wild card (``fournier``); it
    was checked against its heuristic alone under ``clasico`` and the family
    table (two decks, the wild 1 de oros), where it won more matches against
    ``simple`` on the same boards (docs/strength.md), not with jokers nor
    with more players.
    """
    return len(observation.seats) == 2 and not observation.rules.jokers


def _feeds(card: Card, observation: Observation) -> bool:
    """Whether ``card`` makes a meld with a card the next seat took from the discard pile."""
    ranks = observation.rules.ranks
    for taken in observation.taken[_next_seat(observation)]:
        if taken.rank == card.rank and taken != card:
            return True
        if (
            taken.suit == card.suit
            and taken.rank in ranks
            and card.rank in ranks
            and abs(ranks.index(taken.rank) - ranks.index(card.rank)) <= 2
        ):
            return True
    return False


def _model_file(path: object) -> Trees:
    """The discard model in the file ``path``, for the bot parameter ``model``.

    Raises:
        BotError: the file cannot be read, is not a model, or reads other features than :data:`FEATURES`.
    """
    if not isinstance(path, str):
        raise BotError(N_("the bot parameter model must be the path of a model file, not {value}"), value=path)
    try:
        model = read_model(path)
    except OSError as error:
        raise BotError(
            N_("cannot read the model file {path}: {problem}"), path=path, problem=error.strerror or error
        ) from None
    except ValueError as error:
        raise BotError(N_("{path} is not a discard model: {problem}"), path=path, problem=error) from None
    if model.features != FEATURES:
        raise BotError(N_("the model {path} reads other features than greedy computes"), path=path)
    return model


@register("greedy")
class GreedyBot(Bot):
    """A heuristic player: see the module's description.

    A hand's value (:func:`hand_value`) is its loose points, less a share
    (``weight``) for loose cards with live partners. It judges the draw when
    ``take`` is finite (how much lower the value must get for the bot to take
    a discard that joins no meld; never, by default: taking more often lost
    points against ``simple``, see docs/strength.md), and the discards when
    ``lookahead`` is off; with the defaults ``weight`` changes no move.
    With ``learned`` (and the lookahead) it leaves its favourite discard for
    another of its best three when the learned model (see the module's
    description) values that one more than the favourite by over ``margin``
    points; ``learned=false`` plays the heuristic alone. ``model`` is the
    path of a model file written by ``scripts/train_discards.py fit`` to
    play instead of the shipped one. ``odds=false`` re-enters by the old
    fixed threshold (only at a total 8 or more under the limit) instead of
    by :func:`reentry_gain`. The close is by fixed thresholds (at once
    within 15 points of the limit or with another seat within 10, else by
    the chance of a clean close against the risk of being caught);
    ``close_odds=true`` weighs it by the chance to win the match instead
    (:func:`close_by_odds`); off by default: it won fewer matches against
    ``simple`` under ``clasico`` and ``online`` (docs/strength.md).
    ``urgency`` above 1 lets a close count up to that many times its
    ``bonus`` in the discard lookahead when closing first matters more to
    the match than at its start (:func:`close_urgency`); off by default: it
    won fewer matches against ``simple`` under ``fournier`` (docs/strength.md).
    """

    name = "greedy"

    def __init__(
        self,
        weight: float = 0.45,
        patience: float = 1.0,
        take: float = math.inf,
        feed: float = 1.5,
        lookahead: bool = True,
        bonus: float = 8.0,
        now: float = 0.0,
        learned: bool = True,
        margin: float = 0.0,
        model: str = "",
        odds: bool = True,
        urgency: float = 1.0,
        close_odds: bool = False,
    ) -> None:
        self.odds = flag("odds", odds)
        self.close_odds = flag("close_odds", close_odds)
        self.urgency = number("urgency", urgency, 1)
        self.model = model
        self._model = _model_file(model) if model != "" else None
        self.now = number("now", now, 0)
        self.learned = flag("learned", learned)
        self.margin = number("margin", margin, 0)
        self.lookahead = flag("lookahead", lookahead)
        self.bonus = number("bonus", bonus, 0)
        self.weight = number("weight", weight, 0, 1)
        self.patience = number("patience", patience, 0)
        self.take = number("take", take, 0)
        self.feed = number("feed", feed, 0)

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        legal = list(legal_actions)
        if len(legal) == 1:
            return legal[0]
        kinds = {type(a) for a in legal}
        if Draw in kinds:
            return self._draw(observation, legal)
        if Discard in kinds or Close in kinds:
            return self._discard_or_close(observation, legal)
        if Show in kinds:
            return self._show(observation, [a for a in legal if isinstance(a, Show)])
        if LayOff in kinds:
            layoffs = [a for a in legal if isinstance(a, LayOff)]
            return max(layoffs, key=lambda a: (observation.rules.value(a.card), -a.meld_index))
        if ReEnter in kinds:
            return self._reenter(observation)
        return Pass() if Pass() in legal else legal[0]

    # -- drawing --------------------------------------------------------------------------

    def _best_discard_value(self, hand: list[Card], observation: Observation, unseen: Counter[Card]) -> float:
        rules = observation.rules
        best = float("inf")
        for card in set(hand):
            rest = list(hand)
            rest.remove(card)
            best = min(best, hand_value(rest, rules, unseen, self.weight))
        return best

    def _draw(self, observation: Observation, legal: list[Action]) -> Action:
        top = observation.top_discard
        if top is None or Draw("discard") not in legal:
            return Draw("stock")
        rules = observation.rules
        unseen = unseen_cards(observation)
        now = hand_value(list(observation.hand), rules, unseen, self.weight)
        with_top = self._best_discard_value([*observation.hand, top], observation, unseen)
        joins = joins_meld(observation.hand, top, rules)
        # Taking the discard shows the card to everyone, so it must clearly help.
        if joins or with_top <= now - self.take or (with_top <= 0 < now):
            return Draw("discard")
        return Draw("stock") if Draw("stock") in legal else Draw("discard")

    # -- discarding and closing -------------------------------------------------------------

    def ranked_discards(
        self, observation: Observation, discards: Sequence[Discard], unseen: Counter[Card] | None = None
    ) -> list[Discard]:
        """The discards, the one the bot likes best first (``unseen``: :func:`unseen_cards`, if already at hand)."""
        rules = observation.rules
        if unseen is None:
            unseen = unseen_cards(observation)
        hand = list(observation.hand)
        going_round = _going_round(observation, unseen) if stalled(observation) else None
        urgency = min(self.urgency, close_urgency(observation)) if self.odds and self.urgency > 1 else 1.0
        bonus = self.bonus * max(1.0, urgency)
        scored: list[tuple[float, int, Discard]] = []
        outlooks: dict[Card, Outlook] = {}
        for action in discards:
            rest = list(hand)
            rest.remove(action.card)
            if going_round is not None:
                # The same cards go round and nobody closes: keep what they could meld, dear or not.
                value = _stalled_value(rest, rules, going_round)
            elif self.lookahead:
                outlooks[action.card] = outlook = draw_outlook(rest, rules, unseen, bonus)
                value = outlook.value + (self.now * best_arrangement(rest, rules).points if self.now else 0.0)
            else:
                value = hand_value(rest, rules, unseen, self.weight)
            if _feeds(action.card, observation):
                value += self.feed
            scored.append((value, -rules.value(action.card), action))
        scored.sort(key=lambda item: (item[0], item[1]))
        ranked = [action for _, _, action in scored]
        # The model learned its choice with the usual bonus: near the end of a match it is not asked.
        if self.learned and outlooks and len(ranked) > 1 and bonus == self.bonus and _learned_applies(observation):
            ranked = self._learned_choice(observation, ranked, outlooks, unseen)
        return ranked

    def _learned_choice(
        self, observation: Observation, ranked: list[Discard], outlooks: dict[Card, Outlook], unseen: Counter[Card]
    ) -> list[Discard]:
        """The ranking with the learned model's choice among the best few moved first."""
        head = ranked[:LEARNED_WIDTH]
        rows = discard_features(observation, [a.card for a in head], [outlooks[a.card] for a in head], unseen)
        model = self._model or load_model("discards")
        values = [model.predict(row) for row in rows]
        best = max(range(len(values)), key=values.__getitem__)
        if best and values[best] - values[0] > self.margin:
            return [head[best], *(a for a in ranked if a != head[best])]
        return ranked

    def _discard_or_close(self, observation: Observation, legal: list[Action]) -> Action:
        unseen = unseen_cards(observation)
        ranked = self.ranked_discards(observation, [a for a in legal if isinstance(a, Discard)], unseen)
        return self.discard_or_close(observation, legal, ranked, unseen)

    def discard_or_close(
        self, observation: Observation, legal: Sequence[Action], ranked: Sequence[Discard], unseen: Counter[Card]
    ) -> Action:
        """The bot's move after drawing, given its :meth:`ranked_discards` and :func:`unseen_cards`."""
        closes = [a for a in legal if isinstance(a, Close)]
        if closes:
            close = self._choose_close(observation, closes, unseen)
            if close is not None and self._close_now(observation, close, unseen):
                return close
        return ranked[0] if ranked else closes[0]

    def _choose_close(self, observation: Observation, closes: list[Close], unseen: Counter[Card]) -> Close | None:
        rules = observation.rules

        def key(close: Close) -> tuple[int, int]:
            melds = close.melds or ()
            loose_points = _loose_points(observation.hand, close, rules)
            # Fewer ways for the others to lay off onto the melds shown.
            exposure = sum(unseen[c] for meld in melds for c in meld_extensions(meld, rules))
            return loose_points, exposure

        return min(closes, key=key) if closes else None

    def _close_now(self, observation: Observation, close: Close, unseen: Counter[Card]) -> bool:
        rules = observation.rules
        points = _loose_points(observation.hand, close, rules)
        if points == 0:
            return True
        seat = observation.seat
        if observation.scores and not (self.odds and self.close_odds):
            mine = observation.scores[seat]
            if mine + 15 > rules.limit:
                return True
            others = [observation.scores[s] for s in observation.seats if s != seat]
            if others and max(others) + 10 > rules.limit:
                return True
        rest = list(observation.hand)
        rest.remove(close.discard)
        outs = clean_close_outs(rest, rules, unseen)
        total = sum(unseen.values()) or 1
        chance = outs / total
        rounds = observation.turn / max(1, len(observation.seats))
        risk = min(0.6, 0.08 + 0.04 * rounds) * len(observation.seats) / 2
        if observation.scores and self.odds and self.close_odds:
            return close_by_odds(observation, points, chance, risk, self.patience)
        gain = chance * (points + 10)
        return gain * self.patience < risk * 12

    # -- the showdown and the match -----------------------------------------------------------

    def _show(self, observation: Observation, shows: list[Show]) -> Show:
        rules = observation.rules
        unseen = unseen_cards(observation)
        hand = list(observation.hand)

        def key(show: Show) -> tuple[int, int]:
            rest = list(hand)
            for meld in show.melds:
                for card in meld:
                    rest.remove(card)
            exposure = sum(unseen[c] for meld in show.melds for c in meld_extensions(meld, rules))
            return sum(rules.value(c) for c in rest), exposure

        return min(shows, key=key)

    def _reenter(self, observation: Observation) -> ReEnter:
        if not self.odds:
            rules = observation.rules
            active = [observation.scores[s] for s in observation.active] if observation.scores else []
            comeback = max(active) if active else rules.limit
            return ReEnter(comeback <= rules.limit - 8)
        return ReEnter(reentry_gain(observation) > 0)


def reentry_gain(observation: Observation) -> float:
    """What re-entering is worth to the seat deciding, against declining: its expected gain of the match.

    Declining is out of the match: nothing more is won or paid. Re-entering
    comes back at the highest total still in (the other seats deciding
    are taken to come back too) and wins the match with the chance
    :func:`~chinchon.bots.odds.win_chances` gives. Without stakes the gain
    is that chance; with stakes it is the chance times the pot (with the
    stakes paid to come back) less the seat's own new stake.
    """
    rules = observation.rules
    seat = observation.seat
    if not observation.scores or not observation.active:
        return 1.0
    comeback = max(observation.scores[s] for s in observation.active)
    returning = [s for s in observation.reentry_pending if s != seat]
    seats = sorted({*observation.active, seat, *returning})
    totals = [comeback if s == seat or s in returning else observation.scores[s] for s in seats]
    chance = win_chances(totals, rules)[seats.index(seat)]
    if not rules.stake:
        return chance
    pot = observation.pot + rules.stake * (1 + len(returning))
    return chance * pot - rules.stake


def close_urgency(observation: Observation) -> float:
    """How much more closing first is worth to the match now than at its start (1 without match totals).

    The worth of closing first is the seat's chance to win the match
    (:func:`~chinchon.bots.odds.win_chances`) after it closes with one point
    under the close limit, less that chance when the next seat closes so
    instead, the others adding their loose points. Near the end of a match
    (in ``polaco``, where the first to close at high totals wins) it is
    several times what it is at the start.
    """
    if not observation.scores:
        return 1.0
    rules = observation.rules
    seats = list(observation.seats)
    scores = tuple(observation.scores[s] for s in seats)
    me = seats.index(observation.seat)
    now = _close_first_worth(rules, scores, me)
    start = _close_first_worth(rules, (0,) * len(seats), 0)
    if start < 0.05:
        # With unlimited re-entry closing first is worth nothing to the match at its start: a quarter stands for it.
        start = 0.25
    return now / start


@functools.lru_cache(maxsize=4096)
def _close_first_worth(rules: Rules, scores: tuple[int, ...], me: int) -> float:
    closing = max(0, rules.close_limit - 1)
    loose = loose_points(rules)
    nxt = (me + 1) % len(scores)
    first = [s + (closing if i == me else loose) for i, s in enumerate(scores)]
    caught = [s + (closing if i == nxt else loose) for i, s in enumerate(scores)]
    return win_chances(first, rules)[me] - win_chances(caught, rules)[me]


def close_by_odds(observation: Observation, points: int, clean_chance: float, risk: float, patience: float) -> bool:
    """Whether closing now with ``points`` loose is worth more to the match than waiting a turn for a clean close.

    Each outcome is valued by the seat's :func:`~chinchon.bots.odds.win_chances`
    from the totals it leaves. Closing now adds ``points`` to the seat and
    loose points to each other seat (a low, a middling and a high hand,
    weighed alike: one of them may go over the limit). Waiting gives a clean
    close (the bonus instead of ``points``) with ``clean_chance``, or with
    ``risk`` the next seat closes first (a point to it, loose points to the
    others, ``points`` still to this seat); otherwise the same close a turn
    later. ``patience`` weighs what waiting may win against what it risks.
    """
    rules = observation.rules
    seat = observation.seat
    seats = list(observation.seats)
    me = seats.index(seat)
    nxt = (me + 1) % len(seats)
    scores = [observation.scores[s] for s in seats]
    loose = loose_points(rules)

    def chance(mine: int, closer: int | None) -> float:
        total = 0.0
        for share in (0.4, 1.0, 1.6):
            totals = [scores[i] + (mine if i == me else 1 if i == closer else share * loose) for i in range(len(seats))]
            total += win_chances(totals, rules)[me]
        return total / 3

    now = chance(points, None)
    clean = chance(rules.clean_close_bonus, None)
    caught = chance(points, nxt)
    if abs(clean - now) < 1e-6 and abs(now - caught) < 1e-6:
        # The match does not tell (unlimited re-entry, far from the end): weigh the deal's points.
        return clean_chance * (points - rules.clean_close_bonus) * patience < risk * 12
    return clean_chance * (clean - now) * patience <= risk * (now - caught)


def stalled(observation: Observation) -> bool:
    """Whether the deal has lasted three times as many turns as the deck has cards: the same cards go round."""
    return observation.turn >= 3 * observation.rules.deck_size * observation.decks


def _going_round(observation: Observation, unseen: Counter[Card]) -> Counter[Card]:
    """The unseen cards discarded in this deal: once the stock has been rebuilt, the only ones left to draw."""
    discarded = Counter(card for _, card in observation.discards)
    return (unseen & discarded) or unseen


def _stalled_value(hand: Sequence[Card], rules: Rules, going_round: Counter[Card]) -> float:
    """Loose points of the best arrangement, each loose card counted as far as nothing going round could meld it."""
    arrangement = best_arrangement(hand, rules)
    held = Counter(arrangement.loose)
    total = 0.0
    for card in arrangement.loose:
        value = rules.value(card)
        if rules.is_wild(card) or card.rank not in rules.ranks:
            total += value
            continue
        partners = _partners(card, going_round, rules) + 2 * _partners(card, held, rules)
        total += value * (1.0 - min(1.0, partners / 3))
    return total


def _partners(card: Card, cards: Counter[Card], rules: Rules) -> int:
    """How many of ``cards`` could share a meld with ``card``: its rank, or its suit within two ranks."""
    near = {other for pair in _neighbours(card, rules) for other in pair}
    return sum(
        copies
        for other, copies in cards.items()
        if other != card and not rules.is_wild(other) and (other.rank == card.rank or other in near)
    )


def clean_close_outs(hand: Sequence[Card], rules: Rules, unseen: Counter[Card]) -> int:
    """How many unseen cards would let the hand, drawing one, close with no loose card."""
    return sum(count for card, count in unseen.items() if best_discard([*hand, card], rules).points == 0)


def _loose_points(hand: Iterable[Card], close: Close, rules: Rules) -> int:
    rest = list(hand)
    rest.remove(close.discard)
    if close.melds is None:
        return best_arrangement(rest, rules).points
    for meld in close.melds:
        for card in meld:
            rest.remove(card)
    return sum(rules.value(c) for c in rest)
