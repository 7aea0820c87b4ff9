"""Melds and the solver: known answers from RULES.md (M1-M4, D5, D7, the worked examples E1-E5)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chinchon import JOKER, Card, Rules, parse_cards
from chinchon.errors import HandError
from chinchon.melds import (
    Arrangement,
    ClosingOption,
    best_arrangement,
    best_discard,
    check_hand,
    closing_options,
    extend_meld,
    is_chinchon,
    is_meld,
    is_run,
    layoff_options,
    loose_points,
    meld_extensions,
    normalize_meld,
    solver_for,
)

FOURNIER = Rules()
CLASICO = Rules.preset("clasico")  # spanish48, figures10, at most 1 loose card at a close
SPANISH48 = Rules(deck="spanish48")
JOKERS = Rules(jokers=2)
TWO_WILDS = Rules(jokers=2, max_wilds_per_meld=2)
WILD_ACE = Rules(wild_ace_of_oros=True)
TWO_DECKS = Rules(decks=2)
TWO_DECKS_ANY_SUITS = Rules(decks=2, set_distinct_suits=False)
FRENCH = Rules.preset("clasico", deck="french52", jokers=2)


def P(text: str) -> list[Card]:
    return parse_cards(text)


def C(text: str) -> Card:
    return Card.parse(text)


def texts(cards: tuple[Card, ...] | list[Card] | None) -> str | None:
    return None if cards is None else " ".join(map(str, cards))


def summary(option: ClosingOption) -> tuple[str, int, tuple[str, ...]]:
    return str(option.discard), option.points, tuple(sorted(map(str, option.arrangement.loose)))


def check_arrangement(hand: list[Card], arrangement: Arrangement, rules: Rules) -> None:
    """M3: every card in one place; each meld a meld; the points are the loose cards' values."""
    assert Counter(arrangement.cards) == Counter(hand)
    for meld in arrangement.melds:
        assert is_meld(meld, rules), texts(meld)
    assert arrangement.points == sum(rules.value(card) for card in arrangement.loose)


def check_options(hand: list[Card], options: list[ClosingOption], rules: Rules) -> None:
    for option in options:
        rest = list(hand)
        rest.remove(option.discard)
        check_arrangement(rest, option.arrangement, rules)
        assert option.points <= rules.close_limit
        if rules.close_max_loose_cards is not None:
            assert len(option.arrangement.loose) <= rules.close_max_loose_cards
    keys = [(o.points, len(o.arrangement.loose)) for o in options]
    assert keys == sorted(keys)
    assert len(set(options)) == len(options)


# -- the worked examples (RULES.md §VI) -------------------------------------------------


def test_e1_close_discarding_the_ace() -> None:
    hand = P("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦")
    before = best_arrangement(hand)
    assert before.points == 1
    assert before.loose == (C("A♦"),)

    eight = [*hand, C("6♥")]
    options = closing_options(eight)
    check_options(eight, options, FOURNIER)
    best = options[0]
    assert best.discard == C("A♦")
    assert best.points == 0
    assert best.arrangement.loose == ()
    assert sorted(map(sorted, best.arrangement.melds)) == sorted([sorted(P("3♥ 4♥ 5♥ 6♥")), sorted(P("7♦ 7♠ 7♣"))])
    # Every legal close of the hand (D5: loose points at most 5).
    assert {summary(option) for option in options} == {
        ("A♦", 0, ()),
        ("3♥", 1, ("A♦",)),
        ("6♥", 1, ("A♦",)),
        ("A♦", 3, ("3♥",)),
    }
    assert len(options) == 4
    discard = best_discard(eight)
    assert discard.discard == C("A♦")
    assert discard.points == 0


@pytest.mark.parametrize(
    ("cards", "rules", "expected"),
    [
        ("6♥ 7♥ J♥", FOURNIER, True),  # spanish40: J follows 7
        ("J♥ 7♥ 6♥", FOURNIER, True),
        ("6♠ 7♠ J♠ Q♠ K♠", FOURNIER, True),
        ("6♥ 7♥ J♥", SPANISH48, False),  # 8 and 9 are missing
        ("6♥ 7♥ J♥", CLASICO, False),
        ("7♥ Q♥ K♥", FOURNIER, False),  # J is missing
        ("7♥ Q♥ K♥", SPANISH48, False),
        ("7♥ Q♥ K♥", CLASICO, False),
        ("7♥ 8♥ 9♥", SPANISH48, True),
        ("8♥ 9♥ J♥", SPANISH48, True),
        ("7♥ J♥ Q♥", FOURNIER, True),
    ],
)
def test_e2_runs_follow_the_deck(cards: str, rules: Rules, expected: bool) -> None:
    assert is_meld(P(cards), rules) is expected


