"""The arena: duplicate boards, statistics, parallel runs, broken bots, the Dask path."""

from __future__ import annotations

import dataclasses
import io
import itertools
import json
import os
import random
import re
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, ClassVar

import pytest
import typer
from rich.console import Console
from typer.core import TyperGroup
from typer.testing import CliRunner

from chinchon.actions import Action, Pass, ReEnter
from chinchon.arena import (
    MAX_ACTIONS,
    SCHEMES,
    ArenaConfig,
    ArenaError,
    ArenaProgress,
    ArenaReport,
    Scheme,
    board_decks,
    deck_digest,
    elo_ratings,
    net_stakes,
    parse_lineup,
    print_report,
    run_arena,
    seating_count,
    seatings,
    wilson_interval,
)
from chinchon.bots import Bot, BotError
from chinchon.bots.simple import SimpleBot
from chinchon.cli import EXIT_BAD_INPUT, app
from chinchon.i18n import set_language
from chinchon.observation import Observation
from chinchon.rules import Rules, RulesError
from tests.processes import children, running

# -- bots for the tests (module level, so that worker processes can unpickle them) ----------


class RaisingBot(SimpleBot):
    """Plays as ``simple`` until its third turn of a deal, then raises."""

    name = "raiser"

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if observation.turn >= 4:
            raise RuntimeError("boom")
        return super().choose(observation, legal_actions, rng)


class IllegalBot(SimpleBot):
    """Plays as ``simple`` but passes when it should discard."""

    name = "cheater"

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        action = super().choose(observation, legal_actions, rng)
        return Pass() if observation.turn >= 2 else action


class UnbuildableBot(SimpleBot):
    """A bot whose construction fails."""

    name = "unbuildable"

    def __init__(self) -> None:
        raise RuntimeError("cannot build")


class SpyBot(SimpleBot):
    """Plays as ``simple`` and notes the hand it is dealt in each deal (in-process runs only)."""

    name = "spy"
    seen: ClassVar[list[tuple[str, int, int, tuple[str, ...]]]] = []

    def __init__(self) -> None:
        super().__init__()
        self.deals: set[int] = set()

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if observation.deal_number not in self.deals and observation.turn < observation.players:
            self.deals.add(observation.deal_number)
            hand = tuple(sorted(map(str, observation.hand)))
            self.seen.append((self.name, observation.seat, observation.deal_number, hand))
        return super().choose(observation, legal_actions, rng)


class OtherSpyBot(SpyBot):
    name = "spy2"


class DecliningBot(SimpleBot):
    """Plays as ``simple`` but never re-enters."""

    name = "decliner"

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if ReEnter(False) in legal_actions:
            return ReEnter(False)
        return super().choose(observation, legal_actions, rng)


def comparable(report: ArenaReport) -> dict[str, Any]:
    """The report's document without what depends on how it ran."""
    document = report.to_dict()
    del document["run"]
    return document


# -- statistics ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wins", "trials", "low", "high"),
    [
        (50, 100, 0.4038, 0.5962),
        (8, 10, 0.4902, 0.9433),
        (0, 10, 0.0, 0.2775),
        (10, 10, 0.7225, 1.0),
        (1, 1, 0.2065, 1.0),
        (0, 0, 0.0, 1.0),
    ],
)
def test_wilson_interval_known_values(wins: int, trials: int, low: float, high: float) -> None:
    got = wilson_interval(wins, trials)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_elo_ratings() -> None:
    # Bradley-Terry: 3 wins to 1 is a 75% score, 400 * log10(3) ≈ 191 points apart.
    a, b = elo_ratings([[0, 3], [1, 0]], prior=0)
    assert a - b == pytest.approx(400 * 0.47712, abs=0.01)
    assert a + b == pytest.approx(0)
    # A bot that won everything stays finite with the prior; the order follows the results.
    ratings = elo_ratings([[0, 5, 5], [0, 0, 3], [0, 1, 0]])
    assert ratings[0] > ratings[1] > ratings[2]
    assert sum(ratings) == pytest.approx(0, abs=1e-6)
    assert all(abs(r) < 2000 for r in ratings)
    assert elo_ratings([[0, 2], [2, 0]]) == pytest.approx([0, 0])


