"""Matches: known answers from stacked decks (RULES.md §VI-§VII): scores and elimination, re-entry, the end of a
match, chinchón, the dealer and the first player; then properties over seeded random matches. Hands are written as
text (:mod:`tests.stacked`).
"""

from __future__ import annotations

import gc
import random
from collections import Counter
from typing import cast

import pytest

from chinchon import JOKER, Card, Rules
from chinchon.actions import Close, Discard, Draw, IllegalAction, ReEnter, Show
from chinchon.deal import Deal
from chinchon.match import Match
from chinchon.observation import Phase
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
    close_e1,
    e1_match,
    full_deck,
    meld_texts,
    melds,
    seat_deck,
)

# -- D5: closing ----------------------------------------------------------------------------


def test_e5_clasico_jokers_fully_matched() -> None:
    # RULES §VI E5: 3♣ 4♣ 5♣ 6♣ 9♦ 9♠ + joker: fully matched, −10.
    rules = Rules.preset("clasico", deck="french52", jokers=2)
    deck = seat_deck(rules, {0: "3♣ 4♣ 5♣ 6♣ 9♦ 9♠ 🃏", 1: "K♦ Q♠ J♥ 9♥ 8♦ 10♣ 7♥"}, 0, stock="K♠")
    match = Match(2, rules, seed=3, first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♠")))
    result = match.results[0]
    assert result.clean
    assert not result.chinchon
    assert result.points[0] == -10
    assert match.scores[0] == -10
    assert not match.over


# -- D6: the stock runs out -----------------------------------------------------------------


def test_stock_exhaustion_in_a_match_is_recorded() -> None:
    deck = seat_deck(FOURNIER, {0: JUNK_A, 1: JUNK_B}, 0)
    match = Match(2, FOURNIER, seed=5, first=0, decks=[deck])
    deal = match.deal
    while deal.stock:
        match.apply(Draw("stock"))
        seat = deal.to_move
        assert seat is not None
        drawn = next(iter(Counter(deal.hand(seat)) - Counter(P(JUNK_A if seat == 0 else JUNK_B))))
        match.apply(Discard(drawn))
    pile = deal.discard_pile
    match.apply(Draw("stock"))
    assert Counter(deal.reshuffles[0]) == Counter(pile[:-1])
    events = [e for e in match.record()["log"] if e.get("chance") == "reshuffle"]
    assert events == [{"chance": "reshuffle", "stock": [str(c) for c in deal.reshuffles[0]]}]


# -- E1, E3: scores and elimination ---------------------------------------------------------


def test_e1_clean_close_in_a_match() -> None:
    # Seat 1 holds 2♥ and 7♥, which would fit the closer's melds if they were open.
    other = "2♥ 7♥ J♠ Q♠ K♠ A♣ 2♣"
    match, _ = e1_match(FOURNIER, {1: other}, closer=0, scores=[24, 30])
    match.apply(Draw("stock"))
    assert C("6♥") in match.deal.hand(0)
    match.apply(Close(C("A♦")))
    deal = match.deals[0]
    assert deal.phase is Phase.SHOWDOWN
    assert match.to_move == 1
    # Seat 1 shows J♠ Q♠ K♠ or nothing; it can never lay off onto a clean close.
    actions = match.legal_actions()
    assert actions and all(isinstance(a, Show) for a in actions)
    match.apply(Show(melds("J♠ Q♠ K♠")))
    assert cast(Phase, deal.phase) is Phase.OVER
    result = deal.result
    assert result is not None
    assert result.closer == 0
    assert result.clean
    assert result.points == (-10, 12)
    assert Counter(meld_texts(deal)) == Counter([(0, "3♥ 4♥ 5♥ 6♥"), (0, "7♦ 7♠ 7♣"), (1, "J♠ Q♠ K♠")])
    assert match.scores == [14, 42]
    assert not match.over
    assert match.winner is None
    assert len(match.deals) == 2
    assert match.results == [result]
    assert match.deal.phase is Phase.DRAW


@pytest.mark.parametrize(("extra", "total", "out"), [("5♣", 100, False), ("6♣", 101, True)])
def test_e3_exactly_the_limit_survives(extra: str, total: int, out: bool) -> None:
    # Seat 1 keeps J♠ Q♠ K♠ and 2♣ 2♦ 2♠ and one loose card.
    match, _ = e1_match(FOURNIER, {1: "J♠ Q♠ K♠ 2♣ 2♦ 2♠ " + extra}, closer=0, scores=[0, 95])
    close_e1(match)
    match.resolve_showdown()
    assert match.scores == [-10, total]
    assert match.over is out
    assert match.active == ([0] if out else [0, 1])
    assert match.winner == (0 if out else None)


def test_eliminate_at_reaching() -> None:
    rules = Rules(eliminate_at="reaching")
    match, _ = e1_match(rules, {1: "J♠ Q♠ K♠ 2♣ 2♦ 2♠ 5♣"}, closer=0, scores=[0, 95])
    close_e1(match)
    match.resolve_showdown()
    assert match.scores == [-10, 100]
    assert match.over
    assert match.winner == 0


def test_match_over_refuses_actions() -> None:
    match, _ = e1_match(FOURNIER, {1: JUNK_B}, closer=0, scores=[0, 95])
    close_e1(match)
    assert match.over
    assert match.winner == 0
    assert match.to_move is None
    assert match.legal_actions() == []
    with pytest.raises(IllegalAction, match="the match is over"):
        match.apply(Draw("stock"))


# -- resolve_showdown ------------------------------------------------------------------------


def test_resolve_showdown_in_a_match() -> None:
    deck = seat_deck(FOURNIER, dict(enumerate(CHAIN.values())), 0, stock="K♣")
    match = Match(3, FOURNIER, seed=2, first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    match.resolve_showdown()
    assert match.results[0].points == (2, 22, 18)
    assert match.scores == [2, 22, 18]
    assert len(match.deals) == 2
    assert match.deal.phase is Phase.DRAW


# -- S4: re-entry ------------------------------------------------------------------------------


def test_reentry_once_clasico() -> None:
    # Deal 1: seat 1 closes clean, seat 0 goes over (95 + 51), seat 2 stays (60 + 33).
    deck1 = seat_deck(CLASICO, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥")
    # Deal 2 (seat 2 first): seat 2 closes clean, seat 0 goes over again (93 + 51).
    deck2 = seat_deck(CLASICO, {2: E1, 0: JUNK_B, 1: JUNK_A}, 2, stock="6♥")
    match = Match(3, CLASICO, seed=4, scores=[95, 0, 60], first=1, decks=[deck1, deck2])
    assert match.dealer == 0
    close_e1(match)
    assert match.scores == [146, -10, 93]
    assert match.reentry_pending == (0,)
    assert match.to_move == 0
    assert match.legal_actions() == [ReEnter(True), ReEnter(False)]
    assert 0 not in match.active
    with pytest.raises(IllegalAction, match="seat 0 must first decide whether to re-enter"):
        match.apply(Draw("stock"))
    with pytest.raises(IllegalAction, match="it is seat 0's turn"):
        match.apply(ReEnter(True), seat=2)
    assert len(match.deals) == 1  # the next deal waits for the decision
    match.apply(ReEnter(True), seat=0)
    assert match.scores == [93, -10, 93]
    assert match.active == [0, 1, 2]
    assert cast(tuple[int, ...], match.reentry_pending) == ()
    assert len(match.deals) == 2
    assert match.dealer == 1
    assert match.to_move == 2
    with pytest.raises(IllegalAction, match="nobody is deciding on re-entry now"):
        match.apply(ReEnter(True))
    close_e1(match)
    # The second elimination is final: nobody is asked.
    assert match.scores == [144, 23, 83]
    assert cast(tuple[int, ...], match.reentry_pending) == ()
    assert match.active == [1, 2]
    assert not match.over
    assert len(match.deals) == 3
    assert match.dealer == 2
    assert match.deal.seats == (1, 2)
    assert match.deal.hand(0) == []
    assert match.to_move == 1


def test_reentry_declined() -> None:
    deck1 = seat_deck(CLASICO, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥")
    match = Match(3, CLASICO, seed=4, scores=[95, 0, 60], first=1, decks=[deck1])
    close_e1(match)
    match.apply(ReEnter(False))
    assert match.scores == [146, -10, 93]
    assert match.active == [1, 2]
    assert not match.over
    assert match.deal.seats == (2, 1)


def test_no_reentry_in_fournier() -> None:
    deck1 = seat_deck(FOURNIER, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥")
    match = Match(3, FOURNIER, seed=4, scores=[95, 0, 60], first=1, decks=[deck1])
    close_e1(match)
    assert match.scores == [143, -10, 92]
    assert match.reentry_pending == ()
    assert match.active == [1, 2]
    assert len(match.deals) == 2


def test_reentry_unlimited_polaco_pays_the_stake_each_time() -> None:
    deck1 = seat_deck(POLACO, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥")
    deck2 = seat_deck(POLACO, {2: E1, 0: JUNK_B, 1: JUNK_A}, 2, stock="6♥")
    match = Match(3, POLACO, seed=4, scores=[95, 0, 60], first=1, decks=[deck1, deck2])
    assert match.pot == 3
    close_e1(match)
    assert match.scores == [143, -10, 92]
    assert match.reentry_pending == (0,)
    match.apply(ReEnter(True))
    assert match.scores == [92, -10, 92]
    assert match.pot == 4
    close_e1(match)
    assert match.scores == [140, 22, 82]
    assert match.reentry_pending == (0,)
    match.apply(ReEnter(True))
    assert match.scores == [82, 22, 82]
    assert match.pot == 5
    assert match.active == [0, 1, 2]
    assert not match.over


def test_reentry_decisions_in_order_from_the_seat_after_the_closer() -> None:
    # Seat 1 closes; seats 2 and 0 both go over and decide in that order.
    deck1 = seat_deck(POLACO, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥")
    match = Match(3, POLACO, seed=4, scores=[95, 0, 95], first=1, decks=[deck1])
    close_e1(match)
    assert match.scores == [143, -10, 127]
    assert match.reentry_pending == (2, 0)
    assert match.to_move == 2
    with pytest.raises(IllegalAction, match="it is seat 2's turn"):
        match.apply(ReEnter(True), seat=0)
    match.apply(ReEnter(True), seat=2)
    assert match.scores == [143, -10, -10]
    assert cast(tuple[int, ...], match.reentry_pending) == (0,)
    match.apply(ReEnter(False), seat=0)
    assert match.active == [1, 2]
    assert match.pot == 4
    assert not match.over


@pytest.mark.parametrize("rules", [CLASICO, POLACO], ids=["clasico", "polaco"])
def test_nobody_under_the_limit_nobody_is_asked(rules: Rules) -> None:
    # Seat 0 closes with 5♣ loose (96 + 5); seat 1 is left with J♠ Q♠ K♠ 2♣ 2♦ 2♠ and K♦ (96 + 10).
    deck = seat_deck(rules, {0: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣", 1: "J♠ Q♠ K♠ 2♣ 2♦ 2♠ K♦"}, 0, stock="K♥")
    match = Match(2, rules, seed=4, scores=[96, 96], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♥")))
    match.resolve_showdown()
    assert match.results[0].points[0] == 5
    assert match.scores[0] == 101
    assert match.scores[1] > 101
    assert match.reentry_pending == ()
    assert match.over
    assert match.winner == 0  # S6: the lowest total


@pytest.mark.parametrize("accept", [True, False])
def test_reentry_with_two_players(accept: bool) -> None:
    # Seat 1 goes over; it decides before the match can end (S4 before S5).
    match, _ = e1_match(CLASICO, {1: JUNK_B}, closer=0, scores=[50, 60])
    close_e1(match)
    assert match.scores == [40, 111]
    assert match.reentry_pending == (1,)
    assert not match.over
    match.apply(ReEnter(accept))
    if accept:
        assert match.scores == [40, 40]
        assert not match.over
        assert match.active == [0, 1]
        assert len(match.deals) == 2
    else:
        assert match.over
        assert match.winner == 0


# -- S5, S6: the end of a match ----------------------------------------------------------------


def test_last_seat_standing_wins() -> None:
    deck1 = seat_deck(FOURNIER, {0: E1, 1: JUNK_A, 2: JUNK_B}, 0, stock="6♥")
    match = Match(3, FOURNIER, seed=4, scores=[0, 80, 60], first=0, decks=[deck1])
    close_e1(match)
    assert match.scores == [-10, 112, 108]
    assert match.active == [0]
    assert match.over
    assert match.winner == 0


def test_all_out_in_the_same_hand_lowest_wins() -> None:
    deck = seat_deck(FOURNIER, {0: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣", 1: "J♠ Q♠ K♠ 2♣ 2♦ 2♠ K♦"}, 0, stock="K♥")
    match = Match(2, FOURNIER, seed=4, scores=[96, 96], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♥")))
    match.resolve_showdown()
    assert match.scores == [101, 106]
    assert match.over
    assert match.winner == 0


def test_all_out_tie_plays_on_among_the_tied_seats_only() -> None:
    # Deal 1 (seat 0 first): seat 0 closes with 5♣ loose: 96 + 5; seat 1: 91 + 10 (K♦); seat 2: 80 + 32.
    deck1 = seat_deck(
        FOURNIER,
        {0: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♣", 1: "J♠ Q♠ K♠ 2♦ 2♠ 2♣ K♦", 2: "A♣ 3♠ 3♦ 4♣ 6♦ 6♣ Q♦"},
        0,
        stock="K♣",
    )
    # Deal 2 (seats 0 and 1 only; seat 1 first): seat 1 closes with 3♣ loose, seat 0 keeps 3♦: a tie again.
    deck2 = seat_deck(FOURNIER, {1: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 3♣", 0: "J♠ Q♠ K♠ 2♦ 2♠ 2♣ 3♦"}, 1, stock="K♣")
    # Deal 3 (seat 0 first): seat 0 closes clean.
    deck3 = seat_deck(FOURNIER, {0: E1, 1: JUNK_A}, 0, stock="6♥")
    match = Match(3, FOURNIER, seed=4, scores=[96, 91, 80], first=0, decks=[deck1, deck2, deck3])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    match.resolve_showdown()
    assert match.scores == [101, 101, 112]
    assert not match.over
    assert match.winner is None
    assert len(match.deals) == 2
    deal = match.deal
    assert set(deal.seats) == {0, 1}
    assert deal.hand(2) == []
    assert deal.to_move == 1
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    match.resolve_showdown()
    assert match.results[1].points == (3, 3, 0)
    assert match.scores == [104, 104, 112]
    assert not match.over
    assert len(match.deals) == 3
    assert set(match.deal.seats) == {0, 1}
    assert match.to_move == 0
    close_e1(match)
    assert match.scores == [94, 136, 112]
    assert match.over
    assert match.winner == 0


# -- S7: chinchón -------------------------------------------------------------------------------


def test_chinchon_wins_the_match_in_clasico() -> None:
    deck = seat_deck(CLASICO, {0: "3♥ 4♥ 5♥ 6♥ 7♥ 8♥ K♣", 1: JUNK_A}, 0, stock="9♥")
    match = Match(2, CLASICO, seed=4, scores=[90, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    result = match.results[0]
    assert result.chinchon
    assert result.clean
    assert match.over
    assert match.winner == 0
    assert len(match.deals) == 1


def test_chinchon_wins_the_match_online() -> None:
    rules = Rules.preset("online")
    deck = seat_deck(rules, {0: "3♥ 4♥ 5♥ 6♥ 7♥ J♥ K♣", 1: JUNK_A}, 0, stock="Q♥")
    match = Match(2, rules, seed=4, scores=[90, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    assert match.results[0].chinchon
    assert match.over
    assert match.winner == 0


def test_chinchon_is_only_a_clean_close_in_fournier() -> None:
    deck = seat_deck(FOURNIER, {0: "3♥ 4♥ 5♥ 6♥ 7♥ J♥ K♣", 1: JUNK_A}, 0, stock="Q♥")
    match = Match(2, FOURNIER, seed=4, scores=[50, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    result = match.results[0]
    assert result.chinchon
    assert result.points == (-10, 32)
    assert match.scores == [40, 32]
    assert not match.over
    assert len(match.deals) == 2


def test_chinchon_is_only_a_clean_close_in_polaco() -> None:
    deck = seat_deck(POLACO, {0: "3♥ 4♥ 5♥ 6♥ 7♥ J♥ K♣", 1: JUNK_A}, 0, stock="Q♥")
    match = Match(2, POLACO, seed=4, scores=[50, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    assert match.results[0].chinchon
    assert match.results[0].points[0] == -10
    assert not match.over


@pytest.mark.parametrize("worth", [-25, "win"])
def test_a_chinchon_worth_points_scores_them_and_the_match_goes_on(worth: int | str) -> None:
    rules = Rules(chinchon=worth)
    deck = seat_deck(rules, {0: "3♥ 4♥ 5♥ 6♥ 7♥ J♥ K♣", 1: JUNK_A}, 0, stock="Q♥")
    match = Match(2, rules, seed=4, scores=[50, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣")))
    result = match.results[0]
    assert result.chinchon and result.closer == 0
    if worth == "win":
        assert (match.over, match.winner, len(match.deals)) == (True, 0, 1)
        return
    assert result.points == (-25, 32)
    assert match.scores == [50 - 25, 0 + 32]
    assert (match.over, match.winner) == (False, None)
    # The next deal is dealt: the deal passes to seat 0, so seat 1 plays first.
    assert len(match.deals) == 2 and match.deal.phase is Phase.DRAW
    assert (match.dealer, match.to_move) == (0, 1)
    match.apply(Draw("stock"))
    assert match.deal.hand_size(1) == 8 and match.to_move == 1


def test_chinchon_with_a_joker_does_not_win_in_clasico() -> None:
    rules = Rules.preset("clasico", jokers=2)
    deck = seat_deck(rules, {0: "3♥ 4♥ 5♥ 🃏 7♥ 8♥ K♣", 1: JUNK_A}, 0, stock="9♥")
    match = Match(2, rules, seed=4, scores=[50, 0], first=0, decks=[deck])
    match.apply(Draw("stock"))
    match.apply(Close(C("K♣"), ((*P("3♥ 4♥ 5♥"), JOKER, *P("7♥ 8♥ 9♥")),)))
    assert not match.results[0].chinchon
    assert match.results[0].points[0] == -10
    assert not match.over
    assert match.scores[0] == 40


# -- D2: dealer and first player ------------------------------------------------------------


@pytest.mark.parametrize(("players", "first", "dealer"), [(2, 0, 1), (2, 1, 0), (3, 0, 2), (4, 2, 1)])
def test_dealer_is_the_seat_before_the_first_player(players: int, first: int, dealer: int) -> None:
    match = Match(players, FOURNIER, seed=1, first=first)
    assert match.dealer == dealer
    assert match.deal.first == first
    assert match.to_move == first


def test_the_deal_passes_to_the_next_seat() -> None:
    decks = [
        seat_deck(FOURNIER, {1: E1, 2: JUNK_A, 0: JUNK_B}, 1, stock="6♥"),
        seat_deck(FOURNIER, {2: E1, 0: JUNK_A, 1: JUNK_B}, 2, stock="6♥"),
        seat_deck(FOURNIER, {0: E1, 1: JUNK_A, 2: JUNK_B}, 0, stock="6♥"),
    ]
    match = Match(3, FOURNIER, seed=1, first=1, decks=decks)
    assert (match.dealer, match.deal.first) == (0, 1)
    close_e1(match)
    assert (match.dealer, match.deal.first, match.to_move) == (1, 2, 2)
    close_e1(match)
    assert (match.dealer, match.deal.first, match.to_move) == (2, 0, 0)
    close_e1(match)
    assert (match.dealer, match.deal.first, match.to_move) == (0, 1, 1)
    assert [e["dealer"] for e in match.log if "deck" in e] == [0, 1, 2, 0]


def test_the_deal_skips_an_eliminated_seat() -> None:
    # Dealer 2, seat 0 first; seat 1 goes out: the deal passes to seat 0 and seat 2 plays first.
    deck = seat_deck(FOURNIER, {0: E1, 1: JUNK_B, 2: JUNK_A}, 0, stock="6♥")
    match = Match(3, FOURNIER, seed=1, scores=[0, 99, 0], first=0, decks=[deck])
    assert match.dealer == 2
    close_e1(match)
    assert match.active == [0, 2]
    assert match.dealer == 0
    assert match.deal.first == 2
    assert match.deal.seats == (2, 0)
    assert match.to_move == 2


def test_the_deal_passes_on_from_an_eliminated_dealer() -> None:
    # Dealer 2 goes out: the deal passes to seat 0 and seat 1 plays first.
    deck = seat_deck(FOURNIER, {0: E1, 1: JUNK_A, 2: JUNK_B}, 0, stock="6♥")
    match = Match(3, FOURNIER, seed=1, scores=[0, 0, 99], first=0, decks=[deck])
    close_e1(match)
    assert match.active == [0, 1]
    assert match.dealer == 0
    assert match.deal.first == 1


def test_first_player_by_lot_is_recorded() -> None:
    firsts = set()
    for seed in range(20):
        match = Match(3, FOURNIER, seed=seed)
        events = match.record()["log"]
        assert events[0] == {"chance": "lot", "seat": match.deal.first}
        assert match.dealer == (match.deal.first - 1) % 3
        firsts.add(match.deal.first)
    assert firsts == {0, 1, 2}


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_first_player_by_high_card(players: int) -> None:
    ranks = list(POLACO.ranks)
    ties = 0
    for seed in range(25):
        match = Match(players, POLACO, seed=seed)
        event = match.record()["log"][0]
        assert event["chance"] == "high_card"
        contenders = list(range(players))
        for draw in event["draws"]:
            cards = P(" ".join(draw))
            assert len(cards) == len(contenders)
            top = max(ranks.index(card.rank) for card in cards)  # type: ignore[arg-type]
            contenders = [s for s, card in zip(contenders, cards, strict=True) if ranks.index(card.rank) == top]  # type: ignore[arg-type]
        assert len(contenders) == 1
        ties += len(event["draws"]) > 1
        assert match.deal.first == contenders[0]
        assert match.dealer == (contenders[0] - 1) % players
    assert ties > 0


# -- properties over seeded random matches --------------------------------------------------


STEP_CAP = 4000  # a harness limit on one match, not a rule


def check_deal(deal: Deal, rules: Rules, deck: Counter[Card]) -> None:
    assert cards_in_play(deal) == deck
    if deal.phase not in (Phase.DRAW, Phase.DISCARD):
        return
    for seat in range(deal.players):
        size = deal.hand_size(seat)
        assert size == len(deal.hand(seat))
        if seat not in deal.seats:
            assert size == 0
        elif deal.phase is Phase.DISCARD and seat == deal.to_move:
            assert size == rules.hand_size + 1
        else:
            assert size == rules.hand_size


def check_closes(deal: Deal, closes: list[Close]) -> None:
    """Every discard that may close may close without naming melds (D5), within the limits."""
    rules = deal.rules
    for discard in {a.discard for a in closes}:
        action = Close(discard)
        assert deal.is_legal(action), f"{action} refused although {[str(a) for a in closes]} are legal"
    for action in closes:
        child = deal.copy()
        child.apply(action)
        seat = child.closer
        assert seat is not None
        loose = child.hand(seat)
        assert sum(rules.value(card) for card in loose) <= rules.close_limit
        if rules.close_max_loose_cards is not None:
            assert len(loose) <= rules.close_max_loose_cards


def play_random(rules: Rules, players: int, seed: int, check: bool = True) -> Match:
    """Close whenever a Close is legal, otherwise a random legal action; check the invariants on the way."""
    match = Match(players, rules, seed=seed)
    rng = random.Random(seed * 7919 + players)
    expected = list(match.scores)
    deck = full_deck(rules, match.decks)
    seen_results = 0
    for _ in range(STEP_CAP):
        if match.over:
            break
        actions = match.legal_actions()
        assert actions
        closes = [a for a in actions if isinstance(a, Close)]
        if check and closes:
            check_closes(match.deal, closes)
        action = rng.choice(closes) if closes else rng.choice(actions)
        mover = match.to_move
        assert mover is not None
        before_active = list(match.active)
        before = list(match.scores)
        match.apply(action, seat=mover)
        if isinstance(action, ReEnter):
            if action.accept:
                assert match.scores[mover] == max(before[s] for s in before_active)
                expected[mover] = match.scores[mover]
            else:
                assert match.scores == before
        while seen_results < len(match.results):
            result = match.results[seen_results]
            playing = match.deals[seen_results].seats
            for seat in range(players):
                if seat in playing:
                    expected[seat] += result.points[seat]
                else:
                    assert result.points[seat] == 0
            seen_results += 1
        if check:
            for deal in match.deals[-2:]:
                check_deal(deal, rules, deck)
            assert match.scores == expected
    assert match.scores == expected
    return match


PRESET_CONFIGS = [
    (preset, players)
    for preset, most in [("fournier", 4), ("clasico", 6), ("online", 4), ("polaco", 8)]
    for players in range(2, most + 1)
]


@pytest.mark.parametrize(("preset", "players"), PRESET_CONFIGS)
def test_random_matches_keep_the_invariants(preset: str, players: int) -> None:
    rules = Rules.preset(preset)
    assert rules.max_players >= players
    for seed in (1, 2):
        match = play_random(rules, players, seed)
        record = match.record()
        assert Match.replay(record).record() == record
        again = play_random(rules, players, seed, check=False)
        assert again.record() == record
        if match.over:
            assert match.winner in range(players)
            assert match.to_move is None


VARIANTS = {
    "clasico-french52-jokers": Rules.preset("clasico", deck="french52", jokers=2),
    "online-10-cards": Rules.preset("online", hand_size=10),
    "polaco-spanish48": Rules.preset("polaco", deck="spanish48"),
    "fournier-wild-ace": Rules(wild_ace_of_oros=True),
    "fournier-closer-lays-off": Rules(closer_lays_off=True, layoffs_on_clean_close=True),
    "fournier-house": Rules(forbid_rediscard=True, close_on_first_turn=False, close_max_loose_cards=1),
}


@pytest.mark.parametrize("name", sorted(VARIANTS))
@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_matches_with_other_options(name: str, players: int) -> None:
    rules = VARIANTS[name]
    match = play_random(rules, players, 11)
    record = match.record()
    assert Match.replay(record).record() == record


def test_random_matches_end() -> None:
    over = 0
    for seed in range(6):
        match = play_random(FOURNIER, 2, 100 + seed, check=False)
        over += match.over
        if match.over:
            assert match.to_move is None
            assert match.winner is not None
            assert match.legal_actions() == []
    assert over >= 4


def test_a_finished_match_is_freed_without_the_garbage_collector() -> None:
    # Nothing a match holds refers back to it: a vector environment drops thousands of matches.
    rng = random.Random(4)
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        for seed in range(5):
            match = Match(2, Rules(), seed=seed)
            for _ in range(300):
                if match.over:
                    break
                match.apply(rng.choice(match.legal_actions()))
            del match
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()


@pytest.mark.parametrize("way", ["play", "apply"])
def test_draws_and_discards_leave_nothing_for_the_garbage_collector(way: str) -> None:
    # A draw's or a discard's history entry, log line and events are shared or untracked values: a vector
    # environment plays millions, and every object it leaves tracked makes the collector's full passes longer.
    match = Match(2, Rules(), seed=5)
    for _ in range(4):  # each seat has drawn and discarded once: the tables' entries are made
        match.play(match.moves()[0])
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        before = {id(thing) for thing in gc.get_objects()}
        for turn in range(30):
            if way == "play":
                match.play(match.moves()[turn % 2])
            else:
                match.apply(match.legal_actions()[turn % 2])
        assert len(match.deal.history) == 34 and match.deal.phase is Phase.DRAW
        gc.collect(0)  # tuples of numbers alone are no longer tracked after a first pass
        left: list[object] = []
        for thing in gc.get_objects():
            if id(thing) not in before and thing is not before and thing is not left:
                left.append(thing)
    finally:
        if enabled:
            gc.enable()
    assert left == []


def test_the_log_lines_of_draws_and_discards_are_each_matchs_own() -> None:
    # Made by copying a line of the rules' tables: changing one match's log changes no other's, nor the tables.
    first, second = Match(2, Rules(), seed=5), Match(2, Rules(), seed=5)
    for match in (first, second):
        for _ in range(6):
            match.play(match.moves()[0])
    assert first.log == second.log
    line = dict(second.log[-1])
    first.log[-1]["seen"] = True
    assert second.log[-1] == line and "seen" not in Match(2, Rules(), seed=5).log[-1]
    third = Match(2, Rules(), seed=5)
    for _ in range(6):
        third.play(third.moves()[0])
    assert third.log[-1] == line