def test_e2_in_a_hand() -> None:
    arrangement = best_arrangement(P("6♥ 7♥ J♥ 2♣ 2♦ 2♠ A♠"))
    assert arrangement.points == 1
    assert arrangement.loose == (C("A♠"),)


def test_e4_clasico() -> None:
    hand = P("5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣")
    arrangement = best_arrangement(hand, CLASICO)
    check_arrangement(hand, arrangement, CLASICO)
    assert arrangement.points == 8
    assert arrangement.loose == (C("8♣"),)

    eight = [*hand, C("2♠")]
    options = closing_options(eight, CLASICO)
    check_options(eight, options, CLASICO)
    assert options
    assert options[0].discard == C("8♣")
    assert options[0].points == 2
    assert options[0].arrangement.loose == (C("2♠"),)
    assert ("8♣", 2, ("2♠",)) in {summary(option) for option in options}
    for option in options:
        assert len(option.arrangement.loose) <= 1


def test_e4_one_loose_card_at_most() -> None:
    # clasico closes with "two melds of three and one card": two loose cards worth 3 do not close.
    eight = P("3♥ 4♥ 5♥ 6♥ 7♥ A♠ 2♣ K♣")
    assert closing_options(eight, CLASICO) == []
    fournier = closing_options(eight, FOURNIER)
    assert [summary(option) for option in fournier] == [("K♣", 3, ("2♣", "A♠"))]


def test_e5_joker() -> None:
    rules = Rules.preset("clasico", jokers=2)
    hand = P("3♣ 4♣ 5♣ 6♣ 9♦ 9♠ 🃏")
    arrangement = best_arrangement(hand, rules)
    check_arrangement(hand, arrangement, rules)
    assert arrangement.points == 0
    assert arrangement.loose == ()
    assert len(arrangement.melds) == 2

    eight = [*hand, C("K♦")]
    options = closing_options(eight, rules)
    check_options(eight, options, rules)
    assert summary(options[0]) == ("K♦", 0, ())


# -- M1: sets ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "rules", "expected"),
    [
        ("7♥ 7♠ 7♣", FOURNIER, True),
        ("7♥ 7♠ 7♣ 7♦", FOURNIER, True),
        ("K♦ K♥ K♠", FOURNIER, True),
        ("7♥ 7♠", FOURNIER, False),
        ("7♥", FOURNIER, False),
        ("7♥ 7♠ 6♣", FOURNIER, False),
        ("7♥ 7♥ 7♠", TWO_DECKS, False),  # two of one suit
        ("7♥ 7♠ 7♣ 7♦ 7♥", TWO_DECKS, False),  # five cards cannot have distinct suits
        ("7♥ 7♥ 7♠", TWO_DECKS_ANY_SUITS, True),
        ("7♥ 7♥ 7♠ 7♠ 7♣", TWO_DECKS_ANY_SUITS, True),
        ("8♥ 8♠ 8♣", FOURNIER, False),  # no 8 in spanish40
        ("8♥ 8♠ 8♣", SPANISH48, True),
    ],
)
def test_sets(cards: str, rules: Rules, expected: bool) -> None:
    assert is_meld(P(cards), rules) is expected


def test_set_of_two_decks_in_a_hand() -> None:
    hand = P("7♥ 7♥ 7♠ 7♣ K♦ K♥ K♠")
    arrangement = best_arrangement(hand, TWO_DECKS)
    check_arrangement(hand, arrangement, TWO_DECKS)
    assert arrangement.loose == (C("7♥"),)
    assert arrangement.points == 7
    free = best_arrangement(hand, TWO_DECKS_ANY_SUITS)
    check_arrangement(hand, free, TWO_DECKS_ANY_SUITS)
    assert free.points == 0


# -- M2: runs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "rules", "expected"),
    [
        ("A♥ 2♥ 3♥", FOURNIER, True),  # A is low
        ("3♥ A♥ 2♥", FOURNIER, True),  # any order
        ("Q♥ K♥ A♥", FOURNIER, False),  # A is never high
        ("K♥ A♥ 2♥", FOURNIER, False),  # no wrapping
        ("J♥ Q♥ K♥ A♥", FOURNIER, False),
        ("Q♥ K♥ A♥", SPANISH48, False),
        ("Q♥ K♥ A♥", FRENCH, False),
        ("K♥ A♥", FOURNIER, False),
        ("3♥ 4♥ 5♠", FOURNIER, False),  # one suit
        ("3♥ 4♥", FOURNIER, False),
        ("3♥ 4♥ 6♥", FOURNIER, False),  # a gap
        ("A♣ 2♣ 3♣ 4♣ 5♣ 6♣ 7♣ J♣ Q♣ K♣", FOURNIER, True),
        ("9♥ 10♥ J♥", FRENCH, True),
        ("9♥ J♥ Q♥", FRENCH, False),  # 10 is in french52
        ("3♥ 3♥ 4♥ 5♥", TWO_DECKS, False),  # a repeated card is not a run
    ],
)
def test_runs(cards: str, rules: Rules, expected: bool) -> None:
    assert is_meld(P(cards), rules) is expected


