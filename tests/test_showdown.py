"""The showdown helper: the player's own moves searched from the observation alone."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest

from chinchon.actions import Close, Draw, LayOff, Pass, Show
from chinchon.bots import make_bot
from chinchon.bots.showdown import own_showdown_choice
from chinchon.cards import Card, parse_cards
from chinchon.deal import stack_deck
from chinchon.match import Match
from chinchon.observation import Phase
from chinchon.rules import Rules


def after_a_close(rules: Rules, closer: str, others: Sequence[str], melds: Sequence[str]) -> Match:
    """The showdown just after the last seat closed on its first turn; ``others`` are the hands of seats 0, 1..."""
    players = len(others) + 1
    hands = [parse_cards(closer), *map(parse_cards, others)]
    deck = stack_deck(rules, hands, discard=Card.parse("3♦"), stock=parse_cards("2♣"))
    match = Match(players, rules, 1, first=players - 1, decks=[deck])
    match.apply(Draw("stock"), seat=players - 1)
    match.apply(Close(Card.parse("2♣"), tuple(tuple(parse_cards(m)) for m in melds)), seat=players - 1)
    return match


def test_a_card_goes_where_the_next_one_can_follow() -> None:
    # 7♥ fits the set of sevens and the run 4♥ 5♥ 6♥; only on the run can J♥ follow it.
    match = after_a_close(Rules(), "7♣ 7♦ 7♠ 4♥ 5♥ 6♥ A♣", ["7♥ J♥ Q♠ K♦ 2♦ 3♠ A♠"], ["7♣ 7♦ 7♠", "4♥ 5♥ 6♥"])
    observation = match.observation(0)
    assert LayOff(Card.parse("7♥"), 0) in observation.legal_actions
    assert own_showdown_choice(observation) == LayOff(Card.parse("7♥"), 1)
    # greedy, which lays its dearest card off onto the first meld it fits, loses J♥'s ten points.
    assert make_bot("greedy").choose(observation, list(observation.legal_actions), random.Random(0)) == LayOff(
        Card.parse("7♥"), 0
    )


@pytest.mark.parametrize("preset", ["fournier", "polaco"])
def test_the_choice_is_always_legal_and_ends_the_showdown(preset: str) -> None:
    rules = Rules.preset(preset)
    bot = make_bot("greedy")
    decided = 0
    for seed in range(12):
        match = Match(3, rules, seed)
        rng = random.Random(seed)
        while not match.over and len(match.deals) < 3 and len(match.log) < 3000:
            seat = match.to_move
            assert seat is not None
            observation = match.observation(seat)
            if observation.phase is Phase.SHOWDOWN:
                action = own_showdown_choice(observation)
                assert action in observation.legal_actions
                decided += isinstance(action, (Show, LayOff, Pass))
            else:
                action = bot.choose(observation, list(observation.legal_actions), rng)
            match.apply(action, seat=seat)
    assert decided > 50
