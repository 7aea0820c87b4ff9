"""Bots: legal play under every preset, no access to hidden state, reproducibility."""

from __future__ import annotations

import dataclasses
import random

import pytest

from chinchon import Rules
from chinchon.actions import Close
from chinchon.bots import LEVELS, Bot, BotError, bot_names, make_bot
from chinchon.game import Deal, Match, Observation, Phase

CONFIGS = [
    (preset, players)
    for preset in Rules.presets()
    for players in range(Rules.preset(preset).min_players, Rules.preset(preset).max_players + 1)
]
BOTS = ["random", "simple", "easy", "greedy", "ismcts:iterations=8", "ismcts:iterations=8,paired=true,anchor=0.5"]


def play(match: Match, bots: list[Bot], seed: int, max_actions: int) -> int:
    rngs = [random.Random(seed * 31 + i) for i in range(match.players)]
    actions = 0
    while not match.over and actions < max_actions:
        seat = match.to_move
        assert seat is not None
        legal = match.legal_actions()
        action = bots[seat].choose(match.observation(seat), legal, rngs[seat])
        assert action in legal, (bots[seat].name, action)
        match.apply(action)  # checks legality again
        actions += 1
    return actions


@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_every_bot_plays_only_legal_actions(preset: str, players: int) -> None:
    rules = Rules.preset(preset)
    names = [BOTS[(i + players) % len(BOTS)] for i in range(players)]
    match = Match(players, rules, seed=players)
    bots = [make_bot(name) for name in names]
    assert play(match, bots, players, 250 if players <= 4 else 120) > 0


def test_bots_finish_matches_with_jokers_and_two_decks() -> None:
    for rules in (Rules.preset("online", jokers=2), Rules.preset("polaco", decks=2), Rules(wild_ace_of_oros=True)):
        match = Match(3, rules, seed=4)
        bots = [make_bot("greedy"), make_bot("simple"), make_bot("ismcts:iterations=5")]
        play(match, bots, 4, 3000)
        assert match.over


@pytest.mark.parametrize("name", ["random", "simple", "greedy", "ismcts:iterations=20"])
def test_a_bot_is_reproducible_for_a_seed(name: str) -> None:
    def run() -> list[str]:
        match = Match(2, Rules(), seed=8)
        bots = [make_bot(name), make_bot("simple")]
        rngs = [random.Random(5), random.Random(6)]
        log = []
        for _ in range(40):
            if match.over:
                break
            seat = match.to_move
            assert seat is not None
            action = bots[seat].choose(match.observation(seat), match.legal_actions(), rngs[seat])
            log.append(str(action))
            match.apply(action)
        return log

    assert run() == run()


@pytest.mark.parametrize("name", ["greedy", "ismcts:iterations=30"])
def test_a_bot_decides_from_its_observation_alone(name: str) -> None:
    """Hidden cards dealt anew leave the observation, and so the bot's choice, unchanged."""
    bot = make_bot(name)
    rng = random.Random(1)
    checked = 0
    for seed in range(12):
        match = Match(3, Rules(), seed=seed)
        play(match, [make_bot("simple")] * 3, seed, rng.randrange(5, 60))
        deal = match.deal
        if match.over or deal.phase not in (Phase.DRAW, Phase.DISCARD):
            continue
        seat = deal.to_move
        assert seat is not None
        observation = match.observation(seat)
        other = Deal.sample(deal.observation(seat), random.Random(seed))
        # The sampled deal hides different cards; the seat's observation is the same.
        assert other.observation(seat).hand == observation.hand
        choice = bot.choose(observation, list(observation.legal_actions), random.Random(9))
        again = bot.choose(
            dataclasses.replace(observation), list(other.observation(seat).legal_actions), random.Random(9)
        )
        assert choice == again
        checked += 1
    assert checked >= 5


def test_observation_exposes_no_deal() -> None:
    fields = {f.name for f in dataclasses.fields(Observation)}
    match = Match(2, Rules(), seed=1)
    observation = match.observation(0)
    for name in fields:
        assert not isinstance(getattr(observation, name), Deal | Match)


