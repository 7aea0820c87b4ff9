"""Speed side by side with the peer rummy engines: RLCard's and OpenSpiel's gin rummy.

One run measures, each for about ``--seconds``:

- random play: our hands per second (2 players, fournier rules; a seat
  closes when it may, otherwise draws and discards at random) through the
  public API (``legal_actions``/``apply``) and the integer fast path
  (``moves``/``play``); RLCard's ``GinRummyGame`` games per second (random
  legal actions); OpenSpiel's ``gin_rummy`` games per second from a Python
  loop (random legal actions, chance outcomes sampled) and from its C++
  ``evaluate_bots`` with two uniform random bots. Games differ in length, so
  decisions per second are given too (chance events not counted);
- the meld solver: microseconds per hand for ours (7-card
  ``best_arrangement``, 8-card ``best_discard`` and ``closing_options``)
  beside OpenSpiel's ``GinRummyUtils.min_deadwood`` and RLCard's meld
  clusters, on hands of the same sizes (and each peer's native 10 cards);
- search: our ISMCTS iterations per second on discard decisions beside
  OpenSpiel's C++ ``ISMCTSBot`` with a random-rollout evaluator on gin
  rummy discard decisions.

Times are CPU time of this process (``time.process_time``; every engine
measured runs on one thread), so that other load on the machine disturbs
them less. A peer that does not install or fails is reported as such; the rest still
runs. Prints a table and writes ``bench/results.json``.

Run: ``python bench/peers.py [--seconds S] [--seed N] [--json PATH]``
(peers: ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import itertools
import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from chinchon.benchmark import ismcts_rate, play_hand, play_hand_fast, rate, solver_us
from chinchon.melds import best_arrangement, best_discard, closing_options, loose_points
from chinchon.rules import Rules


@dataclass
class Row:
    section: str
    engine: str
    measure: str
    value: float | None
    unit: str
    per_action: float | None = None  # decisions per second, for play
    actions_per_game: float | None = None
    note: str = ""


@dataclass
class Bench:
    seconds: float
    seed: int
    rows: list[Row]
    unavailable: dict[str, str]

    def add(self, row: Row) -> Row:
        self.rows.append(row)
        print(f"  {row.engine:10} {row.measure:52} {_fmt(row.value):>10} {row.unit}", flush=True)
        return row

    def fail(self, what: str, error: BaseException) -> None:
        reason = f"{type(error).__name__}: {error}".strip()
        if isinstance(error, ImportError):
            reason = f"not installed ({reason})"
        self.unavailable[what] = reason
        print(f"  {what}: UNAVAILABLE: {reason}", flush=True)


def _fmt(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def per_call_us(function: Callable[[Any], object], make: Callable[[], Any], seconds: float) -> float:
    """Microseconds per call of ``function`` on inputs from ``make`` (made outside the timing)."""
    for _ in range(200):
        function(make())
    clock = time.process_time_ns
    spent = calls = 0
    budget = int(seconds * 1e9)
    while spent < budget:
        inputs = [make() for _ in range(500)]
        start = clock()
        for item in inputs:
            function(item)
        spent += clock() - start
        calls += len(inputs)
    return spent / calls / 1000


# -- random play -------------------------------------------------------------------------


def ours_play(bench: Bench) -> None:
    rules = Rules()
    rng = random.Random(bench.seed)
    for path, run in (
        ("legal_actions/apply", play_hand),
        ("moves/play", play_hand_fast),
    ):
        hands, actions, count = rate(bench.seconds, partial(run, rules, 2, rng))
        bench.add(
            Row(
                "play",
                "chinchon",
                f"random hands, 2 players ({path})",
                hands,
                "hands/s",
                per_action=actions,
                actions_per_game=actions / hands,
                note=f"{count} hands",
            )
        )


def rlcard_play(bench: Bench) -> None:
    import numpy as np
    from rlcard.games.gin_rummy.game import GinRummyGame

    game = GinRummyGame()
    game.np_random = np.random.RandomState(bench.seed)
    rng = random.Random(bench.seed)

    def run() -> int:
        game.init_game()
        decisions = 0
        while not game.is_over():
            game.step(rng.choice(game.judge.get_legal_actions()))
            decisions += 1
        return decisions

    games, decisions, count = rate(bench.seconds, run)
    bench.add(
        Row(
            "play",
            "RLCard",
            "random gin rummy games (GinRummyGame, Python)",
            games,
            "games/s",
            per_action=decisions,
            actions_per_game=decisions / games,
            note=f"{count} games",
        )
    )


def open_spiel_play(bench: Bench) -> float:
    """The Python loop; returns the mean decisions per game (for the C++ figure)."""
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(bench.seed)
    chance_total = 0

    def run() -> int:
        nonlocal chance_total
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probabilities)[0])
                chance_total += 1
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                decisions += 1
        return decisions

    games, decisions, count = rate(bench.seconds, run)
    bench.add(
        Row(
            "play",
            "OpenSpiel",
            "random gin_rummy games (Python loop over pyspiel)",
            games,
            "games/s",
            per_action=decisions,
            actions_per_game=decisions / games,
            note=f"{count} games; {chance_total / count:.0f} chance events a game besides",
        )
    )
    return decisions / games


def open_spiel_cpp_play(bench: Bench, decisions_per_game: float | None) -> None:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    bots = [pyspiel.make_uniform_random_bot(seat, bench.seed + seat) for seat in range(2)]

    seeds = itertools.count(bench.seed)

    def run() -> int:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, next(seeds))
        return 0

    games, _, count = rate(bench.seconds, run)
    bench.add(
        Row(
            "play",
            "OpenSpiel",
            "random gin_rummy games (C++ evaluate_bots, uniform bots)",
            games,
            "games/s",
            per_action=games * decisions_per_game if decisions_per_game else None,
            actions_per_game=decisions_per_game,
            note=f"{count} games; decisions/game taken from the Python loop (same random policy)",
        )
    )


# -- the meld solver -----------------------------------------------------------------------


def ours_solver(bench: Bench) -> None:
    rules = Rules()
    rng = random.Random(bench.seed)
    for name, function, size in (
        ("best_arrangement, 7 cards", best_arrangement, 7),
        ("best_discard, 8 cards (minimum over discards)", best_discard, 8),
        ("closing_options, 8 cards", closing_options, 8),
        ("loose points only, 7 cards (loose_points)", loose_points, 7),
    ):
        bench.add(
            Row(
                "solver",
                "chinchon",
                name,
                solver_us(function, size, rules, rng, bench.seconds),
                "µs/hand",
                note="random hands of the 40-card fournier deck",
            )
        )


def open_spiel_solver(bench: Bench) -> None:
    import pyspiel

    gin = pyspiel.gin_rummy
    rng = random.Random(bench.seed)
    deck52 = list(range(52))
    deck40 = list(range(40))
    utils10 = gin.GinRummyUtils(13, 4, 10)
    # hand_size 7: an 8-card hand is "7 + the card drawn", which min_deadwood treats with its own discard rule.
    utils7 = gin.GinRummyUtils(13, 4, 7)
    utils40 = gin.GinRummyUtils(10, 4, 7)

    def min_over_discards(hand: Sequence[int]) -> int:
        md = utils7.min_deadwood
        return min(int(md([*hand[:i], *hand[i + 1 :]])) for i in range(len(hand)))

    cases: list[tuple[str, Callable[[Any], object], Callable[[], Any], str]] = [
        ("min_deadwood, 7 cards", utils7.min_deadwood, lambda: rng.sample(deck52, 7), "52-card deck"),
        (
            "min_deadwood, 7 cards, 40-card deck",
            utils40.min_deadwood,
            lambda: rng.sample(deck40, 7),
            "GinRummyUtils(10 ranks, 4 suits): the density of our deck",
        ),
        (
            "min over 8 discards of min_deadwood(7), 8 cards",
            min_over_discards,
            lambda: rng.sample(deck52, 8),
            "exact, as best_discard; 8 C++ calls from Python",
        ),
        (
            "min_deadwood, 8 cards (hand_size 7: drops top deadwood)",
            utils7.min_deadwood,
            lambda: rng.sample(deck52, 8),
            "one call; its discard rule is a shortcut, not a minimum over discards",
        ),
        ("min_deadwood, 10 cards (native size)", utils10.min_deadwood, lambda: rng.sample(deck52, 10), ""),
        (
            "total_card_value, 7 cards (binding overhead floor)",
            utils7.total_card_value,
            lambda: rng.sample(deck52, 7),
            "a trivial call: the cost of crossing into C++",
        ),
    ]
    for name, function, make, note in cases:
        bench.add(Row("solver", "OpenSpiel", name, per_call_us(function, make, bench.seconds), "µs/hand", note=note))


def rlcard_solver(bench: Bench) -> None:
    from rlcard.games.gin_rummy.utils import utils
    from rlcard.games.gin_rummy.utils.melding import get_best_meld_clusters, get_meld_clusters

    rng = random.Random(bench.seed)
    deck = utils.get_deck()
    value = utils.get_deadwood_value

    def min_deadwood(hand: Sequence[Any]) -> int:
        # get_best_meld_clusters only takes 10 cards: the same search (its meld clusters) at other sizes.
        clusters = get_meld_clusters(hand)
        melded = max((sum(value(c) for meld in cluster for c in meld) for cluster in clusters), default=0)
        return int(sum(value(c) for c in hand) - melded)

    def min_over_discards(hand: Sequence[Any]) -> int:
        return min(min_deadwood([*hand[:i], *hand[i + 1 :]]) for i in range(len(hand)))

    cases: list[tuple[str, Callable[[Any], object], Callable[[], Any], str]] = [
        ("meld clusters → min deadwood, 7 cards", min_deadwood, lambda: rng.sample(deck, 7), "get_meld_clusters"),
        (
            "min over 8 discards, 8 cards",
            min_over_discards,
            lambda: rng.sample(deck, 8),
            "get_meld_clusters on each 7",
        ),
        ("get_best_meld_clusters, 10 cards (native size)", get_best_meld_clusters, lambda: rng.sample(deck, 10), ""),
    ]
    for name, function, make, note in cases:
        bench.add(Row("solver", "RLCard", name, per_call_us(function, make, bench.seconds), "µs/hand", note=note))


# -- search --------------------------------------------------------------------------------


def ours_search(bench: Bench) -> None:
    iterations, searches = ismcts_rate(bench.seconds, iterations=300, seed=bench.seed)
    bench.add(
        Row(
            "search",
            "chinchon",
            "IsmctsBot.search, 300 iterations, discard decisions",
            iterations,
            "iterations/s",
            note=f"{searches} searches; greedy playouts, horizon 300, width 3",
        )
    )


def open_spiel_search(bench: Bench) -> None:
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = random.Random(bench.seed)
    simulations = 300

    def discard_state() -> Any:
        # Random play to a discard decision (a legal action below 52 is a card to discard).
        while True:
            state = game.new_initial_state()
            target = rng.randrange(2, 16)
            decisions = 0
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(rng.choices(outcomes, probabilities)[0])
                    continue
                legal = state.legal_actions()
                if decisions >= target and any(a < 52 for a in legal) and len(legal) > 1:
                    return state
                state.apply_action(rng.choice(legal))
                decisions += 1

    spent = 0.0
    done = steps = 0
    while spent < bench.seconds:
        state = discard_state()
        evaluator = pyspiel.RandomRolloutEvaluator(1, bench.seed + steps)
        bot = pyspiel.ISMCTSBot(bench.seed + steps, evaluator, 2.0, simulations)
        start = time.process_time()
        bot.step(state)
        spent += time.process_time() - start
        done += simulations
        steps += 1
    bench.add(
        Row(
            "search",
            "OpenSpiel",
            f"C++ ISMCTSBot, {simulations} simulations, discard decisions",
            done / spent,
            "iterations/s",
            note=f"{steps} searches; RandomRolloutEvaluator(1 rollout), uct_c 2",
        )
    )


# -- the table -----------------------------------------------------------------------------


def _find(bench: Bench, engine: str, start: str) -> Row | None:
    for row in bench.rows:
        if row.engine == engine and row.measure.startswith(start) and row.value is not None:
            return row
    return None


def table(bench: Bench) -> tuple[str, dict[str, float]]:
    """The table as text, and the ratios it shows (for the JSON)."""
    ratios: dict[str, float] = {}
    lines: list[str] = []
    public = _find(bench, "chinchon", "random hands, 2 players (legal")
    fast = _find(bench, "chinchon", "random hands, 2 players (moves")

    lines.append("Random play (2 players). Ratios are ours ÷ peer: above 1, we are faster.")
    head = (
        f"{'engine':10} {'how':58} {'games/s':>9} {'dec./game':>9} {'decisions/s':>11}"
        f" {'fast÷ game':>10} {'fast÷ dec.':>10} {'API÷ game':>9} {'API÷ dec.':>9}"
    )
    lines += [head, "-" * len(head)]
    for row in bench.rows:
        if row.section != "play":
            continue
        cells = ["", "", "", ""]
        if row.engine != "chinchon" and row.value:
            for i, ours in enumerate((fast, public)):
                if ours is None or ours.value is None:
                    continue
                by_game = ours.value / row.value
                cells[2 * i] = f"{by_game:.2f}×"
                key = f"{'fast' if i == 0 else 'api'}/{row.measure}"
                ratios[f"{key} per game"] = by_game
                if row.per_action and ours.per_action:
                    by_action = ours.per_action / row.per_action
                    cells[2 * i + 1] = f"{by_action:.2f}×"
                    ratios[f"{key} per decision"] = by_action
        lines.append(
            f"{row.engine:10} {row.measure:58} {_fmt(row.value):>9} {_fmt(row.actions_per_game):>9}"
            f" {_fmt(row.per_action):>11} {cells[0]:>10} {cells[1]:>10} {cells[2]:>9} {cells[3]:>9}"
        )

    lines += ["", "Meld solver (µs per hand; lower is faster). Ratio: our time ÷ the peer's at the same size."]
    pairs = {
        7: _find(bench, "chinchon", "best_arrangement"),
        8: _find(bench, "chinchon", "best_discard"),
    }
    points = _find(bench, "chinchon", "loose points only")
    lines.append("(7 cards: best_arrangement ÷ peer, then in brackets our points-only solver ÷ peer.)")
    head = f"{'engine':10} {'function':58} {'µs/hand':>9} {'ours÷peer':>16}  note"
    lines += [head, "-" * len(head)]
    for row in bench.rows:
        if row.section != "solver":
            continue
        cell = ""
        if row.engine != "chinchon" and row.value:
            size = 7 if ", 7 cards" in row.measure else 8 if ", 8 cards" in row.measure else None
            ours = pairs.get(size) if size else None
            if ours is not None and ours.value is not None and "overhead" not in row.measure:
                cell = f"{ours.value / row.value:.2f}×"
                ratios[f"solver/{row.engine}/{row.measure}"] = ours.value / row.value
                if size == 7 and points is not None and points.value is not None:
                    cell += f" ({points.value / row.value:.2f}×)"
                    ratios[f"solver points-only/{row.engine}/{row.measure}"] = points.value / row.value
        lines.append(f"{row.engine:10} {row.measure:58} {_fmt(row.value):>9} {cell:>16}  {row.note}")

    lines += ["", "Search (ISMCTS iterations per second). Ratio: ours ÷ peer."]
    ours_search_row = _find(bench, "chinchon", "IsmctsBot")
    head = f"{'engine':10} {'search':58} {'iter./s':>9} {'ours÷peer':>10}  note"
    lines += [head, "-" * len(head)]
    for row in bench.rows:
        if row.section != "search":
            continue
        cell = ""
        if row.engine != "chinchon" and row.value and ours_search_row and ours_search_row.value:
            cell = f"{ours_search_row.value / row.value:.2f}×"
            ratios[f"search/{row.measure}"] = ours_search_row.value / row.value
        lines.append(f"{row.engine:10} {row.measure:58} {_fmt(row.value):>9} {cell:>10}  {row.note}")

    if bench.unavailable:
        lines += ["", "Unavailable:"]
        lines += [f"  {what}: {reason}" for what, reason in bench.unavailable.items()]
    return "\n".join(lines), ratios


def machine() -> dict[str, Any]:
    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    versions: dict[str, str] = {}
    for package in ("chinchon", "rlcard", "open_spiel", "numpy"):
        try:
            versions[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            versions[package] = "not installed"
    if versions["chinchon"] == "not installed":  # run from a checkout
        import chinchon

        versions["chinchon"] = f"{chinchon.__version__} (source tree)"
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    return {
        "nproc": os.cpu_count(),
        "cpu": model or platform.processor(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "versions": versions,
        "commit": commit or "unknown",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time for each measurement (default 3)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--json", default=str(Path(__file__).resolve().parent / "results.json"))
    args = parser.parse_args()
    bench = Bench(args.seconds, args.seed, [], {})
    started = time.perf_counter()

    def guarded(what: str, step: Callable[[], Any]) -> Any:
        try:
            return step()
        except Exception as error:  # a peer that does not install or breaks must not stop the rest
            bench.fail(what, error)
            return None

    print("random play", flush=True)
    guarded("chinchon random play", lambda: ours_play(bench))
    guarded("RLCard gin rummy (random play)", lambda: rlcard_play(bench))
    per_game = guarded("OpenSpiel gin_rummy (Python loop)", lambda: open_spiel_play(bench))
    guarded("OpenSpiel gin_rummy (C++ evaluate_bots)", lambda: open_spiel_cpp_play(bench, per_game))
    print("meld solver", flush=True)
    guarded("chinchon solver", lambda: ours_solver(bench))
    guarded("OpenSpiel GinRummyUtils", lambda: open_spiel_solver(bench))
    guarded("RLCard melding", lambda: rlcard_solver(bench))
    print("search", flush=True)
    guarded("chinchon ismcts", lambda: ours_search(bench))
    guarded("OpenSpiel ISMCTSBot", lambda: open_spiel_search(bench))

    text, ratios = table(bench)
    print()
    print(text)
    elapsed = time.perf_counter() - started
    print(f"\n{elapsed:.0f} s in all; written to {args.json}")
    result = {
        "machine": machine(),
        "command": " ".join(["python", *sys.argv]),
        "seconds_per_measure": bench.seconds,
        "seed": bench.seed,
        "elapsed_seconds": elapsed,
        "rows": [asdict(row) for row in bench.rows],
        "ratios": ratios,
        "unavailable": bench.unavailable,
        "table": text,
    }
    Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
