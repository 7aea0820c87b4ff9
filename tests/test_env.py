"""The reinforcement-learning environment: PettingZoo's API tests, numbering, hidden cards, rewards, seeding."""

from __future__ import annotations

import inspect
import random
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any, cast

import pytest

pytest.importorskip("pettingzoo")  # the optional extra rl: pettingzoo, gymnasium, numpy

import gymnasium
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.test.api_test import api_test
from pettingzoo.test.parallel_test import parallel_api_test
from pettingzoo.test.render_test import render_test
from pettingzoo.test.seed_test import seed_test
from pettingzoo.utils.conversions import aec_to_parallel, turn_based_aec_to_parallel

from chinchon import Card, Rules
from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show
from chinchon.bots import make_bot
from chinchon.cards import JOKER, Rank, Suit
from chinchon.compiled import compiled_modules
from chinchon.env import (
    ACTIONS,
    ACTIONS_INTERACTIVE,
    CARD_KINDS,
    CLOSE,
    DISCARD,
    LAYOFF,
    MAX_TABLE_MELDS,
    PASS,
    REENTER_NO,
    REENTER_YES,
    SHOW,
    BotOpponentsEnv,
    EnvError,
    SeatEncoder,
    action_index,
    action_mask,
    card_kind,
    encode_observation,
    env,
    kind_card,
    observation_layout,
    raw_env,
)
from chinchon.events import PRIVATE_EVENTS, PUBLIC_EVENTS, DealEnded, LaidOff, ReEntered, YouDrew
from chinchon.i18n import set_language
from chinchon.match import Match
from chinchon.observation import Observation, Phase
from tests.test_events import VARIANTS, choose
from tests.test_observation import play_to_random_point, redeal_hidden

CONFIGS = [(preset, players) for preset in Rules.presets() for players in sorted({2, Rules.preset(preset).max_players})]


def closer_first(mask: np.ndarray, rng: np.random.Generator, closing: float = 0.8) -> int:
    """A random legal action, but mostly a close when one is legal (so that deals end)."""
    legal = np.flatnonzero(mask)
    closes = legal[(legal >= CLOSE) & (legal < CLOSE + CARD_KINDS)]
    if len(closes) and rng.random() < closing:
        return int(rng.choice(closes))
    return int(rng.choice(legal))


def play(game: raw_env, rng: np.random.Generator, closing: float = 0.8) -> Iterator[tuple[str, dict[str, Any], float]]:
    """Play one episode of masked random actions; yield each live agent's (agent, observation, reward)."""
    while game.agents:
        agent = game.agent_selection
        observation, reward, terminated, truncated, _info = game.last()
        assert observation is not None
        yield agent, observation, reward
        game.step(None if terminated or truncated else closer_first(observation["action_mask"], rng, closing))


