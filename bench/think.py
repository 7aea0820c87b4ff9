"""How long a bot thinks: seconds per decision, over seeded matches.

The bot takes seat 0 of ``--matches`` matches (``fournier``) against
``--opponent`` in the other seats. Every decision with more than one legal
action is timed (wall clock, ``time.perf_counter``); the script prints, for
the discard-or-close decisions and for the rest, how many there were and the
mean, median, 95th percentile and largest time, and for a search bot the mean
numbers of playouts and of simulated moves of a discard decision and, for a
bot with a budget in seconds, how many of those decisions reached it. Run it
on an idle machine: the figures are times, not counts.

Run: ``python bench/think.py --bot "ismcts:iterations=600,steps=20000,seconds=0.5,paired=true" [--players 2]``
``[--matches 6] [--seed 1]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from chinchon.actions import Close, Discard
from chinchon.bots import make_bot
from chinchon.match import Match
from chinchon.rules import Rules


def _row(label: str, times: list[float]) -> str:
    if not times:
        return f"{label:18} none"
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return (
        f"{label:18} {len(times):6} decisions  mean {statistics.fmean(times):.3f} s  "
        f"median {statistics.median(times):.3f} s  95th {p95:.3f} s  max {ordered[-1]:.3f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--bot", default="ismcts:iterations=600,steps=20000,seconds=0.5,paired=true")
    parser.add_argument("--opponent", default="greedy")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--matches", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rules = Rules.preset("fournier")
    discards: list[float] = []
    others: list[float] = []
    playouts: list[int] = []
    steps: list[int] = []
    for k in range(args.matches):
        match = Match(args.players, rules, seed=args.seed * 1000 + k)
        bots = [make_bot(args.bot)] + [make_bot(args.opponent) for _ in range(args.players - 1)]
        rngs = [random.Random(f"{args.seed}-{k}-{seat}") for seat in range(args.players)]
        while not match.over:
            seat = match.to_move
            assert seat is not None
            observation, legal = match.observation(seat), match.legal_actions()
            if seat != 0 or len(legal) == 1:
                match.apply(bots[seat].choose(observation, legal, rngs[seat]))
                continue
            start = time.perf_counter()
            action = bots[0].choose(observation, legal, rngs[0])
            spent = time.perf_counter() - start
            if any(isinstance(a, Discard | Close) for a in legal):
                discards.append(spent)
                playouts.append(getattr(bots[0], "last_iterations", 0))
                steps.append(getattr(bots[0], "last_steps", 0))
            else:
                others.append(spent)
            match.apply(action)
    print(f"{args.bot} against {args.opponent}, {args.players} players, {args.matches} matches, seed {args.seed}")
    print(_row("discard or close", discards))
    print(_row("other decisions", others))
    if any(playouts):
        print(f"{'playouts':18} mean {statistics.fmean(playouts):.0f} a discard decision, max {max(playouts)}")
    if any(steps):
        print(f"{'simulated moves':18} mean {statistics.fmean(steps):.0f} a discard decision, max {max(steps)}")
    seconds = getattr(bots[0], "seconds", 0.0)
    if seconds and discards:
        cut = sum(1 for spent in discards if spent >= seconds)
        print(f"{'time cap':18} {cut} of {len(discards)} discard decisions reached {seconds:g} s")


if __name__ == "__main__":
    main()