def test_simple_closes_as_soon_as_it_may() -> None:
    from chinchon.cards import Card, parse_cards
    from chinchon.game import stack_deck

    rules = Rules()
    hands = [parse_cards("3♥ 4♥ 5♥ 6♥ 7♣ 7♦ 7♠"), parse_cards("2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦")]
    match = Match(2, rules, first=0, decks=[stack_deck(rules, hands, stock=[Card.parse("K♥")])])
    bot = make_bot("simple")
    rng = random.Random(0)
    match.apply(bot.choose(match.observation(0), match.legal_actions(), rng))
    action = bot.choose(match.observation(0), match.legal_actions(), rng)
    assert isinstance(action, Close) and action.discard == Card.parse("K♥")


def test_registry_and_levels() -> None:
    names = bot_names()
    for name in ("random", "simple", "greedy", "ismcts", *LEVELS):
        assert name in names
    assert make_bot("hard").name == "hard"
    assert make_bot("ismcts:iterations=10").iterations == 10  # type: ignore[attr-defined]
    with pytest.raises(BotError, match="unknown bot 'clever'; known bots: greedy, ismcts, random, simple, easy"):
        make_bot("clever")
    with pytest.raises(BotError, match="does not take"):
        make_bot("greedy:colour=red")
    with pytest.raises(BotError, match="name=value"):
        make_bot("ismcts:400")
    with pytest.raises(BotError):
        make_bot("hard:iterations=3")


def _match_log(names: list[str], seed: int, rules: Rules) -> list[str]:
    match = Match(len(names), rules, seed=seed)
    bots = [make_bot(name) for name in names]
    rngs = [random.Random(seed * 31 + i) for i in range(len(names))]
    log = []
    while not match.over and len(log) < 3000:
        seat = match.to_move
        assert seat is not None
        action = bots[seat].choose(match.observation(seat), match.legal_actions(), rngs[seat])
        log.append(f"{seat} {action}")
        match.apply(action)
    return log


@pytest.mark.parametrize(
    ("preset", "seed", "paired"),
    [("fournier", 2, False), ("clasico", 3, False), ("online", 4, False), ("fournier", 5, True), ("online", 6, True)],
)
def test_ismcts_plays_greedys_moves_until_the_search_proves_one_better(preset: str, seed: int, paired: bool) -> None:
    rules = Rules.preset(preset)
    spec = f"ismcts:iterations=12,paired={paired}"
    anchored = _match_log([f"{spec},anchor=1000", "simple"], seed, rules)
    assert anchored == _match_log(["greedy", "simple"], seed, rules)
    # With little or no anchor, the search plays moves of its own.
    loose = "anchor=0" if not paired else "anchor=0.001"
    assert _match_log([f"{spec},{loose}", "simple"], seed, rules) != anchored


def test_ismcts_leaves_greedys_move_only_by_a_margin_of_standard_errors() -> None:
    from chinchon.bots.ismcts import IsmctsBot, _Node

    def node(rewards: list[float]) -> _Node:
        out = _Node()
        out.visits = len(rewards)
        out.wins = sum(rewards)
        out.squares = sum(r * r for r in rewards)
        return out

    root = _Node()
    root.children = {
        1: node([0.0, 0.1, -0.1, 0.0] * 25),  # greedy's move: mean 0, standard error 0.007
        2: node([0.02, 0.12, -0.08, 0.02] * 25),  # 0.02 better: about two standard errors
        3: node([0.5]),  # one lucky visit
    }
    assert IsmctsBot(anchor=2)._anchored(root, 1) == 1
    assert IsmctsBot(anchor=1)._anchored(root, 1) == 2
    root.children[4] = node([0.1, 0.2, 0.0, 0.1] * 25)
    assert IsmctsBot(anchor=2)._anchored(root, 1) == 4
    with pytest.raises(ValueError, match="anchor"):
        IsmctsBot(anchor=-1)
