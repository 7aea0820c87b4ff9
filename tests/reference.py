"""A brute-force meld solver for the tests: slow and obviously right.

It knows nothing of the engine's tables: a meld is checked from RULES.md M1-M4
directly, and an arrangement is found by trying every collection of disjoint
melds among the hand's subsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from chinchon import Card, Rank, Rules

Key = tuple[int, int]


def is_wild(card: Card, rules: Rules) -> bool:
    if card.rank is None:
        return True
    return rules.wild_ace_of_oros and str(card) == "A♦"


def reference_is_meld(cards: Sequence[Card], rules: Rules) -> bool:
    """M1-M4 read literally."""
    if len(cards) < 3:
        return False
    wilds = [c for c in cards if is_wild(c, rules)]
    naturals = [c for c in cards if not is_wild(c, rules)]
    if len(naturals) < 2 or len(wilds) > rules.max_wilds_per_meld:
        return False
    if len({c.rank for c in naturals}) == 1:
        if rules.set_distinct_suits and len({c.suit for c in naturals}) != len(naturals):
            return False
        largest = rules.max_set_size or (4 if rules.set_distinct_suits else 4 * rules.most_decks)
        return len(cards) <= largest
    if len({c.suit for c in naturals}) != 1:
        return False
    # Natural cards are never jokers, so every rank looked up here is a real rank.
    order: list[Rank | None] = list(rules.ranks)
    positions = sorted(order.index(c.rank) for c in naturals)
    if len(set(positions)) != len(positions):
        return False
    # Some window of len(cards) consecutive ranks inside the deck holds every natural card.
    return positions[-1] - positions[0] + 1 <= len(cards) <= len(order)


def packings(cards: Sequence[Card], rules: Rules) -> list[tuple[list[tuple[int, ...]], list[int]]]:
    """Every collection of disjoint melds (as index tuples) with the loose indices."""
    n = len(cards)
    melds = [
        combo
        for size in range(3, n + 1)
        for combo in combinations(range(n), size)
        if reference_is_meld([cards[i] for i in combo], rules)
    ]
    out: list[tuple[list[tuple[int, ...]], list[int]]] = []

    def walk(start: int, used: frozenset[int], chosen: list[tuple[int, ...]]) -> None:
        out.append((chosen, [i for i in range(n) if i not in used]))
        for j in range(start, len(melds)):
            meld = melds[j]
            if used.isdisjoint(meld):
                walk(j + 1, used | set(meld), [*chosen, meld])

    walk(0, frozenset(), [])
    return out


def loose_key(cards: Sequence[Card], loose: Sequence[int], rules: Rules) -> Key:
    return sum(rules.value(cards[i]) for i in loose), len(loose)


def reference_best(cards: Sequence[Card], rules: Rules) -> Key:
    """The least (loose points, loose cards) over every arrangement."""
    return min(loose_key(cards, loose, rules) for _, loose in packings(cards, rules))


def canonical(card: Card, rules: Rules) -> str:
    return "W" if is_wild(card, rules) else str(card)


def meld_key(meld: Sequence[Card], rules: Rules) -> tuple[str, ...]:
    return tuple(sorted(canonical(c, rules) for c in meld))


def arrangement_key(
    melds: Sequence[Sequence[Card]], loose: Sequence[Card], rules: Rules
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    return tuple(sorted(meld_key(m, rules) for m in melds)), tuple(sorted(canonical(c, rules) for c in loose))


def reference_closes(cards: Sequence[Card], rules: Rules) -> set[tuple[str, object]]:
    """Every legal (discard, arrangement) of a hand holding the card just drawn."""
    found: set[tuple[str, object]] = set()
    seen_discards: set[Card] = set()
    for d, discard in enumerate(cards):
        if discard in seen_discards:
            continue
        seen_discards.add(discard)
        rest = [c for i, c in enumerate(cards) if i != d]
        for chosen, loose in packings(rest, rules):
            points, count = loose_key(rest, loose, rules)
            if points > rules.close_limit:
                continue
            if rules.close_max_loose_cards is not None and count > rules.close_max_loose_cards:
                continue
            key = arrangement_key([[rest[i] for i in m] for m in chosen], [rest[i] for i in loose], rules)
            found.add((str(discard), key))
    return found


def reference_best_discard(cards: Sequence[Card], rules: Rules) -> Key:
    best: Key | None = None
    for d in range(len(cards)):
        rest = [c for i, c in enumerate(cards) if i != d]
        key = reference_best(rest, rules)
        if best is None or key < best:
            best = key
    assert best is not None
    return best
