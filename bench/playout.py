"""Random-play throughput through the public API.

Each player closes when it can (the first ``Close`` among the legal actions)
and otherwise draws and discards at random. Prints hands per second for two
and four players, and whole matches per second.

Run: ``python bench/playout.py [--seconds S] [--seed N]``.
"""

from __future__ import annotations

import argparse
import random
import time

from chinchon import Rules
from chinchon.actions import Close
from chinchon.game import Deal, Match, Phase


def play_hand(rules: Rules, players: int, rng: random.Random) -> int:
    """Play one hand to its end; the number of actions."""
    deal = Deal.new(rules, players, rng=rng)
    actions = 0
    while deal.phase is not Phase.OVER:
        legal = deal.legal_actions()
        last = legal[-1]
        deal.apply(last if isinstance(last, Close) else rng.choice(legal))
        if deal.phase is Phase.SHOWDOWN:
            deal.resolve_showdown()
        actions += 1
    return actions


def play_match(rules: Rules, players: int, rng: random.Random, seed: int) -> int:
    match = Match(players, rules, seed=seed)
    actions = 0
    while not match.over:
        legal = match.legal_actions()
        last = legal[-1]
        match.apply(last if isinstance(last, Close) else rng.choice(legal))
        actions += 1
    return actions


def rate(name: str, seconds: float, run: object) -> float:
    assert callable(run)
    count = actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions += run()
        count += 1
    elapsed = time.perf_counter() - start
    print(f"{name:36} {count / elapsed:10.1f} /s   ({actions / count:.0f} actions each, {count} in {elapsed:.1f} s)")
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rules = Rules()
    rng = random.Random(args.seed)
    seeds = iter(range(10**9))
    rate("2-player hands (fournier)", args.seconds, lambda: play_hand(rules, 2, rng))
    rate("4-player hands (fournier)", args.seconds, lambda: play_hand(rules, 4, rng))
    rate("2-player matches (fournier)", args.seconds, lambda: play_match(rules, 2, rng, next(seeds)))


if __name__ == "__main__":
    main()
