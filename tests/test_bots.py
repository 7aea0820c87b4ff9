"""Bots: legal play under every preset, no access to hidden state, reproducibility."""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import pytest

from chinchon import Rules
from chinchon.actions import Action, Close, Discard, Draw
from chinchon.bots import LEVELS, Bot, BotError, bot_names, make_bot
from chinchon.bots.simple import joins_meld
from chinchon.cards import Card, parse_cards
from chinchon.deal import Deal
from chinchon.match import Match
from chinchon.observation import Observation, Phase
from chinchon.rules import RulesError

CONFIGS = [
    (preset, players)
    for preset in Rules.presets()
    for players in range(Rules.preset(preset).min_players, Rules.preset(preset).max_players + 1)
]
BOTS = ["random", "simple", "beginner", "greedy", "ismcts:iterations=8", "ismcts:iterations=8,paired=true,anchor=0.5"]


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


def cheap(name: str) -> str:
    """The bot or level ``name`` with a small search budget (the same bot otherwise), for legality tests."""
    spec = LEVELS.get(name, name)
    bot, _, params = spec.partition(":")
    if bot != "ismcts":
        return name
    kept = [p for p in params.split(",") if p and p.partition("=")[0] not in ("iterations", "steps", "seconds")]
    return "ismcts:" + ",".join(["iterations=4", "steps=400", *kept])


def random_rules(rng: random.Random) -> Rules:
    """Valid rules with their options drawn at random (combinations that raise RulesError are drawn again)."""
    while True:
        options: dict[str, Any] = {
            "deck": rng.choice(["spanish40", "spanish48", "french52"]),
            "decks": rng.choice([1, 1, 2, "auto"]),
            "jokers": rng.choice([0, 0, 1, 2]),
            "wild_ace_of_oros": rng.random() < 0.3,
            "max_wilds_per_meld": rng.choice([0, 1, 1, 2]),
            "values": rng.choice(["fournier", "figures10", "face_number"]),
            "hand_size": rng.choice([6, 7, 7, 7, 8]),
            "close_limit": rng.choice([0, 3, 5, 7, 10]),
            "close_max_loose_cards": rng.choice([None, None, 0, 1, 2]),
            "close_on_first_turn": rng.random() < 0.7,
            "forbid_rediscard": rng.random() < 0.5,
            "layoffs": rng.random() < 0.7,
            "layoffs_on_clean_close": rng.random() < 0.3,
            "closer_lays_off": rng.random() < 0.3,
            "layoff_one_per_run_per_round": rng.random() < 0.3,
            "set_distinct_suits": rng.random() < 0.7,
            "max_set_size": rng.choice([None, None, 3, 4, 6]),
            "chinchon": rng.choice(["none", "win", -25]),
            "chinchon_needs_natural": rng.random() < 0.7,
            "limit": rng.choice([20, 50, 100]),
            "eliminate_at": rng.choice(["above", "reaching"]),
            "reentry": rng.choice(["none", "once", "unlimited"]),
            "first_player": rng.choice(["lot", "high_card"]),
            "max_players": rng.choice([2, 3, 4]),
            "wild_value": rng.choice([25, 50]),
            "stake": rng.choice([0, 10]),
        }
        try:
            return Rules(**options)
        except RulesError:
            continue