# -- PettingZoo's tests -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": "fournier", "players": 2},
        {"rules": "clasico", "players": 3, "reward": "hand"},
        {"rules": "polaco", "players": 8, "interactive_showdown": True},
    ],
)
def test_api_test(kwargs: dict[str, Any]) -> None:
    with warnings.catch_warnings():
        # A Dict observation with an action mask is PettingZoo's own convention for card games.
        warnings.filterwarnings("ignore", "Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        api_test(env(max_turns=600, **kwargs), num_cycles=300)  # type: ignore[no-untyped-call]


def test_the_raw_environment_passes_the_api_and_seed_tests_too() -> None:
    # raw_env is the fast path the documentation recommends: without PettingZoo's wrappers, the same API.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", "Observation is not a NumPy array")
        api_test(raw_env("fournier", 2, max_turns=600), num_cycles=300)  # type: ignore[no-untyped-call]
    seed_test(lambda: raw_env("online", 3, max_turns=400), num_cycles=200)  # type: ignore[no-untyped-call]


def test_seed_test() -> None:
    seed_test(lambda: env("online", 3, max_turns=400), num_cycles=200)  # type: ignore[no-untyped-call]
    seed_test(  # type: ignore[no-untyped-call]
        lambda: env("fournier", 2, interactive_showdown=True, max_turns=400), num_cycles=200
    )


def test_render_test() -> None:
    set_language("en")

    def make(render_mode: str | None = None) -> AECEnv[str, dict[str, Any], int | np.integer[Any] | None]:
        return env(players=3, render_mode=render_mode, max_turns=50)

    # PettingZoo annotates env_fn as a Gymnasium Env factory, though it calls it with render_mode and an AEC env.
    render_test(make)  # type: ignore[arg-type]


def test_the_parallel_conversion_does_not_apply_but_the_turn_based_one_does() -> None:
    # Only one seat acts at a time, so the cycle-wise conversion is refused ...
    with pytest.raises(AssertionError, match="is_parallelizable"):
        aec_to_parallel(env())
    # ... and the turn-based one, where only the seat to move's action counts, passes the parallel API test.
    parallel_api_test(turn_based_aec_to_parallel(env("clasico", 3, max_turns=300)), num_cycles=300)


# -- numbering ----------------------------------------------------------------------------------


def test_the_numbering() -> None:
    assert (CARD_KINDS, ACTIONS, ACTIONS_INTERACTIVE) == (53, 110, 1384)
    assert card_kind(Card(Rank.ACE, Suit.OROS)) == 0
    assert card_kind(Card(Rank.KING, Suit.BASTOS)) == 51
    assert card_kind(JOKER) == 52
    assert [kind_card(k) for k in range(52)] == Rules(deck="french52").cards(decks=1)
    assert all(card_kind(kind_card(k)) == k for k in range(CARD_KINDS))
    seven = Card.parse("7♥")
    assert action_index(Draw("stock")) == 0 and action_index(Draw("discard")) == 1
    assert action_index(Discard(seven)) == DISCARD + 13 + 6 == 21
    assert action_index(Close(seven)) == action_index(Close(seven, ((seven,),))) == CLOSE + 19
    assert (action_index(ReEnter(True)), action_index(ReEnter(False))) == (REENTER_YES, REENTER_NO) == (108, 109)
    assert (action_index(Pass()), action_index(Show(()))) == (PASS, SHOW) == (110, 111)
    assert action_index(LayOff(seven, 5)) == LAYOFF + MAX_TABLE_MELDS * 19 + 5
    assert action_index(LayOff(JOKER, MAX_TABLE_MELDS - 1)) == ACTIONS_INTERACTIVE - 1
    with pytest.raises(EnvError):
        action_index(LayOff(seven, MAX_TABLE_MELDS))


@pytest.mark.parametrize("interactive", [False, True])
def test_the_mask_is_the_legal_actions_and_each_number_plays_one(interactive: bool) -> None:
    rng = np.random.default_rng(3)
    showdowns = 0
    for preset, players in [("fournier", 3), ("polaco", 5), ("clasico", 2)]:
        game = raw_env(preset, players, interactive_showdown=interactive, max_turns=1500)
        game.reset(seed=7)
        for agent, observation, _reward in play(game, rng):
            mask = observation["action_mask"]
            legal = game.legal_actions()
            if not (game.terminations[agent] or game.truncations[agent]):
                assert sorted(legal) == list(np.flatnonzero(mask))
                assert all(action_index(action) == index for index, action in legal.items())
                match = game.match
                assert match is not None
                showdowns += match.deal.phase is Phase.SHOWDOWN
                assert match.deal.phase is not Phase.SHOWDOWN or interactive
    assert showdowns > 0 or not interactive


# -- observations -------------------------------------------------------------------------------


def observation_box(game: raw_env) -> gymnasium.spaces.Box:
    """The Box of player_0's observation vector, in its Dict observation space."""
    space = game.observation_space("player_0")
    assert isinstance(space, gymnasium.spaces.Dict)
    box = space["observation"]
    assert isinstance(box, gymnasium.spaces.Box)
    return box


def test_the_layout_covers_the_vector() -> None:
    for players in range(2, 9):
        blocks = observation_layout(players)
        assert blocks["hand"].start == 0
        assert all(a.stop == b.start for a, b in zip(list(blocks.values()), list(blocks.values())[1:], strict=False))
        game = raw_env("polaco" if players > 4 else "fournier", players)
        assert list(blocks.values())[-1].stop == observation_box(game).shape[0]
    assert observation_box(raw_env()).shape == (650,)


def test_the_encoding_reads_only_an_observation() -> None:
    parameters = inspect.signature(encode_observation).parameters
    assert list(parameters) == ["observation"]
    if "chinchon.env" not in compiled_modules():  # a compiled function keeps its parameters' names, not their types
        assert parameters["observation"].annotation in ("Observation", Observation)
    assert list(inspect.signature(action_mask).parameters) == ["observation", "interactive_showdown"]


def test_the_blocks_say_what_the_seat_sees() -> None:
    game = raw_env("fournier", 3)
    game.reset(seed=4)
    match = game.match
    assert match is not None
    seat = match.to_move
    assert seat is not None
    view = match.observation(seat)
    vector = game.observe(game.agent(seat))["observation"]
    assert np.array_equal(vector, encode_observation(view))
    blocks = observation_layout(3)
    hand = vector[blocks["hand"]]
    assert hand.sum() == 7 and all(hand[card_kind(card)] == 1 for card in view.hand)
    assert vector[blocks["top_discard"]][card_kind(match.deal.discard_pile[-1])] == 1
    assert vector[blocks["to_move"]].tolist() == [1, 0, 0]
    assert vector[blocks["phase"]].tolist() == [1, 0, 0, 0, 0]
    deck = vector[blocks["deck"]]
    assert deck.sum() == 40 and deck[card_kind(Card.parse("8♦"))] == 0
    unseen = vector[blocks["unseen"]]
    assert unseen.sum() == 40 - 7 - 1
    assert vector[blocks["values"]][card_kind(Card.parse("K♣"))] == pytest.approx(10 / 25)
    assert vector[blocks["stock"]][0] == pytest.approx((40 - 22) / 40)


def test_hidden_cards_do_not_change_the_vector() -> None:
    """Redealing every card hidden from a seat (other hands, stock, face-down card) leaves its vector as it was."""
    rng = random.Random(5)
    for preset in ("fournier", "online", "polaco"):
        rules = Rules.preset(preset, jokers=2) if preset == "online" else Rules.preset(preset)
        for trial in range(12):
            players = rng.choice([2, 3, 4])
            match = play_to_random_point(rules, players, seed=trial, steps=rng.randrange(300))
            deal = match.deal
            for seat in range(players):
                extra = match.observation(seat)
                before = encode_observation(deal.observation(seat))
                for _ in range(2):
                    changed = redeal_hidden(deal, seat, rng).observation(seat)
                    assert np.array_equal(encode_observation(changed), before)
                    assert np.array_equal(action_mask(changed, True), action_mask(deal.observation(seat), True))
                    # With the match's part of the observation (totals, re-entries) added, as the environment sees it.
                    pending = extra.reentry_pending
                    seen = replace(changed, scores=extra.scores, active=extra.active, reentry_pending=pending)
                    assert np.array_equal(encode_observation(seen), encode_observation(extra))


# -- the incremental encoder -----------------------------------------------------------------------


def random_action(match: Match, rng: random.Random) -> Action:
    """Mostly a close when one is legal (so that deals end and showdowns come), else any legal action."""
    legal = match.legal_actions()
    closes = [a for a in legal if isinstance(a, Close)]
    return closes[0] if closes and rng.random() < 0.7 else rng.choice(legal)


def closer_action(match: Match, rng: random.Random) -> Action:
    """A close whenever one is legal, else a random legal action: matches that end."""
    legal = match.legal_actions()
    closes = [a for a in legal if isinstance(a, Close)]
    return closes[0] if closes else rng.choice(legal)


@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_the_encoder_gives_the_reference_values_step_by_step(preset: str, players: int) -> None:
    """Each seat's SeatEncoder, fed its observations now and then (several actions apart, deals apart), and
    raw_env's, fed the deal's observation and the match's part, give encode_observation's vector every time."""
    rules = Rules.preset(preset, jokers=2) if preset == "online" else Rules.preset(preset)
    rng = random.Random(players)
    compared = 0
    phases: set[Phase] = set()
    deals: set[int] = set()
    for seed in range(2):
        # The seats play the showdown themselves: the table's melds and lay-offs reach the encoders.
        game = raw_env(rules, players, interactive_showdown=True)
        game.reset(seed=seed)
        match = game._match()
        encoders = [SeatEncoder(rules, players, seat) for seat in range(players)]
        for step in range(501 if players < 5 else 251):
            for seat in range(players):
                if seat == match.to_move or rng.random() < 0.3 or match.over:
                    view = match.observation(seat)
                    reference = encode_observation(view)
                    assert np.array_equal(encoders[seat].observe(view), reference)
                    assert np.array_equal(game.encode(game.agent(seat)), reference)
                    phases.add(view.phase)
                    deals.add(view.deal_number)
                    compared += 1
            if match.over or step == 500:
                break
            match.apply(random_action(match, rng))
            game._changed()
    assert compared > 300 and {Phase.DRAW, Phase.DISCARD} <= phases and len(deals) >= 2
    assert Phase.SHOWDOWN in phases or not rules.layoffs or players == 2  # two seats: a showdown rarely asks


def test_the_encoder_starts_again_for_a_new_match_and_checks_its_input() -> None:
    rules = Rules.preset("online")
    out = np.full(observation_layout(3)["stock"].stop, 7, dtype=np.float32)
    encoder = SeatEncoder("online", 3, 1, out=out)
    assert encoder.vector is out
    rng = random.Random(4)
    for seed in (1, 2):
        match = Match(3, rules, seed=seed)
        encoder.reset()
        for _ in range(120):
            assert np.array_equal(encoder.observe(match.observation(1)), encode_observation(match.observation(1)))
            match.apply(random_action(match, rng))
            if not match.over and not match.reentry_pending:
                match.resolve_showdown()
    # To the end of a match: every hand is shown (the known block holds them).
    while not match.over:
        match.apply(closer_action(match, rng))
        if not match.over and not match.reentry_pending:
            match.resolve_showdown()
        if rng.random() < 0.2 or match.over:
            assert np.array_equal(encoder.observe(match.observation(1)), encode_observation(match.observation(1)))
    assert match.observation(1).revealed
    with pytest.raises(EnvError, match="seat 1's of 3"):
        encoder.observe(match.observation(0))
    with pytest.raises(EnvError, match="out"):
        SeatEncoder(rules, 3, 0, out=np.zeros(10, dtype=np.float32))
    with pytest.raises(EnvError, match="out"):
        SeatEncoder(rules, 3, 0, out=np.zeros(out.shape, dtype=np.float64))
    with pytest.raises(EnvError, match="seat"):
        SeatEncoder(rules, 3, 3)


def follow_every_step(rules: Rules, players: int, seed: int) -> tuple[Match, Counter[str]]:
    """A random match in which each seat's encoder follows the events after every action, and a second one
    every few actions: both give encode_observation's vector of the seat's observation each time; the kinds of
    events the encoders were fed."""
    rng = random.Random(seed)
    match = Match(players, rules, seed=seed)
    every = [SeatEncoder(rules, players, seat) for seat in range(players)]
    sometimes = [SeatEncoder(rules, players, seat) for seat in range(players)]
    eager = rng.choice([0.2, 0.6, 1.0])
    kinds: Counter[str] = Counter()
    seen = [0] * players
    for _ in range(1200):
        for seat in range(players):
            reference = encode_observation(match.observation(seat))
            vector = every[seat].follow(match)
            assert np.array_equal(vector, reference), (seat, np.flatnonzero(vector != reference))
            if rng.random() < 0.3 or match.over:
                assert np.array_equal(sometimes[seat].follow(match), reference)
            for event in match.events_for(seat, seen[seat]):
                kinds[event.kind] += 1
            seen[seat] = len(match.events())
        if match.over:
            break
        match.apply(choose(match, rng, eager))
    return match, kinds


EVENT_CASES = [
    (name, players)
    for name, rules in VARIANTS
    for players in (2, 3, 4)
    if rules.min_players <= players <= rules.max_players
]


@pytest.mark.parametrize(("name", "players"), EVENT_CASES)
def test_the_encoder_fed_the_events_gives_the_whole_encoding_at_every_step(name: str, players: int) -> None:
    """Under every preset and house rules (re-entries, void deals, rebuilt stocks, lay-offs, wild cards)."""
    follow_every_step(dict(VARIANTS)[name], players, 1)


def test_the_encoders_fed_the_events_were_fed_every_kind() -> None:
    """Matches like those above (another seed) tell every kind of event, void deals, re-entries and lay-offs of
    wild cards among them, and the encoders give the whole encoding at every step of them too."""
    kinds: Counter[str] = Counter()
    voids = reentries = wild_layoffs = 0
    for name, players in EVENT_CASES:
        rules = dict(VARIANTS)[name]
        match, fed = follow_every_step(rules, players, 2)
        kinds += fed
        events = match.events()
        voids += sum(1 for e in events if isinstance(e, DealEnded) and e.result.void)
        reentries += sum(1 for e in events if isinstance(e, ReEntered) and e.accept)
        wild_layoffs += sum(1 for e in events if isinstance(e, LaidOff) and any(rules.is_wild(c) for c in e.meld))
    assert set(kinds) == {cls.kind for cls in (*PUBLIC_EVENTS, *PRIVATE_EVENTS)}
    assert voids and reentries and wild_layoffs


def test_the_encoder_fed_the_events_checks_them_and_starts_again() -> None:
    rules = Rules.preset("fournier")
    match = Match(2, rules, seed=3)
    encoder = SeatEncoder(rules, 2, 0)
    rng = random.Random(3)
    for _ in range(30):
        match.apply(random_action(match, rng))
    encoder.follow(match)
    # Observations after events (and events after observations): the encoder starts again, whole.
    assert np.array_equal(encoder.observe(match.observation(0)), encode_observation(match.observation(0)))
    assert np.array_equal(encoder.follow(match), encode_observation(match.observation(0)))
    other = Match(2, rules, seed=4)
    assert np.array_equal(encoder.follow(other), encode_observation(other.observation(0)))
    with pytest.raises(EnvError, match="not told you_drew"):
        SeatEncoder(rules, 2, 0).feed([*Match(2, rules, seed=1).events_for(0), YouDrew(1, Card.parse("5♦"))])
    with pytest.raises(EnvError, match="other rules"):
        SeatEncoder("online", 2, 0).follow(match)
    with pytest.raises(EnvError, match="for 2 seats"):
        SeatEncoder(rules, 2, 0).follow(Match(3, rules, seed=1))


def test_two_matches_with_different_hidden_cards_look_the_same() -> None:
    """Two matches whose decks differ only in a card of the other hand and the stock's last card."""
    rules = Rules()
    deck = rules.cards()
    random.Random(9).shuffle(deck)
    other = list(deck)
    other[13], other[39] = other[39], other[13]  # seat 1's last card and the bottom of the stock
    hidden = {deck[13], deck[39]}
    matches = [Match(2, rules, seed=0, first=0, decks=[d]) for d in (deck, other)]
    encoders = [SeatEncoder(rules, 2, 0) for _ in matches]
    rng = random.Random(2)
    for _ in range(30):
        seat = matches[0].to_move
        assert seat == matches[1].to_move
        views = [m.observation(0) for m in matches]
        assert np.array_equal(encode_observation(views[0]), encode_observation(views[1]))
        # The incremental encoder too, following each match step by step.
        assert np.array_equal(encoders[0].observe(views[0]), encoders[1].observe(views[1]))
        assert np.array_equal(action_mask(views[0]), action_mask(views[1]))
        legal = [a for a in matches[0].legal_actions() if not isinstance(a, Close)]
        if seat == 1:
            legal = [
                a
                for a in legal
                if isinstance(a, Draw) or (a in matches[1].legal_actions() and cast(Discard, a).card not in hidden)
            ]
        action = rng.choice(legal)
        for m in matches:
            m.apply(action)
    assert matches[0].deal.hand(1) != matches[1].deal.hand(1)


# -- episodes, rewards and seeds ----------------------------------------------------------------


@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_random_episodes_under_every_preset(preset: str, players: int) -> None:
    """Random masked actions; random play rarely closes, so max_turns cuts the episodes."""
    rng = np.random.default_rng(players)
    game = raw_env(preset, players, max_turns=120)
    space = game.observation_space("player_0")
    for episode in range(4):
        game.reset(seed=episode)
        for agent, observation, _reward in play(game, rng, closing=0.5):
            assert space.contains(observation)
            if not (game.terminations[agent] or game.truncations[agent]):
                assert observation["action_mask"].any()
        assert game.turns <= 120


def test_an_agent_whose_episode_ended_has_an_empty_mask() -> None:
    # Cut short, the seat the engine still waits for must not look able to act.
    game = raw_env("fournier", 4, max_turns=30)
    game.reset(seed=1)
    rng = np.random.default_rng(1)
    while not all(game.truncations.values()):
        observation, *_ = game.last()
        assert observation is not None
        game.step(closer_first(observation["action_mask"], rng))
    mover = game._match().to_move
    assert mover is not None and game.view(game.possible_agents[mover]).legal_actions
    for agent in game.possible_agents:
        assert not game.observe(agent)["action_mask"].any()


def bots_and_random(game: raw_env, rng: np.random.Generator) -> Iterator[tuple[str, dict[str, Any], float]]:
    """Play one episode: player_0 random masked actions, the other seats the simple bot."""
    bot = make_bot("simple")
    bot_rng = random.Random(0)
    while game.agents:
        agent = game.agent_selection
        observation, reward, terminated, truncated, _info = game.last()
        assert observation is not None
        yield agent, observation, reward
        if terminated or truncated:
            game.step(None)
        elif agent == "player_0":
            game.step(closer_first(observation["action_mask"], rng))
        else:
            view = game.view(agent)
            game.step(action_index(bot.choose(view, view.legal_actions, bot_rng)))


@pytest.mark.parametrize(("preset", "players"), CONFIGS)
def test_whole_matches_under_every_preset(preset: str, players: int) -> None:
    rng = np.random.default_rng(players)
    ended = 0
    # The engine's showdown search grows fast with the seats: with more than four and lay-offs, the seats play it.
    many = players > 4 and Rules.preset(preset).layoffs
    for episode in range(2):
        interactive = episode == 1 or many
        game = raw_env(preset, players, reward="match", interactive_showdown=interactive, max_turns=1500)
        space = game.observation_space("player_0")
        totals = dict.fromkeys(game.possible_agents, 0.0)
        game.reset(seed=100 + episode)
        for agent, observation, reward in bots_and_random(game, rng):
            assert space.contains(observation)
            totals[agent] += reward
        match = game.match
        assert match is not None
        if match.over:
            ended += 1
            winner = game.agent(match.winner or 0)
            assert totals == {agent: 1.0 if agent == winner else -1.0 for agent in totals}
        else:
            assert game.turns == 1500 and set(totals.values()) == {0.0}
    assert ended


def test_hand_rewards_are_minus_the_points() -> None:
    rng = np.random.default_rng(1)
    game = raw_env("fournier", 3, reward="hand", max_turns=5000)
    for seed in range(3):
        game.reset(seed=seed)
        totals = dict.fromkeys(game.possible_agents, 0.0)
        for agent, _observation, reward in bots_and_random(game, rng):
            totals[agent] += reward
        match = game.match
        assert match is not None and match.over
        # Fournier has no re-entry: a seat's total is the sum of what its hands added.
        assert totals == {game.agent(s): -float(match.scores[s]) for s in range(3)}


def test_an_eliminated_seat_leaves_before_the_match_ends() -> None:
    rng = np.random.default_rng(0)
    game = raw_env("fournier", 4, max_turns=10_000)
    game.reset(seed=3)
    left_early = []
    for agent, _observation, _reward in bots_and_random(game, rng):
        match = game.match
        assert match is not None
        if game.terminations[agent] and not match.over:
            left_early.append(agent)
    assert left_early


def test_reentry_is_an_agent_decision() -> None:
    rng = np.random.default_rng(2)
    game = raw_env("online", 3, max_turns=10_000)
    decisions = 0
    for seed in range(4):
        game.reset(seed=seed)
        for _agent, observation, _reward in bots_and_random(game, rng):
            if observation["action_mask"][REENTER_YES]:
                assert np.flatnonzero(observation["action_mask"]).tolist() == [REENTER_YES, REENTER_NO]
                assert observation["observation"][observation_layout(3)["phase"]][-1] == 1
                decisions += 1
    assert decisions


def test_reset_with_a_seed_plays_that_match_and_repeats_exactly() -> None:
    def trace(seed: int) -> list[tuple[str, bytes, float]]:
        game = raw_env("polaco", 5, reward="hand", max_turns=800)
        game.reset(seed=seed)
        rng = np.random.default_rng(0)
        return [(agent, observation["observation"].tobytes(), reward) for agent, observation, reward in play(game, rng)]

    assert trace(11) == trace(11)
    assert trace(11) != trace(12)
    game = raw_env("polaco", 5)
    game.reset(seed=11)
    assert game.match is not None and game.match.deal.deck == Match(5, Rules.preset("polaco"), seed=11).deal.deck
    game.reset()
    assert game.seed == 12


def test_illegal_actions() -> None:
    game = raw_env()
    game.reset(seed=0)
    with pytest.raises(IllegalAction):
        game.step(DISCARD)  # one must draw first
    wrapped = env()
    wrapped.reset(seed=0)
    first = wrapped.agent_selection
    wrapped.step(DISCARD)
    assert wrapped.terminations[first] and wrapped.rewards[first] == -1


def test_bad_parameters() -> None:
    with pytest.raises(EnvError, match="reward"):
        raw_env(reward="points")  # type: ignore[arg-type]
    with pytest.raises(EnvError, match="max_turns"):
        raw_env(max_turns=0)
    with pytest.raises(EnvError, match="render_mode"):
        raw_env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="players"):
        raw_env("fournier", 5)
    with pytest.raises(ValueError, match="preset"):
        raw_env("canasta")