# -- the plan --------------------------------------------------------------------------------


SHAPES = [(2, 2), (3, 2), (4, 2), (2, 4), (4, 4), (5, 3), (2, 3), (3, 4)]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize(("bots", "players"), SHAPES)
def test_seatings_put_every_bot_in_every_seat_equally_often(bots: int, players: int, scheme: Scheme) -> None:
    plan = seatings(bots, players, scheme)
    assert len(set(plan)) == len(plan)
    for seat in range(players):
        counts = Counter(s[seat] for s in plan)
        assert sorted(counts) == list(range(bots))
        assert len(set(counts.values())) == 1


BALANCED = [("all", bots, players) for bots, players in SHAPES] + [
    ("auto", bots, players) for bots, players in SHAPES if bots > players
]


@pytest.mark.parametrize(("scheme", "bots", "players"), BALANCED)
def test_every_pair_of_bots_meets_in_every_pair_of_seats(scheme: Scheme, bots: int, players: int) -> None:
    plan = seatings(bots, players, scheme)
    # With fewer bots than seats, seats s and s + bots hold the same bot of the lineup.
    for first, second in itertools.permutations(range(players), 2):
        if bots < players and first % bots == second % bots:
            continue
        met = Counter((s[first], s[second]) for s in plan if s[first] != s[second])
        assert sorted(met) == list(itertools.permutations(range(bots), 2))
        assert len(set(met.values())) == 1


def test_seatings_schemes() -> None:
    assert seatings(2, 2, "rotations") == seatings(2, 2, "all") == [(0, 1), (1, 0)]
    # Rotations of four bots over two seats: bot 0 never meets bot 2.
    assert not any({0, 2} <= set(s) for s in seatings(4, 2, "rotations"))
    assert len(seatings(4, 2)) == 12 and seatings(4, 4) == seatings(4, 4, "rotations")
    assert len(seatings(4, 4, "all")) == 24
    assert seatings(3, 4, "all")[1] == (0, 2, 1, 0)
    with pytest.raises(ArenaError, match="seatings: expected auto, rotations or all, got 'some'"):
        seatings(2, 2, "some")  # type: ignore[arg-type]
    with pytest.raises(ArenaError, match="seatings: expected"):
        ArenaConfig(bots=("simple", "random"), seating="x").check()  # type: ignore[arg-type]
    # Every ordered choice of 8 seats among 12 bots would be 19,958,400 matches a board.
    too_many = ArenaConfig(bots=("simple",) * 12, players=8, rules="polaco")
    with pytest.raises(ArenaError, match="19958400 seatings a board are too many \\(at most 100000\\)"):
        too_many.check()
    assert dataclasses.replace(too_many, seating="rotations").check() == Rules.preset("polaco")
    for bots, players in ((2, -1), (-3, 2), (0, 2), (2, 0)):
        with pytest.raises(ArenaError, match=f"one bot and one seat, got {bots} and {players}"):
            seatings(bots, players, "all")
        with pytest.raises(ArenaError, match="one bot and one seat"):
            seating_count(bots, players)


def test_parse_lineup_keeps_bot_parameters_together() -> None:
    assert parse_lineup("greedy,simple") == ["greedy", "simple"]
    assert parse_lineup("ismcts:iterations=200,c=1.4,simple:noise=0.1") == [
        "ismcts:iterations=200,c=1.4",
        "simple:noise=0.1",
    ]
    # A value with a colon (a Windows path) stays with its bot.
    assert parse_lineup(r"ismcts:iterations=5,model=C:\m.json,greedy:model=D:\n.json,learned=true") == [
        r"ismcts:iterations=5,model=C:\m.json",
        r"greedy:model=D:\n.json,learned=true",
    ]


