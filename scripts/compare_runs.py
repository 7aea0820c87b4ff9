"""Did a bot win more matches in one arena run than in another, on the same boards?

Duplicate matches replay the same deck orders, so two arena runs with the
same seed, rules and player count deal the same boards, and a change to one
bot changes the winner of only some matches. Comparing the two win rates'
intervals ignores that pairing and is far too wide; this script counts the
matches (same board, same seating) that the bot won in one run and not in the
other, each way, and gives the exact two-sided sign test (McNemar's) of
those changes. The bot compared is the one in lineup position ``--position``
(0: the first of ``--bots``) in both runs; a match counts as won as the arena
counts it.

    python scripts/compare_runs.py base.json variant.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Key = tuple[int, int]


class ComparisonError(ValueError):
    """The two reports cannot be compared match by match."""


@dataclass(frozen=True)
class Comparison:
    """The matches played in both runs, the bot's wins in each, and the matches where its result changed.

    A match counts as won as the arena counts it: the bot is among its
    winners (a bot that fails hands the match to the others; an unfinished
    match has no winner). ``unpaired`` gives, for each run, its matches with
    no match on the same board and seating in the other run; ``lineups``
    whether the other bots of the lineup are the same in both.
    """

    matches: int
    first_wins: int
    second_wins: int
    gained: int
    lost: int
    unpaired: tuple[int, int] = (0, 0)
    lineups: bool = True

    @property
    def changed(self) -> int:
        """The matches the bot won in one run and not in the other."""
        return self.gained + self.lost

    @property
    def p_value(self) -> float:
        """The exact two-sided sign test of the changes (1.0 when nothing changed)."""
        return sign_test(self.gained, self.lost)


def sign_test(up: int, down: int) -> float:
    """Two-sided exact binomial test that ``up`` and ``down`` are equally likely."""
    n = up + down
    if n == 0:
        return 1.0
    low = min(up, down)
    tail = sum(math.comb(n, k) for k in range(low + 1)) / (1 << n)
    return min(1.0, 2 * tail)


def _wins(report: Mapping[str, Any], position: int) -> dict[Key, tuple[bool, str]]:
    outcomes = report.get("outcomes")
    if not isinstance(outcomes, list):
        raise ComparisonError("a report without outcomes: write it with chinchon arena --output FILE")
    if not 0 <= position < len(report["bots"]):
        raise ComparisonError(f"no bot in position {position}: the run has {len(report['bots'])}")
    out: dict[Key, tuple[bool, str]] = {}
    for outcome in outcomes:
        won = any(outcome["seating"][seat] == position for seat in outcome["winners"])
        first_deck = outcome["decks"][0] if outcome.get("decks") else ""
        out[(outcome["board"], outcome["rotation"])] = (won, first_deck)
    return out


def compare(first: Mapping[str, Any], second: Mapping[str, Any], position: int = 0) -> Comparison:
    """The bot in ``position``'s matches in two reports, paired by board and seating.

    Raises:
        ComparisonError: the runs do not deal the same boards (seed, rules, players, mode, seatings,
            the cap on actions or the deck orders differ).
    """
    for name in ("seed", "players", "mode", "seatings", "max_actions"):
        if first.get(name) != second.get(name):
            raise ComparisonError(f"the runs differ in {name}: {first.get(name)!r} and {second.get(name)!r}")
    rules = [report.get("rules", {}).get("options") for report in (first, second)]
    if rules[0] != rules[1]:
        raise ComparisonError("the runs differ in their rules")
    a, b = _wins(first, position), _wins(second, position)
    keys = sorted(set(a) & set(b))
    for key in keys:
        if a[key][1] != b[key][1]:
            raise ComparisonError(f"board {key[0]} was dealt differently in the two runs")
    others = [[label for i, label in enumerate(report["bots"]) if i != position] for report in (first, second)]
    return Comparison(
        matches=len(keys),
        first_wins=sum(a[key][0] for key in keys),
        second_wins=sum(b[key][0] for key in keys),
        gained=sum(1 for key in keys if b[key][0] and not a[key][0]),
        lost=sum(1 for key in keys if a[key][0] and not b[key][0]),
        unpaired=(len(a) - len(keys), len(b) - len(keys)),
        lineups=others[0] == others[1],
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path, help="the first run's report (chinchon arena --output FILE)")
    parser.add_argument("second", type=Path, help="the second run's report")
    parser.add_argument("--position", type=int, default=0, help="the bot's place in --bots (default 0)")
    args = parser.parse_args(argv)
    try:
        reports = [json.loads(path.read_text(encoding="utf-8")) for path in (args.first, args.second)]
        result = compare(reports[0], reports[1], args.position)
    except (OSError, ValueError, KeyError, TypeError) as error:
        print(f"compare_runs: {error}", file=sys.stderr)
        return 2
    names = [report["bots"][args.position] for report in reports]
    print(f"{result.matches} matches in both runs (same board and seating)")
    if any(result.unpaired):
        print(f"left out, with no match on the same board and seating: {result.unpaired[0]} and {result.unpaired[1]}")
    if not result.lineups:
        print("note: the other bots of the lineup differ between the runs")
    print(f"{names[0]} won {result.first_wins} in the first, {names[1]} {result.second_wins} in the second")
    print(
        f"its result changed in {result.changed}: {result.gained} won only in the second run, "
        f"{result.lost} only in the first; sign test p = {result.p_value:.3g}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
