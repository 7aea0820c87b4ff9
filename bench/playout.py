"""Random-play throughput through the public API.

Each player closes when it can (the first ``Close`` among the legal actions)
and otherwise draws and discards at random. Prints hands per second for two
and four players, and whole matches per second. The loops are those of
:mod:`chinchon.benchmark`, which ``chinchon bench`` and ``bench/peers.py`` use.

The last line, the loop floor, drives the same loop against a deal that does
nothing: the hands per second that CPython's loop and ``random.choice`` allow
before any rule is played.

Run: ``python bench/playout.py [--seconds S] [--seed N]``.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable

from chinchon import Rules
from chinchon.benchmark import RANDOM_HAND_ACTIONS, loop_floor, play_hand, play_match, rate


def report(name: str, seconds: float, run: Callable[[], int]) -> None:
    per_second, actions_per_second, count = rate(seconds, run)
    print(f"{name:36} {per_second:10.1f} /s   ({actions_per_second / per_second:.0f} actions each, {count} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    rules = Rules()
    rng = random.Random(args.seed)
    seeds = iter(range(10**9))
    report("2-player hands (fournier)", args.seconds, lambda: play_hand(rules, 2, rng))
    report("4-player hands (fournier)", args.seconds, lambda: play_hand(rules, 4, rng))
    report("2-player matches (fournier)", args.seconds, lambda: play_match(rules, 2, rng, next(seeds)))
    report(f"loop floor ({RANDOM_HAND_ACTIONS} actions, no engine)", args.seconds, lambda: loop_floor(rng))


if __name__ == "__main__":
    main()