def test_board_decks_depend_on_seed_and_board_only() -> None:
    rules = Rules()
    first = [deck_digest(d) for d, _ in zip(board_decks(rules, 2, 7, 3), range(3), strict=False)]
    again = [deck_digest(d) for d, _ in zip(board_decks(rules, 2, 7, 3), range(3), strict=False)]
    assert first == again and len(set(first)) == 3
    assert deck_digest(next(board_decks(rules, 2, 7, 4))) not in first
    assert deck_digest(next(board_decks(rules, 2, 8, 3))) not in first
    assert sorted(map(str, next(board_decks(rules, 2, 7, 3)))) == sorted(map(str, rules.cards(2)))


def test_custom_rules_have_a_command_line_that_repeats_them(tmp_path: Path) -> None:
    custom = Rules.preset("clasico", limit=50, wild_ace_of_oros=True)
    report = run_arena(ArenaConfig(bots=("simple", "random"), boards=2, seed=2, rules=custom))
    command = report.command()
    document = report.to_dict()
    assert document["command"] == command and document["rules"] == {"preset": None, "options": custom.to_dict()}
    assert command[command.index("--rules") + 1] == "clasico"
    assert sorted(command[i + 1] for i, word in enumerate(command) if word == "--rule") == [
        "limit=50",
        "wild_ace_of_oros=true",
    ]
    shown = io.StringIO()
    print_report(report, Console(file=shown, width=200, highlight=False))
    assert "rules: clasico, wild_ace_of_oros=true, limit=50;" in shown.getvalue()
    # The command plays the same arena again: the same rules, the same outcomes.
    out = tmp_path / "again.json"
    result = CliRunner().invoke(app, [*command[1:], "--output", str(out)], env={"NO_COLOR": "1"})
    assert result.exit_code == 0, result.stderr
    again = json.loads(out.read_text("utf-8"))
    assert again["rules"]["options"] == custom.to_dict()
    assert again["outcomes"] == json.loads(json.dumps(document["outcomes"]))
    named = run_arena(ArenaConfig(bots=("simple", "random"), boards=1, seed=2, rules="clasico")).command()
    assert named[named.index("--rules") + 1] == "clasico" and "--rule" not in named


def test_duplicate_boards_give_every_bot_every_seat_with_the_same_cards() -> None:
    SpyBot.seen.clear()
    config = ArenaConfig(bots=(SpyBot, OtherSpyBot), boards=3, seed=11)
    report = run_arena(config)
    assert [o.seating for o in report.outcomes] == [(0, 1), (1, 0)] * 3
    by_board: dict[int, list[tuple[str, ...]]] = {}
    for outcome in report.outcomes:
        by_board.setdefault(outcome.board, []).append(outcome.decks)
    rules = Rules()
    for board, decks in by_board.items():
        one, other = decks
        shared = min(len(one), len(other))
        assert shared >= 1 and one[:shared] == other[:shared]
        expected = [deck_digest(d) for d, _ in zip(board_decks(rules, 2, 11, board), range(shared), strict=False)]
        assert list(one[:shared]) == expected
    assert len({decks[0][0] for decks in by_board.values()}) == 3
    # What each seat is dealt in the first deal of a board is the same whichever bot sits there.
    first_hands = [(name, seat, hand) for name, seat, deal, hand in SpyBot.seen if deal == 1]
    assert len(first_hands) == 12  # 3 boards x 2 seatings x 2 seats
    for board in range(3):
        rows = first_hands[4 * board : 4 * board + 4]
        by_seat: dict[int, set[tuple[str, ...]]] = {}
        names: dict[int, set[str]] = {}
        for name, seat, hand in rows:
            by_seat.setdefault(seat, set()).add(hand)
            names.setdefault(seat, set()).add(name)
        assert all(len(hands) == 1 for hands in by_seat.values())
        assert names == {0: {"spy", "spy2"}, 1: {"spy", "spy2"}}


def test_config_errors() -> None:
    with pytest.raises(ArenaError, match="at least two bots"):
        run_arena(ArenaConfig(bots=("simple",)))
    with pytest.raises(ArenaError, match="boards"):
        run_arena(ArenaConfig(bots=("simple", "random"), boards=0))
    with pytest.raises(ArenaError, match="jobs"):
        run_arena(ArenaConfig(bots=("simple", "random")), jobs=0)
    with pytest.raises(ArenaError, match="max_actions: expected a whole number of at least 1, got 0"):
        run_arena(ArenaConfig(bots=("simple", "random"), max_actions=0))
    with pytest.raises(BotError, match="unknown bot"):
        run_arena(ArenaConfig(bots=("simple", "nobody")))
    with pytest.raises(RulesError, match="players"):
        run_arena(ArenaConfig(bots=("simple", "random"), players=9))
    with pytest.raises(RulesError, match="preset"):
        run_arena(ArenaConfig(bots=("simple", "random"), rules="nowhere"))