# A run is of one suit: three cards in rank order are no run when a suit differs, with or without wild cards.
MIXED_SUITS = [
    ("3♥ 4♠ 5♥", FOURNIER),
    ("3♥ 4♥ 5♠", FOURNIER),
    ("6♣ 7♣ J♦ Q♣", FOURNIER),
    ("3♥ 🃏 5♠", JOKERS),
    ("3♥ 4♠ 🃏", JOKERS),
    ("🃏 4♠ 5♥", JOKERS),
    ("3♥ 🃏 5♠ 🃏", TWO_WILDS),
    ("3♥ A♦ 5♠", WILD_ACE),
    ("3♥ 4♠ A♦", WILD_ACE),
    ("9♥ 10♠ J♥", FRENCH),
]


@pytest.mark.parametrize(("cards", "rules"), MIXED_SUITS)
def test_a_run_of_mixed_suits_is_no_meld(cards: str, rules: Rules) -> None:
    meld = P(cards)
    assert not is_meld(meld, rules)
    assert not is_run(meld, rules)
    assert normalize_meld(meld, rules) is None
    assert meld_extensions(meld, rules) == {}
    # The same cards in one suit are a run (the suit alone makes the difference).
    suit = next(card.suit for card in meld if not rules.is_wild(card))
    one_suit = [card if rules.is_wild(card) else Card(card.rank, suit) for card in meld]
    assert is_meld(one_suit, rules) and is_run(one_suit, rules)
    assert meld_extensions(one_suit, rules) != {}


@pytest.mark.parametrize(
    ("meld", "card", "rules"),
    [
        ("3♥ 4♠ 5♥", "6♥", FOURNIER),
        ("3♥ 4♠ 5♥", "2♥", FOURNIER),
        ("3♥ 4♠ 5♥", "6♠", FOURNIER),
        ("3♥ 4♥ 5♠", "6♠", FOURNIER),
        ("3♥ 🃏 5♠", "6♠", JOKERS),
        ("3♥ 🃏 5♠", "2♥", JOKERS),
        ("3♥ 4♠ 5♥", "🃏", JOKERS),
        ("3♥ 4♠ A♦", "5♠", WILD_ACE),
        ("3♥ 4♠ 5♥", "A♦", WILD_ACE),
    ],
)
def test_nothing_extends_a_run_of_mixed_suits(meld: str, card: str, rules: Rules) -> None:
    assert extend_meld(P(meld), C(card), rules) is None
    assert layoff_options([C(card)], [P(meld)], rules) == []


def test_a_hand_in_rank_order_of_mixed_suits_has_no_meld() -> None:
    hand = P("3♥ 4♠ 5♥ 6♠ 7♥ J♠ Q♥")
    arrangement = best_arrangement(hand)
    check_arrangement(hand, arrangement, FOURNIER)
    assert arrangement.melds == ()
    # With a joker the hand still makes no run across suits: only one of its own suit.
    wild = P("3♥ 4♠ 🃏 6♠ 7♥ J♣ Q♦")
    arrangement = best_arrangement(wild, JOKERS)
    check_arrangement(wild, arrangement, JOKERS)
    assert [texts(meld) for meld in arrangement.melds] == ["4♠ 🃏 6♠"]
    assert arrangement.points == 3 + 7 + 8 + 9


def test_ace_high_never_melds_in_a_hand() -> None:
    hand = P("Q♥ K♥ A♥ 2♠ 3♠ 2♣ 3♣")
    arrangement = best_arrangement(hand)
    check_arrangement(hand, arrangement, FOURNIER)
    assert arrangement.melds == ()
    assert arrangement.points == 9 + 10 + 1 + 2 + 3 + 2 + 3


