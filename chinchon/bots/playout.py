"""Search helpers for the bots: a fast playout policy, and sampled deals that fit the others' play.

Everything here works on the engine's fast path (integer moves and kind
masks): no legality checks and no ``Card`` objects inside a playout.
"""

from __future__ import annotations

import random

from chinchon.game import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal, Observation, Phase

__all__ = ["playout_move", "sample_deal"]


def playout_move(deal: Deal, moves: list[int]) -> int:
    """The fast greedy policy: close when possible, take a discard that joins a meld, throw the dearest loose card."""
    seat = deal.to_move
    assert seat is not None
    solver = deal._t.solver
    if deal.phase is Phase.DRAW:
        if MOVE_DISCARD_PILE in moves:
            top = deal.pile_ids[-1]
            m1, m2, w = deal.masks(seat)
            before = solver.best_points(m1, m2, w)
            if top == deal._t.joker or (deal._t.wild_ace and top == 0):
                after = solver.best_points(m1, m2, w + 1)
                value = deal.rules.wild_value
            else:
                bit = 1 << top
                after = solver.best_points(m1 | bit, m2 | (m1 & bit), w)
                value = deal._t.value_of[top]
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
        kind = deal._t.joker if deal._jk[seat] else 0
    return kind if kind in moves else moves[-1]


def _simple_rules(deal: Deal) -> bool:
    rules = deal.rules
    return deal.decks == 1 and rules.jokers == 0 and not rules.wild_ace_of_oros


def sample_deal(observation: Observation, rng: random.Random, tries: int = 60) -> Deal:
    """A deal consistent with the observation whose hidden hands look played.

    Like :meth:`Deal.sample`, but each other seat's hidden cards are drawn
    again (up to ``tries`` times) until the hand fits how that seat has
    played: its loose cards are no dearer than its last discard (players
    throw their dearest loose card) and the hand with that discard could not
    close (players close when they can). Uniformly dealt hands look much
    farther from a close than real ones. With two decks or wild cards the
    plain :meth:`Deal.sample` is returned.
    """
    deal = Deal.sample(observation, rng)
    if not _simple_rules(deal):
        return deal
    t = deal._t
    solver = t.solver
    value_of = t.value_of
    me = observation.seat
    last: dict[int, int] = {}
    for seat, card in observation.discards:
        last[seat] = t.id_of[card]
    others = [s for s in observation.seats if s != me and s in last]
    if not others:
        return deal
    pool: list[int] = list(deal._stock)
    known: dict[int, int] = {}
    for seat in others:
        held = 0
        for card in observation.taken[seat]:
            held |= 1 << t.id_of[card]
        known[seat] = held
        hidden = deal._m1[seat] & ~held
        while hidden:
            low = hidden & -hidden
            pool.append(low.bit_length() - 1)
            hidden ^= low
    for seat in others:
        held = known[seat]
        count = (deal._m1[seat] & ~held).bit_count()
        bound = value_of[last[seat]]
        thrown = 1 << last[seat]
        best_bad = -1
        best_mask = 0
        for _ in range(tries):
            mask = held
            for kind in rng.sample(pool, count):
                mask |= 1 << kind
            _, chosen = solver._best_single(mask)
            covered = 0
            for meld in chosen:
                covered |= meld
            bad = max(0, solver.value_and_top(mask & ~covered)[1] - bound) if mask & ~covered else 0
            if solver.can_close_single(mask | thrown):
                bad += 5
            if best_bad < 0 or bad < best_bad:
                best_bad, best_mask = bad, mask
                if bad == 0:
                    break
        deal._m1[seat] = best_mask
        taken = best_mask & ~held
        pool = [kind for kind in pool if not taken >> kind & 1]
    rng.shuffle(pool)
    deal._stock = pool
    return deal
