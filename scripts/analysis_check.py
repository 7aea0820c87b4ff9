"""Does the analysis tell bots of known strength apart? Their matches analysed, cost per decision compared.

Each bot (named by its spec, so that a retuned level does not change the
check) plays seat 0 against ``greedy`` on the same boards: the deck orders
of the arena's boards (:func:`chinchon.arena.board_decks`), two players,
seat 0 first. The records are kept in ``--out`` (a rerun plays only the
missing ones), then every record is analysed at the default budget
(:mod:`chinchon.analysis`) for seat 0, and the script prints, for each
bot, the decisions judged, the points lost per decision, the share rated
``best``, the marks per hundred decisions, and the mean cost in the chance
to win the match where it was at stake.

    python scripts/analysis_check.py --boards 50 --seed 30 --jobs 2 --out /tmp/analysis-check

The bots default to the levels ``easy``, ``medium`` and ``expert`` as they
stood when docs/strength.md was written (``--bots`` to change them).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.analysis import MARKS, Settings, analyse_many
from chinchon.arena import board_decks, parse_lineup
from chinchon.bots import make_bot
from chinchon.match import Match
from chinchon.record import dumps, loads
from chinchon.rules import Rules

BOTS = "simple:noise=0.25,greedy,ismcts:iterations=2400,steps=80000,paired=true"
OPPONENT = "greedy"


def play(spec: str, opponent: str, rules: Rules, seed: int, board: int) -> dict[str, Any]:
    """The record of one match: ``spec`` in seat 0 against ``opponent`` on the board's deck orders."""
    bots = [make_bot(spec), make_bot(opponent)]
    rngs = [random.Random(f"analysis-check:{seed}:{board}:{seat}") for seat in range(2)]
    decks = board_decks(rules, 2, seed, board)
    match = Match(["bot", "opponent"], rules, f"analysis-check:{seed}:{board}", first=0, decks=decks)
    actions = 0
    while not match.over and actions < 20_000:
        seat = match.to_move
        assert seat is not None
        match.apply(bots[seat].choose(match.observation(seat), match.legal_actions(), rngs[seat]))
        actions += 1
    return match.record()


def _play_job(job: tuple[str, str, str, int, int, str]) -> str:
    spec, opponent, preset, seed, board, path = job
    record = play(spec, opponent, Rules.preset(preset), seed, board)
    Path(path).write_text(dumps(record), encoding="utf-8")
    return path


def _folder(out: Path, spec: str) -> Path:
    return out / spec.replace(":", "_").replace(",", "_").replace("=", "-")


def summary(analyses: list[dict[str, Any]]) -> dict[str, Any]:
    """The bot's figures over its analysed matches (analysis documents)."""
    decisions = [d for a in analyses for d in a["decisions"]]
    costs = [d["cost"] for d in decisions if d["cost"] is not None]
    chances = [d["chance_cost"] for d in decisions if d["chance_cost"] is not None]
    marks = {mark: sum(1 for d in decisions if d["mark"] == mark) for mark in MARKS}
    count = len(decisions)
    return {
        "matches": len(analyses),
        "decisions": count,
        "mean_cost": sum(costs) / len(costs) if costs else 0.0,
        "best_share": marks["best"] / count if count else 0.0,
        "marks": marks,
        "per_100": {mark: 100 * n / count if count else 0.0 for mark, n in marks.items() if mark != "best"},
        "mean_chance_cost": sum(chances) / len(chances) if chances else 0.0,
        "won": sum(1 for a in analyses if a["winner"] == 0),
    }


def analysed(folder: Path, boards: int, settings: Settings, jobs: int) -> tuple[list[dict[str, Any]], float]:
    """The analysis documents of a bot's records, those missing made (and kept beside them); the seconds taken."""
    missing = [board for board in range(boards) if not (folder / f"{board}.analysis.json").exists()]
    started = time.perf_counter()
    if missing:
        records = [loads((folder / f"{board}.json").read_text("utf-8")) for board in missing]
        for board, analysis in zip(missing, analyse_many(records, 0, settings, jobs=jobs), strict=True):
            (folder / f"{board}.analysis.json").write_text(json.dumps(analysis.to_dict()), encoding="utf-8")
    elapsed = time.perf_counter() - started
    return [json.loads((folder / f"{b}.analysis.json").read_text("utf-8")) for b in range(boards)], elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", default=BOTS, help="the bots to check, comma-separated (default: %(default)s)")
    parser.add_argument("--opponent", default=OPPONENT)
    parser.add_argument("--rules", default="fournier")
    parser.add_argument("--boards", type=int, default=50)
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--playouts", type=int, default=None, help="the analysis budget (default: the analysis's)")
    parser.add_argument("--out", type=Path, required=True, help="where the records and the figures are kept")
    parser.add_argument("--play-only", action="store_true", help="play the missing records, analyse nothing")
    parser.add_argument("--no-play", action="store_true", help="analyse the records there are, play none")
    args = parser.parse_args(argv)
    specs = parse_lineup(args.bots)
    jobs = []
    for spec in specs:
        folder = _folder(args.out, spec)
        folder.mkdir(parents=True, exist_ok=True)
        for board in range(args.boards):
            path = folder / f"{board}.json"
            if not path.exists() and not args.no_play:
                jobs.append((spec, args.opponent, args.rules, args.seed, board, str(path)))
    started = time.perf_counter()
    if jobs:
        with ProcessPoolExecutor(args.jobs) as pool:
            for done, written in enumerate(pool.map(_play_job, jobs), 1):
                print(f"played {done}/{len(jobs)}: {written}", file=sys.stderr)
    print(f"played in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    if args.play_only:
        return 0
    settings = Settings() if args.playouts is None else Settings(playouts=args.playouts)
    results: dict[str, Any] = {}
    for spec in specs:
        documents, elapsed = analysed(_folder(args.out, spec), args.boards, settings, args.jobs)
        results[spec] = {**summary(documents), "analysis_seconds": elapsed}
        print(f"analysed {spec} in {elapsed:.0f} s", file=sys.stderr)
    (args.out / "figures.json").write_text(json.dumps(results, indent=2), encoding="utf-8")
    header = ("bot", "decisions", "points/decision", "best", "inacc.", "mist.", "blund.", "chance")
    print("{:<50} {:>9} {:>15} {:>6} {:>6} {:>6} {:>6} {:>7}".format(*header))
    for spec, r in results.items():
        per = r["per_100"]
        print(
            f"{spec:<50} {r['decisions']:>9} {r['mean_cost']:>15.3f} {100 * r['best_share']:>5.1f}% "
            f"{per['inaccuracy']:>6.1f} {per['mistake']:>6.1f} {per['blunder']:>6.1f} "
            f"{100 * r['mean_chance_cost']:>6.2f}%"
        )
    print("marks per 100 decisions; chance: mean cost in the chance to win the match where at stake")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
