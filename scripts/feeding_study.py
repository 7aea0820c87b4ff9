"""Where a bot's points against ``simple`` go: the race, the catch, and the discards that feed.

Plays ``--bot`` against ``simple`` for single deals (two players,
``fournier``, every board in both seatings) and prints:

- how the deals end: how often each closes, the points of a close, and what
  the other pays when caught, before and after its lay-offs;
- ``simple``'s chance to close on its turn, by the value of its own last
  discard and by whether it drew the bot's discard (it takes a discard only
  when the card joins a meld);
- how many of the bot's discards ``simple`` could take, and how well an
  estimate from the bot's observation alone tells those cards from the
  others (:func:`meld_chance`; the area under its ROC curve over every card
  the bot could have thrown: 0.5 is blind, 1 perfect).

With ``--oracle N`` the bot's discard is replaced, whenever ``simple`` could
take it, by the first of the bot's next ``N - 1`` choices that it could not:
the hidden cards are used, so this is a ceiling for avoiding feeds, not a bot.

    python scripts/feeding_study.py --boards 1000 --seed 5
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.actions import Action, Close, Discard, Draw
from chinchon.bots import make_bot
from chinchon.bots.greedy import GreedyBot, meld_chance
from chinchon.cards import Card
from chinchon.deal import Deal
from chinchon.melds import best_arrangement
from chinchon.observation import Observation, Phase
from chinchon.processes import worker_pool
from chinchon.rules import Rules

RULES = Rules.preset("fournier")


def area_under_curve(scores: Sequence[float], labels: Sequence[bool]) -> float:
    """The area under the ROC curve: the chance a random positive scores above a random negative (ties half)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    if not positives or not negatives:
        return float("nan")
    total = sum(rank for rank, label in zip(ranks, labels, strict=True) if label)
    return (total - positives * (positives + 1) / 2) / (positives * negatives)


def _takes(hand: Sequence[Card], card: Card) -> bool:
    """Whether ``simple`` holding ``hand`` would take ``card`` from the discard pile."""
    return any(card in meld for meld in best_arrangement([*hand, card], RULES).melds)


@dataclass(frozen=True)
class Job:
    bot: str
    seed: int
    boards: range
    oracle: int


@dataclass
class Tally:
    deals: int = 0
    differences: list[float] = field(default_factory=list)
    closes: Counter[str] = field(default_factory=Counter)
    close_points: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    caught_before: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    caught_after: defaultdict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    turns: Counter[tuple[int, bool, bool]] = field(default_factory=Counter)
    discards: int = 0
    fed: int = 0
    avoided: int = 0
    scores: list[float] = field(default_factory=list)
    labels: list[bool] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        self.deals += other.deals
        self.differences += other.differences
        self.closes += other.closes
        for mine, theirs in (
            (self.close_points, other.close_points),
            (self.caught_before, other.caught_before),
            (self.caught_after, other.caught_after),
        ):
            for key, values in theirs.items():
                mine[key] += values
        self.turns += other.turns
        self.discards += other.discards
        self.fed += other.fed
        self.avoided += other.avoided
        self.scores += other.scores
        self.labels += other.labels


def _run(job: Job) -> Tally:
    tally = Tally()
    for board in job.boards:
        deck = list(RULES.cards())
        random.Random(f"{job.seed}-{board}").shuffle(deck)
        board_differences = []
        for seating in range(2):
            names = ["bot", "simple"] if seating == 0 else ["simple", "bot"]
            me = names.index("bot")
            bots = [make_bot(job.bot if name == "bot" else "simple") for name in names]
            rngs = [random.Random(f"{job.seed}-{board}-{seating}-{seat}") for seat in range(2)]
            deal = Deal.new(RULES, 2, first=0, deck=list(deck), rng=random.Random(f"r{job.seed}-{board}"))
            last = 0
            pending = (0, False)
            closer: int | None = None
            before = 0
            while deal.phase is not Phase.OVER:
                seat = deal.to_move
                assert seat is not None
                observation = deal.observation(seat)
                legal = deal.legal_actions()
                action: Action = bots[seat].choose(observation, legal, rngs[seat])
                if seat != me and isinstance(action, Draw):
                    fed = action.source == "discard" and bool(observation.discards)
                    pending = (last, fed and observation.discards[-1][0] == me)
                if seat == me and isinstance(action, Discard):
                    action = _judge_discard(tally, job, bots[me], observation, legal, action, deal.hand(1 - me))
                if isinstance(action, Close) and closer is None:
                    closer = seat
                    before = best_arrangement(deal.hand(1 - seat), RULES).points
                if seat != me and isinstance(action, (Discard, Close)):
                    tally.turns[(*pending, isinstance(action, Close))] += 1
                if seat != me and isinstance(action, Discard):
                    last = RULES.value(action.card)
                deal.apply(action)
            result = deal.result
            assert result is not None
            tally.deals += 1
            board_differences.append(float(result.points[1 - me] - result.points[me]))
            if closer is not None:
                name, other = names[closer], names[1 - closer]
                tally.closes[name] += 1
                tally.close_points[name].append(result.points[closer])
                tally.caught_before[other].append(before)
                tally.caught_after[other].append(result.points[1 - closer])
        # The two seatings of a board share its cards: their mean is one observation.
        tally.differences.append(statistics.fmean(board_differences))
    return tally


