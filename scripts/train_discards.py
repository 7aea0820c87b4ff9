"""Fit the model ``greedy`` uses to choose among its best discards (``chinchon/bots/discards.json``).

Two steps:

``generate`` plays the heuristic (``greedy:learned=false``) against ``simple``
for single deals (two players, ``fournier``, every board in both seatings);
``--player`` and ``--opponent`` name other bots to play them.
At each of its discards (outside a stalled deal) it plays each of the
heuristic's three best discards out to the end of the deal, ``--reps``
times with the stock shuffled again (the same shuffles for every
candidate), both seats going on with their own bots, and writes one JSON
line: the candidates' features (:func:`chinchon.bots.greedy.discard_features`,
from the observation only) and their mean points, ``simple``'s less the
bot's. The playouts know the hidden cards; the model sees only the features,
so what it learns is the mean over the positions that look alike.

``fit`` fits gradient-boosted trees (scikit-learn, the ``train`` extra) to
each candidate's advantage over the mean of its decision, writes them in
the form :class:`chinchon.bots.trees.Trees` reads, and with ``--test`` prints
what choosing by the model gains a decision over the heuristic's favourite
on held-out decisions.

    python scripts/train_discards.py generate --boards 2000 --seed 101 --out train.jsonl
    python scripts/train_discards.py generate --boards 1000 --seed 200 --reps 4 --out test.jsonl
    python scripts/train_discards.py fit train.jsonl --test test.jsonl --out chinchon/bots/discards.json

A model fitted elsewhere plays as ``greedy:model=FILE`` (``ismcts:model=FILE``
for the search anchored to it).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.actions import Discard
from chinchon.bots import Bot, BotError, make_bot
from chinchon.bots.greedy import (
    FEATURES,
    LEARNED_WIDTH,
    GreedyBot,
    discard_features,
    draw_outlook,
    stalled,
    unseen_cards,
)
from chinchon.bots.trees import Trees
from chinchon.deal import Deal
from chinchon.observation import Phase
from chinchon.processes import worker_pool
from chinchon.rules import Rules

RULES = Rules.preset("fournier")
#: Actions after which a deal or a playout counts as stalled, and a playout as a draw.
MOST_ACTIONS = 600
PLAYOUT_ACTIONS = 400


@dataclass(frozen=True)
class Job:
    seed: int
    boards: range
    reps: int
    player: str = "greedy:learned=false"
    opponent: str = "simple"


def _playout(deal: Deal, bots: Sequence[Bot], first: Discard, me: int) -> float:
    deal.apply(first)
    rng = random.Random(0)
    for _ in range(PLAYOUT_ACTIONS):
        if deal.phase is Phase.OVER:
            break
        seat = deal.to_move
        assert seat is not None
        deal.apply(bots[seat].choose(deal.observation(seat), deal.legal_actions(), rng))
    result = deal.result
    if result is None:
        return 0.0
    return float(result.points[1 - me] - result.points[me])


def generate(job: Job) -> list[dict[str, Any]]:
    """The labelled decisions of one job's boards."""
    out: list[dict[str, Any]] = []
    heuristic = GreedyBot(learned=False)
    player, opponent = make_bot(job.player), make_bot(job.opponent)
    for board in job.boards:
        deck = list(RULES.cards())
        random.Random(f"{job.seed}-{board}").shuffle(deck)
        for seating in range(2):
            me = seating
            bots: list[Bot] = [player, opponent] if me == 0 else [opponent, player]
            rng = random.Random(0)
            deal = Deal.new(RULES, 2, first=0, deck=list(deck), rng=random.Random(f"r{job.seed}-{board}"))
            decision = 0
            while deal.phase is not Phase.OVER and len(deal.history) < MOST_ACTIONS:
                seat = deal.to_move
                assert seat is not None
                observation = deal.observation(seat)
                legal = deal.legal_actions()
                action = bots[seat].choose(observation, legal, rng)
                if seat == me and isinstance(action, Discard) and not stalled(observation):
                    unseen = unseen_cards(observation)
                    discards = [a for a in legal if isinstance(a, Discard)]
                    head = heuristic.ranked_discards(observation, discards, unseen)[:LEARNED_WIDTH]
                    if len(head) > 1:
                        outlooks = []
                        for candidate in head:
                            rest = list(observation.hand)
                            rest.remove(candidate.card)
                            outlooks.append(draw_outlook(rest, RULES, unseen, heuristic.bonus))
                        rows = discard_features(observation, [a.card for a in head], outlooks, unseen)
                        points = []
                        for candidate in head:
                            total = 0.0
                            for rep in range(job.reps):
                                copy = deal.copy()
                                copy.shuffle_stock(random.Random(f"s{job.seed}-{board}-{seating}-{decision}-{rep}"))
                                total += _playout(copy, bots, candidate, me)
                            points.append(total / job.reps)
                        out.append({"board": board, "seating": seating, "x": rows, "y": points})
                    decision += 1
                deal.apply(action)
    return out


