"""Compute the match-equity table the search bots score their playouts by (``chinchon/bots/equity.json``).

A two-player ``fournier`` match is won by the seat that does not pass 100
points. The table gives the chance that a seat wins from any pair of
totals (its own, the other's), if every later deal's points come from the
same distribution as the single deals of ``--boards`` boards of ``greedy`` against
``greedy`` (each board dealt once with each seat starting; the points
taken from both seats' sides). The chances solve the match's recursion by
value iteration (numpy, the ``train`` extra): a seat past the limit loses,
both past it the lower total wins, and a tie is an even chance.

    python scripts/match_equity.py --boards 5000 --seed 1 --jobs 2 --out chinchon/bots/equity.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from chinchon.bots import make_bot
from chinchon.game import Deal, Phase
from chinchon.rules import Rules

RULES = Rules.preset("fournier")
#: The lowest total the table holds; lower totals count as this one.
LOW = -40
#: A deal still going after this many actions is left out (and counted).
MOST_ACTIONS = 600


def play_deals(seed: int, boards: range) -> tuple[list[tuple[int, int]], int]:
    """The points (seat 0's, seat 1's) of each board's deal in both seatings, and how many did not finish."""
    bots = [make_bot("greedy"), make_bot("greedy")]
    out: list[tuple[int, int]] = []
    unfinished = 0
    for board in boards:
        deck = list(RULES.cards())
        random.Random(f"{seed}-{board}").shuffle(deck)
        for first in range(2):
            deal = Deal.new(RULES, 2, first=first, deck=list(deck), rng=random.Random(f"r{seed}-{board}"))
            rng = random.Random(f"b{seed}-{board}-{first}")
            while deal.phase is not Phase.OVER and len(deal.history) < MOST_ACTIONS:
                seat = deal.to_move
                assert seat is not None
                deal.apply(bots[seat].choose(deal.observation(seat), deal.legal_actions(), rng))
            if deal.result is None:
                unfinished += 1
            else:
                out.append((deal.result.points[0], deal.result.points[1]))
    return out, unfinished


def equity_table(points: list[tuple[int, int]], limit: int, low: int = LOW) -> tuple[np.ndarray, int]:
    """The chance to win from every pair of totals in ``low..limit``, and the sweeps value iteration took."""
    if not points:
        raise ValueError("no deals to compute the table from")
    counts: Counter[tuple[int, int]] = Counter()
    for a, b in points:
        counts[a, b] += 1
        counts[b, a] += 1
    total = sum(counts.values())
    totals = np.arange(low, limit + 1)
    mine, other = np.meshgrid(totals, totals, indexing="ij")
    steps = []
    for (a, b), count in counts.items():
        new_mine, new_other = mine + a, other + b
        mine_out, other_out = new_mine > limit, new_other > limit
        both = np.where(new_mine < new_other, 1.0, np.where(new_mine > new_other, 0.0, 0.5))
        ended = np.where(mine_out & other_out, both, np.where(mine_out, 0.0, 1.0))
        going = ~(mine_out | other_out)
        rows = np.clip(new_mine, low, limit) - low
        cols = np.clip(new_other, low, limit) - low
        steps.append((count / total, going, ended, rows, cols))
    table = np.full(mine.shape, 0.5)
    for sweep in range(1, 1001):
        new = np.zeros_like(table)
        for share, going, ended, rows, cols in steps:
            new += share * np.where(going, table[rows, cols], ended)
        change = float(np.abs(new - table).max())
        table = new
        if change < 1e-9:
            return table, sweep
    raise RuntimeError("value iteration did not converge in 1000 sweeps")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--boards", type=int, default=5000, help="boards to play, each in both seatings")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    if args.boards < 1 or args.jobs < 1:
        parser.error("--boards and --jobs must be at least 1")
    started = time.perf_counter()
    parts = [range(start, min(args.boards, start + 250)) for start in range(0, args.boards, 250)]
    points: list[tuple[int, int]] = []
    unfinished = 0
    with ProcessPoolExecutor(args.jobs) as pool:
        for part_points, part_unfinished in pool.map(play_deals, [args.seed] * len(parts), parts):
            points.extend(part_points)
            unfinished += part_unfinished
    table, sweeps = equity_table(points, RULES.limit)
    data: dict[str, Any] = {
        "format": "chinchon-match-equity",
        "version": 1,
        "rules": "fournier",
        "limit": RULES.limit,
        "low": LOW,
        "deals": len(points),
        "unfinished": unfinished,
        "seed": args.seed,
        "equity": [[round(float(value), 4) for value in row] for row in table],
    }
    args.out.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    print(
        f"{len(points)} deals ({unfinished} unfinished), {sweeps} sweeps, {time.perf_counter() - started:.0f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
