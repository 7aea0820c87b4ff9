"""The levels' ladder, measured: each level against the level below, under each preset, at 2 and 4 players.

Every row is one arena run (``chinchon arena``, duplicate boards, the same
seed for every row): with two players a level against the level below it;
with four, a level against three of the level below (a fair share is 25%).
A row gives the upper level's win rate with its Wilson 95% interval, the
points a hand each side added to its total (lower is better), whether it
makes a step (:func:`band`: 60% to 75% with two players, 33% to 50% with
four; "none" when the interval reaches down to a fair share) and the command
that plays the row again. The output is the Markdown table of
``docs/strength.md``; ``--update`` writes it there, between the lines
``<!-- ladder: begin -->`` and ``<!-- ladder: end -->``.

The two-player ``fournier`` rows, where the levels were tuned, play 150
boards (300 matches) by default, the other two-player rows 100 (200
matches) and the four-player rows 25 (100 matches). Run (hours on two busy
cores)::

    nice -n 10 python bench/ladder.py --jobs 2 --json runs --update docs/strength.md

``--presets``, ``--players`` and ``--pairs`` (the upper levels' names)
measure a part of it; ``--json DIR`` keeps each run's arena report there
(for ``scripts/compare_runs.py``) and reads a run from there instead of
playing it again when one of the same levels, boards and seed is there: an
interrupted ladder resumes. ``--kept-only`` plays nothing: it makes the
table of the runs kept there and lists the rows still to measure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chinchon.arena import ArenaConfig, ArenaReport, run_arena
from chinchon.bots.levels import LADDER, LEVELS
from chinchon.rules import Rules

BEGIN = "<!-- ladder: begin -->"
END = "<!-- ladder: end -->"
ODDS = (1.5, 3.0)
"""How many times as likely as a seat of the level below to win a match a level must be, to make a step.