# -- results ---------------------------------------------------------------------------------


def test_simple_beats_random() -> None:
    report = run_arena(ArenaConfig(bots=("simple", "random"), boards=10, seed=2))
    simple, rnd = report.bots
    assert simple.played == rnd.played == 20
    assert simple.won + rnd.won == 20
    assert simple.won >= 16
    assert simple.interval[0] > 0.5
    assert simple.mean_points < rnd.mean_points
    assert report.elo is None and not report.failures and report.unfinished == 0


def test_net_stakes_share_the_pot_among_the_winners() -> None:
    assert net_stakes(2, [0, 0, 1], [2]) == (-2.0, -2.0, 4.0)
    assert net_stakes(1, [1, 0, 0], [0, 1]) == (0.0, 1.0, -1.0)
    assert net_stakes(5, [3, 0], []) == (0.0, 0.0)


def test_with_stakes_the_report_gives_each_bot_its_net_stake_per_match() -> None:
    report = run_arena(ArenaConfig(bots=("simple:noise=0.3", DecliningBot), boards=10, rules="polaco", seed=3))
    simple, decliner = report.bots
    for outcome in report.outcomes:
        assert sum(outcome.stakes) == 0
        mine = outcome.stakes[outcome.seating.index(1)]
        # The decliner puts in one stake; it wins the simple bot's stakes, one and one more per re-entry.
        assert mine >= 1 if outcome.seating.index(1) in outcome.winners else mine == -1
    losses = [o.stakes[o.seating.index(0)] for o in report.outcomes if o.seating.index(0) not in o.winners]
    assert min(losses) < -1  # the first bot re-entered and still lost: its re-entries are counted
    assert simple.stake == -decliner.stake == sum(o.stakes[o.seating.index(0)] for o in report.outcomes)
    assert simple.mean_stake == pytest.approx(simple.stake / 20)
    assert report.to_dict()["results"][0]["mean_stake"] == simple.mean_stake
    text = io.StringIO()
    print_report(report, Console(file=text, width=120))
    assert "Stake/match" in text.getvalue() and f"{simple.mean_stake:+.2f}" in text.getvalue()
    plain = io.StringIO()
    print_report(run_arena(ArenaConfig(bots=("simple", "random"), boards=1, seed=3)), Console(file=plain, width=120))
    assert "Stake" not in plain.getvalue()


def test_hands_mode_plays_one_deal_per_seating() -> None:
    report = run_arena(ArenaConfig(bots=("simple", "simple:noise=0.5"), boards=5, mode="hands", seed=4))
    assert len(report.outcomes) == 10
    assert all(o.hands == 1 and len(o.winners) == 1 and len(o.decks) == 1 for o in report.outcomes)
    assert [bot.hands for bot in report.bots] == [10, 10]
    assert sum(bot.won for bot in report.bots) == 10
    text = io.StringIO()
    print_report(report, Console(file=text, width=80))
    assert "Hands" in text.getvalue() and "Arena: 10 hands; boards: 5, seatings: 2" in text.getvalue()


def test_three_bots_four_seats_and_elo() -> None:
    config = ArenaConfig(bots=("simple", "simple:noise=0.2", "simple:noise=0.6"), players=4, boards=2, seed=5)
    report = run_arena(config)
    assert [o.seating for o in report.outcomes[:3]] == [(0, 1, 2, 0), (1, 2, 0, 1), (2, 0, 1, 2)]
    assert all(bot.played == 6 for bot in report.bots)
    assert report.elo is not None and sum(report.elo) == pytest.approx(0, abs=1e-6)
    assert set(report.to_dict()["elo"]) == {"simple", "simple:noise=0.2", "simple:noise=0.6"}