# -- M4: wild cards ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "rules", "expected"),
    [
        ("5♥ 6♥ 🃏", JOKERS, True),
        ("5♥ 7♥ 🃏", JOKERS, True),  # fills the gap
        ("Q♥ K♥ 🃏", JOKERS, True),  # stands for the J below
        ("A♥ 2♥ 🃏", JOKERS, True),
        ("7♥ 7♠ 🃏", JOKERS, True),
        ("7♥ 7♠ 7♣ 🃏", JOKERS, True),
        ("7♥ 7♠ 7♣ 7♦ 🃏", JOKERS, False),  # a set has at most 4 cards
        ("5♥ J♥ 🃏", JOKERS, False),  # two cards missing (6, 7)
        ("5♥ 6♥ 🃏 🃏", JOKERS, False),  # at most one wild card per meld
        ("5♥ 6♥ 🃏 🃏", TWO_WILDS, True),
        ("5♥ 🃏 🃏", TWO_WILDS, False),  # a meld needs two natural cards
        ("7♥ 🃏 🃏", TWO_WILDS, False),
        ("5♥ 7♠ 🃏", JOKERS, False),  # neither a set nor a run
        ("5♥ 7♥ A♦", WILD_ACE, True),  # the ace of oros is wild
        ("7♥ 7♠ A♦", WILD_ACE, True),
        ("5♥ 7♥ A♦", FOURNIER, False),
        ("7♥ 7♠ A♦", FOURNIER, False),
        ("5♥ A♦ 🃏", Rules(jokers=1, wild_ace_of_oros=True, max_wilds_per_meld=2), False),
    ],
)
def test_wild_cards(cards: str, rules: Rules, expected: bool) -> None:
    assert is_meld(P(cards), rules) is expected


def test_wild_ace_in_a_hand() -> None:
    hand = P("5♥ 7♥ A♦ K♣ K♠ K♦ 2♣")
    arrangement = best_arrangement(hand, WILD_ACE)
    check_arrangement(hand, arrangement, WILD_ACE)
    assert arrangement.points == 2
    assert arrangement.loose == (C("2♣"),)
    plain = best_arrangement(hand, FOURNIER)
    assert plain.points == 5 + 7 + 1 + 2


def test_loose_wild_ace_costs_wild_value() -> None:
    hand = P("A♦ 2♠ 3♠ 4♠ K♣ K♠ K♥")
    arrangement = best_arrangement(hand, WILD_ACE)
    check_arrangement(hand, arrangement, WILD_ACE)
    # The wild ace joins a meld rather than costing 25.
    assert arrangement.points == 0
    alone = best_arrangement(P("A♦ 2♠ 4♣ 6♥ K♣ J♠ Q♥"), WILD_ACE)
    assert C("A♦") in alone.loose
    assert alone.points == 25 + 2 + 4 + 6 + 10 + 8 + 9


def test_at_most_one_wild_per_meld_in_a_hand() -> None:
    hand = P("5♥ 6♥ 🃏 🃏 K♣ 2♦ 3♠")
    arrangement = best_arrangement(hand, JOKERS)
    check_arrangement(hand, arrangement, JOKERS)
    for meld in arrangement.melds:
        assert sum(card is JOKER for card in meld) <= 1
    # [5♥ 6♥ 🃏] and a loose joker: 25 + 10 + 2 + 3.
    assert arrangement.points == 40
    # With two wild cards allowed per meld: [5♥ 6♥ 🃏 🃏].
    two = best_arrangement(hand, TWO_WILDS)
    check_arrangement(hand, two, TWO_WILDS)
    assert two.points == 15


def test_loose_joker_costs_wild_value() -> None:
    # No two natural cards here can share a meld, so the joker stays loose.
    hand = P("🃏 2♠ 4♣ 6♥ K♣ J♠ Q♥")
    assert best_arrangement(hand, JOKERS).points == 25 + 2 + 4 + 6 + 10 + 8 + 9
    assert best_arrangement(hand, Rules(jokers=2, wild_value=50)).points == 50 + 2 + 4 + 6 + 10 + 8 + 9


# -- the OpenSpiel trap -----------------------------------------------------------------


def test_openspiel_trap() -> None:
    eight = P("5♠ 6♠ 7♠ 5♣ 6♣ 7♣ 5♦ 7♦")
    best = best_discard(eight)
    assert best.discard == C("7♦")
    assert best.points == 5
    assert best.arrangement.loose == (C("5♦"),)
    options = closing_options(eight)
    check_options(eight, options, FOURNIER)
    assert any(option.points == 5 for option in options)
    assert min(option.points for option in options) == 5
    assert summary(options[0]) == ("7♦", 5, ("5♦",))


@pytest.mark.parametrize(
    ("text", "rules"),
    [
        ("A♦ 2♦ 3♦ 4♦ A♥ 2♥ 3♥ 4♥", FOURNIER),  # two runs of four
        ("A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ J♦", FOURNIER),  # one run of eight
        ("A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦ 8♦", CLASICO),
        ("7♦ 7♥ 7♠ 7♣ K♦ K♥ K♠ K♣", FOURNIER),  # two sets of four
    ],
)
def test_best_discard_of_a_fully_melded_eight(text: str, rules: Rules) -> None:
    # Every card of the 8 is in a meld: discarding an end card still leaves 0 points.
    eight = P(text)
    best = best_discard(eight, rules)
    rest = list(eight)
    rest.remove(best.discard)
    check_arrangement(rest, best.arrangement, rules)
    assert best.points == 0
    assert best.arrangement.loose == ()
    options = closing_options(eight, rules)
    check_options(eight, options, rules)
    assert options[0].points == 0