def test_every_bot_and_level_plays_only_legal_actions_under_random_rules() -> None:
    """Every bot and level, under rules drawn at random; a seat's draw is sometimes taken from the pile for it,
    so that every bot also discards just after such a draw (forbid_rediscard then keeps that card in the hand).
    """
    rng = random.Random(31)
    # The levels are bots with parameters: those that differ only in their search budget are tried once.
    names = list(dict.fromkeys(cheap(LEVELS.get(name, name)) for name in bot_names()))
    decisions: dict[str, int] = dict.fromkeys(names, 0)
    rediscards = dict.fromkeys(names, 0)
    for index in range(18):
        rules = dataclasses.replace(random_rules(rng), forbid_rediscard=index % 2 == 0)
        players = rng.randint(rules.min_players, rules.max_players)
        lineup = [names[(index + i) % len(names)] for i in range(players)]
        bots = [make_bot(name) for name in lineup]
        rngs = [random.Random(index * 31 + i) for i in range(players)]
        match = Match(players, rules, seed=index)
        for _ in range(40):
            if match.over:
                break
            seat = match.to_move
            assert seat is not None
            observation = match.observation(seat)
            legal = match.legal_actions()
            if Draw("discard") in legal and rng.random() < 0.4:
                match.apply(Draw("discard"))
                continue
            action = bots[seat].choose(observation, legal, rngs[seat])
            assert action in legal, (lineup[seat], rules, action)
            decisions[lineup[seat]] += 1
            if rules.forbid_rediscard and observation.phase is Phase.DISCARD and observation.last_draw == "discard":
                rediscards[lineup[seat]] += 1
            match.apply(action)
    assert min(decisions.values()) >= 40, decisions
    assert min(rediscards.values()) >= 3, rediscards


@pytest.mark.parametrize(
    ("name", "chance"), [("random", True), ("simple", False), ("greedy", False), ("ismcts:iterations=20", True)]
)
def test_a_bot_is_reproducible_for_a_seed(name: str, chance: bool) -> None:
    def run(match_seed: int, seed: int) -> list[str]:
        match = Match(2, Rules(), seed=match_seed)
        bots = [make_bot(name), make_bot("simple")]
        rngs = [random.Random(seed), random.Random(seed + 1)]
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

    assert run(8, 5) == run(8, 5)
    # Another deal is another run; a bot that draws on chance plays otherwise with another seed of its own.
    assert run(9, 5) != run(8, 5)
    if chance:
        assert run(8, 7) != run(8, 5)


def twin_matches(seed: int, actions: int) -> Iterator[tuple[Match, Match, int]]:
    """Pairs of matches with the same public history whose cards hidden from the seat to move differ.

    The first deal of a match is played by ``simple`` for up to ``actions``
    actions (until a close or a rebuilt stock). For each point of it, the
    match is played again to that point twice: from its deck, and from the
    same deck but for the cards the seat to move has not seen (the other
    hands' cards never discarded, the stock it has not drawn), shuffled.
    """
    rules = Rules()
    players = 3
    deck = rules.cards()
    rng = random.Random(seed)
    rng.shuffle(deck)
    played = Match(players, rules, seed=seed, first=0, decks=[deck])
    bot = make_bot("simple")
    for _ in range(actions):
        seat = played.to_move
        assert seat is not None
        action = bot.choose(played.observation(seat), played.legal_actions(), rng)
        if isinstance(action, Close):
            break
        played.apply(action)
        if played.deal.reshuffles:
            break
    history = list(played.deal.history)
    # Deck positions: the hands in turn from seat 0, the face-up card, then the stock from its top.
    dealt = rules.hand_size * players
    for point in range(len(history) + 1):
        first = Match(players, rules, seed=seed, first=0, decks=[deck])
        for _, action in history[:point]:
            first.apply(action)
        deal = first.deal
        seat = deal.to_move
        assert seat is not None and deal.phase in (Phase.DRAW, Phase.DISCARD)
        seen = {i for i in range(dealt) if deal.seats[i % players] == seat} | {dealt}
        stock_draws = 0
        for who, action in deal.history:
            if action == Draw("stock"):
                if who == seat:
                    seen.add(dealt + 1 + stock_draws)
                stock_draws += 1
            elif isinstance(action, Discard):
                seen.add(deck.index(action.card))
        unseen = [i for i in range(len(deck)) if i not in seen]
        cards = [deck[i] for i in unseen]
        rng.shuffle(cards)
        other_deck = list(deck)
        for i, card in zip(unseen, cards, strict=True):
            other_deck[i] = card
        second = Match(players, rules, seed=seed, first=0, decks=[other_deck])
        for _, action in deal.history:
            second.apply(action)
        assert second.observation(seat) == first.observation(seat)
        assert [second.deal.hand(s) for s in range(players) if s != seat] != [
            deal.hand(s) for s in range(players) if s != seat
        ]
        assert second.deal.stock != deal.stock
        yield first, second, seat


