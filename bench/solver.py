"""Microseconds per hand of the meld solver, through the public API.

Run: ``python bench/solver.py [--hands N] [--seed S]``. Prints the median
over N random hands (one call each, after a warm-up) for each case.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence

from chinchon import Card, Rules
from chinchon.melds import best_arrangement, best_discard, closing_options, solver_for


def median_us(function: Callable[[Sequence[Card], Rules], object], hands: list[list[Card]], rules: Rules) -> float:
    for hand in hands[:200]:
        function(hand, rules)
    solver_for(rules).clear_caches()
    timings = []
    clock = time.perf_counter_ns
    for hand in hands:
        start = clock()
        function(hand, rules)
        timings.append(clock() - start)
    return statistics.median(timings) / 1000


def rich_hands(rng: random.Random, rules: Rules, count: int) -> list[list[Card]]:
    """8 cards of 3 neighbouring ranks in 3 suits."""
    hands = []
    for _ in range(count):
        low = rng.randrange(len(rules.ranks) - 2)
        ranks = rules.ranks[low : low + 3]
        suits = rng.sample(["♦", "♥", "♠", "♣"], 3)
        pool = [c for c in rules.cards() if c.rank in ranks and c.suit is not None and c.suit.symbol in suits]
        hands.append(rng.sample(pool, 8))
    return hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rules = Rules()
    deck = rules.cards()
    jokers = Rules(jokers=2)
    naturals = [c for c in jokers.cards() if not c.is_joker]
    joker = Card.parse("*")
    cases: list[tuple[str, Callable[[Sequence[Card], Rules], object], list[list[Card]], Rules]] = [
        ("7 cards: best_arrangement", best_arrangement, [rng.sample(deck, 7) for _ in range(args.hands)], rules),
        (
            "8 cards: best_discard (minimum over discards)",
            best_discard,
            [rng.sample(deck, 8) for _ in range(args.hands)],
            rules,
        ),
        ("8 cards: closing_options", closing_options, [rng.sample(deck, 8) for _ in range(args.hands)], rules),
        ("8 cards meld-rich: closing_options", closing_options, rich_hands(rng, rules, args.hands), rules),
        ("8 cards meld-rich: best_discard", best_discard, rich_hands(rng, rules, args.hands), rules),
        (
            "8 cards, 2 jokers: closing_options",
            closing_options,
            [[joker, joker, *rng.sample(naturals, 6)] for _ in range(args.hands)],
            jokers,
        ),
        (
            "7 cards, 2 jokers: best_arrangement",
            best_arrangement,
            [[joker, joker, *rng.sample(naturals, 5)] for _ in range(args.hands)],
            jokers,
        ),
    ]
    print(f"median microseconds per hand over {args.hands} random hands (seed {args.seed})")
    for name, function, hands, case_rules in cases:
        print(f"{name:48} {median_us(function, hands, case_rules):8.2f} us")


if __name__ == "__main__":
    main()
