"""Deals: known answers from stacked decks (RULES.md §III-§VII): dealing, turns, refusals, closing, the stock
running out, lay-offs and the showdown, scores. Hands are written as text (:mod:`tests.stacked`).
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, cast

import pytest

from chinchon import JOKER, Card, Rules, closing_options
from chinchon.actions import Close, Discard, Draw, IllegalAction, LayOff, Pass, Show
from chinchon.deal import Deal, stack_deck
from chinchon.deal.deck import shuffle
from chinchon.melds import best_arrangement
from chinchon.observation import DealResult, Phase, TableMeld
from tests.stacked import (
    CHAIN,
    CLASICO,
    E1,
    FOURNIER,
    JUNK_A,
    JUNK_B,
    POLACO,
    C,
    P,
    cards_in_play,
    full_deck,
    meld_texts,
    melds,
    new_deal,
    raises,
    table_index,
)

# -- dealing ------------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "first"), [(2, 0), (2, 1), (3, 1), (4, 3)])
def test_dealing_order(players: int, first: int) -> None:
    rules = FOURNIER
    deck = rules.cards()
    random.Random(players * 10 + first).shuffle(deck)
    deal = Deal.new(rules, players, first=first, deck=deck)
    order = [(first + i) % players for i in range(players)]
    expected: dict[int, list[Card]] = {seat: [] for seat in range(players)}
    for i in range(7 * players):
        expected[order[i % players]].append(deck[i])
    for seat in range(players):
        assert Counter(deal.hand(seat)) == Counter(expected[seat])
    assert deal.discard_pile == [deck[7 * players]]
    assert deal.stock == deck[7 * players + 1 :]
    assert deal.stock[0] == deck[7 * players + 1]
    assert deal.phase is Phase.DRAW
    assert deal.to_move == first
    assert deal.face_down is None
    assert deal.table == []
    assert deal.result is None


@pytest.mark.parametrize("seed", range(40))
def test_shuffle_is_random_shuffle(seed: int) -> None:
    """chinchon.deal.deck.shuffle gives rng.shuffle's order and leaves the generator as rng.shuffle does (so that
    a seed deals the same games in the pure and the compiled builds); a subclass shuffles its own way."""
    for length in (0, 1, 2, 3, 7, 40, 48, 80, 104, 300):
        ours, theirs = random.Random(seed * 1000 + length), random.Random(seed * 1000 + length)
        items = list(range(length))
        expected = list(range(length))
        shuffle(ours, items)
        theirs.shuffle(expected)
        assert items == expected
        assert ours.getstate() == theirs.getstate()

    class Reversing(random.Random):
        def shuffle(self, x: Any) -> None:
            x.reverse()

    items = [1, 2, 3]
    shuffle(Reversing(seed), items)
    assert items == [3, 2, 1]


def test_stack_deck_puts_the_first_hand_on_the_first_player() -> None:
    hands = [P(E1), P(JUNK_A)]
    deck = stack_deck(FOURNIER, hands, C("J♥"), P("6♥ K♣"))
    assert deck[:14:2] == hands[0]
    assert deck[1:14:2] == hands[1]
    assert deck[14] == C("J♥")
    assert deck[15:17] == P("6♥ K♣")
    assert Counter(deck) == full_deck(FOURNIER, 1)
    # first=1: the first hand goes to seat 1.
    deal = Deal.new(FOURNIER, 2, first=1, deck=deck)
    assert Counter(deal.hand(1)) == Counter(P(E1))
    assert Counter(deal.hand(0)) == Counter(P(JUNK_A))
    assert deal.to_move == 1
    deal.apply(Draw("stock"))
    assert C("6♥") in deal.hand(1)


def test_turns_phases_and_seats() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A, JUNK_B], discard="J♥", stock="K♥ 2♥ 2♦ A♥")
    assert (deal.phase, deal.to_move) == (Phase.DRAW, 0)
    assert deal.legal_actions() == [Draw("stock"), Draw("discard")]
    deal.apply(Draw("stock"))
    assert (deal.phase, deal.to_move) == (Phase.DISCARD, 0)
    assert deal.hand_size(0) == 8
    deal.apply(Discard(C("K♥")))
    assert (deal.phase, deal.to_move) == (Phase.DRAW, 1)
    assert deal.discard_pile == P("J♥ K♥")
    deal.apply(Draw("discard"), seat=1)
    assert C("K♥") in deal.hand(1)
    assert deal.discard_pile == P("J♥")
    deal.apply(Discard(C("Q♦")), seat=1)
    assert (deal.phase, deal.to_move) == (Phase.DRAW, 2)
    deal.apply(Draw("stock"))
    assert C("2♥") in deal.hand(2)
    deal.apply(Discard(C("2♥")))
    assert (deal.phase, deal.to_move) == (Phase.DRAW, 0)
    assert deal.stock[:2] == P("2♦ A♥")
    assert [deal.hand_size(s) for s in range(3)] == [7, 7, 7]


def test_legal_actions_in_discard_phase_are_each_card_then_the_closes() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    hand = deal.hand(0)
    actions = deal.legal_actions()
    discards = [a for a in actions if isinstance(a, Discard)]
    closes = [a for a in actions if isinstance(a, Close)]
    assert actions == discards + closes
    assert discards == [Discard(card) for card in sorted(set(hand))]
    assert closes == [Close(o.discard, o.arrangement.melds) for o in closing_options(hand, FOURNIER)]
    assert Close(C("A♦"), melds("3♥ 4♥ 5♥ 6♥", "7♦ 7♠ 7♣")) in closes
    assert all(deal.is_legal(a) for a in actions)


def test_legal_actions_without_a_close() -> None:
    deal = new_deal(FOURNIER, [JUNK_A, JUNK_B], discard="J♥", stock="K♥")
    deal.apply(Draw("discard"))
    assert deal.legal_actions() == [Discard(card) for card in sorted(set(deal.hand(0)))]


# -- illegal actions and their messages -----------------------------------------------------


def test_error_messages() -> None:
    deal = new_deal(FOURNIER, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ J♣", JUNK_A], stock="K♠ 2♥")
    raises(deal, Draw("stock"), "it is seat 0's turn", seat=1)
    raises(deal, Discard(C("J♣")), "you must draw first")
    raises(deal, Close(C("J♣")), "you must draw first")
    deal.apply(Draw("stock"))
    raises(deal, Draw("stock"), "you have already drawn; discard or close")
    raises(deal, Draw("discard"), "you have already drawn; discard or close")
    raises(deal, Discard(C("7♥")), "7♥ is not in your hand")
    raises(deal, Close(C("7♥")), "7♥ is not in your hand")
    # Discarding K♠ leaves J♣ (8 points) loose.
    raises(deal, Close(C("K♠")), "closing would leave 8 loose points; at most 5 are allowed")
    assert not any(isinstance(a, Close) for a in deal.legal_actions())
    raises(deal, Discard(C("K♠")), "it is seat 0's turn", seat=1)
    deal.apply(Discard(C("K♠")), seat=0)
    raises(deal, Discard(C("A♣")), "you must draw first")


def test_actions_after_the_deal_is_over() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert deal.phase is Phase.OVER
    assert deal.to_move is None
    assert deal.legal_actions() == []
    raises(deal, Draw("stock"), "the deal is over")
    raises(deal, Discard(C("6♣")), "the deal is over")
    raises(deal, Pass(), "the deal is over")
    raises(deal, Draw("stock"), "the deal is over", seat=0)
    assert not deal.is_legal(Draw("stock"))


def test_rediscard_is_allowed_by_default() -> None:
    deal = new_deal(FOURNIER, [JUNK_A, JUNK_B], discard="K♥")
    deal.apply(Draw("discard"))
    assert Discard(C("K♥")) in deal.legal_actions()
    deal.apply(Discard(C("K♥")))
    assert deal.discard_pile == P("K♥")


def test_forbid_rediscard() -> None:
    rules = Rules(forbid_rediscard=True)
    # 6♥ completes E1 from the discard pile; A♦ may go, 6♥ may not.
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 6♥", JUNK_A], discard="2♥")
    deal.apply(Draw("discard"))
    actions = deal.legal_actions()
    assert Discard(C("2♥")) not in actions
    assert all(not (isinstance(a, Close) and a.discard == C("2♥")) for a in actions)
    assert Close(C("3♥"), melds("4♥ 5♥ 6♥", "7♦ 7♠ 7♣")) in actions  # 2♥ loose: 2 points
    with pytest.raises(IllegalAction, match="you may not discard 2♥"):
        deal.apply(Discard(C("2♥")))
    with pytest.raises(IllegalAction, match="you may not discard 2♥"):
        deal.apply(Close(C("2♥")))
    # A card drawn from the stock may be discarded at once.
    deal.apply(Discard(C("6♥")))
    deal.apply(Draw("stock"))
    drawn = next(iter(Counter(deal.hand(1)) - Counter(P(JUNK_A))))
    assert Discard(drawn) in deal.legal_actions()


def test_close_on_first_turn_false() -> None:
    rules = Rules(close_on_first_turn=False)
    # Both seats hold a fully matched hand after their first draw.
    deal = new_deal(rules, [E1, "2♣ 2♠ 2♦ K♣ K♠ K♦ Q♦"], stock="6♥ 2♥ J♠")
    deal.apply(Draw("stock"))
    assert not any(isinstance(a, Close) for a in deal.legal_actions())
    raises(deal, Close(C("A♦")), "nobody may close in the first round of turns")
    deal.apply(Discard(C("A♦")))
    deal.apply(Draw("stock"))
    assert not any(isinstance(a, Close) for a in deal.legal_actions())
    raises(deal, Close(C("Q♦")), "nobody may close in the first round of turns")
    deal.apply(Discard(C("Q♦")))
    # Second round: seat 0 may close now.
    deal.apply(Draw("stock"))
    assert Close(C("J♠"), melds("3♥ 4♥ 5♥ 6♥", "7♦ 7♠ 7♣")) in deal.legal_actions()
    deal.apply(Close(C("J♠")))
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.closer == 0
    assert deal.result.points == (-10, 0)


def test_close_on_first_turn_by_default() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    assert any(isinstance(a, Close) for a in deal.legal_actions())


def test_close_max_loose_cards_clasico() -> None:
    # A run of five and two loose cards (A♠ 2♣: 2 points in both value schemes).
    hands = ["3♥ 4♥ 5♥ 6♥ 7♥ A♠ 2♣", "2♦ 4♠ J♣ Q♠ K♦ K♣ 5♦"]
    deal = new_deal(CLASICO, hands, stock="K♠")
    deal.apply(Draw("stock"))
    raises(deal, Close(C("K♠")), "closing would leave 2 loose cards; at most 1 are allowed")
    assert not any(isinstance(a, Close) for a in deal.legal_actions())
    # Without the limit on loose cards (fournier) the same close is legal.
    deal = new_deal(FOURNIER, hands, stock="K♠")
    deal.apply(Draw("stock"))
    assert deal.is_legal(Close(C("K♠")))
    deal.apply(Close(C("K♠")))
    assert deal.result is not None
    assert deal.result.points[0] == 3


def test_clasico_one_loose_card_closes() -> None:
    deal = new_deal(CLASICO, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♠", "2♦ 4♠ J♣ Q♠ K♦ K♣ 5♦"], stock="K♠")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♠")))
    assert deal.result is not None
    assert deal.result.points[0] == 1


# -- D5: closing ----------------------------------------------------------------------------


def test_close_at_exactly_the_limit() -> None:
    deal = new_deal(FOURNIER, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣", JUNK_B], stock="K♥")
    deal.apply(Draw("stock"))
    assert Close(C("K♥"), melds("3♥ 4♥ 5♥", "7♦ 7♠ 7♣")) in deal.legal_actions()
    deal.apply(Close(C("K♥")))
    assert deal.result is not None
    assert deal.result.points[0] == 5
    assert deal.result.loose[0] == (C("5♣"),)
    assert not deal.result.clean
    assert deal.face_down == C("K♥")


def test_close_one_over_the_limit() -> None:
    deal = new_deal(FOURNIER, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 6♣", JUNK_B], stock="K♥")
    deal.apply(Draw("stock"))
    assert not any(isinstance(a, Close) for a in deal.legal_actions())
    raises(deal, Close(C("K♥")), "closing would leave 6 loose points; at most 5 are allowed")
    raises(
        deal,
        Close(C("K♥"), melds("3♥ 4♥ 5♥", "7♦ 7♠ 7♣")),
        "closing would leave 6 loose points; at most 5 are allowed",
    )
    assert deal.phase is Phase.DISCARD
    assert deal.hand_size(0) == 8


@pytest.mark.parametrize("limit", [3, 4])
def test_close_limit_option(limit: int) -> None:
    rules = Rules(close_limit=limit)
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 4♣", JUNK_B], stock="K♥")
    deal.apply(Draw("stock"))
    assert deal.is_legal(Close(C("K♥"))) == (limit >= 4)


def test_close_best_arrangement_when_melds_are_none() -> None:
    deal = new_deal(FOURNIER, [E1, "2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦"], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert deal.result is not None
    assert deal.result.clean
    assert deal.result.points == (-10, 45)
    assert Counter(meld_texts(deal)) == Counter([(0, "3♥ 4♥ 5♥ 6♥"), (0, "7♦ 7♠ 7♣")])
    assert all(not meld.open for meld in deal.table)
    assert deal.face_down == C("A♦")


def test_close_with_explicit_non_best_melds() -> None:
    # 4♥-6♥ and the 7s leave 3♥ loose (3 points) although a clean close exists.
    deal = new_deal(FOURNIER, [E1, "2♣ 2♠ 6♣ 6♠ K♣ K♠ Q♦"], stock="6♥")
    deal.apply(Draw("stock"))
    action = Close(C("A♦"), melds("4♥ 5♥ 6♥", "7♣ 7♦ 7♠"))
    assert deal.is_legal(action)
    deal.apply(action)
    assert deal.result is not None
    assert not deal.result.clean
    assert deal.result.points == (3, 45)
    assert deal.result.loose[0] == (C("3♥"),)
    assert sorted(c for m in deal.table for c in m.cards) == sorted(P("4♥ 5♥ 6♥ 7♣ 7♦ 7♠"))
    assert all(meld.owner == 0 for meld in deal.table)


def test_close_with_explicit_melds_over_the_limit_or_false() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    raises(
        deal,
        Close(C("A♦"), melds("3♥ 4♥ 5♥", "7♣ 7♦ 7♠")),
        "closing would leave 6 loose points; at most 5 are allowed",
    )
    raises(deal, Close(C("A♦"), melds("3♥ 4♥ 7♣", "5♥ 6♥ 7♦ 7♠")), "[3♥ 4♥ 7♣] is not a meld")
    raises(deal, Close(C("A♦"), melds("4♥ 5♥ 6♥ 7♥", "7♣ 7♦ 7♠")), "7♥ is not in your hand")
    assert deal.phase is Phase.DISCARD


def test_close_without_melds_takes_the_best_legal_arrangement() -> None:
    # RULES D5: Close without an arrangement takes the legal arrangement with the fewest loose points.
    # Clasico with jokers: [A♣ 2♣ 3♣ 🃏 5♣] leaves A♦ 2♦ (3 points, two cards: not a legal close);
    # [A♦ 2♦ 🃏] [A♣ 2♣ 3♣] leaves 5♣ alone (5 points): the legal close.
    rules = Rules.preset("clasico", deck="french52", jokers=2)
    deal = new_deal(rules, ["2♣ A♣ 5♣ 3♣ 2♦ 🃏 A♦", "K♦ Q♠ J♥ 9♠ 8♦ 10♣ 7♥"], stock="K♥")
    deal.apply(Draw("stock"))
    closes = [a for a in deal.legal_actions() if isinstance(a, Close)]
    assert Close(C("K♥"), ((*P("A♦ 2♦"), JOKER), tuple(P("A♣ 2♣ 3♣")))) in closes
    assert deal.is_legal(Close(C("K♥")))
    deal.apply(Close(C("K♥")))
    assert deal.result is not None
    assert deal.result.points[0] == 5
    assert deal.result.loose[0] == (C("5♣"),)


def test_e4_clasico_take_the_discard_and_close() -> None:
    # RULES §VI E4: 5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣, 2♠ face up: 8 loose, cannot close; take 2♠, close with 8♣: 2 points.
    hand = "5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣"
    assert best_arrangement(P(hand), CLASICO).points == 8
    deal = new_deal(CLASICO, [hand, "A♣ 3♠ 3♦ 4♣ 6♦ 6♣ Q♦"], discard="2♠", stock="J♦")
    other = deal.copy()
    other.apply(Draw("stock"))  # J♦ does not help: no close
    assert not any(isinstance(a, Close) for a in other.legal_actions())
    deal.apply(Draw("discard"))
    assert Close(C("8♣"), melds("5♥ 6♥ 7♥", "K♦ K♠ K♣")) in deal.legal_actions()
    deal.apply(Close(C("8♣")))
    assert deal.result is not None
    assert deal.result.points[0] == 2
    assert deal.result.loose[0] == (C("2♠"),)


# -- D6: the stock runs out -----------------------------------------------------------------


def play_until_the_stock_is_empty(deal: Deal) -> None:
    """Each seat draws from the stock and discards what it drew, until the stock is empty."""
    while deal.stock:
        deal.apply(Draw("stock"))
        seat = deal.to_move
        assert seat is not None
        drawn = next(iter(Counter(deal.hand(seat)) - Counter(P(JUNK_A if seat == 0 else JUNK_B))))
        deal.apply(Discard(drawn))
        assert cards_in_play(deal) == full_deck(FOURNIER, 1)


def test_stock_exhausted_reshuffles_the_discards_but_the_top_one() -> None:
    deal = new_deal(FOURNIER, [JUNK_A, JUNK_B], discard="J♥", reshuffle=lambda cards: list(reversed(cards)))
    play_until_the_stock_is_empty(deal)
    pile = deal.discard_pile
    assert len(pile) == 40 - 14
    assert deal.stock == []
    assert Draw("stock") in deal.legal_actions()
    seat = deal.to_move
    assert seat is not None
    deal.apply(Draw("stock"))
    assert deal.reshuffles == [tuple(reversed(pile[:-1]))]
    assert deal.discard_pile == [pile[-1]]
    assert C("J♥") in deal.reshuffles[0]  # the first face-up card is in the new stock
    drawn = deal.reshuffles[0][0]
    assert drawn in deal.hand(seat)
    assert deal.hand_size(seat) == 8
    assert deal.stock == list(deal.reshuffles[0][1:])
    assert cards_in_play(deal) == full_deck(FOURNIER, 1)


def test_stock_exhausted_with_a_random_reshuffle() -> None:
    deal = new_deal(FOURNIER, [JUNK_A, JUNK_B], rng=random.Random(3))
    play_until_the_stock_is_empty(deal)
    pile = deal.discard_pile
    deal.apply(Draw("discard"))  # the top card: the stock is not refilled
    assert deal.reshuffles == []
    deal.apply(Discard(pile[-1]))
    deal.apply(Draw("stock"))
    assert len(deal.reshuffles) == 1
    assert Counter(deal.reshuffles[0]) == Counter(pile[:-1])
    assert deal.discard_pile == [pile[-1]]
    assert len(deal.stock) == len(pile) - 2
    assert cards_in_play(deal) == full_deck(FOURNIER, 1)


# -- E1, E3: scores and elimination ---------------------------------------------------------


def test_e1_lay_off_refused_on_a_clean_close() -> None:
    deal = new_deal(FOURNIER, [E1, "2♥ 7♥ J♠ Q♠ K♠ A♣ 2♣"], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    raises(deal, LayOff(C("2♥"), 0), "show your melds first")
    deal.apply(Show(()))
    assert deal.phase is Phase.OVER
    assert deal.result is not None
    assert deal.result.points == (-10, 2 + 7 + 8 + 9 + 10 + 1 + 2)


def test_layoffs_on_clean_close_option() -> None:
    rules = Rules(layoffs_on_clean_close=True)
    deal = new_deal(rules, [E1, "2♥ 7♥ J♠ Q♠ K♠ A♣ 2♣"], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert all(meld.open for meld in deal.table)
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (-10, 3)  # A♣ 2♣ loose
    # 2♥ goes below the run; 7♥ onto the run or the 7s.
    assert (1, "J♠ Q♠ K♠") in meld_texts(deal)
    assert all(meld.cards[0] == C("2♥") for meld in deal.table if C("3♥") in meld.cards)
    assert sum(C("7♥") in meld.cards for meld in deal.table) == 1


# -- D7: lay-offs ---------------------------------------------------------------------------


def chain_deal(rules: Rules = FOURNIER) -> Deal:
    deal = new_deal(rules, [CHAIN[0], CHAIN[1], CHAIN[2]], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    return deal


def test_layoff_chain_across_players_and_rounds() -> None:
    deal = chain_deal()
    assert deal.phase is Phase.SHOWDOWN
    assert all(meld.open and meld.owner == 0 for meld in deal.table)
    run = table_index(deal, "3♥ 4♥ 5♥")
    sevens = table_index(deal, "7♦ 7♠ 7♣")
    assert deal.face_down == C("K♣")
    # Seat 1 has no meld to show (played for it) and lays off 6♥ at the top of the run.
    assert deal.to_move == 1
    assert deal.legal_actions() == [LayOff(C("6♥"), run), Pass()]
    raises(deal, LayOff(C("J♥"), run), "J♥ does not fit [3♥ 4♥ 5♥]")
    raises(deal, LayOff(C("6♥"), 7), "there is no meld 7 on the table")
    raises(deal, Show(()), "you have already shown your melds")
    deal.apply(LayOff(C("6♥"), run))
    assert deal.table[run].cards == tuple(P("3♥ 4♥ 5♥ 6♥"))
    # Seat 1 can add nothing more now (3♠ has no meld yet; J♥ needs 7♥ first): seat 2 shows.
    assert deal.to_move == 2
    shows = deal.legal_actions()
    assert set(shows) == {Show(melds("4♠ 5♠ 6♠")), Show(())}
    raises(deal, Pass(), "show your melds first")
    deal.apply(Show(melds("4♠ 5♠ 6♠")))
    spades = table_index(deal, "4♠ 5♠ 6♠")
    assert deal.table[spades].owner == 2
    assert deal.to_move == 2
    assert deal.legal_actions() == [LayOff(C("7♥"), run), LayOff(C("7♥"), sevens), Pass()]
    deal.apply(LayOff(C("7♥"), run))
    # The next round of lay-offs: seat 1 extends seat 2's meld at its bottom and the run with J♥.
    assert deal.to_move == 1
    assert set(deal.legal_actions()) == {LayOff(C("3♠"), spades), LayOff(C("J♥"), run), Pass()}
    deal.apply(LayOff(C("3♠"), spades))
    deal.apply(LayOff(C("J♥"), run))
    assert cast(Phase, deal.phase) is Phase.OVER
    result = deal.result
    assert result is not None
    assert result.closer == 0
    assert not result.clean
    assert result.points == (2, 10 + 9 + 1 + 2, 9 + 8 + 1)
    assert result.loose == (tuple(P("2♣")), tuple(sorted(P("K♦ Q♣ A♠ 2♦"))), tuple(sorted(P("Q♦ J♣ A♣"))))
    assert Counter(meld_texts(deal)) == Counter([(0, "3♥ 4♥ 5♥ 6♥ 7♥ J♥"), (0, "7♦ 7♠ 7♣"), (2, "3♠ 4♠ 5♠ 6♠")])
    assert cards_in_play(deal) == full_deck(FOURNIER, 1)


def test_resolve_showdown_of_the_chain() -> None:
    deal = chain_deal()
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (2, 22, 18)


def test_best_showdown_action_is_what_resolve_showdown_plays() -> None:
    deal = chain_deal()
    played = deal.copy()
    played.resolve_showdown()
    steps = 0
    while deal.phase is Phase.SHOWDOWN:
        action = deal.best_showdown_action()
        assert action in deal.legal_actions()
        assert deal.history == played.history[: len(deal.history)]
        deal.apply(action)
        steps += 1
    assert steps >= 2
    assert deal.history == played.history
    assert deal.result == played.result
    with pytest.raises(IllegalAction, match="the deal is over"):
        deal.best_showdown_action()
    with pytest.raises(IllegalAction, match="there is no showdown yet"):
        Deal.new(Rules(), 2, rng=random.Random(1)).best_showdown_action()


def test_pass_keeps_a_card_for_the_next_round() -> None:
    deal = chain_deal()
    run = table_index(deal, "3♥ 4♥ 5♥")
    sevens = table_index(deal, "7♦ 7♠ 7♣")
    deal.apply(Pass())  # seat 1 keeps 6♥ for now
    deal.apply(Show(melds("4♠ 5♠ 6♠")))
    spades = table_index(deal, "4♠ 5♠ 6♠")
    # 7♥ does not fit the run yet, only the 7s; seat 2 keeps it.
    assert deal.to_move == 2
    assert deal.legal_actions() == [LayOff(C("7♥"), sevens), Pass()]
    deal.apply(Pass())
    assert deal.to_move == 1
    assert set(deal.legal_actions()) == {LayOff(C("6♥"), run), LayOff(C("3♠"), spades), Pass()}
    deal.apply(LayOff(C("6♥"), run))
    deal.apply(LayOff(C("3♠"), spades))
    assert deal.to_move == 2
    deal.apply(LayOff(C("7♥"), run))
    assert deal.to_move == 1
    deal.apply(LayOff(C("J♥"), run))
    assert deal.phase is Phase.OVER
    assert deal.result is not None
    assert deal.result.points == (2, 22, 18)


def test_showdown_starts_with_the_seat_after_the_closer() -> None:
    # Seat 2 closes on its first turn; seat 0, then seat 1, show.
    hands = ["4♠ 5♠ 6♠ K♦ Q♣ J♣ A♣", "3♠ 2♥ Q♦ K♠ 2♦ 4♣ A♠", "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣"]
    deal = new_deal(FOURNIER, hands, stock="6♦ 6♣ K♥")
    deal.apply(Draw("stock"))
    deal.apply(Discard(C("6♦")))
    deal.apply(Draw("stock"))
    deal.apply(Discard(C("6♣")))
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♥")))
    assert deal.to_move == 0
    assert set(deal.legal_actions()) == {Show(melds("4♠ 5♠ 6♠")), Show(())}
    deal.apply(Show(melds("4♠ 5♠ 6♠")))
    assert deal.to_move == 1
    spades = table_index(deal, "4♠ 5♠ 6♠")
    assert deal.legal_actions() == [LayOff(C("2♥"), table_index(deal, "3♥ 4♥ 5♥")), LayOff(C("3♠"), spades), Pass()]
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.closer == 2
    assert deal.result.points == (28, 9 + 10 + 2 + 4 + 1, 2)


def test_no_layoffs_onto_a_clean_close_but_onto_other_melds() -> None:
    # Seat 1 shows 4♠ 5♠ 6♠; seat 2 holds 3♠ (fits it) and 2♥ (would fit the closer's run).
    hands = [E1, "4♠ 5♠ 6♠ K♦ Q♣ J♣ A♣", "3♠ 2♥ Q♦ K♠ 2♦ 4♣ A♠"]
    deal = new_deal(FOURNIER, hands, stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert all(not meld.open for meld in deal.table)
    deal.apply(Show(melds("4♠ 5♠ 6♠")))
    spades = table_index(deal, "4♠ 5♠ 6♠")
    assert deal.table[spades].open
    assert deal.to_move == 2
    assert deal.legal_actions() == [LayOff(C("3♠"), spades), Pass()]
    raises(deal, LayOff(C("2♥"), table_index(deal, "3♥ 4♥ 5♥ 6♥")), "the melds of a clean close take no cards")
    deal.apply(LayOff(C("3♠"), spades))
    assert deal.phase is Phase.OVER
    assert deal.result is not None
    assert deal.result.points == (-10, 10 + 9 + 8 + 1, 2 + 9 + 10 + 2 + 4 + 1)


def test_layoffs_on_clean_close_allows_the_closers_melds() -> None:
    rules = Rules(layoffs_on_clean_close=True)
    hands = [E1, "4♠ 5♠ 6♠ K♦ Q♣ J♣ A♣", "3♠ 2♥ Q♦ K♠ 2♦ 4♣ A♠"]
    deal = new_deal(rules, hands, stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (-10, 28, 9 + 10 + 2 + 4 + 1)
    assert (0, "2♥ 3♥ 4♥ 5♥ 6♥") in meld_texts(deal)


CLOSER_LAYS_OFF = {
    0: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣",  # closes discarding K♣: 2♣ loose
    1: "3♣ 4♣ 5♣ K♦ Q♠ J♥ A♥",  # shows 3♣ 4♣ 5♣, which 2♣ fits
}


@pytest.mark.parametrize(("option", "closer_points"), [(False, 2), (True, 0)])
def test_closer_lays_off(option: bool, closer_points: int) -> None:
    rules = Rules(closer_lays_off=option)
    deal = new_deal(rules, [CLOSER_LAYS_OFF[0], CLOSER_LAYS_OFF[1]], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    deal.apply(Show(melds("3♣ 4♣ 5♣")))
    if option:
        assert deal.to_move == 0
        clubs = table_index(deal, "3♣ 4♣ 5♣")
        assert deal.legal_actions() == [LayOff(C("2♣"), clubs), Pass()]
        deal.apply(LayOff(C("2♣"), clubs))
    assert deal.phase is Phase.OVER
    assert deal.result is not None
    # The closer who lays off everything scores 0, not −10: it did not close with all 7 matched.
    assert deal.result.points == (closer_points, 10 + 9 + 8 + 1)
    assert not deal.result.clean


def test_a_card_added_to_a_run_with_a_wild_card_goes_at_an_end() -> None:
    rules = Rules(jokers=2)
    # Closer: [4♥ 🃏 6♥] [7♦ 7♠ 7♣], 2♣ loose. Seat 1 holds 5♥ (the joker's place) and 3♥.
    deal = new_deal(rules, ["4♥ 🃏 6♥ 7♣ 7♦ 7♠ 2♣", "3♥ 5♥ K♦ Q♠ J♣ A♠ 2♦"], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣"), ((C("4♥"), JOKER, C("6♥")), tuple(P("7♦ 7♠ 7♣")))))
    run = table_index(deal, "4♥ 🃏 6♥")
    assert deal.legal_actions() == [LayOff(C("3♥"), run), Pass()]
    raises(deal, LayOff(C("5♥"), run), "5♥ does not fit [4♥ 🃏 6♥]")
    deal.apply(LayOff(C("3♥"), run))
    assert deal.phase is Phase.OVER
    assert deal.table[run].cards == (C("3♥"), C("4♥"), JOKER, C("6♥"))
    assert deal.result is not None
    assert deal.result.points == (2, 5 + 10 + 9 + 8 + 1 + 2)


NO_LAYOFF_OTHERS = {
    # 6♥ would fit the closer's run and 7♥ its 7s; both stay loose.
    "clasico": ["6♥ 8♣ 8♦ 8♠ K♦ Q♠ 2♦", "7♥ 6♣ 6♠ 6♦ J♦ 9♣ 4♠"],
    "online": ["6♥ 2♣ 2♦ 2♠ K♦ Q♠ J♦", "7♥ 6♣ 6♠ 6♦ Q♦ J♣ 4♠"],
}


@pytest.mark.parametrize("preset", ["clasico", "online"])
def test_presets_without_layoffs_play_the_showdown_themselves(preset: str) -> None:
    rules = Rules.preset(preset)
    others = NO_LAYOFF_OTHERS[preset]
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♠", *others], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    assert deal.phase is Phase.OVER
    assert deal.to_move is None
    result = deal.result
    assert result is not None
    assert result.points[0] == 1
    for seat in (1, 2):
        best = best_arrangement(P(others[seat - 1]), rules)
        assert result.points[seat] == best.points
        assert Counter(result.loose[seat]) == Counter(best.loose)
        shown = [m.cards for m in result.table if m.owner == seat]
        assert Counter(map(frozenset, shown)) == Counter(map(frozenset, best.melds))
    assert C("6♥") in result.loose[1]
    assert C("7♥") in result.loose[2]
    assert cards_in_play(deal) == full_deck(rules, 1)


# -- D8: one card per run per player per round with two decks ------------------------------


def d8_deal(rules: Rules) -> Deal:
    # 6♥ fits the run; 7♥ fits the run after 6♥, or the set of 7s.
    return new_deal(rules, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣", "6♥ 7♥ K♦ Q♠ J♣ A♠ 2♦"], stock="K♣")


def test_layoff_one_per_run_per_round_with_two_decks() -> None:
    rules = Rules.preset("polaco", decks=2)
    deal = d8_deal(rules)
    assert deal.decks == 2
    assert cards_in_play(deal) == full_deck(rules, 2)
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    run = table_index(deal, "3♥ 4♥ 5♥")
    sevens = table_index(deal, "7♦ 7♠ 7♣")
    assert deal.to_move == 1
    deal.apply(LayOff(C("6♥"), run))
    assert deal.to_move == 1
    actions = deal.legal_actions()
    assert LayOff(C("7♥"), run) not in actions
    assert actions == [LayOff(C("7♥"), sevens), Pass()]
    raises(deal, LayOff(C("7♥"), run), "a run takes one card from each player in each round")
    deal.apply(Pass())
    # The next round: the run takes 7♥ now.
    assert deal.to_move == 1
    assert LayOff(C("7♥"), run) in deal.legal_actions()
    deal.apply(LayOff(C("7♥"), run))
    assert deal.table[run].cards == tuple(P("3♥ 4♥ 5♥ 6♥ 7♥"))
    assert deal.phase is Phase.OVER
    assert deal.result is not None
    assert deal.result.points == (2, 10 + 9 + 8 + 1 + 2)


@pytest.mark.parametrize("rules", [FOURNIER, POLACO], ids=["fournier", "polaco-one-deck"])
def test_two_cards_onto_one_run_in_a_round_with_one_deck(rules: Rules) -> None:
    deal = d8_deal(rules)
    assert deal.decks == 1
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    run = table_index(deal, "3♥ 4♥ 5♥")
    deal.apply(LayOff(C("6♥"), run))
    assert LayOff(C("7♥"), run) in deal.legal_actions()
    deal.apply(LayOff(C("7♥"), run))
    assert deal.table[run].cards == tuple(P("3♥ 4♥ 5♥ 6♥ 7♥"))


# -- resolve_showdown ------------------------------------------------------------------------


def all_outcomes(deal: Deal) -> list[tuple[int, ...]]:
    if deal.phase is Phase.OVER:
        assert deal.result is not None
        return [deal.result.points]
    out = []
    for action in deal.legal_actions():
        child = deal.copy()
        child.apply(action)
        out += all_outcomes(child)
    return out


def trap_deal() -> Deal:
    # Seat 1: showing 6♥ 6♣ 6♠ and laying 7♥ on the 7s leaves J♥ (8); laying 6♥ 7♥ J♥ on the run leaves 6♣ 6♠ (12).
    deal = new_deal(FOURNIER, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣", "6♥ 7♥ J♥ 6♣ 6♠ A♠ 2♦"], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    return deal


def test_resolve_showdown_finds_each_seats_minimum() -> None:
    deal = trap_deal()
    outcomes = all_outcomes(deal)
    assert len(outcomes) > 3
    best = min(points[1] for points in outcomes)
    assert best == 8 + 1 + 2
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (2, best)
    assert deal.phase is Phase.OVER
    deal.resolve_showdown()  # nothing left to do
    assert deal.result.points == (2, best)


def test_resolve_showdown_is_deterministic() -> None:
    first, second = chain_deal(), chain_deal()
    first.resolve_showdown()
    second.resolve_showdown()
    assert first.history == second.history
    assert first.result == second.result
    assert meld_texts(first) == meld_texts(second)


def test_resolve_showdown_does_nothing_outside_a_showdown() -> None:
    deal = new_deal(FOURNIER, [JUNK_A, JUNK_B])
    deal.resolve_showdown()
    assert deal.phase is Phase.DRAW
    assert deal.history == []


# -- S2: the clean-close bonus -----------------------------------------------------------------


def test_non_closer_with_nothing_loose_scores_zero() -> None:
    deal = new_deal(FOURNIER, [E1, "J♠ Q♠ K♠ 2♣ 2♦ 2♠ 2♥"], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (-10, 0)
    assert deal.result.loose[1] == ()


def test_non_closer_who_lays_off_everything_scores_zero() -> None:
    # Seat 1 shows J♠ Q♠ K♠ 2♣ 2♦ 2♠ and lays 6♥ on the closer's run.
    deal = new_deal(FOURNIER, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♣", "J♠ Q♠ K♠ 2♣ 2♦ 2♠ 6♥"], stock="K♣")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points == (1, 0)


@pytest.mark.parametrize(
    "rules", [FOURNIER, CLASICO, Rules.preset("online"), POLACO], ids=["fournier", "clasico", "online", "polaco"]
)
def test_closing_with_loose_points_earns_no_bonus(rules: Rules) -> None:
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♣", JUNK_B], stock="K♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♥")))
    deal.resolve_showdown()
    assert deal.result is not None
    assert deal.result.points[0] == 1
    assert not deal.result.clean


def test_clean_close_bonus_option() -> None:
    rules = Rules(clean_close_bonus=-20)
    deal = new_deal(rules, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert deal.result is not None
    assert deal.result.points == (-20, 32)


# -- S7: chinchón -------------------------------------------------------------------------------


def test_chinchon_points_option() -> None:
    rules = Rules(chinchon=-25)
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 6♥ 7♥ J♥ K♣", JUNK_A], stock="Q♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣")))
    assert deal.result is not None
    assert deal.result.chinchon
    assert deal.result.points == (-25, 32)


def test_two_melds_of_the_whole_hand_are_no_chinchon() -> None:
    rules = Rules(chinchon=-25)
    deal = new_deal(rules, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert deal.result is not None
    assert not deal.result.chinchon
    assert deal.result.points == (-10, 32)


@pytest.mark.parametrize(("natural", "chinchon", "points"), [(True, False, -10), (False, True, -25)])
def test_chinchon_with_a_joker(natural: bool, chinchon: bool, points: int) -> None:
    rules = Rules(jokers=2, chinchon=-25, chinchon_needs_natural=natural)
    deal = new_deal(rules, ["3♥ 4♥ 5♥ 🃏 7♥ J♥ K♣", JUNK_A], stock="Q♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("K♣"), ((*P("3♥ 4♥ 5♥"), JOKER, *P("7♥ J♥ Q♥")),)))
    assert deal.result is not None
    assert deal.result.clean
    assert deal.result.chinchon is chinchon
    assert deal.result.points[0] == points


# -- properties over seeded random matches --------------------------------------------------


def test_deal_result_type() -> None:
    deal = new_deal(FOURNIER, [E1, JUNK_A], stock="6♥")
    deal.apply(Draw("stock"))
    deal.apply(Close(C("A♦")))
    assert isinstance(deal.result, DealResult)
    assert all(isinstance(meld, TableMeld) for meld in deal.table)