def choices_in_twin_matches(bot_for: Callable[[Match], Bot], seeds: int) -> list[tuple[Action, Action]]:
    """The choices of a bot (made for the match it plays in) in twin matches, at draws and discards."""
    pairs = []
    for seed in range(seeds):
        for first, second, seat in twin_matches(seed, 40):
            pairs.append(
                (
                    bot_for(first).choose(first.observation(seat), first.legal_actions(), random.Random(9)),
                    bot_for(second).choose(second.observation(seat), second.legal_actions(), random.Random(9)),
                )
            )
    return pairs


@pytest.mark.parametrize(
    ("name", "seeds"),
    [
        ("greedy", 6),
        ("simple", 6),
        ("beginner", 6),
        ("casual", 6),
        ("human:high=0.5,pile=0.5,layoffs=0.5,memory=2", 3),
        ("ismcts:iterations=30", 1),
        ("ismcts:iterations=40,steps=2000,paired=true", 1),
    ],
)
def test_a_bot_decides_from_its_observation_alone(name: str, seeds: int) -> None:
    """Hidden cards dealt anew leave the observation, and so the bot's choice, unchanged."""
    pairs = choices_in_twin_matches(lambda match: make_bot(name), seeds)
    assert len(pairs) >= 20 * seeds
    assert all(one == other for one, other in pairs), pairs