With two players that is a win rate of 60% to 75%; with four (against three
of the level below, a seat winning in proportion to its odds) 33% to 50%.
"""


def band(players: int) -> tuple[float, float]:
    """The win rates of a level against ``players - 1`` seats of the level below that make a step."""
    low, high = ODDS
    return low / (low + players - 1), high / (high + players - 1)


@dataclass(frozen=True)
class Row:
    """One run of the ladder: the upper level against the lower, its results and its command."""

    preset: str
    players: int
    upper: str
    lower: str
    played: int
    won: int
    rate: float
    interval: tuple[float, float]
    upper_points: float
    lower_points: float
    unfinished: int
    command: str
    seconds: float

    @property
    def verdict(self) -> str:
        """Whether the row makes a step: its win rate in the :func:`band`, or too small or too large a step."""
        low, high = band(self.players)
        if self.rate < low:
            return "too small" if self.interval[0] > 1 / self.players else "**none**"
        return "step" if self.rate <= high else "too large"


def measure(preset: str, players: int, upper: str, lower: str, boards: int, seed: int, jobs: int) -> ArenaReport:
    """The arena run of one row: ``upper`` against one ``lower`` per other seat."""
    config = ArenaConfig(
        bots=(upper, *[lower] * (players - 1)), players=players, boards=boards, rules=preset, seed=seed
    )
    return run_arena(config, jobs=jobs)


def row_of(report: dict[str, Any], preset: str, upper: str, lower: str, jobs: int) -> Row:
    """A row from its arena report (``ArenaReport.to_dict()``); the command adds ``--jobs``, which changes nothing."""
    mine, theirs = report["results"][0], report["results"][1:]
    hands = sum(bot["hands"] for bot in theirs)
    return Row(
        preset=preset,
        players=report["players"],
        upper=upper,
        lower=lower,
        played=mine["played"],
        won=mine["won"],
        rate=mine["win_rate"],
        interval=(mine["interval"][0], mine["interval"][1]),
        upper_points=mine["mean_points"],
        lower_points=sum(bot["points"] for bot in theirs) / hands if hands else 0.0,
        unfinished=report["unfinished"],
        command=shlex.join([*report["command"], "--jobs", str(jobs)]),
        seconds=report["run"]["elapsed_seconds"],
    )


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


def table(rows: Sequence[Row]) -> str:
    """The Markdown table of the rows, one per pair and setting."""
    lines = [
        "| players | rules | level vs the level below | upper wins (95% interval) | points a hand, upper / lower | "
        "step | command |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        low, high = row.interval
        against = f"`{row.lower}`" if row.players == 2 else f"three `{row.lower}`"
        unfinished = f"; {row.unfinished} unfinished" if row.unfinished else ""
        lines.append(
            f"| {row.players} | `{row.preset}` | `{row.upper}` vs {against} "
            f"| **{_percent(row.rate)}** ({_percent(low)} – {_percent(high)}) of {row.played}{unfinished} "
            f"| {row.upper_points:.2f} / {row.lower_points:.2f} | {row.verdict} | `{row.command}` |"
        )
    return "\n".join(lines)


def update(path: Path, text: str) -> None:
    """Replace what lies between the ladder's marker lines in ``path`` with ``text``."""
    document = path.read_text(encoding="utf-8")
    head, begin, rest = document.partition(BEGIN)
    _, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{path}: no lines {BEGIN} and {END} to write the table between")
    path.write_text(f"{head}{BEGIN}\n{text}\n{END}{tail}", encoding="utf-8")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", default=",".join(Rules.presets()), help="comma-separated presets")
    parser.add_argument("--players", default="2,4", help="comma-separated player counts")
    parser.add_argument("--pairs", default="", help="the upper levels to measure, comma-separated (default: all)")
    parser.add_argument(
        "--main-boards",
        type=int,
        default=150,
        help="boards of a two-player fournier row, the steps tuned (2 matches each)",
    )
    parser.add_argument("--boards", type=int, default=100, help="boards of another two-player row (2 matches each)")
    parser.add_argument(
        "--boards4", type=int, default=25, help="boards of a row with more players (4 matches each at four)"
    )
    parser.add_argument("--seed", type=int, default=30)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", type=Path, help="a folder to keep each run's arena report in")
    parser.add_argument("--update", type=Path, help="write the table into this Markdown file, between the markers")
    parser.add_argument(
        "--kept-only",
        action="store_true",
        help="play nothing: the table of the runs kept in --json, and what is missing",
    )
    args = parser.parse_args(argv)
    names = [level.name for level in LADDER]
    uppers = [name for name in args.pairs.split(",") if name] or names[1:]
    for name in uppers:
        if name not in names[1:]:
            parser.error(f"--pairs: {name!r} is not a level above the first; levels: {', '.join(names)}")
    if args.kept_only and args.json is None:
        parser.error("--kept-only reads the runs kept in --json")
    rows: list[Row] = []
    missing: list[str] = []
    for players in (int(p) for p in args.players.split(",")):
        for preset in args.presets.split(","):
            for upper in uppers:
                lower = names[names.index(upper) - 1]
                boards = args.boards4 if players != 2 else args.main_boards if preset == "fournier" else args.boards
                bots = hashlib.sha256(f"{LEVELS[upper]} {LEVELS[lower]}".encode()).hexdigest()[:8]
                name = f"{players}p-{preset}-{upper}-{lower}-{boards}-{args.seed}-{bots}.json"
                kept = args.json / name if args.json else None
                if kept is not None and kept.exists():
                    report = json.loads(kept.read_text(encoding="utf-8"))
                elif args.kept_only:
                    missing.append(f"{players} players, `{preset}`, `{upper}` vs `{lower}`")
                    continue
                else:
                    report = measure(preset, players, upper, lower, boards, args.seed, args.jobs).to_dict()
                    if kept is not None:
                        kept.parent.mkdir(parents=True, exist_ok=True)
                        kept.write_text(json.dumps(report), encoding="utf-8")
                row = row_of(report, preset, upper, lower, args.jobs)
                rows.append(row)
                print(
                    f"{players}p {preset} {upper} vs {lower}: {_percent(row.rate)} "
                    f"({_percent(row.interval[0])} – {_percent(row.interval[1])}) of {row.played}, "
                    f"{row.seconds:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
    text = table(rows)
    if missing:
        text += "\n\nNot measured: " + "; ".join(missing) + "."
    if args.update is not None:
        update(args.update, text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