def test_the_same_bot_twice_gets_two_labels() -> None:
    config = ArenaConfig(bots=("simple", "simple"), boards=1)
    assert config.labels == ["simple", "simple#2"]


def test_unfinished_matches_are_counted() -> None:
    report = run_arena(ArenaConfig(bots=("simple", "random"), boards=2, seed=1, max_actions=5))
    assert report.unfinished == 4
    assert all(o.winners == () and o.actions == 5 for o in report.outcomes)
    assert all(bot.won == 0 for bot in report.bots)


def test_results_are_the_same_for_any_number_of_jobs() -> None:
    config = ArenaConfig(bots=("simple", "simple:noise=0.3", RaisingBot), boards=4, seed=9)
    one = run_arena(config, jobs=1)
    two = run_arena(config, jobs=2)
    assert comparable(one) == comparable(two)
    assert one.failures  # the factory was pickled to the workers and failed there too


def test_an_arena_killed_outright_leaves_no_process_behind(tmp_path: Path) -> None:
    """``chinchon arena --jobs 2`` killed with SIGKILL: its workers end too, not run on under init."""
    command = [sys.executable, "-m", "chinchon", "arena", "--bots", "random,random", "--jobs", "2"]
    arena = subprocess.Popen([*command, "--matches", "1000000", "--seed", "1"], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(workers := children(arena.pid)) < 2:
            assert arena.poll() is None, "the arena ended before its workers started"
            assert time.monotonic() < deadline, "the arena's workers never started"
            time.sleep(0.1)
        time.sleep(0.5)  # the workers are playing
        workers = children(arena.pid)
    finally:
        arena.send_signal(signal.SIGKILL)
        arena.wait(30)
    deadline = time.monotonic() + 20
    try:
        while any(running(worker) for worker in workers):
            assert time.monotonic() < deadline, f"the killed arena's processes live on: {workers}"
            time.sleep(0.1)
    finally:
        for pid, _started in filter(running, workers):
            os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("broken", [RaisingBot, IllegalBot, UnbuildableBot])
def test_a_broken_bot_loses_its_matches_and_the_arena_goes_on(broken: type[Bot]) -> None:
    report = run_arena(ArenaConfig(bots=("simple", broken), boards=3, seed=3))
    assert len(report.outcomes) == 6
    failures = report.failures
    assert len(failures) == 6  # it breaks every match it plays
    for outcome, failure in failures:
        assert failure.bot == broken.name
        assert outcome.seating[failure.seat] == 1
        assert [outcome.seating[seat] for seat in outcome.winners] == [0]
    simple, bad = report.bots
    assert (simple.won, bad.won, bad.failures, simple.failures) == (6, 0, 6, 0)
    kind, error = failures[0][1].kind, failures[0][1].error
    if broken is RaisingBot:
        assert (kind, error) == ("raised", "RuntimeError: boom")
    elif broken is UnbuildableBot:
        assert (kind, error) == ("raised", "RuntimeError: cannot build")
    else:
        assert (kind, error) == ("illegal", "Pass()")
    text = io.StringIO()
    print_report(report, Console(file=text, width=100))
    assert "6 matches were lost by a failing bot:" in text.getvalue()
    assert f"board 0, seat 1, {broken.name}:" in text.getvalue()
    assert report.to_dict()["failures"][0]["bot"] == broken.name


def test_plain_progress_lines_when_not_a_terminal() -> None:
    config = ArenaConfig(bots=("simple", "random"), boards=5, seed=1)
    out = io.StringIO()
    with ArenaProgress(config, Console(file=out), file=out) as progress:
        run_arena(config, progress=progress.update)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[-1].startswith("10/10 matches · ")
    assert lines[-1].endswith(" matches/s · simple 100.0%, random 0.0%")


@pytest.mark.parametrize("lang", ["en", "pl"])
def test_the_progress_bar_fits_80_columns_without_cutting_a_number(lang: str) -> None:
    """On an 80-column terminal, a long arena's bar keeps its count, speed and rates whole on their lines."""
    config = ArenaConfig(bots=("ismcts:iterations=200", "greedy", "simple:noise=0.3"), boards=1_000_000, seed=1)
    out = io.StringIO()
    set_language(lang)
    try:
        console = Console(file=out, width=80, force_terminal=True, color_system=None, legacy_windows=False)
        with ArenaProgress(config, console, live=True) as progress:
            outcome = run_arena(ArenaConfig(bots=("simple", "random"), boards=1, seed=1)).outcomes[0]
            for _ in range(3):
                progress.update(outcome)
        rates = progress.rates()
    finally:
        set_language("en")
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    shown = [line.rstrip() for line in re.split(r"[\r\n]", plain) if line.strip()]
    assert all(len(line) <= 80 for line in shown), shown
    last_bar = [line for line in shown if f"3/{config.total}" in line]
    assert last_bar, shown  # the count is whole, on one line
    speed = "matches/s" if lang == "en" else "partii/s"
    assert speed in last_bar[-1], shown
    assert " ".join(" ".join(shown[-2:]).split()).endswith(" ".join(rates.split())), shown


def test_report_in_another_language() -> None:
    report = run_arena(ArenaConfig(bots=("simple", "random"), boards=1, seed=1))
    text = io.StringIO()
    set_language("es")
    try:
        print_report(report, Console(file=text, width=100))
    finally:
        set_language("en")
    assert "Partidas" in text.getvalue()


# -- the Dask path ---------------------------------------------------------------------------


@pytest.mark.parametrize("processes", [False, True], ids=["threads", "processes"])
def test_dask_cluster_gives_the_same_results(processes: bool) -> None:
    distributed = pytest.importorskip("distributed")
    config = ArenaConfig(bots=("simple", "simple:noise=0.3", IllegalBot), boards=2, seed=6)
    local = run_arena(config)
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=processes, dashboard_address=":0"
    ) as cluster:
        remote = run_arena(config, scheduler=cluster.scheduler_address)
    assert comparable(remote) == comparable(local)
    assert remote.scheduler == cluster.scheduler_address