def _judge_discard(
    tally: Tally,
    job: Job,
    bot: object,
    observation: Observation,
    legal: Sequence[Action],
    action: Discard,
    opponent: Sequence[Card],
) -> Discard:
    """Counts the bot's discard, scores every card it could throw, and (``--oracle``) replaces a feeding discard."""
    tally.discards += 1
    for card in sorted(set(observation.hand)):
        tally.scores.append(meld_chance(observation, card))
        tally.labels.append(_takes(opponent, card))
    if not _takes(opponent, action.card):
        return action
    tally.fed += 1
    if job.oracle > 1 and isinstance(bot, GreedyBot):
        ranked = bot.ranked_discards(observation, [a for a in legal if isinstance(a, Discard)])
        for other in ranked[: job.oracle]:
            if other != action and not _takes(opponent, other.card):
                tally.avoided += 1
                return other
    return action


def _mean(values: Sequence[float]) -> str:
    return f"{statistics.fmean(values):5.2f}" if values else "  -  "


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bot", default="greedy", help="the bot studied (a greedy bot for --oracle)")
    parser.add_argument("--boards", type=int, default=400, help="boards, each played in both seatings")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--oracle", type=int, default=0, help="replace feeding discards by the best of the top N")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.boards < 1 or args.jobs < 1:
        parser.error("--boards and --jobs must be at least 1")
    if args.oracle and not isinstance(make_bot(args.bot), GreedyBot):
        parser.error("--oracle needs a greedy bot, whose ranked discards it replaces from")
    started = time.time()
    jobs = [Job(args.bot, args.seed, range(k, args.boards, 8), args.oracle) for k in range(8)]
    if args.jobs == 1:
        parts = [_run(job) for job in jobs]
    else:
        with worker_pool(args.jobs) as pool:
            parts = list(pool.map(_run, jobs))
    tally = Tally()
    for part in parts:
        tally.add(part)
    n = tally.deals
    boards = len(tally.differences)
    mean = statistics.fmean(tally.differences)
    half = 1.96 * statistics.stdev(tally.differences) / boards**0.5 if boards > 1 else math.inf
    oracle = f", feeding discards replaced from the top {args.oracle}" if args.oracle > 1 else ""
    print(f"{args.bot} against simple{oracle}: {n} deals ({time.time() - started:.0f} s)")
    print(f"simple's points less the bot's: {mean:+.2f} ± {half:.2f} a deal (95% interval over the {boards} boards)")
    print("how the deals end (points a deal; lower is better):")
    for name in ("bot", "simple"):
        caught = "simple" if name == "bot" else "bot"
        print(
            f"  {name} closes {tally.closes[name] / n:6.1%}, scoring {_mean(tally.close_points[name])}; "
            f"{caught} then pays {_mean(tally.caught_after[caught])} "
            f"({_mean(tally.caught_before[caught])} before its lay-offs)"
        )
    print("simple's chance to close on its turn, by its last discard's value, as it took the bot's discard or not:")
    for value in sorted({key[0] for key in tally.turns}):
        cells = []
        for took in (False, True):
            turns = tally.turns[(value, took, False)] + tally.turns[(value, took, True)]
            closes = tally.turns[(value, took, True)]
            source = "taken" if took else "not taken"
            cells.append(f"{source} {closes / turns:5.1%} of {turns:4d}" if turns else f"{source}    -")
        name = f"worth {value:2d}" if value else "none yet"
        print(f"  last discard {name}: " + "; ".join(cells))
    print(
        f"the bot's discards simple could take: {tally.fed} of {tally.discards} "
        f"({tally.fed / max(1, tally.discards):.1%})" + (f"; replaced: {tally.avoided}" if args.oracle > 1 else "")
    )
    print(
        f"meld_chance over every card the bot could throw ({len(tally.labels)}): "
        f"area under the ROC curve {area_under_curve(tally.scores, tally.labels):.3f}"
    )


if __name__ == "__main__":
    main()
