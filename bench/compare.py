"""Our figures of ``bench/peers.py`` for two checkouts, measured in turns in one run: old, new, old, new...

Each round runs ``bench/peers.py`` once in each checkout (a fresh process,
each importing its own ``chinchon``), in alternating order; the report is
each of our figures' median over the rounds, and the ratio new ÷ old of
the medians (above 1, the new code is faster for rates, slower for µs). The
peers are measured too if installed, but only our rows are compared.

With ``--play-only``, each turn measures only random hands through both
paths (as peers.py does), so that many short turns fit: on a shared, noisy
machine the median of many turns is steadier than that of a few long ones.

With ``--instructions``, each path is measured instead by the CPU
instructions one random hand takes, counted by Valgrind (``cachegrind``):
the same seeded hands in both checkouts, so the count is the same on every
run, however busy the machine. It is a proxy for time that leaves out the
caches and the branch predictor; the timed figures are the measure.

Run: ``python bench/compare.py OLD_CHECKOUT NEW_CHECKOUT [--rounds N] [--seconds S] [--play-only | --instructions]``
(``git worktree add /tmp/old <commit>`` makes an old checkout).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def run_once(checkout: Path, seconds: float, seed: int) -> dict[str, tuple[float, str]]:
    """Our rows of one ``bench/peers.py`` run in ``checkout``: measure → (value, unit)."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.json"
        command = [sys.executable, str(checkout / "bench" / "peers.py"), "--seconds", str(seconds)]
        command += ["--seed", str(seed), "--json", str(out)]
        subprocess.run(
            command,
            cwd=checkout,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        rows = json.loads(out.read_text(encoding="utf-8"))["rows"]
    return {row["measure"]: (row["value"], row["unit"]) for row in rows if row["engine"] == "chinchon" and row["value"]}


_PLAY = """
import random, sys, time
sys.path.insert(0, ".")
from chinchon.benchmark import play_hand, play_hand_fast
from chinchon.rules import Rules
rules = Rules()
paths = [("(legal_actions/apply)", play_hand), ("(moves/play)", play_hand_fast)]
for path, run in paths:
    name = "random hands, 2 players " + path
    rng = random.Random(SEED)
    for _ in range(20):
        run(rules, 2, rng)
    hands, start = 0, time.process_time()
    while time.process_time() - start < SECONDS:
        run(rules, 2, rng)
        hands += 1
    print(name, hands / (time.process_time() - start), sep="\t")
"""


def play_once(checkout: Path, seconds: float, seed: int) -> dict[str, tuple[float, str]]:
    """Random hands per second through both paths in ``checkout`` (CPU time of a fresh process)."""
    code = _PLAY.replace("SEED", str(seed)).replace("SECONDS", str(seconds))
    out = subprocess.run([sys.executable, "-c", code], cwd=checkout, check=True, capture_output=True, text=True)
    rows = [line.split("\t") for line in out.stdout.splitlines()]
    return {measure: (float(value), "hands/s") for measure, value in rows}


_COUNT = """
import random, sys
sys.path.insert(0, ".")
from chinchon.benchmark import play_hand, play_hand_fast
from chinchon.rules import Rules
rules = Rules()
run = play_hand_fast if PATH == "fast" else play_hand
rng = random.Random(SEED)
for _ in range(HANDS):
    run(rules, 2, rng)
"""

_PATHS = {"public": "random hands, 2 players (legal_actions/apply)", "fast": "random hands, 2 players (moves/play)"}


def _instructions(checkout: Path, path: str, hands: int, seed: int) -> int:
    """The instructions Valgrind counts for a fresh process that imports ``chinchon`` and plays ``hands`` hands."""
    code = _COUNT.replace("PATH", repr(path)).replace("SEED", str(seed)).replace("HANDS", str(hands))
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    command += [sys.executable, "-c", code]
    out = subprocess.run(command, cwd=checkout, check=True, capture_output=True, text=True)
    for line in out.stderr.splitlines():
        if "I" in line and "refs:" in line:
            return int(line.rsplit(":", 1)[1].replace(",", ""))
    raise SystemExit(f"valgrind printed no instruction count:\n{out.stderr}")


def count_instructions(old: Path, new: Path, hands: int, seed: int) -> None:
    """Print the instructions of one random hand through each path in both checkouts, and new ÷ old."""
    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs Valgrind (apt-get install valgrind)")
    print(f"{'measure':62} {'old':>12} {'new':>12} {'new÷old':>8}  unit")
    for path, measure in _PATHS.items():
        # Two runs of each, 10 hands and 10 + hands: the difference leaves out the start-up and the import.
        per_hand = []
        for checkout in (old, new):
            short = _instructions(checkout.resolve(), path, 10, seed)
            long = _instructions(checkout.resolve(), path, 10 + hands, seed)
            per_hand.append((long - short) / hands)
        a, b = per_hand
        print(f"{measure:62} {a:12.0f} {b:12.0f} {b / a:8.3f}  instructions/hand")
    print(f"(hands 11-{10 + hands} of seed {seed}, counted by valgrind --tool=cachegrind)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--play-only", action="store_true", help="only random hands (both paths), not all of peers.py")
    parser.add_argument("--instructions", action="store_true", help="count instructions of random hands (Valgrind)")
    parser.add_argument("--hands", type=int, default=100, help="hands counted per path with --instructions")
    args = parser.parse_args()
    if args.instructions:
        count_instructions(args.old, args.new, args.hands, args.seed)
        return
    measure_once = play_once if args.play_only else run_once
    figures: dict[str, dict[str, list[float]]] = {"old": {}, "new": {}}
    units: dict[str, str] = {}
    for round_ in range(args.rounds):
        order = [("old", args.old), ("new", args.new)]
        if round_ % 2:
            order.reverse()
        for name, checkout in order:
            for measure, (value, unit) in measure_once(checkout.resolve(), args.seconds, args.seed).items():
                figures[name].setdefault(measure, []).append(value)
                units[measure] = unit
            print(f"round {round_ + 1}: {name} done", file=sys.stderr, flush=True)
    print(f"{'measure':62} {'old':>12} {'new':>12} {'new÷old':>8} {'paired':>8}  unit")
    for measure, unit in units.items():
        old, new = figures["old"].get(measure), figures["new"].get(measure)
        if not old or not new or len(old) != len(new):
            continue
        a, b = statistics.median(old), statistics.median(new)
        paired = statistics.median(n / o for o, n in zip(old, new, strict=True))
        print(f"{measure:62} {a:12.2f} {b:12.2f} {b / a:8.3f} {paired:8.3f}  {unit}")
    print(f"(medians of {args.rounds} rounds; paired: the median of each round's new÷old)")


if __name__ == "__main__":
    main()