def test_unreachable_scheduler_is_a_clear_error() -> None:
    pytest.importorskip("distributed")
    with pytest.raises(ArenaError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:1"):
        run_arena(ArenaConfig(bots=("simple", "random"), boards=1), scheduler="tcp://127.0.0.1:1", connect_timeout=1)


# -- the command line ------------------------------------------------------------------------


def cli(*args: str) -> Any:
    """Run ``chinchon`` in-process; the result has ``exit_code``, ``stdout`` and ``stderr``."""
    env = {"LANGUAGE": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "C.UTF-8", "NO_COLOR": "1"}
    return CliRunner().invoke(app, list(args), env=env)


def without_run(document: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in ("run", "arguments")}


def test_cli_arena_writes_a_json_report_that_repeats(tmp_path: Any) -> None:
    path = tmp_path / "arena.json"
    result = cli("arena", "--bots", "simple,random", "--matches", "3", "--seed", "5", "--output", str(path))
    assert result.exit_code == 0, result.stderr
    assert "Arena: 6 matches; boards: 3, seatings: 2; players: 2; rules: fournier; seed: 5" in result.stdout
    assert f"Report written to {path}" in result.stdout
    document = json.loads(path.read_text("utf-8"))
    assert document["format"] == "chinchon-arena" and document["seed"] == 5
    assert document["bots"] == ["simple", "random"] and document["players"] == 2
    assert document["rules"]["preset"] == "fournier" and document["rules"]["options"] == Rules().to_dict()
    assert document["arguments"]["matches"] == 3 and document["arguments"]["seed"] == 5
    assert [bot["played"] for bot in document["results"]] == [6, 6]
    assert len(document["outcomes"]) == 6 and document["failures"] == []
    command = document["command"]
    assert command[:2] == ["chinchon", "arena"]
    again = tmp_path / "again.json"
    repeat = cli(*command[1:], "--jobs", "2", "--output", str(again))
    assert repeat.exit_code == 0, repeat.stderr
    assert without_run(json.loads(again.read_text("utf-8"))) == without_run(document)


def test_cli_arena_stops_long_matches_and_says_how_to_repeat(tmp_path: Any) -> None:
    path = tmp_path / "arena.json"
    args = ["--bots", "simple,random", "--matches", "2", "--seed", "1", "--max-actions", "5", "--output", str(path)]
    result = cli("arena", *args)
    assert result.exit_code == 0, result.stderr
    assert "4 matches were stopped unfinished after 5 actions." in result.stdout
    document = json.loads(path.read_text("utf-8"))
    assert document["arguments"]["max_actions"] == 5
    assert document["command"][-4:] == ["--max-actions", "5", "--seed", "1"]
    assert all(outcome["actions"] == 5 for outcome in document["outcomes"])


def test_cli_arena_seatings_of_three_bots_and_their_repeat(tmp_path: Any) -> None:
    path = tmp_path / "arena.json"
    result = cli("arena", "--bots", "simple,random,easy", "--hands", "2", "--seed", "3", "--output", str(path))
    assert result.exit_code == 0, result.stderr
    assert "Arena: 12 hands; boards: 2, seatings: 6" in result.stdout
    document = json.loads(path.read_text("utf-8"))
    assert document["seating"] == "auto" and len(document["seatings"]) == 6
    assert document["arguments"]["seatings"] == "auto"
    assert "--seatings" not in document["command"]
    rotations = tmp_path / "rotations.json"
    result = cli(*document["command"][1:], "--seatings", "rotations", "--output", str(rotations))
    assert result.exit_code == 0, result.stderr
    assert "Arena: 6 hands; boards: 2, seatings: 3" in result.stdout
    again = json.loads(rotations.read_text("utf-8"))
    assert again["seatings"] == [[0, 1], [1, 2], [2, 0]]
    assert again["command"][-4:] == ["--seatings", "rotations", "--seed", "3"]


def test_cli_arena_hands_in_spanish() -> None:
    result = cli("arena", "--bots", "simple,random", "--hands", "2", "--seed", "1", "--lang", "es")
    assert result.exit_code == 0, result.stderr
    assert "Arena: 4 manos; tableros: 2" in result.stdout
    assert "Puntos/mano" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "simple,nobody", "--matches", "2"], "error: unknown bot 'nobody'"),
        (["--bots", "simple,random", "--matches", "2", "--players", "9"], "error: players: these rules play with"),
        (["--bots", "simple,random", "--matches", "2", "--hands", "2"], "error: give either --matches N or --hands N"),
        (["--bots", "simple,random"], "error: give either --matches N or --hands N"),
        (["--matches", "2"], "error: give the bots with --bots"),
        (["--bots", "simple", "--matches", "2"], "error: an arena needs at least two bots, got 1"),
        (
            ["--bots", "simple,random", "--matches", "0"],
            "error: --matches: expected a whole number of at least 1, got 0",
        ),
        (["--bots", "simple,random", "--matches", "2", "--jobs", "0"], "error: --jobs: expected a whole number"),
        (["--bots", "simple,random", "--matches", "2", "--max-actions", "0"], "error: --max-actions: expected a whole"),
        (["--bots", "simple,random", "--matches", "2", "--rules", "nowhere"], "error: unknown preset 'nowhere'"),
        (["--bots", "simple:noise=2,random", "--matches", "2"], "error: the bot parameter noise must be a number"),
        (["--bots", "simple,random", "--hands", "-3"], "error: --hands: expected a whole number of at least 1, got -3"),
        (["--bots", "simple,random", "--matches", "2", "--seatings", "some"], "error: seatings: expected auto, rotat"),
    ],
)
def test_cli_arena_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = cli("arena", *args)
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr.startswith(message)
    assert len(result.stderr.strip().splitlines()) == 1
    assert result.stdout == ""


