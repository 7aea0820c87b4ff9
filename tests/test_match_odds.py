"""The bots' match decisions: the chance to win from the totals, re-entry and closing by what is at stake."""

from __future__ import annotations

import dataclasses
import random

import pytest

from chinchon import Match, Observation, ReEnter, Rules
from chinchon.bots import make_bot
from chinchon.bots.greedy import close_by_odds, close_urgency, reentry_gain
from chinchon.bots.odds import headroom, win_chances


def test_the_chances_add_up_and_favour_the_lower_total() -> None:
    rules = Rules()
    even = win_chances([40, 40], rules)
    assert even == pytest.approx([0.5, 0.5])
    ahead = win_chances([30, 60], rules)
    assert sum(ahead) == pytest.approx(1) and ahead[0] > 0.7
    assert win_chances([30, 80], rules)[0] > ahead[0]
    four = win_chances([10, 20, 30, 40], rules)
    assert sum(four) == pytest.approx(1) and four == sorted(four, reverse=True)


def test_a_total_over_the_limit_has_lost_unless_it_may_re_enter() -> None:
    assert win_chances([90, 101], Rules()) == [1.0, 0.0]
    assert win_chances([50, 101, 60], Rules())[1] == 0.0
    # Re-entering comes back at the highest total still in: with two players, the same total.
    assert win_chances([90, 101], Rules.preset("clasico")) == pytest.approx([0.5, 0.5])
    # With unlimited re-entry the totals decide only a hand that puts every seat over.
    assert win_chances([20, 95], Rules.preset("polaco")) == [0.5, 0.5]
    assert win_chances([104, 102], Rules.preset("polaco")) == [0.0, 1.0]
    # Everyone over: the lowest total wins.
    assert win_chances([104, 102], Rules()) == [0.0, 1.0]
    assert headroom(100, Rules()) > 0 > headroom(100, Rules(eliminate_at="reaching"))


def _deciding(rules: Rules, scores: tuple[int, ...], active: tuple[int, ...], pot: int) -> Observation:
    """Seat 0's observation when it must decide whether to re-enter, the others' totals being ``scores``."""
    base = Match(len(scores), rules, seed=1).observation(0)
    return dataclasses.replace(
        base,
        scores=scores,
        active=active,
        reentry_pending=(0,),
        legal_actions=(ReEnter(True), ReEnter(False)),
        pot=pot,
    )


@pytest.mark.parametrize("name", ["greedy", "ismcts:iterations=20,paired=true", "strong"])
def test_with_two_players_re_entry_is_taken_even_near_the_limit(name: str) -> None:
    # Declining would concede the match: the old rule declined above the limit less 8.
    observation = _deciding(Rules.preset("polaco"), (103, 97), (1,), pot=2)
    assert reentry_gain(observation) > 0
    bot = make_bot(name)
    assert bot.choose(observation, observation.legal_actions, random.Random(1)) == ReEnter(True)


def test_a_hopeless_re_entry_is_declined_only_when_it_costs_a_stake() -> None:
    # Coming back at 99 against two low totals: the stake is very likely lost.
    with_stakes = _deciding(Rules.preset("clasico", stake=1), (102, 99, 10, 12), (1, 2, 3), pot=4)
    assert reentry_gain(with_stakes) < 0
    bot = make_bot("greedy")
    assert bot.choose(with_stakes, with_stakes.legal_actions, random.Random(1)) == ReEnter(False)
    free = _deciding(Rules.preset("clasico"), (102, 99, 10, 12), (1, 2, 3), pot=0)
    assert 0 < reentry_gain(free) < 0.2
    assert bot.choose(free, free.legal_actions, random.Random(1)) == ReEnter(True)
    # A comeback against even totals is worth its stake.
    even = _deciding(Rules.preset("clasico", stake=1), (102, 60, 55, 58), (1, 2, 3), pot=4)
    assert reentry_gain(even) > 0
    # With unlimited re-entry the comeback is never hopeless: it can come back again.
    unlimited = _deciding(Rules.preset("polaco"), (102, 99, 10, 12), (1, 2, 3), pot=4)
    assert reentry_gain(unlimited) > 0


def _playing(scores: tuple[int, int]) -> Observation:
    return dataclasses.replace(Match(2, Rules(), seed=1).observation(0), scores=scores, active=(0, 1))


def test_waiting_for_a_clean_close_is_weighed_by_the_match() -> None:
    # Mid-match, a good chance of a clean close next turn is worth the risk of being caught.
    assert not close_by_odds(_playing((20, 20)), 4, clean_chance=0.3, risk=0.1, patience=1.0)
    # With the other seat near the limit, closing now may put it out: close.
    assert close_by_odds(_playing((20, 95)), 4, clean_chance=0.3, risk=0.1, patience=1.0)
    # Few clean outs: close.
    assert close_by_odds(_playing((20, 20)), 4, clean_chance=0.02, risk=0.3, patience=1.0)


def test_closing_first_is_urgent_near_the_end_of_a_match() -> None:
    assert close_urgency(_playing((0, 0))) == pytest.approx(1)
    assert close_urgency(_playing((95, 95))) > 3
    polaco = dataclasses.replace(Match(2, Rules.preset("polaco"), seed=1).observation(0), scores=(50, 50))
    assert close_urgency(polaco) == 0  # re-entry evens the totals: nothing to hurry for
    assert close_urgency(dataclasses.replace(polaco, scores=(98, 98))) > 3  # the first to close wins
