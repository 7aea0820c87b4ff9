"""check(): a refusal says why, as apply would, without copying or changing anything; is_legal and apply agree."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from chinchon.actions import Action, Close, Discard, Draw, IllegalAction, LayOff, Pass, ReEnter, Show
from chinchon.cards import JOKER, Card, parse_cards
from chinchon.deal import Deal, stack_deck
from chinchon.match import Match
from chinchon.observation import Phase
from chinchon.record import replay
from chinchon.rules import Rules
from tests.test_wild_layouts import CLOSER, OTHER, c, closing_deal
from tests.test_wild_layouts import RULES as WILD

RULES = [
    Rules(),
    Rules(forbid_rediscard=True, close_on_first_turn=False, close_max_loose_cards=1),
    Rules(jokers=2, closer_lays_off=True),
    Rules.preset("clasico"),
    Rules.preset("polaco", decks=2, layoff_one_per_run_per_round=True),
]


def candidates(deal: Deal, rng: random.Random) -> list[Action]:
    """The legal actions and actions near them that may not be: every card of the deck discarded or closed
    on, both draws, shows and lay-offs of the hand, a pass, a re-entry."""
    cards = sorted(set(deal.rules.cards(decks=deal.decks)))
    out: list[Action] = [*deal.legal_actions(), Draw("stock"), Draw("discard"), Pass(), ReEnter(True), Show(())]
    out += [Discard(card) for card in rng.sample(cards, 8)]
    seat = deal.to_move
    hand = deal.hand(seat) if seat is not None else []
    out += [Discard(card) for card in hand] + [Close(card) for card in hand]
    out += [LayOff(card, index) for card in hand[:4] for index in range(len(deal.table) + 1)]
    if len(hand) >= 3:
        out.append(Close(hand[0], (tuple(hand[1:4]),)))
        out.append(Show((tuple(hand[:3]),)))
    return out


def _no_copy(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("check copied something")


@pytest.mark.parametrize("rules", RULES, ids=lambda rules: str(len(rules.describe_differences())))
def test_check_refuses_exactly_what_apply_refuses_saying_the_same(
    rules: Rules, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    checked = refused = showdowns = 0
    for seed in range(6):
        deal = Deal.new(rules, 3, rng=random.Random(seed))
        for _ in range(120):
            if deal.phase is Phase.OVER:
                break
            legal = deal.legal_actions()
            showdowns += deal.phase is Phase.SHOWDOWN
            if deal.phase is not Phase.SHOWDOWN and rng.random() < 0.7:
                deal.apply(rng.choice(legal))
                continue
            before = (deal.history[:], [deal.hand(s) for s in range(3)], deal.discard_pile, deal.stock)
            for action in candidates(deal, rng):
                with monkeypatch.context() as patched:
                    patched.setattr(Deal, "copy", _no_copy)
                    patched.setattr(copy, "deepcopy", _no_copy)
                    try:
                        deal.check(action)
                        reason = None
                    except IllegalAction as error:
                        reason = str(error)
                    assert deal.is_legal(action) is (reason is None)
                other = deal.copy()
                try:
                    other.apply(action)
                    applied = None
                except IllegalAction as error:
                    applied = str(error)
                assert reason == applied, action
                if action in legal:
                    assert reason is None, (action, reason)
                checked += 1
                refused += reason is not None
            assert (deal.history, [deal.hand(s) for s in range(3)], deal.discard_pile, deal.stock) == before
            closes = [a for a in legal if isinstance(a, Close)]
            deal.apply(closes[0] if closes else rng.choice(legal))
    assert checked > 1000 and refused > checked // 3
    assert showdowns or not rules.layoffs  # without lay-offs the showdown plays itself


def test_the_match_checks_the_turn_and_re_entry_as_apply_does() -> None:
    match = Match(2, Rules(), seed=3)
    seat = match.to_move
    assert seat is not None
    with pytest.raises(IllegalAction, match=f"it is seat {seat}'s turn"):
        match.check(Draw("stock"), seat=1 - seat)
    with pytest.raises(IllegalAction, match="seat: expected a seat number, got True"):
        match.check(Draw("stock"), seat=True)
    with pytest.raises(IllegalAction, match="nobody is deciding on re-entry now"):
        match.check(ReEnter(True))
    with pytest.raises(IllegalAction, match="you must draw first"):
        match.check(Discard(match.deal.hand(seat)[0]))
    match.check(Draw("stock"), seat=seat)
    assert match.is_legal(Draw("stock")) and not match.is_legal(Discard(JOKER))


def test_a_pending_re_entry_and_the_match_s_end_are_checked() -> None:
    rules = Rules(limit=30, reentry="once")
    rng = random.Random(1)
    for seed in range(40):
        match = Match(2, rules, seed=seed)
        while not match.over and not match.reentry_pending:
            legal = match.legal_actions()
            closes = [a for a in legal if isinstance(a, Close)]
            match.apply(closes[0] if closes else rng.choice(legal))
        if match.reentry_pending:
            break
    else:  # pragma: no cover - the seeds above reach a re-entry
        pytest.fail("no re-entry reached")
    seat = match.reentry_pending[0]
    with pytest.raises(IllegalAction, match=f"seat {seat} must first decide whether to re-enter"):
        match.check(Draw("stock"))
    match.check(ReEnter(False))
    match.apply(ReEnter(False))
    assert match.over
    with pytest.raises(IllegalAction, match="the match is over"):
        match.check(Draw("stock"))
    assert not match.is_legal(ReEnter(True))


@pytest.mark.parametrize(
    ("rules", "action", "reason"),
    [
        (Rules(), Close(Card.parse("K♠"), ()), "closing would leave 22 loose points; at most 5 are allowed"),
        (
            Rules(close_max_loose_cards=1),
            Close(Card.parse("K♠"), (tuple(parse_cards("3♥ 4♥ 5♥ 6♥")),)),
            "closing would leave 3 loose cards; at most 1 are allowed",
        ),
        (Rules(close_on_first_turn=False), Close(Card.parse("K♠")), "nobody may close in the first round of turns"),
        (Rules(forbid_rediscard=True), Discard(Card.parse("A♣")), "you may not discard A♣: you have just taken it"),
    ],
)
def test_check_says_why(rules: Rules, action: Action, reason: str) -> None:
    hands = [parse_cards("3♥ 4♥ 5♥ 6♥ A♠ 2♠ K♠"), parse_cards("2♣ 2♦ 6♣ 6♠ K♣ Q♣ Q♦")]
    deal = Deal.new(rules, 2, deck=stack_deck(rules, hands, discard=Card.parse("A♣")))
    deal.apply(Draw("discard"))
    with pytest.raises(IllegalAction, match=reason):
        deal.check(action)
    with pytest.raises(IllegalAction, match=reason):
        deal.apply(action)


# -- seats and meld indices are whole numbers ------------------------------------------------------------------


def test_a_bool_or_a_float_is_no_meld_index_and_no_seat() -> None:
    deal = closing_deal()
    deal.apply(Close(c("K♣"), (tuple(parse_cards("2♥ 3♥ 🃏")), tuple(parse_cards("7♦ 7♠ 7♣")))))
    deal.apply(next(a for a in deal.legal_actions() if isinstance(a, Show)))
    assert deal.to_move == 1 and str(deal.table[1]) == "[7♦ 7♠ 7♣]"
    for bad in (LayOff(c("7♥"), True), LayOff(c("7♥"), 1.0)):  # type: ignore[arg-type]  # the float
        assert not deal.is_legal(bad)
        with pytest.raises(IllegalAction, match="there is no meld"):
            deal.apply(bad)
    for seat in (True, 1.0):
        with pytest.raises(IllegalAction, match="seat: expected a seat number"):
            deal.apply(LayOff(c("7♥"), 1), seat=seat)
    deal.apply(LayOff(c("7♥"), 1), seat=1)
    assert str(deal.table[1]) == "[7♦ 7♠ 7♣ 7♥]"


def test_a_match_refuses_a_bool_seat_and_its_record_always_replays() -> None:
    deck = stack_deck(WILD, [parse_cards(CLOSER), parse_cards(OTHER)], discard=c("2♣"), stock=[c("K♣")])
    match = Match(2, WILD, seed=1, first=0, decks=[deck])
    for seat in (False, 0.0):
        with pytest.raises(IllegalAction, match="seat: expected a seat number"):
            match.apply(Draw("stock"), seat=seat)
    match.apply(Draw("stock"), seat=0)
    match.apply(Close(c("K♣"), (tuple(parse_cards("2♥ 3♥ 🃏")), tuple(parse_cards("7♦ 7♠ 7♣")))), seat=0)
    show = next(a for a in match.legal_actions() if isinstance(a, Show))
    match.apply(show, seat=1)
    with pytest.raises(IllegalAction):
        match.apply(LayOff(c("7♥"), True))
    match.apply(LayOff(c("7♥"), 1))
    while match.legal_actions() and len(match.deals) == 1:
        match.apply(Pass() if Pass() in match.legal_actions() else match.legal_actions()[0])
    record = match.record()
    assert replay(record).record() == record
