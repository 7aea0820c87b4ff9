"""The levels and the ``human`` bot's habits: each knob does what it says, and every level plays every preset.

How strong each level is, is measured by ``bench/ladder.py`` (docs/strength.md), never here.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections.abc import Callable
from pathlib import Path

import pytest

from chinchon import Rules
from chinchon.actions import Action, Close, Discard, Draw, LayOff
from chinchon.arena import ArenaConfig, run_arena
from chinchon.bots import LEVELS, make_bot
from chinchon.bots.human import partners, remembered_unseen
from chinchon.bots.levels import LADDER, RETIRED, level_of
from chinchon.cards import Card, parse_cards
from chinchon.deal import stack_deck
from chinchon.match import Match
from chinchon.observation import Observation

Decision = tuple[int, Observation, tuple[Action, ...], Action]


def play(
    specs: list[str], rules: Rules, seed: int, seen: Callable[[Decision], None] | None = None, limit: int = 20_000
) -> Match:
    """A match of these bots (one per seat), to its end or ``limit`` actions, every decision shown to ``seen``."""
    bots = [make_bot(spec) for spec in specs]
    rngs = [random.Random(seed * 31 + seat) for seat in range(len(specs))]
    match = Match(len(specs), rules, seed)
    for _ in range(limit):
        if match.over:
            break
        seat = match.to_move
        assert seat is not None
        observation = match.observation(seat)
        legal = tuple(match.legal_actions())
        action = bots[seat].choose(observation, legal, rngs[seat])
        if seen is not None:
            seen((seat, observation, legal, action))
        match.apply(action)
    return match


def decisions(specs: list[str], rules: Rules, seeds: range, limit: int = 20_000) -> list[Decision]:
    out: list[Decision] = []
    for seed in seeds:
        play(specs, rules, seed, out.append, limit)
    return out


@pytest.mark.parametrize("preset", Rules.presets())
@pytest.mark.parametrize(("human", "model"), [("human", "greedy"), ("human:plan=false", "simple")])
def test_human_without_habits_plays_as_the_bot_it_is_built_on(preset: str, human: str, model: str) -> None:
    rules = Rules.preset(preset)
    one = make_bot(human)
    # Four players (two decks under online and polaco) only where greedy thinks fastest: one deck, fournier.
    for players in (2, 4) if preset == "fournier" else (2,):
        moves = decisions([model] * players, rules, range(1), limit=300)
        assert len(moves) > 100
        for seat, observation, legal, action in moves:
            assert one.choose(observation, legal, random.Random(seat)) == action


def test_a_player_who_ignores_the_pile_never_draws_from_it() -> None:
    rules = Rules()
    for spec, takes in (("human:pile=0", False), ("human:plan=false,pile=0", False), ("human:plan=false", True)):
        moves = [d for d in decisions([spec, "simple"], rules, range(3)) if d[0] == 0 and Draw("discard") in d[2]]
        assert len(moves) > 30
        taken = sum(action == Draw("discard") for *_, action in moves)
        assert (taken > 0) is takes, (spec, taken)


def test_a_player_who_overlooks_the_pile_at_times_takes_from_it_less_often() -> None:
    rules = Rules()
    counts = []
    for pile in (1, 0.5):
        board = decisions([f"human:plan=false,pile={pile}", "simple"], rules, range(4))
        counts.append(sum(seat == 0 and action == Draw("discard") for seat, _, _, action in board))
    assert 0 < counts[1] < counts[0]


def test_a_player_who_misses_every_lay_off_never_lays_off() -> None:
    rules = Rules()
    for spec, lays_off in (("human:plan=false,layoffs=0", False), ("human:plan=false", True)):
        moves = [
            d
            for d in decisions([spec, "simple"], rules, range(6))
            if d[0] == 0 and any(isinstance(a, LayOff) for a in d[2])
        ]
        assert len(moves) >= 3
        laid = sum(isinstance(action, LayOff) for *_, action in moves)
        assert (laid > 0) is lays_off, (spec, laid)


@pytest.mark.parametrize(("spec", "most"), [("human:plan=false,close=0", 0), ("human:plan=false,close=2", 2)])
def test_a_player_who_closes_late_closes_with_its_points_or_fewer(spec: str, most: int) -> None:
    rules = Rules()
    closes = []
    for seat, observation, _legal, action in decisions([spec, "simple"], rules, range(4)):
        if seat == 0 and isinstance(action, Close):
            rest = list(observation.hand)
            rest.remove(action.discard)
            for meld in action.melds or ():
                for card in meld:
                    rest.remove(card)
            closes.append(sum(rules.value(card) for card in rest))
    assert closes and max(closes) <= most, closes
    # Without the habit it closes with more points than that.
    eager = decisions(["human:plan=false", "simple"], rules, range(4))
    assert any(seat == 0 and isinstance(action, Close) for seat, _, _, action in eager)


def _discard_choice(spec: str, hand: str, pile: str = "2♦") -> Card:
    """The card a bot throws from an eight-card ``hand``, with the discard pile ``pile`` (top last) under it."""
    rules = Rules()
    match = Match(2, rules, 1, first=0, decks=[stack_deck(rules, [parse_cards(hand)[:7], []])])
    observation = dataclasses.replace(
        match.observation(0),
        hand=tuple(parse_cards(hand)),
        discard_pile=tuple(parse_cards(pile)),
        discards=tuple((1, card) for card in parse_cards(pile)),
    )
    legal = tuple(Discard(card) for card in dict.fromkeys(observation.hand))
    action = make_bot(spec).choose(observation, legal, random.Random(1))
    assert isinstance(action, Discard)
    return action.card


def test_a_player_who_keeps_high_cards_throws_a_low_one() -> None:
    hand = "3♥ 4♥ 5♥ 7♣ 7♦ K♣ Q♠ 2♦"
    assert _discard_choice("human:plan=false", hand) == Card.parse("K♣")
    # Of the loose cards with no partner in the hand (K♣, Q♠, 2♦, not the pair of 7s), the lowest.
    assert _discard_choice("human:plan=false,high=1", hand) == Card.parse("2♦")


def test_a_forgetful_player_keeps_a_pair_whose_third_card_was_thrown_long_ago() -> None:
    hand = "3♥ 4♥ 5♥ 6♣ 6♦ J♠ Q♣ K♣"
    pile = "6♥ 6♠ 2♦"  # the other two sixes lie under the top card
    # Remembering them, the pair of sixes is dead: of the cards with no live partner (6♣, 6♦, J♠) the lowest goes.
    assert _discard_choice("human:plan=false,high=1", hand, pile) in parse_cards("6♣ 6♦")
    # Forgetting them, the sixes look live, and J♠, alone, goes.
    assert _discard_choice("human:plan=false,high=1,memory=0", hand, pile) == Card.parse("J♠")
    assert _discard_choice("human:plan=false,high=1,memory=1", hand, pile) == Card.parse("J♠")
    assert _discard_choice("human:plan=false,high=1,memory=2", hand, pile) in parse_cards("6♣ 6♦")


def test_partners_count_only_the_cards_that_could_still_make_a_meld() -> None:
    rules = Rules()
    hand = parse_cards("6♣ 6♦ 4♥ 5♥ K♠")
    everything = dataclasses.replace(
        Match(2, rules, 1).observation(0), hand=tuple(hand), discard_pile=(), taken=((), ())
    )
    unseen = remembered_unseen(everything, 0)
    assert partners(Card.parse("6♣"), hand, rules, unseen) == 1
    assert partners(Card.parse("4♥"), hand, rules, unseen) == 1
    assert partners(Card.parse("K♠"), hand, rules, unseen) == 0
    # 3♥ and 6♥ gone: the run 4♥ 5♥ cannot grow.
    unseen[Card.parse("3♥")] = unseen[Card.parse("6♥")] = 0
    assert partners(Card.parse("4♥"), hand, rules, unseen) == 0


def test_remembered_unseen_forgets_the_oldest_discards_under_the_top() -> None:
    rules = Rules()
    base = Match(2, rules, 1).observation(0)
    pile = tuple(card for card in rules.cards() if card not in base.hand)[:4]
    observation = dataclasses.replace(base, discard_pile=pile, discards=tuple((1, card) for card in pile))
    for memory, forgotten in ((0, pile[:3]), (1, pile[:2]), (3, ()), (1000, ())):
        unseen = remembered_unseen(observation, memory)
        assert all(unseen[card] == 1 for card in forgotten)
        assert all(unseen[card] == 0 for card in pile if card not in forgotten)


@pytest.mark.parametrize("preset", Rules.presets())
def test_every_level_plays_every_preset_to_the_end_of_a_match(preset: str) -> None:
    rules = Rules.preset(preset)
    names = list(LEVELS)
    for lineup in (names[:4], [names[-1], names[0]], [names[-1], *names[1:4]]):
        match = play(lineup, rules, len(lineup))
        assert match.over, lineup


def test_the_levels_play_the_same_for_a_seed() -> None:
    def outcomes(seed: int) -> list[object]:
        config = ArenaConfig(bots=tuple(LEVELS)[:4], players=4, boards=1, seed=seed, seating="rotations")
        return [dataclasses.replace(o, decks=()) for o in run_arena(config).outcomes]

    first = outcomes(5)
    assert outcomes(5) == first
    assert outcomes(6) != first


def test_the_ladder_is_named_weakest_first_and_the_old_names_still_play() -> None:
    assert list(LEVELS) == [level.name for level in LADDER] == ["beginner", "casual", "regular", "skilled", "strong"]
    assert LEVELS["strong"] == "greedy"
    for old, new in RETIRED.items():
        assert level_of(old) == new and new in LEVELS
        assert make_bot(old).name == new
    assert {level_of(name) for name in ("easy", "medium", "hard", "expert")} == {"beginner", "strong"}
    assert level_of("greedy") is None
    for level in LADDER:
        assert make_bot(level.name).name == level.name
        assert level.description.endswith(".")


def test_the_server_takes_an_old_level_as_the_level_it_became(tmp_path: Path) -> None:
    from chinchon.server.bots import BotPool
    from chinchon.server.hub import Hub
    from chinchon.server.protocol import CreateRoom
    from chinchon.server.rooms import Manager, Refused, ServerSettings
    from chinchon.server.store import RoomRow, SeatRow, Store

    async def run() -> None:
        settings = ServerSettings(db=f"sqlite+aiosqlite:///{tmp_path / 'server.db'}", bot_pool="thread", grace=60)
        store = Store(settings.db)
        await store.open()
        manager = Manager(settings, store, Hub(), BotPool(1, "thread"))
        try:
            room, _token = await manager.create(CreateRoom(name="Ana", seats=3, bot_level="medium"))
            assert room.bot_level == "strong"
            room, _token = await manager.create(CreateRoom(name="Ana", seats=3, bot_level="casual"))
            assert room.bot_level == "casual"
            with pytest.raises(Refused, match="unknown bot level") as refused:
                await manager.create(CreateRoom(name="Ana", seats=3, bot_level="grandmaster"))
            assert refused.value.code == "bad_request"
            # A room stored before the ladder, with its bots named by the old levels.
            row = RoomRow(
                code="ABCDEFG",
                created=1000.5,
                public=False,
                status="waiting",
                preset="fournier",
                rules=Rules().to_dict(),
                seats=3,
                bot_level="hard",
                turn_seconds=None,
                creator=0,
                match=0,
                seed=None,
                last_event=0,
                seat_rows=[
                    SeatRow(0, "Ana", "person", None, "a" * 64, "es"),
                    SeatRow(1, None, "bot", "easy", None, None),
                    SeatRow(2, None, "bot", "ismcts:iterations=5", None, None),
                ],
            )
            rebuilt = manager.rebuild(row)
            assert rebuilt.bot_level == "strong"
            assert [seat.level for seat in rebuilt.seats] == [None, "beginner", "ismcts:iterations=5"]
            assert make_bot(rebuilt.bot_spec(1)).name == "beginner"
        finally:
            await manager.shutdown()
            await store.close()

    asyncio.run(run())