def test_cli_arena_unwritable_json_fails_before_playing(tmp_path: Any) -> None:
    result = cli("arena", "--bots", "simple,random", "--matches", "2", "--output", str(tmp_path / "no" / "x.json"))
    assert result.exit_code == EXIT_BAD_INPUT
    assert result.stderr.startswith("error: cannot write")
    assert result.stdout == ""


def test_cli_arena_help_gives_the_real_cap_on_actions() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, TyperGroup)
    arena = group.commands["arena"]
    options = {name: param for param in arena.params for name in param.opts}
    assert f"(default: {MAX_ACTIONS})" in (getattr(options["--max-actions"], "help", None) or "")


def test_the_json_check_creates_no_file_and_names_the_problem(tmp_path: Any) -> None:
    from chinchon.cli import _unwritable

    fresh = tmp_path / "fresh.json"
    assert _unwritable(str(fresh)) is None
    assert not fresh.exists()
    assert _unwritable(str(tmp_path)) == "Is a directory"
    assert _unwritable(str(tmp_path / "no" / "x.json")) == "No such file or directory"


def test_a_failed_json_write_leaves_the_old_report_whole(tmp_path: Any) -> None:
    from chinchon.tui.storage import write_whole

    report = tmp_path / "report.json"
    write_whole(str(report), '{"old": true}\n')
    with pytest.raises(UnicodeEncodeError):
        write_whole(str(report), '{"new": "' + "x" * 100_000 + '\ud800"}\n')
    assert report.read_text(encoding="utf-8") == '{"old": true}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_written_report_has_the_usual_permissions(tmp_path: Any) -> None:
    from chinchon.tui.storage import write_whole

    before = os.umask(0o022)
    try:
        report = tmp_path / "report.json"
        write_whole(report, "{}\n")
        assert stat.S_IMODE(report.stat().st_mode) == 0o644
        report.chmod(0o600)
        write_whole(report, "[]\n")
        assert stat.S_IMODE(report.stat().st_mode) == 0o600 and report.read_text("utf-8") == "[]\n"
    finally:
        os.umask(before)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX symbolic links")