# -- D5: closing ------------------------------------------------------------------------


def test_close_limit_is_inclusive() -> None:
    five = P("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 5♠ K♣")
    options = closing_options(five)
    check_options(five, options, FOURNIER)
    assert [summary(option) for option in options] == [("K♣", 5, ("5♠",))]

    six = P("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 6♠ K♣")
    assert closing_options(six) == []
    assert best_discard(six).points == 6
    assert [summary(option) for option in closing_options(six, Rules(close_limit=6))] == [("K♣", 6, ("6♠",))]


def test_close_limit_zero_needs_a_full_match() -> None:
    eight = P("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ 6♥")
    options = closing_options(eight, Rules(close_limit=0))
    assert [summary(option) for option in options] == [("A♦", 0, ())]


def test_close_max_loose_cards() -> None:
    eight = P("3♥ 4♥ 5♥ 6♥ 7♥ A♠ 2♣ K♣")
    assert [summary(option) for option in closing_options(eight)] == [("K♣", 3, ("2♣", "A♠"))]
    assert closing_options(eight, Rules(close_max_loose_cards=1)) == []
    assert len(closing_options(eight, Rules(close_max_loose_cards=2))) == 1
    # A fully matched hand always closes.
    full = P("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ 6♥")
    assert summary(closing_options(full, Rules(close_max_loose_cards=0))[0]) == ("A♦", 0, ())


def test_closing_options_order_and_best_discard_agree() -> None:
    for text, rules in [
        ("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ 6♥", FOURNIER),
        ("A♦ 2♦ 3♦ 4♦ A♥ A♠ 2♠ 2♣", FOURNIER),
        ("5♥ 6♥ 7♥ K♣ K♦ K♠ 8♣ 2♠", CLASICO),
        ("3♣ 4♣ 5♣ 6♣ 9♦ 9♠ 🃏 K♦", Rules.preset("clasico", jokers=2)),
    ]:
        eight = P(text)
        options = closing_options(eight, rules)
        check_options(eight, options, rules)
        assert options[0].points == best_discard(eight, rules).points


@pytest.mark.parametrize("size", [0, 6, 7, 9])
def test_closing_options_wrong_size(size: int) -> None:
    hand = Rules().cards()[:size]
    with pytest.raises(ValueError):
        closing_options(hand)
    with pytest.raises(ValueError):
        best_discard(hand)


def test_closing_options_size_follows_hand_size() -> None:
    rules = Rules(hand_size=10, max_players=3)
    eleven = P("A♦ 2♦ 3♦ 4♦ 5♦ A♥ 2♥ 3♥ 4♥ 5♥ K♣")
    assert summary(closing_options(eleven, rules)[0]) == ("K♣", 0, ())
    with pytest.raises(ValueError):
        closing_options(eleven[:8], rules)


# -- tie-breaks -------------------------------------------------------------------------


def test_best_arrangement_fewest_points_first() -> None:
    # The set of 3s leaves A♠ 2♠ (3 points); the run A-3♠ leaves 3♥ 3♦ (6 points).
    hand = P("A♠ 2♠ 3♠ 3♥ 3♦ K♣ K♦")
    arrangement = best_arrangement(hand)
    assert arrangement.points == 1 + 2 + 10 + 10
    assert set(arrangement.loose) == set(P("A♠ 2♠ K♣ K♦"))


def test_best_arrangement_tie_fewest_loose_cards() -> None:
    # [2♦ 2♥ 2♣] [3♦ 3♥ 3♠ 3♣] leaves 4♦ (4 points, one card);
    # [2♦ 3♦ 4♦] [3♥ 3♠ 3♣] leaves 2♥ 2♣ (4 points, two cards).
    hand = P("2♦ 3♦ 4♦ 2♥ 3♥ 3♠ 2♣ 3♣")
    arrangement = best_arrangement(hand)
    check_arrangement(hand, arrangement, FOURNIER)
    assert arrangement.points == 4
    assert arrangement.loose == (C("4♦"),)


def test_best_arrangement_tie_fewest_loose_cards_with_joker() -> None:
    # [A♥ 🃏 3♥ 4♥] leaves 4♠ 2♣ 3♣ (9 points, three cards);
    # [4♥ 4♠ 🃏] leaves A♥ 3♥ 2♣ 3♣ (9 points, four cards).
    hand = P("A♥ 3♥ 4♥ 4♠ 2♣ 3♣ 🃏")
    arrangement = best_arrangement(hand, JOKERS)
    check_arrangement(hand, arrangement, JOKERS)
    assert arrangement.points == 9
    assert len(arrangement.loose) == 3
    assert set(arrangement.loose) == set(P("4♠ 2♣ 3♣"))


