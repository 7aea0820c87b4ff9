"""The fast path (``moves``/``play``) and the checked path (``legal_actions``/``apply``) agree move for move."""

from __future__ import annotations

import random

import pytest

from chinchon import Close, Discard, Draw, Match, Rules
from chinchon.actions import Action
from chinchon.compiled import compiled_modules
from chinchon.deal import CLOSE, MOVE_DISCARD_PILE, MOVE_STOCK, Deal
from chinchon.observation import Phase
from chinchon.rules import RulesError

RULES = [
    Rules(),
    Rules.preset("clasico"),
    Rules(jokers=2),
    Rules(wild_ace_of_oros=True, forbid_rediscard=True),
    Rules(decks=2, jokers=2),
    Rules(max_reshuffles=0),
    Rules(close_on_first_turn=False, layoffs=False),
]


def _action(deal: Deal, move: int) -> Action:
    if move == MOVE_STOCK:
        return Draw("stock")
    if move == MOVE_DISCARD_PILE:
        return Draw("discard")
    if move >= CLOSE:
        return Close(deal.card_of(move - CLOSE))
    return Discard(deal.card_of(move))


def _state(deal: Deal) -> tuple[object, ...]:
    return (
        deal.phase,
        deal.to_move,
        deal.turn,
        [deal.hand(seat) for seat in range(deal.players)],
        deal.discard_pile,
        deal.stock,
        deal.result,
    )


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.as_text()[0] + " " + " ".join(r.as_text()[1]))
def test_the_two_paths_list_and_play_the_same_moves(rules: Rules) -> None:
    steps = 0
    for seed in range(40):
        players = 2 + seed % 3
        fast = Deal.new(rules, players, rng=random.Random(seed))
        checked = Deal.new(rules, players, rng=random.Random(seed))
        choose = random.Random(seed)
        while fast.phase is not Phase.OVER:
            if fast.phase is Phase.SHOWDOWN:
                fast.resolve_showdown()
                checked.resolve_showdown()
            else:
                moves = fast.moves()
                legal = checked.legal_actions()
                closes = [move for move in moves if move >= CLOSE]
                assert [_action(fast, move) for move in moves if move < CLOSE] == [
                    a for a in legal if not isinstance(a, Close)
                ]
                assert {fast.card_of(move - CLOSE) for move in closes} == {
                    a.discard for a in legal if isinstance(a, Close)
                }
                move = closes[0] if closes and choose.random() < 0.5 else choose.choice(moves)
                fast.play(move)
                checked.apply(_action(fast, move))
                steps += 1
            assert _state(fast) == _state(checked)
        assert checked.phase is Phase.OVER
    assert steps > 500


def deal_slots() -> list[str]:
    """Every slot of a deal, those of the layers it is built on included."""
    slots = [name for cls in Deal.__mro__ for name in cls.__dict__.get("__slots__", ())]
    if not slots and "chinchon.deal" in compiled_modules():
        # A compiled class keeps no __slots__; a deal's pickle names every attribute.
        slots = list(Deal.new(Rules(), 2).__reduce__()[2])
    assert len(slots) > 30 and "_m1" in slots and "phase" in slots
    return slots


@pytest.mark.parametrize("history", [True, False])
def test_a_copy_sets_every_attribute_and_shares_nothing_it_changes(history: bool) -> None:
    rng = random.Random(5)
    deal = Deal.new(Rules(jokers=2), 2, rng=rng)
    for _ in range(9):
        deal.play(rng.choice([move for move in deal.moves() if move < CLOSE]))
    other = deal.copy(history=history)
    for name in deal_slots():
        value, copied = getattr(deal, name), getattr(other, name)
        # The seats' order never changes; a deal that tells nobody holds no events, and its copy shares the empty list.
        if isinstance(value, list | set | dict) and name not in ("_next_seat", "_held"):
            assert copied is not value, name
        elif name not in ("_rng", "_reshuffle", "_public"):
            assert copied is value or copied == value, name
    before = _state(deal)
    while other.phase in (Phase.DRAW, Phase.DISCARD):
        other.play(other.moves()[-1])
    assert _state(deal) == before


def test_every_way_of_making_a_deal_sets_every_attribute() -> None:
    rng = random.Random(8)
    deal = Deal.new(Rules(), 3, rng=rng)
    for _ in range(7):
        deal.play(deal.moves()[0])
    made = [deal, deal.copy(), deal.copy(history=False), Deal.sample(deal.observation(1), rng)]
    for other in made:
        missing = [name for name in deal_slots() if not hasattr(other, name)]
        assert missing == []
        other.observation(0)


def test_the_seats_after_a_seat_follow_the_playing_order() -> None:
    deal = Deal.new(Rules(), 4, first=2, rng=random.Random(1), seats=[0, 2, 3])
    assert deal.seats == (2, 3, 0)
    assert deal.seats_after(2) == [3, 0]
    assert deal.seats_after(0) == [2, 3]
    with pytest.raises(RulesError, match="seat 1 does not play in this deal"):
        deal.seats_after(1)


MATCH_RULES = [
    Rules(),
    Rules.preset("clasico"),
    Rules.preset("online"),
    Rules(max_reshuffles=0, limit=30, reentry="unlimited"),
    Rules(decks=2, jokers=2, wild_ace_of_oros=True, forbid_rediscard=True),
]


@pytest.mark.parametrize("rules", MATCH_RULES, ids=lambda r: r.as_text()[0] + " " + " ".join(r.as_text()[1]))
def test_a_match_plays_its_moves_as_it_applies_their_actions(rules: Rules) -> None:
    """Match.play(move) is Match.apply(the move's action): the same log, deal histories, events, observations and
    totals, void deals, closes (the option with the fewest loose points) and the next deals included; moves() lists
    nothing while a re-entry is decided, in a showdown or once the match is over."""
    moves_played = decided = ended = 0
    for seed in range(12):
        players = 2 + seed % 3
        fast, checked = Match(players, rules, seed=seed), Match(players, rules, seed=seed)
        choose = random.Random(seed)
        for _ in range(1500):
            if checked.over:
                break
            moves = fast.moves()
            if checked.reentry_pending or checked.deal.phase is Phase.SHOWDOWN:
                assert moves == []
                decided += 1
                action = choose.choice(checked.legal_actions())
                fast.apply(action)
                checked.apply(action)
                continue
            closes = [move for move in moves if move >= CLOSE]
            move = closes[0] if closes and choose.random() < 0.6 else choose.choice(moves)
            fast.play(move)
            checked.apply(_action(checked.deal, move))
            moves_played += 1
            assert fast.events() == checked.events()
        if fast.over:
            assert fast.moves() == []
            ended += 1
        assert fast.log == checked.log
        assert fast.scores == checked.scores
        assert [deal.history for deal in fast.deals] == [deal.history for deal in checked.deals]
        assert fast.all_events() == checked.all_events()
        assert fast.record() == checked.record()
        for seat in range(players):
            assert fast.observation(seat) == checked.observation(seat)
    assert moves_played > 2000 and ended
    assert decided or (rules.reentry == "none" and not rules.layoffs)
