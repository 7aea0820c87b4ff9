"""Where can a bot gain on ``simple``? Playouts that judge one kind of ``greedy``'s decisions.

Plays ``greedy`` against ``simple`` for single deals (two players,
``fournier``, every board in both seatings). At each of ``greedy``'s
decisions of one kind (``close``: close now or wait a turn; ``draw``: stock
or discard pile; ``discard``: its best three discards) it plays each option
on, ``--playouts`` times, with ``simple``'s policy for both seats, in deals
whose hidden cards are:

- ``hand``: the true deal with only the stock shuffled again (the opponent's
  hand known: a ceiling no fair bot can reach);
- ``uniform``: :meth:`Deal.sample`, the hidden cards dealt at random;
- ``shaped``: :func:`chinchon.bots.playout.sample_deal`.

With ``--follow study`` the best option is played, and the script prints the
points ``simple`` lost per deal more than ``greedy`` (positive: ``greedy`` is
ahead). With ``--follow greedy`` ``greedy``'s own choice is played and the
script prints, for groups of positions that look alike to the bot, the mean
gain of the other option: averaged over positions, the playouts that know the
hand measure what the option is worth to a bot that does not.

    python scripts/decision_study.py --decision close --knowledge hand --boards 1600 --seed 7
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.actions import Action, Close, Discard, Draw
from chinchon.bots import make_bot
from chinchon.bots.greedy import GreedyBot, clean_close_outs, unseen_cards
from chinchon.bots.playout import sample_deal
from chinchon.deal import Deal
from chinchon.melds import best_arrangement
from chinchon.observation import Observation
from chinchon.processes import worker_pool
from chinchon.rules import Rules

RULES = Rules.preset("fournier")
SIMPLE = make_bot("simple")


@dataclass(frozen=True)
class Job:
    decision: str
    knowledge: str
    follow: str
    playouts: int
    seed: str
    boards: int


def _finish(deal: Deal, seat: int, option: Action, rng: random.Random) -> float:
    """Play the option, then ``simple`` for every seat; the other's points less the seat's."""
    deal.apply(option)
    steps = 0
    while deal.result is None and steps < 400:
        mover = deal.to_move
        assert mover is not None
        deal.apply(SIMPLE.choose(deal.observation(mover), deal.legal_actions(), rng))
        steps += 1
    if deal.result is None:
        return 0.0
    return float(deal.result.points[1 - seat] - deal.result.points[seat])


def _world(deal: Deal, observation: Observation, knowledge: str, rng: random.Random) -> Deal:
    if knowledge == "hand":
        world = deal.copy(history=False)
        world.shuffle_stock(rng)
        return world
    if knowledge == "uniform":
        return Deal.sample(observation, rng)
    return sample_deal(observation, rng)


def _values(deal: Deal, observation: Observation, options: list[Action], job: Job, rng: random.Random) -> list[float]:
    """Each option's mean over the same sampled deals."""
    totals = [0.0] * len(options)
    for _ in range(job.playouts):
        world = _world(deal, observation, job.knowledge, rng)
        for i, option in enumerate(options):
            totals[i] += _finish(world.copy(history=False), observation.seat, option, rng)
    return [total / job.playouts for total in totals]


def _options(
    decision: str, bot: GreedyBot, observation: Observation, legal: list[Action], chosen: Action, rng: random.Random
) -> tuple[list[Action], tuple[str, ...]] | None:
    """The options to judge (close then wait; stock then discard pile; the bot's discard then its next two),
    with the features the decision is grouped by."""
    rules = observation.rules
    if decision == "close":
        closes = [a for a in legal if isinstance(a, Close)]
        if not closes:
            return None
        discards = [a for a in legal if not isinstance(a, Close)]
        wait = bot.choose(observation, discards, rng) if isinstance(chosen, Close) else chosen
        close = (
            chosen if isinstance(chosen, Close) else bot._choose_close(observation, closes, unseen_cards(observation))
        )
        assert isinstance(wait, Discard) and close is not None
        rest = list(observation.hand)
        rest.remove(wait.card)
        outs = clean_close_outs(rest, rules, unseen_cards(observation))
        points = best_arrangement(rest, rules).points
        if points == 0:
            return None
        return [close, wait], (
            f"clean-close outs {min(outs, 4)}{'+' if outs >= 4 else ''}",
            f"turn {observation.turn // 4 * 4:2d}+",
        )
    if decision == "draw":
        if not isinstance(chosen, Draw) or Draw("discard") not in legal or Draw("stock") not in legal:
            return None
        top = observation.top_discard
        assert top is not None
        joins = any(top in meld for meld in best_arrangement([*observation.hand, top], rules).melds)
        return [Draw("stock"), Draw("discard")], (f"joins a meld: {joins}", f"turn {observation.turn // 6 * 6:2d}+")
    if decision == "discard":
        if not isinstance(chosen, Discard):
            return None
        candidates = [a for a in legal if isinstance(a, Discard)]
        ranked = [a for a in bot.ranked_discards(observation, candidates)[:3] if a != chosen]
        return [chosen, *ranked[:2]], (f"turn {observation.turn // 6 * 6:2d}+",)
    raise ValueError(decision)


