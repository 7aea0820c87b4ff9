"""Search helpers for the bots: a fast playout policy, and sampled deals that fit the others' play.

Everything here works on the engine's fast path (integer moves and kind
masks): no legality checks and no ``Card`` objects inside a playout.
"""

from __future__ import annotations

import random
from functools import cache

from chinchon.bots.greedy import completing_pairs
from chinchon.cards import Card
from chinchon.deal import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal
from chinchon.observation import Observation, Phase
from chinchon.rules import Rules
from chinchon.tables import tables_for

__all__ = ["passed_cards", "playout_move", "sample_deal"]


def playout_move(deal: Deal, moves: list[int]) -> int:
    """The fast greedy policy: close when possible, take a discard that joins a meld, throw the dearest loose card."""
    seat = deal.to_move
    assert seat is not None
    t = deal.tables
    solver = t.solver
    if deal.phase is Phase.DRAW:
        if MOVE_DISCARD_PILE in moves:
            top = deal.pile_ids[-1]
            m1, m2, w = deal.masks(seat)
            before = solver.best_points(m1, m2, w)
            if top == t.joker or (t.wild_ace and top == 0):
                after = solver.best_points(m1, m2, w + 1)
                value = deal.rules.wild_value
            else:
                bit = 1 << top
                after = solver.best_points(m1 | bit, m2 | (m1 & bit), w)
                value = t.value_of[top]
            if after < before + value:
                return MOVE_DISCARD_PILE
        return MOVE_STOCK if MOVE_STOCK in moves else moves[0]
    for move in moves:
        if move >= CLOSE:
            return move
    m1, m2, w = deal.masks(seat)
    if m2 or w:
        _, kind, _, _, _, _ = solver.best_discard_key(m1, m2, w)
    else:
        kind = solver.discard_kind_single(m1)
    if kind < 0:
        kind = t.joker if deal.held(seat)[2] else 0
    return kind if kind in moves else moves[-1]


def _simple_rules(deal: Deal) -> bool:
    rules = deal.rules
    return deal.decks == 1 and rules.jokers == 0 and not rules.wild_ace_of_oros


def passed_cards(observation: Observation) -> dict[int, list[Card]]:
    """The face-up cards each seat left on the discard pile to draw from the stock, oldest first.

    Read from the public history: a seat that draws from the stock while a
    card it could use lies face up has shown that the card is of no use to
    it. A seat that takes the discard throws a card in the same turn, so the
    top at a draw is the last card thrown, or before any the card turned up
    at the deal, which is known until the pile is shuffled into the stock.
    """
    rules = observation.rules
    total = observation.stock_size + len(observation.discard_pile) + sum(observation.hand_sizes)
    stock = total - len(observation.seats) * rules.hand_size - 1
    pile = 1
    top: Card | None = None
    first: list[int] = []
    passed: dict[int, list[Card]] = {}
    discards = iter(observation.discards)
    for seat, text in observation.history:
        if text.startswith("discard "):
            top = next(discards)[1]
            pile += 1
        elif text == "draw discard":
            pile -= 1
        elif text == "draw stock":
            if stock <= 0:
                stock, pile, first = pile - 1, 1, []
            stock -= 1
            if top is not None:
                passed.setdefault(seat, []).append(top)
            else:
                first.append(seat)
    for seat in first:
        # The turned-up card is still at the bottom of the pile: nobody took it, no shuffle buried it.
        passed.setdefault(seat, []).insert(0, observation.discard_pile[0])
    return passed


@cache
def _pair_masks(rules: Rules) -> tuple[tuple[int, ...], ...]:
    """For each card id, the masks of the pairs of cards that make a meld of three with it."""
    t = tables_for(rules)
    return tuple(
        tuple(
            sum(1 << t.id_of[c] for c in pair)
            for pair in completing_pairs(card, rules)
            if all(c in t.id_of for c in pair)
        )
        for card in t.card_of
    )


def sample_deal(
    observation: Observation,
    rng: random.Random,
    tries: int = 60,
    passes: int = 0,
    thrown: int = 0,
    taken: bool = False,
) -> Deal:
    """A deal consistent with the observation whose hidden hands look played.

    Like :meth:`Deal.sample`, but each other seat's hidden cards are drawn
    again (up to ``tries`` times) until the hand fits how that seat has
    played: its loose cards are no dearer than its last discard (players
    throw their dearest loose card) and the hand with that discard could not
    close (players close when they can). Uniformly dealt hands look much
    farther from a close than real ones. The hand also should not make a
    meld of three with any of the last ``passes`` cards the seat left on the
    discard pile (:func:`passed_cards`), nor with any of the last ``thrown``
    cards it threw: a player keeps the cards its hand melds with. With
    ``taken``, the cards a seat took from the discard pile and still holds
    should be in a meld of its hand: a player takes a discard to meld it. With two
    decks or wild cards the plain :meth:`Deal.sample` is returned.
    """
    deal = Deal.sample(observation, rng)
    if not _simple_rules(deal):
        return deal
    t = deal.tables
    solver = t.solver
    value_of = t.value_of
    me = observation.seat
    thrown_by: dict[int, list[int]] = {}
    for seat, card in observation.discards:
        thrown_by.setdefault(seat, []).append(t.id_of[card])
    last = {seat: ids[-1] for seat, ids in thrown_by.items()}
    others = [s for s in observation.seats if s != me and s in last]
    if not others:
        return deal
    # For each seat, the pairs of cards its hand should not hold: one list for each card it refused.
    refused: dict[int, list[tuple[int, ...]]] = {}
    if passes or thrown:
        pair_masks = _pair_masks(observation.rules)
        if passes:
            for seat, cards in passed_cards(observation).items():
                refused[seat] = [pair_masks[t.id_of[card]] for card in cards[-passes:]]
        if thrown:
            for seat, ids in thrown_by.items():
                refused.setdefault(seat, []).extend(pair_masks[kind] for kind in ids[-thrown:])
    pool: list[int] = list(deal.stock_ids)
    known: dict[int, int] = {}
    for seat in others:
        held = 0
        for card in observation.taken[seat]:
            held |= 1 << t.id_of[card]
        known[seat] = held
        hidden = deal.held(seat)[0] & ~held
        while hidden:
            low = hidden & -hidden
            pool.append(low.bit_length() - 1)
            hidden ^= low
    hands: dict[int, int] = {}
    for seat in others:
        held = known[seat]
        count = (deal.held(seat)[0] & ~held).bit_count()
        bound = value_of[last[seat]]
        last_bit = 1 << last[seat]
        best_bad = -1
        best_mask = 0
        for _ in range(tries):
            mask = held
            for kind in rng.sample(pool, count):
                mask |= 1 << kind
            _, chosen = solver.best_single(mask)
            covered = 0
            for meld in chosen:
                covered |= meld
            bad = max(0, solver.value_and_top(mask & ~covered)[1] - bound) if mask & ~covered else 0
            if solver.can_close_single(mask | last_bit):
                bad += 5
            if taken and held & ~covered:
                bad += 3
            for masks in refused.get(seat, ()):
                for pair in masks:
                    if mask & pair == pair:
                        bad += 3
                        break
            if best_bad < 0 or bad < best_bad:
                best_bad, best_mask = bad, mask
                if bad == 0:
                    break
        hands[seat] = best_mask
        dealt = best_mask & ~held
        pool = [kind for kind in pool if not dealt >> kind & 1]
    rng.shuffle(pool)
    deal.redeal_ids(hands, pool)
    return deal