def _load(paths: Sequence[str]) -> tuple[list[list[float]], list[float], list[list[float]]]:
    """Rows, their advantages over their decision's mean, and each decision's points."""
    rows: list[list[float]] = []
    advantages: list[float] = []
    decisions: list[list[float]] = []
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for line in file:
                record = json.loads(line)
                points = [float(y) for y in record["y"]]
                if any(len(x) != len(FEATURES) for x in record["x"]) or len(points) != len(record["x"]):
                    raise SystemExit(f"{path}: a decision whose features are not {len(FEATURES)} a candidate")
                mean = statistics.fmean(points)
                rows += record["x"]
                advantages += [y - mean for y in points]
                decisions.append(points)
    return rows, advantages, decisions


def export(model: Any) -> dict[str, Any]:
    """A fitted ``HistGradientBoostingRegressor`` in the form :class:`Trees` reads."""
    trees = []
    for (predictor,) in model._predictors:
        nodes = predictor.nodes
        trees.append(
            {
                "feature": [-1 if node["is_leaf"] else int(node["feature_idx"]) for node in nodes],
                "threshold": [0.0 if node["is_leaf"] else float(node["num_threshold"]) for node in nodes],
                "left": [int(node["left"]) for node in nodes],
                "right": [int(node["right"]) for node in nodes],
                "value": [float(node["value"]) for node in nodes],
            }
        )
    baseline = float(model._baseline_prediction.ravel()[0])
    return {"features": list(FEATURES), "baseline": baseline, "trees": trees}


def gain(model: Trees, paths: Sequence[str]) -> tuple[float, float, int, int]:
    """What choosing by the model gains a decision over the favourite: mean, 95% half-width, departures, decisions."""
    gains: list[float] = []
    departures = 0
    for path in paths:
        with open(path, encoding="utf-8") as file:
            for line in file:
                record = json.loads(line)
                values = [model.predict(x) for x in record["x"]]
                best = max(range(len(values)), key=values.__getitem__)
                departures += best != 0
                gains.append(record["y"][best] - record["y"][0])
    half = 1.96 * statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("inf")
    return statistics.fmean(gains), half, departures, len(gains)


def fit(train: Sequence[str], depth: int, trees: int) -> dict[str, Any]:
    """Fits the trees to the advantages in the training files; returns the model's JSON form."""
    try:
        from sklearn.ensemble import HistGradientBoostingRegressor
    except ImportError:
        raise SystemExit("fitting needs scikit-learn: pip install -e '.[train]'") from None
    rows, advantages, _ = _load(train)
    if not rows:
        raise SystemExit("no decisions to fit")
    model = HistGradientBoostingRegressor(
        max_depth=depth, max_iter=trees, learning_rate=0.05, l2_regularization=1.0, random_state=0
    )
    model.fit(rows, advantages)
    return export(model)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("generate", help="label decisions by playing the candidates out")
    make.add_argument("--boards", type=int, default=2000)
    make.add_argument("--seed", type=int, default=101)
    make.add_argument("--reps", type=int, default=2, help="playouts of each candidate")
    make.add_argument("--jobs", type=int, default=2)
    make.add_argument("--player", default="greedy:learned=false", help="the bot whose discards are labelled")
    make.add_argument("--opponent", default="simple", help="the bot it plays against")
    make.add_argument("--out", required=True)
    learn = steps.add_parser("fit", help="fit the trees to labelled decisions")
    learn.add_argument("train", nargs="+")
    learn.add_argument("--test", nargs="*", default=[])
    learn.add_argument("--depth", type=int, default=5)
    learn.add_argument("--trees", type=int, default=300, help="at most this many (early stopping may use fewer)")
    learn.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    started = time.time()
    if args.step == "generate":
        if args.boards < 1 or args.jobs < 1 or args.reps < 1:
            parser.error("--boards, --jobs and --reps must be at least 1")
        for spec in (args.player, args.opponent):
            try:
                make_bot(spec)
            except BotError as error:
                parser.error(str(error))
        parts = min(32, args.boards)
        jobs = [
            Job(args.seed, range(k, args.boards, parts), args.reps, args.player, args.opponent) for k in range(parts)
        ]
        count = 0
        with open(args.out, "w", encoding="utf-8") as file:
            if args.jobs == 1:
                results = map(generate, jobs)
                for result in results:
                    count += _write(file, result)
            else:
                with worker_pool(args.jobs) as pool:
                    for result in pool.map(generate, jobs):
                        count += _write(file, result)
        print(f"{count} decisions from {args.boards} boards, seed {args.seed} ({time.time() - started:.0f} s)")
        return
    if args.depth < 1 or args.trees < 1:
        parser.error("--depth and --trees must be at least 1")
    document = fit(args.train, args.depth, args.trees)
    Path(args.out).write_text(json.dumps(document, separators=(",", ":")), encoding="utf-8")
    print(f"{len(document['trees'])} trees written to {args.out} ({time.time() - started:.0f} s)")
    if args.test:
        mean, half, departures, decisions = gain(Trees(document), args.test)
        print(
            f"held out: {mean:+.3f} ± {half:.3f} points a decision over the favourite; {departures} of {decisions} left"
        )


def _write(file: Any, result: list[dict[str, Any]]) -> int:
    for record in result:
        file.write(json.dumps(record) + "\n")
    return len(result)


if __name__ == "__main__":
    main()