Group = tuple[tuple[str, ...], float, bool]


def _run(job: Job) -> tuple[list[float], list[Group]]:
    rng = random.Random(job.seed)
    differences: list[float] = []
    groups: list[Group] = []
    for board in range(job.boards):
        deck = list(RULES.cards())
        random.Random(f"{job.seed}-{board}").shuffle(deck)
        for seating in range(2):
            studied = seating
            bots = [make_bot("greedy"), make_bot("simple")]
            if seating:
                bots.reverse()
            rngs = [random.Random(f"{job.seed}-{board}-{seating}-{seat}") for seat in range(2)]
            deal = Deal.new(RULES, 2, first=0, deck=list(deck), rng=random.Random(f"r{job.seed}-{board}"))
            while deal.result is None:
                seat = deal.to_move
                assert seat is not None
                legal = deal.legal_actions()
                observation = deal.observation(seat)
                action = bots[seat].choose(observation, legal, rngs[seat])
                if seat == studied:
                    bot = bots[seat]
                    assert isinstance(bot, GreedyBot)
                    found = _options(job.decision, bot, observation, legal, action, rngs[seat])
                    if found is not None:
                        options, features = found
                        values = _values(deal, observation, options, job, rng)
                        best = max(range(len(options)), key=lambda i: values[i])
                        if job.follow == "study":
                            action = options[best]
                        elif job.decision == "discard":
                            groups.append((features, max(values[1:]) - values[0], False))
                        else:
                            groups.append((features, values[1] - values[0], action == options[1]))
                deal.apply(action)
            result = deal.result
            differences.append(float(result.points[1 - studied] - result.points[studied]))
    return differences, groups


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decision", choices=("close", "draw", "discard"), default="close")
    parser.add_argument("--knowledge", choices=("hand", "uniform", "shaped"), default="hand")
    parser.add_argument("--follow", choices=("study", "greedy"), default="study")
    parser.add_argument(
        "--boards", type=int, default=400, help="boards, each played in both seatings (a multiple of 8)"
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--playouts", type=int, default=16)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.boards < 8 or args.boards % 8:
        parser.error(f"--boards must be a positive multiple of 8 (the boards are split in 8 parts), not {args.boards}")
    for option in ("playouts", "jobs"):
        if getattr(args, option) < 1:
            parser.error(f"--{option} must be at least 1, not {getattr(args, option)}")
    started = time.time()
    jobs = [
        Job(args.decision, args.knowledge, args.follow, args.playouts, f"{args.seed}:{k}", args.boards // 8)
        for k in range(8)
    ]
    differences: list[float] = []
    groups: list[Group] = []
    with worker_pool(args.jobs) as pool:
        for part, found in pool.map(_run, jobs):
            differences.extend(part)
            groups.extend(found)
    n = len(differences)
    mean = statistics.fmean(differences)
    half = 1.96 * statistics.pstdev(differences) / n**0.5
    print(
        f"{args.decision} decisions judged with knowledge={args.knowledge}, follow={args.follow}, "
        f"{args.playouts} playouts: {n} deals, simple's points less greedy's {mean:+.2f} ± {half:.2f} "
        f"({time.time() - started:.0f} s)"
    )
    if args.follow == "greedy" and groups:
        gain = {
            "close": "the mean gain of waiting over closing now, and how often greedy waits",
            "draw": "the mean gain of taking the discard over drawing from the stock, and how often greedy takes it",
            "discard": "the mean gain of the better of greedy's next two discards over its choice",
        }[args.decision]
        print(f"{len(groups)} decisions; by group, {gain}:")
        for position in range(len(groups[0][0])):
            _print_groups(groups, position)


def _print_groups(groups: list[Group], position: int) -> None:
    table: dict[str, list[Group]] = defaultdict(list)
    for group in groups:
        table[group[0][position]].append(group)
    for name in sorted(table):
        rows = table[name]
        gain = statistics.fmean(row[1] for row in rows)
        share = sum(row[2] for row in rows) / len(rows)
        print(f"  {name}: {len(rows)} decisions, {gain:+.2f}, greedy {share:.0%}")


if __name__ == "__main__":
    main()
