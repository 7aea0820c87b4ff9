"""How good are a bot's departures from ``greedy``? Judged with the true hidden cards.

The bot plays single deals against ``--opponent`` (two players,
``fournier``, the first seat alternating). At each of its discard decisions
where its move differs from the one ``greedy`` would make, both moves are
played on ``--continuations`` times from the true deal, the stock shuffled
again each time (the same orders for both moves), with ``greedy`` for the bot's
seat and the opponent for the other. The gain of a departure is how many
points better the bot's move left it against the opponent than ``greedy``'s
move, averaged over the continuations. The script prints how often the bot
departs and the mean gain of a departure and of a decision, with 95% intervals
over departures. Results are the same for a seed whatever ``--jobs`` is
(budgets by iterations, not seconds).

    python scripts/departure_study.py --bot "ismcts:iterations=600,paired=true" --deals 360 --seed 2
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.actions import Action, Close, Discard
from chinchon.bots import Bot, make_bot
from chinchon.deal import Deal
from chinchon.observation import Phase
from chinchon.processes import worker_pool
from chinchon.rules import Rules

RULES = Rules.preset("fournier")


@dataclass(frozen=True)
class Job:
    bot: str
    opponent: str
    seed: int
    deals: range
    continuations: int


@dataclass
class Tally:
    decisions: int
    gains: list[float]


def _finish(deal: Deal, bots: list[Bot], rng: random.Random) -> float:
    """Plays the deal to its end; the opponent's points less the bot's (seat 0)."""
    rngs = [random.Random(rng.random()), random.Random(rng.random())]
    while deal.phase is not Phase.OVER:
        seat = deal.to_move
        assert seat is not None
        deal.apply(bots[seat].choose(deal.observation(seat), deal.legal_actions(), rngs[seat]))
    assert deal.result is not None
    points = deal.result.points
    return float(points[1] - points[0])


def _gain(deal: Deal, moves: tuple[Action, Action], bots: list[Bot], job: Job, key: int) -> float:
    total = 0.0
    for j in range(job.continuations):
        values = []
        for move in moves:
            world = deal.copy(history=False)
            world.shuffle_stock(random.Random(f"{job.seed}-{key}-{j}"))
            world.apply(move)
            values.append(_finish(world, bots, random.Random(f"{job.seed}-{key}-{j}-play")))
        total += values[0] - values[1]
    return total / job.continuations


def _run(job: Job) -> Tally:
    bot, opponent, greedy = make_bot(job.bot), make_bot(job.opponent), make_bot("greedy")
    judges = [greedy, opponent]
    tally = Tally(0, [])
    for k in job.deals:
        deal = Deal.new(RULES, players=2, first=k % 2, rng=random.Random(f"{job.seed}-deal-{k}"))
        rngs = [random.Random(f"{job.seed}-bot-{k}"), random.Random(f"{job.seed}-opponent-{k}")]
        while deal.phase is not Phase.OVER:
            seat = deal.to_move
            assert seat is not None
            observation, legal = deal.observation(seat), deal.legal_actions()
            if seat == 1:
                deal.apply(opponent.choose(observation, legal, rngs[1]))
                continue
            move = bot.choose(observation, legal, rngs[0])
            if len(legal) > 1 and any(isinstance(a, Discard | Close) for a in legal):
                tally.decisions += 1
                usual = greedy.choose(observation, legal, rngs[0])
                if move != usual:
                    tally.gains.append(_gain(deal, (move, usual), judges, job, k * 1000 + tally.decisions))
            deal.apply(move)
    return tally


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bot", default="ismcts:iterations=600,paired=true")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--deals", type=int, default=360)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--continuations", type=int, default=40)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    chunk = 10
    jobs = [
        Job(args.bot, args.opponent, args.seed, range(start, min(start + chunk, args.deals)), args.continuations)
        for start in range(0, args.deals, chunk)
    ]
    if args.jobs > 1:
        with worker_pool(args.jobs) as pool:
            tallies = list(pool.map(_run, jobs))
    else:
        tallies = [_run(job) for job in jobs]
    decisions = sum(t.decisions for t in tallies)
    gains = [g for t in tallies for g in t.gains]
    n = len(gains)
    mean = sum(gains) / n if n else 0.0
    half = 1.96 * math.sqrt(sum((g - mean) ** 2 for g in gains) / (n - 1) / n) if n > 1 else math.nan
    print(
        f"{args.bot} against {args.opponent}, {args.deals} deals, seed {args.seed}: {decisions} decisions, "
        f"{n} departures from greedy ({n / max(1, decisions):.1%}); "
        f"gain per departure {mean:+.2f} ± {half:.2f} points, per decision {mean * n / max(1, decisions):+.3f} "
        f"± {half * n / max(1, decisions):.3f}; {time.perf_counter() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