def test_render_text() -> None:
    set_language("en")
    game = raw_env("fournier", 2, render_mode="ansi")
    game.reset(seed=1)
    text = game.render()
    assert isinstance(text, str)
    assert "Deal 1: player_" in text and "Stock: 25 cards" in text and "Totals: player_0 0, player_1 0" in text
    hand = " ".join(map(str, game.view(game.agent_selection).hand))
    assert f"Hand of {game.agent_selection}: {hand}" in text


# -- one learner against bots -------------------------------------------------------------------


def test_bot_opponents_env() -> None:
    game = BotOpponentsEnv("clasico", 3, opponents=["simple", "random"], seat=1, reward="hand", max_turns=3000)
    rng = np.random.default_rng(0)
    for seed in range(3):
        observation, _info = game.reset(seed=seed)
        done = False
        while not done:
            assert game.game.agent_selection == "player_1"
            assert game.observation_space.contains(observation)
            assert np.array_equal(game.action_masks(), observation["action_mask"].astype(bool))
            observation, _reward, terminated, truncated, _info = game.step(
                closer_first(observation["action_mask"], rng, 1.0)
            )
            done = terminated or truncated
        assert not game.action_masks().any() and not observation["action_mask"].any()
    # Cut short where the learner is to move, it has nothing left to do either.
    short = BotOpponentsEnv("fournier", 2, "simple", reward="hand", max_turns=9)
    observation, _info = short.reset(seed=3)
    truncated = False
    while not truncated:
        observation, _reward, _terminated, truncated, _info = short.step(closer_first(observation["action_mask"], rng))
    assert short.game.agent_selection == short.learner and short.game.legal_actions() == {}
    assert not short.action_masks().any() and not observation["action_mask"].any()
    game.reset(seed=0)
    with pytest.raises(IllegalAction):
        game.step(REENTER_YES)
    with pytest.raises(EnvError, match="opponents"):
        BotOpponentsEnv("fournier", 3, opponents=["simple"])