def test_a_report_written_to_a_symbolic_link_goes_to_its_target(tmp_path: Any) -> None:
    from chinchon.tui.storage import write_whole

    target, link = tmp_path / "real.json", tmp_path / "link.json"
    target.write_text("old\n", "utf-8")
    link.symlink_to(target)
    write_whole(link, "new\n")
    assert link.is_symlink() and target.read_text("utf-8") == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "real.json"]


def test_the_arena_starts_no_more_processes_than_boards(monkeypatch: pytest.MonkeyPatch) -> None:
    import chinchon.arena as arena_module

    started: list[int] = []
    from chinchon.processes import worker_pool as real

    def counting(workers: int) -> Any:
        started.append(workers)
        return real(workers)

    monkeypatch.setattr(arena_module, "worker_pool", counting)
    report = run_arena(ArenaConfig(("simple", "random"), boards=2, seed=1), jobs=16)
    assert started == [2]
    assert len(report.outcomes) == 4


@pytest.mark.parametrize("seconds", ["inf", "nan", "0", "3601"])
def test_bench_refuses_seconds_out_of_range(seconds: str) -> None:
    result = cli("bench", "--seconds", seconds)
    assert result.exit_code == EXIT_BAD_INPUT
    assert "--seconds must be more than 0 and at most 3600" in result.stderr


def test_bench_names_its_figures_in_the_chosen_language() -> None:
    result = cli("bench", "--seconds", "0.01", "--lang", "es")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("solucionador: best_arrangement, 7 cartas") and "µs/mano" in line for line in lines)
    assert any(line.startswith("búsqueda ismcts (300 iteraciones") for line in lines)
    assert not any("players" in line or "hands/s" in line or "steps/s" in line for line in lines)


@pytest.mark.parametrize("language", ["en", "es", "pt", "fr", "pl", "ar"])
def test_the_report_fits_an_80_column_terminal_without_cutting_a_cell(language: str) -> None:
    report = run_arena(ArenaConfig(bots=("random", "simple", "greedy"), players=2, boards=1, mode="hands", seed=1))
    set_language(language)
    try:
        out = io.StringIO()
        print_report(report, Console(file=out, width=80, force_terminal=True, color_system=None))
    finally:
        set_language("en")
    text = out.getvalue()
    tables = [line for line in text.splitlines() if "random" in line]
    assert "…" not in text
    assert all(len(line) <= 80 for line in tables), text
    assert len(tables) >= 2  # a row of each table of the bots, and its Elo rating
