"""The research scripts: comparing arena runs, and the feeding study."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from chinchon.arena import ArenaConfig, run_arena
from chinchon.bots.greedy import completing_pairs, meld_chance, unseen_cards
from chinchon.cards import Card, parse_cards
from chinchon.deal import Deal
from chinchon.observation import Observation
from chinchon.rules import Rules
from tests.scripts import load_script

compare_runs = load_script("compare_runs")


def _report(bots: tuple[str, ...], seed: int = 3, boards: int = 6) -> dict[str, Any]:
    document = run_arena(ArenaConfig(bots=bots, boards=boards, seed=seed), jobs=1).to_dict()
    assert isinstance(document, dict)
    return document


@pytest.mark.parametrize(
    ("up", "down", "p"), [(0, 0, 1.0), (5, 0, 0.0625), (0, 5, 0.0625), (3, 3, 1.0), (9, 1, 0.021484375)]
)
def test_sign_test_known_values(up: int, down: int, p: float) -> None:
    assert compare_runs.sign_test(up, down) == pytest.approx(p)


def test_a_changed_bot_changes_the_winners_of_some_matches_only() -> None:
    base = _report(("simple", "greedy"))
    noisy = _report(("simple:noise=0.1", "greedy"))
    result = compare_runs.compare(base, noisy)
    assert result.matches == 12
    assert result.first_wins == base["results"][0]["won"]
    assert result.second_wins == noisy["results"][0]["won"]
    assert 0 < result.changed < result.matches
    assert result.unpaired == (0, 0) and result.lineups


def test_a_failed_match_is_lost_and_an_unpaired_one_left_out() -> None:
    base = _report(("simple", "greedy"))
    broken = json.loads(json.dumps(base))
    won = next(o for o in broken["outcomes"] if o["seating"][o["winners"][0]] == 0)
    # The arena's record of a match the first bot broke: the other seats win it.
    won["failure"] = {"seat": won["seating"].index(0), "kind": "raised", "error": "boom"}
    won["winners"] = [seat for seat, bot in enumerate(won["seating"]) if bot != 0]
    broken["outcomes"].pop()
    result = compare_runs.compare(base, broken)
    assert (result.matches, result.lost, result.gained) == (11, 1, 0)
    assert result.unpaired == (1, 0)


def test_runs_on_other_boards_are_refused() -> None:
    with pytest.raises(compare_runs.ComparisonError, match="seed"):
        compare_runs.compare(_report(("simple", "random"), seed=3), _report(("simple", "random"), seed=4))
    base = _report(("simple", "random"))
    forged = json.loads(json.dumps(base))
    forged["outcomes"][0]["decks"][0] = "0" * 12
    with pytest.raises(compare_runs.ComparisonError, match="dealt differently"):
        compare_runs.compare(base, forged)
    with pytest.raises(compare_runs.ComparisonError, match="position 2"):
        compare_runs.compare(base, base, position=2)


def test_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps(_report(("simple", "random"))), encoding="utf-8")
    second.write_text(json.dumps(_report(("random", "simple"))), encoding="utf-8")
    assert compare_runs.main([str(first), str(second)]) == 0
    out = capsys.readouterr().out
    assert "12 matches in both runs" in out
    assert "simple won 12 in the first, random 0 in the second" in out
    assert "its result changed in 12: 0 won only in the second run, 12 only in the first" in out
    assert "the other bots of the lineup differ" in out
    assert compare_runs.main([str(first), str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err


feeding_study = load_script("feeding_study")


def _observation(hand: str, taken: str, size: int = 7) -> Observation:
    """Seat 0 of a two-player deal holding ``hand``, the next seat ``size`` cards, ``taken`` among them."""
    start = Deal.new(Rules.preset("fournier"), 2, first=0, rng=random.Random(1)).observation(0)
    return dataclasses.replace(
        start,
        hand=tuple(parse_cards(hand)),
        taken=((), tuple(parse_cards(taken))),
        hand_sizes=(7, size),
        discard_pile=(),
        discards=(),
    )


def test_completing_pairs_of_a_middle_card_and_of_an_end_card() -> None:
    rules = Rules.preset("fournier")
    middle = completing_pairs(Card.parse("5♠"), rules)
    assert len(middle) == 6
    assert (Card.parse("4♠"), Card.parse("6♠")) in middle
    ace = completing_pairs(Card.parse("A♠"), rules)
    assert len(ace) == 4 and ace[-1] == (Card.parse("2♠"), Card.parse("3♠"))


@pytest.mark.parametrize(("taken", "size"), [("5♥", 3), ("", 3), ("4♠", 4), ("5♥ 6♠", 4)])
def test_meld_chance_is_the_exact_share_of_hidden_hands(taken: str, size: int) -> None:
    observation = _observation("A♥ 2♥ K♥ K♣ Q♦ J♦ 2♣", taken, size)
    card = Card.parse("5♠")
    known = set(parse_cards(taken))
    pool = list(unseen_cards(observation).elements())
    hands = list(itertools.combinations(pool, size - len(known)))
    rules = observation.rules
    melds = sum(
        any(a in held and b in held for a, b in completing_pairs(card, rules))
        for held in ({*hand, *known} for hand in hands)
    )
    assert meld_chance(observation, card) == pytest.approx(melds / len(hands))


def test_meld_chance_of_a_card_whose_partners_are_all_gone() -> None:
    blocked = _observation("A♥ 4♠ 6♠ 5♣ 5♦ J♦ 2♣", "K♥")
    # Every pair needs a card the observing seat holds.
    assert meld_chance(blocked, Card.parse("5♠")) == 0.0


@pytest.mark.parametrize(
    ("scores", "labels", "area"),
    [
        ([0.1, 0.2, 0.8, 0.9], [False, False, True, True], 1.0),
        ([0.9, 0.8, 0.2, 0.1], [False, False, True, True], 0.0),
        ([0.5, 0.5, 0.5, 0.5], [False, True, False, True], 0.5),
        ([0.1, 0.4, 0.35, 0.8], [False, False, True, True], 0.75),
    ],
)
def test_area_under_curve_known_values(scores: list[float], labels: list[bool], area: float) -> None:
    assert feeding_study.area_under_curve(scores, labels) == pytest.approx(area)


def test_the_feeding_study_counts_every_close_of_simple_in_its_table() -> None:
    tally = feeding_study._run(feeding_study.Job("greedy", 3, range(12), 0))
    assert tally.deals == 24 and len(tally.differences) == 12
    closes = sum(count for (_, _, closed), count in tally.turns.items() if closed)
    assert closes == tally.closes["simple"] > 0
    assert tally.closes["bot"] + tally.closes["simple"] <= tally.deals
    assert len(tally.scores) == len(tally.labels) > tally.discards >= tally.fed > 0


def test_the_oracle_replaces_feeding_discards_only() -> None:
    plain = feeding_study._run(feeding_study.Job("greedy", 3, range(12), 0))
    oracle = feeding_study._run(feeding_study.Job("greedy", 3, range(12), 3))
    assert plain.avoided == 0 < oracle.avoided <= oracle.fed
    assert statistics.fmean(oracle.differences) > statistics.fmean(plain.differences)


def test_the_feeding_study_prints_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    feeding_study.main(["--boards", "8", "--seed", "3", "--jobs", "1", "--oracle", "3"])
    out = capsys.readouterr().out
    assert re.search(r"greedy against simple, feeding discards replaced from the top 3: 16 deals", out)
    assert re.search(r"± \d+\.\d\d a deal \(95% interval over the 8 boards\)", out)
    assert re.search(r"bot closes +\d+\.\d%", out) and re.search(r"simple closes +\d+\.\d%", out)
    assert re.search(r"last discard none yet: not taken", out)
    assert re.search(r"simple could take: \d+ of \d+ .*; replaced: \d+", out)
    assert re.search(r"area under the ROC curve 0\.\d{3}", out)


@pytest.mark.parametrize(
    ("args", "message"),
    [(["--bot", "simple", "--oracle", "3"], "needs a greedy bot"), (["--boards", "0"], "at least 1")],
)
def test_the_feeding_study_refuses_what_it_cannot_do(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        feeding_study.main(args)
    assert message in capsys.readouterr().err