# -- cards the game cannot hold ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules", "bad"),
    [
        ("10♣ 2♥ 3♥ 4♠ 5♠ 6♠ 7♠", FOURNIER, "10♣"),
        ("8♥ 2♥ 3♥ 4♠ 5♠ 6♠ 7♠", FOURNIER, "8♥"),
        ("10♣ 2♥ 3♥ 4♠ 5♠ 6♠ 7♠", SPANISH48, "10♣"),
        ("7♥ 7♥ 3♥ 4♠ 5♠ 6♠ 7♠", FOURNIER, "7♥"),
        ("7♥ 7♥ 7♥ 4♠ 5♠ 6♠ 7♠", TWO_DECKS, "7♥"),
        ("🃏 2♥ 3♥ 4♠ 5♠ 6♠ 7♠", FOURNIER, "🃏"),
        ("🃏 🃏 🃏 4♠ 5♠ 6♠ 7♠", JOKERS, "🃏"),
    ],
)
def test_card_not_in_the_game(text: str, rules: Rules, bad: str) -> None:
    seven = P(text)
    call: Callable[[Sequence[Card], Rules], object]
    for call in (best_arrangement, check_hand, loose_points):
        with pytest.raises(ValueError, match=bad):
            call(seven, rules)
    eight = [*seven, C("K♦")]
    for call in (closing_options, best_discard):
        with pytest.raises(ValueError, match=bad):
            call(eight, rules)


def test_two_copies_are_fine_with_two_decks() -> None:
    hand = P("7♥ 7♥ 3♥ 4♠ 5♠ 6♠ 7♠")
    check_hand(hand, TWO_DECKS)
    arrangement = best_arrangement(hand, TWO_DECKS)
    check_arrangement(hand, arrangement, TWO_DECKS)
    assert arrangement.points == 7 + 7 + 3


# -- chinchón ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "rules", "expected"),
    [
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♥", FOURNIER, True),
        ("7♥ 6♥ 5♥ 4♥ 3♥ 2♥ A♥", FOURNIER, True),
        ("3♠ 4♠ 5♠ 6♠ 7♠ J♠ Q♠", FOURNIER, True),  # spanish40: J follows 7
        ("4♣ 5♣ 6♣ 7♣ J♣ Q♣ K♣", FOURNIER, True),
        ("3♠ 4♠ 5♠ 6♠ 7♠ J♠ Q♠", CLASICO, False),  # spanish48: 8 9 missing
        ("3♠ 4♠ 5♠ 6♠ 7♠ 8♠ 9♠", CLASICO, True),
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 7♠", FOURNIER, False),  # two suits
        ("A♥ 2♥ 3♥ 5♥ 6♥ 7♥ J♥", FOURNIER, False),  # a gap
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥", FOURNIER, False),  # six cards
        ("A♥ 2♥ 3♥ 7♣ 7♦ 7♠ 7♥", FOURNIER, False),  # fully matched, not one run
        ("A♥ 2♥ 3♥ 🃏 5♥ 6♥ 7♥", JOKERS, False),  # chinchon_needs_natural
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ 🃏", JOKERS, False),
        ("A♥ 2♥ 3♥ 🃏 5♥ 6♥ 7♥", Rules(jokers=2, chinchon_needs_natural=False), True),
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ A♦", Rules(wild_ace_of_oros=True), False),
        ("A♥ 2♥ 3♥ 4♥ 5♥ 6♥ A♦", Rules(wild_ace_of_oros=True, chinchon_needs_natural=False), True),
    ],
)
def test_is_chinchon(cards: str, rules: Rules, expected: bool) -> None:
    assert is_chinchon(P(cards), rules) is expected


