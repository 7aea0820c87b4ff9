"""Match equity: the shipped table, when it applies, the search's rewards by it, and the script that computes it."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from chinchon.bots import BotError, make_bot
from chinchon.bots.equity import match_equity
from chinchon.bots.ismcts import IsmctsBot
from chinchon.game import Deal, Match
from chinchon.rules import Rules
from tests.scripts import load_script

match_equity_script = load_script("match_equity")

FOURNIER = Rules.preset("fournier")


def _table() -> tuple[int, int, list[list[float]]]:
    path = Path(__file__).resolve().parent.parent / "chinchon" / "bots" / "equity.json"
    data = json.loads(path.read_text())
    assert data["format"] == "chinchon-match-equity" and data["rules"] == "fournier"
    return data["limit"], data["low"], data["equity"]


def test_two_seats_sharing_out_one_deal_each_way_win_as_the_recursion_says() -> None:
    # Each deal gives one seat 60 points: 100 is still in, 101 is out.
    table, sweeps = match_equity_script.equity_table([(0, 60)], limit=100, low=0)
    assert sweeps > 1
    expected = {(0, 0): 0.5, (50, 50): 0.5, (0, 50): 0.75, (60, 0): 0.25, (40, 0): 0.5, (41, 0): 0.25, (100, 60): 0.5}
    for (mine, other), chance in expected.items():
        assert table[mine, other] == pytest.approx(chance)


def test_the_script_refuses_no_deals_and_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no deals"):
        match_equity_script.equity_table([], limit=100)
    with pytest.raises(SystemExit):
        match_equity_script.main(["--boards", "0", "--out", str(tmp_path / "x.json")])


def test_the_script_writes_a_table_of_every_pair_of_totals(tmp_path: Path) -> None:
    out = tmp_path / "equity.json"
    assert match_equity_script.main(["--boards", "2", "--seed", "3", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    size = data["limit"] - data["low"] + 1
    assert data["deals"] + data["unfinished"] == 4
    assert len(data["equity"]) == size and all(len(row) == size for row in data["equity"])
    assert data["equity"][-data["low"]][-data["low"]] == 0.5


def test_the_shipped_table_is_fair_and_prefers_fewer_points() -> None:
    limit, low, table = _table()
    size = limit - low + 1
    assert len(table) == size
    assert table[-low][-low] == 0.5
    for a in range(size):
        for b in range(size):
            assert table[a][b] + table[b][a] == pytest.approx(1.0, abs=2e-4)
            if a + 1 < size:
                assert table[a + 1][b] <= table[a][b] + 2e-4
            if b + 1 < size:
                assert table[a][b + 1] >= table[a][b] - 2e-4
    # Ten points short of the limit against a fresh seat is a poor match to be in.
    assert table[90 - low][-low] < 0.1


def test_the_equity_applies_to_two_seat_fournier_matches_only() -> None:
    match = Match(2, FOURNIER, 1, scores=[80, 95])
    observation = match.observation(0)
    equity = match_equity(observation)
    assert equity is not None
    scores, win = equity
    assert scores == (80, 95)
    _, low, table = _table()
    assert win(80, 95) == table[80 - low][95 - low]
    assert win(101, 50) == 0.0 and win(50, 101) == 1.0
    assert win(101, 105) == 1.0 and win(105, 101) == 0.0 and win(103, 103) == 0.5
    assert win(-70, 0) == table[0][-low]
    # A lone deal has no scores; three seats, re-entry or a limit of its own have no table.
    assert match_equity(Deal.new(FOURNIER, 2, rng=random.Random(1)).observation(0)) is None
    assert match_equity(Match(3, FOURNIER, 1).observation(0)) is None
    assert match_equity(Match(2, Rules.preset("clasico"), 1).observation(0)) is None
    assert match_equity(Match(2, Rules.preset("fournier", limit=150), 1).observation(0)) is None


def test_the_search_scores_a_playout_by_the_chance_to_win_the_match() -> None:
    match = Match(2, FOURNIER, 2, scores=[60, 92])
    seat = match.to_move
    assert seat is not None
    observation = match.observation(seat)
    bot = IsmctsBot(iterations=4, paired=True, equity=True)
    bot.choose(observation, match.legal_actions(), random.Random(1))
    equity = match_equity(observation)
    assert equity is not None
    _, win = equity
    other = 1 - seat
    points = [0.0, 0.0]
    points[seat], points[other] = 7.0, 12.0
    reward = bot._reward(match.deal, points)
    chance = win(observation.scores[seat] + 7, observation.scores[other] + 12)
    assert reward[seat] == pytest.approx(2 * chance - 1) and reward[other] == pytest.approx(1 - 2 * chance)
    # The other seat passes the limit: the match is won whatever the points were.
    points[other] = 101.0 - observation.scores[other]
    assert bot._reward(match.deal, points)[seat] == 1.0
    # Without the table the reward is the deal's points, as before.
    plain = IsmctsBot(iterations=4, paired=True)
    plain.choose(observation, match.legal_actions(), random.Random(1))
    assert plain._reward(match.deal, [10.0, 30.0]) == [0.5, -0.5]


def test_the_search_takes_equity_and_learned_as_parameters() -> None:
    bot = make_bot("ismcts:equity=true,learned=false")
    assert isinstance(bot, IsmctsBot)
    assert bot.equity and not bot._greedy.learned
    with pytest.raises(BotError, match="equity"):
        make_bot("ismcts:equity=maybe")


def test_the_search_by_equity_plays_a_whole_match_legally() -> None:
    match = Match(2, FOURNIER, 5)
    bots = [make_bot("ismcts:iterations=8,paired=true,equity=true"), make_bot("greedy")]
    rngs = [random.Random(1), random.Random(2)]
    actions = 0
    while not match.over and actions < 5000:
        seat = match.to_move
        assert seat is not None
        legal = match.legal_actions()
        action = bots[seat].choose(match.observation(seat), legal, rngs[seat])
        assert action in legal
        match.apply(action)
        actions += 1
    assert match.over