class Peeker(Bot):
    """A cheat (for the test below): plays ``greedy`` but for draws, where it looks at the top of the stock."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.greedy = make_bot("greedy")

    def choose(self, observation: Observation, legal_actions: Sequence[Action], rng: random.Random) -> Action:
        if Draw("stock") in legal_actions:
            top = self.match.deal.stock[0]
            return Draw("stock") if observation.rules.value(top) < 5 else Draw("discard")
        return self.greedy.choose(observation, legal_actions, rng)


def test_the_twin_matches_catch_a_bot_that_peeks_at_hidden_cards() -> None:
    pairs = choices_in_twin_matches(Peeker, 2)
    assert sum(one != other for one, other in pairs) >= 5


def test_observation_exposes_no_deal() -> None:
    fields = {f.name for f in dataclasses.fields(Observation)}
    match = Match(2, Rules(), seed=1)
    observation = match.observation(0)
    for name in fields:
        assert not isinstance(getattr(observation, name), Deal | Match)


def test_simple_closes_as_soon_as_it_may() -> None:
    from chinchon.cards import Card, parse_cards
    from chinchon.deal import stack_deck

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
    assert make_bot("casual").name == "casual"
    assert make_bot("hard").name == "strong"  # an old level plays as the level it became
    assert make_bot("ismcts:iterations=10").iterations == 10  # type: ignore[attr-defined]
    with pytest.raises(
        BotError, match="unknown bot 'clever'; known bots: greedy, human, ismcts, random, simple, beginner"
    ):
        make_bot("clever")
    with pytest.raises(BotError, match="bot greedy does not take the parameters colour; it takes weight, patience"):
        make_bot("greedy:colour=red")
    # Only the unknown parameters are named, not the good ones beside them.
    with pytest.raises(BotError, match=r"ismcts does not take the parameters foo, bar; it takes iterations, seconds"):
        make_bot("ismcts:iterations=5,foo=1,bar=2")
    with pytest.raises(BotError, match="name=value"):
        make_bot("ismcts:400")
    with pytest.raises(BotError):
        make_bot("hard:iterations=3")
    with pytest.raises(BotError):
        make_bot("casual:pile=0")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:iterations=abc", "the bot parameter iterations must be a whole number, 1 or more, not abc"),
        ("ismcts:iterations=0", "the bot parameter iterations must be a whole number, 1 or more, not 0"),
        ("ismcts:iterations=2.5", "the bot parameter iterations must be a whole number, 1 or more, not 2.5"),
        ("ismcts:iterations=true", "the bot parameter iterations must be a whole number, 1 or more, not true"),
        ("ismcts:seconds=-1", "the bot parameter seconds must be a number, 0 or more, not -1"),
        ("ismcts:seconds=inf", "the bot parameter seconds must be a finite number, 0 or more, not inf"),
        ("ismcts:prune=-0.5", "the bot parameter prune must be a number, 0 or more, not -0.5"),
        ("ismcts:steps=-1", "the bot parameter steps must be a whole number, 0 or more, not -1"),
        ("ismcts:steps=inf", "the bot parameter steps must be a whole number, 0 or more, not inf"),
        ("ismcts:iterations=inf", "the bot parameter iterations must be a whole number, 1 or more, not inf"),
        ("simple:noise=2", "the bot parameter noise must be a number from 0 to 1, not 2"),
        ("simple:noise=true", "the bot parameter noise must be a number from 0 to 1, not true"),
        ("ismcts:depth=deep", "the bot parameter depth must be a whole number, 0 or more, not deep"),
        ("ismcts:horizon=-1", "the bot parameter horizon must be a whole number, 0 or more, not -1"),
        ("ismcts:width=true", "the bot parameter width must be a whole number, 0 or more, not true"),
        ("ismcts:exploration=nan", "the bot parameter exploration must be a number, 0 or more, not nan"),
        ("ismcts:exploration=inf", "the bot parameter exploration must be a finite number, 0 or more, not inf"),
        ("ismcts:paired=yes", "the bot parameter paired must be true or false, not yes"),
        ("ismcts:shaped=2", "the bot parameter shaped must be true or false, not 2"),
        ("ismcts:passes=-1", "the bot parameter passes must be a whole number, 0 or more, not -1"),
        ("ismcts:thrown=some", "the bot parameter thrown must be a whole number, 0 or more, not some"),
        ("greedy:lookahead=3x", "the bot parameter lookahead must be true or false, not 3x"),
        ("greedy:weight=1.5", "the bot parameter weight must be a number from 0 to 1, not 1.5"),
        ("greedy:model=0", "the bot parameter model must be the path of a model file, not 0"),
        ("greedy:take=much", "the bot parameter take must be a number, 0 or more, not much"),
    ],
)
def test_a_bad_parameter_value_is_a_bot_error_naming_it(spec: str, message: str) -> None:
    with pytest.raises(BotError, match=message):
        make_bot(spec)


@pytest.mark.parametrize(
    ("spec", "attribute", "value"),
    [
        ("greedy:lookahead=false", "lookahead", False),
        ("greedy:lookahead=0", "lookahead", False),
        ("ismcts:paired=true", "paired", True),
        ("ismcts:shaped=1", "shaped", True),
        ("greedy:take=inf", "take", math.inf),
        ("ismcts:iterations=400.0", "iterations", 400),
        ("ismcts:width=0,horizon=0,depth=0", "width", 0),
    ],
)
def test_good_parameter_values_are_taken(spec: str, attribute: str, value: object) -> None:
    assert getattr(make_bot(spec), attribute) == value


def _first_discard(players: int, seed: int) -> Match:
    """A match played by ``greedy`` up to its first discard decision."""
    match = Match(players, Rules.preset("fournier"), seed=seed)
    rng = random.Random(seed)
    while match.observation(match.to_move or 0).phase is not Phase.DISCARD:
        seat = match.to_move
        assert seat is not None
        match.apply(make_bot("greedy").choose(match.observation(seat), match.legal_actions(), rng))
    return match


def test_ismcts_stops_at_the_first_budget_it_reaches() -> None:
    from chinchon.bots.ismcts import IsmctsBot

    assert IsmctsBot().iterations == 400
    assert IsmctsBot(seconds=0.5).iterations == 0  # no cap on playouts: the time decides
    match = _first_discard(2, 3)
    observation = match.observation(match.to_move or 0)
    # Both budgets given: the playouts end it long before an hour.
    tree = IsmctsBot(iterations=30, seconds=3600)
    tree.search(observation, random.Random(1))
    assert tree.last_iterations == 30
    # A tiny time budget ends it before a huge cap on playouts; at least one is made.
    quick = IsmctsBot(iterations=10**9, seconds=1e-6)
    quick.search(observation, random.Random(1))
    assert 1 <= quick.last_iterations < 1000


@pytest.mark.parametrize("paired", [False, True])
def test_a_budget_of_simulated_moves_ends_the_search_and_repeats(paired: bool) -> None:
    from chinchon.bots.ismcts import IsmctsBot

    assert IsmctsBot(steps=5000).iterations == 0  # no cap on playouts: the moves decide
    match = _first_discard(4, 5)
    observation, legal = match.observation(match.to_move or 0), match.legal_actions()

    def run(steps: int) -> tuple[Action, int, int]:
        bot = IsmctsBot(steps=steps, iterations=10**9, seconds=20, paired=paired)
        action = bot.choose(observation, legal, random.Random(9))
        return action, bot.last_iterations, bot.last_steps

    action, playouts, steps = run(3000)
    # The search ends on the first deal (or iteration) past the budget: one deal's playouts at most too many.
    assert 3000 <= steps < 3000 + 5 * 300
    assert 1 <= playouts < 3000
    assert run(3000) == (action, playouts, steps)
    _, more, more_steps = run(9000)
    assert more > playouts and more_steps >= 9000


def test_paired_search_prunes_hopeless_moves_and_ends_early() -> None:
    from chinchon.bots.ismcts import IsmctsBot

    bot = IsmctsBot(prune=2)
    # A mean gain of -1 with a standard error of 0.1 is hopeless; of 0.6, not yet.
    assert bot._hopeless(total=-100.0, squares=100.0 + 99 * 1.0, count=100)
    assert not bot._hopeless(total=-100.0, squares=100.0 + 99 * 36.0, count=100)
    assert not bot._hopeless(total=5.0, squares=100.0, count=100)
    assert not IsmctsBot(prune=0).prune

    def playouts(prune: float) -> list[int]:
        searcher = IsmctsBot(iterations=300, paired=True, prune=prune)
        bots: list[Bot] = [searcher, make_bot("greedy")]
        match = Match(2, Rules.preset("fournier"), seed=7)
        rngs = [random.Random(1), random.Random(2)]
        spent: list[int] = []
        while not match.over and len(spent) < 12:
            seat = match.to_move
            assert seat is not None
            legal = match.legal_actions()
            match.apply(bots[seat].choose(match.observation(seat), legal, rngs[seat]))
            if seat == 0 and match.observation(0).phase is Phase.DRAW and searcher.last_iterations:
                spent.append(searcher.last_iterations)
                searcher.last_iterations = 0
        return spent

    # Without pruning every searched decision spends the whole budget (a deal may overrun it by its moves).
    whole = playouts(0)
    assert len(whole) >= 5 and all(300 <= n < 310 for n in whole)
    pruned = playouts(2)
    assert len(pruned) >= 5 and all(n < 310 for n in pruned)
    assert any(n < 300 for n in pruned)


def _match_log(names: list[str], seed: int, rules: Rules) -> list[str]:
    match = Match(len(names), rules, seed=seed)
    bots = [make_bot(name) for name in names]
    rngs = [random.Random(seed * 31 + i) for i in range(len(names))]
    log: list[str] = []
    while not match.over and len(log) < 3000:
        seat = match.to_move
        assert seat is not None
        action = bots[seat].choose(match.observation(seat), match.legal_actions(), rngs[seat])
        log.append(f"{seat} {action}")
        match.apply(action)
    return log


def test_under_unlimited_re_entry_the_search_plays_greedys_moves() -> None:
    rules = Rules.preset("polaco")
    assert _match_log(["ismcts:iterations=12,anchor=0", "simple"], 7, rules) == _match_log(
        ["greedy", "simple"], 7, rules
    )


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


def test_ismcts_deals_its_samples_to_fit_the_passes_and_throws_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    from chinchon.bots import ismcts, playout

    asked: list[tuple[int, int, bool]] = []

    def spy(observation: Observation, rng: random.Random, **asks: Any) -> Deal:
        asked.append((asks.get("passes", 0), asks.get("thrown", 0), asks.get("taken", False)))
        return playout.sample_deal(observation, rng, **asks)

    monkeypatch.setattr(ismcts, "sample_deal", spy)
    rules = Rules()
    for spec, expected in [
        ("ismcts:iterations=20,paired=true,passes=4,thrown=2", (4, 2, False)),
        ("ismcts:iterations=20,paired=true,taken=true", (0, 0, True)),
        ("ismcts:iterations=20", (0, 0, False)),
    ]:
        asked.clear()
        bot = make_bot(spec)
        deal = Deal.new(rules, 2, rng=random.Random(3))
        rng = random.Random(4)
        while deal.phase in (Phase.DRAW, Phase.DISCARD) and deal.turn < 12:
            seat = deal.to_move
            assert seat is not None
            legal = deal.legal_actions()
            action = bot.choose(deal.observation(seat), legal, rng)
            assert action in legal
            deal.apply(action)
        assert asked and set(asked) == {expected}


def _locked_deal(lineup: list[str], actions: int, rules: Rules | None = None) -> Deal:
    """A three-player deal whose low cards are locked in the hands: only sixes, sevens and figures go round.

    The stock is rebuilt as often as it runs out unless ``rules`` say otherwise.
    """
    from chinchon.cards import Card, parse_cards
    from chinchon.deal import stack_deck

    rules = rules or Rules(max_reshuffles=None)
    hands = [
        parse_cards("3♦ A♥ 5♥ 3♠ 5♠ 2♣ 5♣"),
        parse_cards("4♦ 4♥ 2♠ A♣ 3♣ 4♣ 6♣"),
        parse_cards("A♦ 2♦ 5♦ 2♥ 3♥ A♠ 4♠"),
    ]
    deal = Deal.new(rules, 3, deck=stack_deck(rules, hands, discard=Card.parse("K♣")), rng=random.Random(1))
    bots = [make_bot(name) for name in lineup]
    rng = random.Random(2)
    for _ in range(actions):
        seat = deal.to_move
        if deal.result is not None or seat is None:
            break
        deal.apply(bots[seat].choose(deal.observation(seat), deal.legal_actions(), rng))
    return deal


def test_the_locked_deal_goes_round_for_ever_with_the_yardstick() -> None:
    # simple never changes, and throws every card that goes round straight back.
    assert _locked_deal(["simple"] * 3, 600).result is None


def test_the_locked_deal_is_void_once_the_stock_has_been_rebuilt_too_often() -> None:
    deal = _locked_deal(["simple"] * 3, 600, Rules())
    assert deal.result is not None and deal.result.void and len(deal.reshuffles) == Rules().max_reshuffles


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_greedy_breaks_a_deal_that_goes_round_for_ever(seat: int) -> None:
    lineup = ["simple"] * 3
    lineup[seat] = "greedy"
    assert _locked_deal(lineup, 600).result is not None


@pytest.mark.parametrize("name", ["simple", "greedy"])
def test_with_two_decks_a_discard_is_taken_only_if_that_copy_joins_a_meld(name: str) -> None:
    rules = Rules.preset("polaco")
    observation = Match(8, rules, seed=1, first=0).observation(0)
    assert observation.decks == 2 and observation.phase is Phase.DRAW
    hand = tuple(parse_cards("4♠ 5♠ 6♠ A♥ 3♦ 7♣ K♦"))
    draws: list[Action] = [Draw("stock"), Draw("discard")]

    def draw(top: str) -> Action:
        seen = dataclasses.replace(observation, hand=hand, discard_pile=(Card.parse("2♥"), Card.parse(top)))
        return make_bot(name).choose(seen, draws, random.Random(0))

    # The hand's own 5♠ is in its run; the second 5♠ would stay loose.
    assert draw("5♠") == Draw("stock")
    # 7♠ extends the run.
    assert draw("7♠") == Draw("discard")


def test_joins_meld_counts_copies() -> None:
    rules = Rules.preset("polaco")
    hand = parse_cards("4♠ 5♠ 6♠ A♥ 3♦ 7♣ K♦")
    assert not joins_meld(hand, Card.parse("5♠"), rules)
    assert joins_meld(hand, Card.parse("7♠"), rules)
    assert not joins_meld(hand, Card.parse("K♣"), rules)
    # A second 5♠ joins when it makes a group beside the run that holds the first.
    other = parse_cards("5♠ 6♠ 7♠ 5♥ 5♦ A♥ K♦")
    assert joins_meld(other, Card.parse("5♠"), rules)