# -- D7: lay-offs -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meld", "card", "rules", "expected"),
    [
        # a set grows up to 4 cards
        ("7♥ 7♠ 7♣", "7♦", FOURNIER, "7♥ 7♠ 7♣ 7♦"),
        ("7♥ 7♠ 7♣ 7♦", "7♦", TWO_DECKS, None),
        ("7♥ 7♠ 7♣", "7♥", TWO_DECKS, None),  # distinct suits
        ("7♥ 7♠ 7♣", "6♦", FOURNIER, None),
        ("7♥ 7♠ 7♣", "🃏", JOKERS, "7♥ 7♠ 7♣ 🃏"),
        ("7♥ 7♠ 7♣ 7♦", "🃏", JOKERS, None),
        ("7♥ 7♠ 🃏", "7♣", JOKERS, "7♥ 7♠ 🃏 7♣"),
        ("7♥ 7♠ 🃏", "7♥", Rules(decks=2, jokers=1), None),
        # a run grows at either end, in suit and order
        ("4♥ 5♥ 6♥", "3♥", FOURNIER, "3♥ 4♥ 5♥ 6♥"),
        ("4♥ 5♥ 6♥", "7♥", FOURNIER, "4♥ 5♥ 6♥ 7♥"),
        ("4♥ 5♥ 6♥", "7♠", FOURNIER, None),  # another suit
        ("4♥ 5♥ 6♥", "3♠", FOURNIER, None),
        ("4♥ 5♥ 6♥", "J♥", FOURNIER, None),  # not next
        ("3♥ 4♥ 5♥ 6♥", "4♥", TWO_DECKS, None),  # never in the middle
        ("6♥ 7♥ J♥", "Q♥", FOURNIER, "6♥ 7♥ J♥ Q♥"),
        ("6♥ 7♥ J♥", "5♥", FOURNIER, "5♥ 6♥ 7♥ J♥"),
        ("A♥ 2♥ 3♥", "K♥", FOURNIER, None),  # A is low only
        ("J♥ Q♥ K♥", "A♥", FOURNIER, None),
        # a run at the top of the deck only grows downward
        ("J♥ Q♥ K♥", "7♥", FOURNIER, "7♥ J♥ Q♥ K♥"),
        ("J♥ Q♥ K♥", "7♥", CLASICO, None),
        ("J♥ Q♥ K♥", "9♥", CLASICO, "9♥ J♥ Q♥ K♥"),
        ("J♥ Q♥ K♥", "🃏", JOKERS, "🃏 J♥ Q♥ K♥"),
        # a wild card extends a run at the top first
        ("4♥ 5♥ 6♥", "🃏", JOKERS, "4♥ 5♥ 6♥ 🃏"),
        ("4♥ 5♥ 6♥", "A♦", WILD_ACE, "4♥ 5♥ 6♥ A♦"),
        ("4♥ 5♥ 6♥", "A♦", FOURNIER, None),
        # a card never takes a wild card's place
        ("4♥ 🃏 6♥", "5♥", JOKERS, None),
        ("5♥ 7♥ A♦", "6♥", WILD_ACE, None),
        ("5♥ 6♥ 🃏", "7♥", JOKERS, None),
        ("🃏 6♥ 7♥", "5♥", JOKERS, None),
        ("4♥ 🃏 6♥", "7♥", JOKERS, "4♥ 🃏 6♥ 7♥"),
        ("4♥ 🃏 6♥", "3♥", JOKERS, "3♥ 4♥ 🃏 6♥"),
        ("5♥ 6♥ 🃏", "J♥", JOKERS, "5♥ 6♥ 🃏 J♥"),
        ("🃏 6♥ 7♥", "4♥", JOKERS, "4♥ 🃏 6♥ 7♥"),
        # at most max_wilds_per_meld wild cards
        ("4♥ 🃏 6♥", "🃏", JOKERS, None),
        ("4♥ 🃏 6♥", "🃏", TWO_WILDS, "4♥ 🃏 6♥ 🃏"),
    ],
)
def test_extend_meld(meld: str, card: str, rules: Rules, expected: str | None) -> None:
    assert texts(extend_meld(P(meld), C(card), rules)) == expected


def test_extend_meld_does_not_change_the_meld() -> None:
    meld = P("4♥ 5♥ 6♥")
    extend_meld(meld, C("7♥"))
    assert meld == P("4♥ 5♥ 6♥")


def test_layoff_options() -> None:
    table = [P("4♥ 5♥ 6♥"), P("7♠ 7♣ 7♦"), P("J♥ Q♥ K♥")]
    hand = P("3♥ 7♥ K♣ 2♠")
    assert set(layoff_options(hand, table)) == {(C("3♥"), 0), (C("7♥"), 0), (C("7♥"), 1), (C("7♥"), 2)}
    assert layoff_options(P("K♣ 2♠ A♥"), table) == []


def test_layoff_options_clasico_deck() -> None:
    table = [P("J♥ Q♥ K♥"), P("7♠ 8♠ 9♠")]
    assert set(layoff_options(P("7♥ 9♥ J♠ 6♠ A♥"), table, CLASICO)) == {(C("9♥"), 0), (C("J♠"), 1), (C("6♠"), 1)}


def test_layoff_options_with_jokers() -> None:
    table = [P("4♥ 🃏 6♥"), P("7♠ 7♣ 7♦ 7♥")]
    assert set(layoff_options(P("5♥ 🃏 3♥"), table, JOKERS)) == {(C("3♥"), 0)}


def test_layoff_options_each_card_once() -> None:
    table = [P("4♥ 5♥ 6♥")]
    assert layoff_options(P("7♥ 7♥"), table, TWO_DECKS) == [(C("7♥"), 0)]


# -- properties on random hands ---------------------------------------------------------

_DECK40 = FOURNIER.cards()
_DECK48 = CLASICO.cards()


