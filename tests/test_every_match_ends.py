"""A property: under any valid rules, matches between ``random`` bots always end, and their records replay."""

from __future__ import annotations

import random
from typing import Any

import pytest

from chinchon.bots import make_bot
from chinchon.match import Match
from chinchon.record import dumps, loads, replay
from chinchon.rules import Rules, RulesError

# Every option a table may change, with values to draw from; the limits are low so that matches are short.
CHOICES: dict[str, list[Any]] = {
    "deck": ["spanish40", "spanish48", "french52"],
    "decks": [1, 2, "auto"],
    "jokers": [0, 1, 2],
    "wild_ace_of_oros": [False, True],
    "max_wilds_per_meld": [1, 2],
    "values": ["fournier", "figures10", "face_number"],
    "hand_size": [7, 7, 6, 8],
    "close_limit": [3, 5, 7],
    "close_max_loose_cards": [None, 1],
    "close_on_first_turn": [True, False],
    "forbid_rediscard": [False, True],
    "layoffs": [True, False],
    "layoffs_on_clean_close": [False, True],
    "closer_lays_off": [False, True],
    "layoff_one_per_run_per_round": [False, True],
    "set_distinct_suits": [True, False],
    "chinchon": ["none", "win", -25],
    "chinchon_needs_natural": [True, False],
    "chinchon_sets": [False, True],
    "wild_floats": [False, True],
    "limit": [15, 25],
    "eliminate_at": ["above", "reaching"],
    "reentry": ["none", "once", "unlimited"],
    "first_player": ["lot", "high_card"],
    "stake": [0, 1],
    "score_floor": [None, -20],
    "layoff_passes": [None, 1, 2],
    "max_reshuffles": [0, 1, 2, 3],
}
MATCHES = 12
MOST_ACTIONS = 200_000
"""A bound no match comes near (they take a few hundred actions): the match must be over well before it."""


def random_rules(rng: random.Random) -> Rules:
    """Valid rules: a preset with random options on top, drawn again until they fit together."""
    while True:
        options = {name: rng.choice(values) for name, values in CHOICES.items() if rng.random() < 0.35}
        try:
            return Rules.preset(rng.choice(Rules.presets()), **options)
        except RulesError:
            continue


@pytest.mark.parametrize("case", range(MATCHES))
def test_a_random_match_under_random_rules_ends_and_replays(case: int) -> None:
    rng = random.Random(f"every match ends {case}")
    rules = random_rules(rng)
    assert rules.max_reshuffles is not None
    players = rng.randint(rules.min_players, min(rules.max_players, 4))
    match = Match(players, rules, seed=case)
    bot = make_bot("random")
    actions = 0
    while not match.over and actions < MOST_ACTIONS:
        seat = match.to_move
        assert seat is not None
        observation = match.observation(seat)
        match.apply(bot.choose(observation, list(observation.legal_actions), rng), seat=seat)
        actions += 1
    assert match.over, f"{rules.as_text()} {players} players: not over after {actions} actions"
    assert match.winner is not None
    record = match.record()
    again = replay(loads(dumps(record)))
    assert again.over and again.winner == match.winner and again.scores == match.scores
    assert again.record() == record