@settings(max_examples=100, deadline=None, database=None)
@given(st.lists(st.sampled_from(_DECK40), min_size=8, max_size=8, unique=True))
def test_random_closing_hands_fournier(eight: list[Card]) -> None:
    arrangement = best_arrangement(eight[:7])
    check_arrangement(eight[:7], arrangement, FOURNIER)
    options = closing_options(eight)
    check_options(eight, options, FOURNIER)
    best = best_discard(eight)
    rest = list(eight)
    rest.remove(best.discard)
    check_arrangement(rest, best.arrangement, FOURNIER)
    assert best.points <= best_arrangement(rest).points
    assert (best.points <= FOURNIER.close_limit) == bool(options)
    if options:
        assert options[0].points == best.points


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.sampled_from(_DECK48), min_size=8, max_size=8, unique=True))
def test_random_closing_hands_clasico(eight: list[Card]) -> None:
    options = closing_options(eight, CLASICO)
    check_options(eight, options, CLASICO)
    best = best_discard(eight, CLASICO)
    if options:
        assert options[0].points == best.points


# -- loose points only ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rules", "points"),
    [
        ("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦", FOURNIER, 1),
        ("A♠ 2♠ 3♠ 3♥ 3♦ K♣ K♦", FOURNIER, 23),
        ("2♦ 3♦ 4♦ 2♥ 3♥ 3♠ 2♣ 3♣", FOURNIER, 4),
        ("A♥ 3♥ 4♥ 4♠ 2♣ 3♣ 🃏", JOKERS, 9),
        ("7♥ 7♥ 3♥ 4♠ 5♠ 6♠ 7♠", TWO_DECKS, 17),
        ("A♦ 2♦ 3♦ 4♦ 5♦ 6♦ 7♦", FOURNIER, 0),
        ("A♦ 4♥ 6♠ J♣ 2♥ 5♠ K♦", FOURNIER, 36),
        ("", FOURNIER, 0),
    ],
)
def test_loose_points_known(text: str, rules: Rules, points: int) -> None:
    hand = P(text) if text else []
    assert loose_points(hand, rules) == points == best_arrangement(hand, rules).points


def test_loose_points_errors_name_the_card() -> None:
    with pytest.raises(HandError, match="not a card"):
        loose_points(["7♥", *P("2♥ 3♥")])  # type: ignore[list-item]
    with pytest.raises(HandError, match="8♥"):
        loose_points(P("8♥ 2♥ 3♥"))
    with pytest.raises(HandError, match="7♥"):
        loose_points(P("7♥ 7♥ 3♥"))


_RULES_FOR_POINTS = [FOURNIER, CLASICO, JOKERS, TWO_WILDS, WILD_ACE, TWO_DECKS, TWO_DECKS_ANY_SUITS, FRENCH]


@settings(max_examples=300, deadline=None, database=None)
@given(st.sampled_from(_RULES_FOR_POINTS), st.data())
def test_loose_points_agrees_with_best_arrangement(rules: Rules, data: st.DataObject) -> None:
    deck = rules.cards()
    size = data.draw(st.integers(0, rules.hand_size + 1))
    indices = data.draw(st.lists(st.integers(0, len(deck) - 1), min_size=size, max_size=size, unique=True))
    hand = [deck[i] for i in indices]
    assert loose_points(hand, rules) == best_arrangement(hand, rules).points


def test_solver_points_agree_on_seeded_random_hands() -> None:
    # Seeded and many: the points-only search, the memoised one and the arrangement.
    rng = random.Random("loose points")
    for rules in _RULES_FOR_POINTS:
        solver = solver_for(rules)
        deck = rules.cards()
        for _ in range(1500):
            hand = rng.sample(deck, rng.choice((rules.hand_size, rules.hand_size + 1)))
            points = best_arrangement(hand, rules).points
            assert loose_points(hand, rules) == points, hand
            m1, m2, w, _ = solver.encode(hand)
            assert solver.best_points(m1, m2, w) == points, hand


def test_mask_level_closes_agree_with_closing_options() -> None:
    # The move generator asks the solver on kind masks; closing_options is the public answer.
    rng = random.Random("mask closes")
    for rules in (FOURNIER, CLASICO, SPANISH48, Rules(close_limit=10, close_max_loose_cards=2), Rules(close_limit=0)):
        solver = solver_for(rules)
        deck = rules.cards()
        for _ in range(2500):
            hand = rng.sample(deck, rules.hand_size + 1)
            mask = solver.single_mask(hand)
            options = closing_options(hand, rules)
            assert solver.can_close_single(mask) == bool(options), hand
            kinds: list[int] = []
            for option in options:
                kind = solver.kind_of[option.discard]
                if kind not in kinds:
                    kinds.append(kind)
            assert solver.closing_discards_single(mask) == kinds, hand
