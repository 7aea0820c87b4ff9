"""Cards: canonical text, parsing in every notation, identity, order (RULES.md C1-C5, DESIGN.md "Cards")."""

from __future__ import annotations

import copy
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chinchon
from chinchon import JOKER, Card, Rank, Suit, parse_cards
from chinchon.errors import NotationError

ALL_NATURAL = [Card(rank, suit) for suit in Suit for rank in Rank]
ALL_CARDS = [*ALL_NATURAL, JOKER]
SUIT_ORDER = [Suit.OROS, Suit.COPAS, Suit.ESPADAS, Suit.BASTOS]

cards = st.sampled_from(ALL_CARDS)
FAST = settings(max_examples=150, deadline=None, database=None)


def sort_key(card: Card) -> tuple[int, int]:
    """The documented order: suit (oros, copas, espadas, bastos), then rank; jokers last."""
    if card.rank is None or card.suit is None:
        return (len(SUIT_ORDER), 0)
    return (SUIT_ORDER.index(card.suit), int(card.rank))


# -- canonical text ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rank", "suit", "text"),
    [
        (Rank.SIX, Suit.COPAS, "6♥"),
        (Rank.TEN, Suit.BASTOS, "10♣"),
        (Rank.JACK, Suit.OROS, "J♦"),
        (Rank.QUEEN, Suit.ESPADAS, "Q♠"),
        (Rank.KING, Suit.BASTOS, "K♣"),
        (Rank.ACE, Suit.OROS, "A♦"),
        (Rank.TWO, Suit.ESPADAS, "2♠"),
        (Rank.NINE, Suit.COPAS, "9♥"),
    ],
)
def test_canonical_text(rank: Rank, suit: Suit, text: str) -> None:
    assert str(Card(rank, suit)) == text


def test_joker_text() -> None:
    assert str(JOKER) == "🃏"
    assert JOKER.is_joker
    assert JOKER.rank is None and JOKER.suit is None


def test_natural_card_is_not_a_joker() -> None:
    card = Card.parse("6♥")
    assert not card.is_joker
    assert card.rank is Rank.SIX and card.suit is Suit.COPAS


def test_every_card_has_a_distinct_text() -> None:
    texts = [str(card) for card in ALL_CARDS]
    assert len(set(texts)) == len(ALL_CARDS) == 53


# -- parsing ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Unicode suits
        ("6♥", (Rank.SIX, Suit.COPAS)),
        ("10♣", (Rank.TEN, Suit.BASTOS)),
        ("J♦", (Rank.JACK, Suit.OROS)),
        ("Q♠", (Rank.QUEEN, Suit.ESPADAS)),
        ("K♣", (Rank.KING, Suit.BASTOS)),
        ("A♦", (Rank.ACE, Suit.OROS)),
        ("8♠", (Rank.EIGHT, Suit.ESPADAS)),
        # surrounding spaces are not part of the card
        ("  7♦ ", (Rank.SEVEN, Suit.OROS)),
        # ASCII letters, any case
        ("6h", (Rank.SIX, Suit.COPAS)),
        ("6H", (Rank.SIX, Suit.COPAS)),
        ("Qs", (Rank.QUEEN, Suit.ESPADAS)),
        ("qs", (Rank.QUEEN, Suit.ESPADAS)),
        ("QS", (Rank.QUEEN, Suit.ESPADAS)),
        ("10c", (Rank.TEN, Suit.BASTOS)),
        ("10C", (Rank.TEN, Suit.BASTOS)),
        ("aD", (Rank.ACE, Suit.OROS)),
        ("Ad", (Rank.ACE, Suit.OROS)),
        ("jd", (Rank.JACK, Suit.OROS)),
        ("Kc", (Rank.KING, Suit.BASTOS)),
        ("2s", (Rank.TWO, Suit.ESPADAS)),
        # Spanish names
        ("7 de oros", (Rank.SEVEN, Suit.OROS)),
        ("sota de copas", (Rank.JACK, Suit.COPAS)),
        ("caballo de espadas", (Rank.QUEEN, Suit.ESPADAS)),
        ("rey de bastos", (Rank.KING, Suit.BASTOS)),
        ("as de copas", (Rank.ACE, Suit.COPAS)),
        ("2 de espadas", (Rank.TWO, Suit.ESPADAS)),
        ("9 de bastos", (Rank.NINE, Suit.BASTOS)),
        # Spanish cards print the sota as 10, the caballo as 11 and the rey as 12
        ("10 de copas", (Rank.JACK, Suit.COPAS)),
        ("11 de oros", (Rank.QUEEN, Suit.OROS)),
        ("12 de bastos", (Rank.KING, Suit.BASTOS)),
        ("10 de espadas", (Rank.JACK, Suit.ESPADAS)),
    ],
)
def test_parse(text: str, expected: tuple[Rank, Suit]) -> None:
    card = Card.parse(text)
    assert (card.rank, card.suit) == expected


@pytest.mark.parametrize("text", ["joker", "*", "🃏"])
def test_parse_joker(text: str) -> None:
    assert Card.parse(text) is JOKER


def test_parse_cards_spaces_and_commas() -> None:
    assert parse_cards("3♥ 4♥ 5♥ 7♣") == [
        Card(Rank.THREE, Suit.COPAS),
        Card(Rank.FOUR, Suit.COPAS),
        Card(Rank.FIVE, Suit.COPAS),
        Card(Rank.SEVEN, Suit.BASTOS),
    ]
    assert parse_cards("3h,4h, 5h ,7c") == parse_cards("3♥ 4♥ 5♥ 7♣")
    assert parse_cards("  6♥   10♣  ") == [Card(Rank.SIX, Suit.COPAS), Card(Rank.TEN, Suit.BASTOS)]


def test_parse_cards_mixes_notations() -> None:
    text = "3h, 7 de oros sota de copas,K♣ * rey de bastos 10 de espadas joker 🃏 as de copas Qs"
    assert [str(card) for card in parse_cards(text)] == [
        "3♥",
        "7♦",
        "J♥",
        "K♣",
        "🃏",
        "K♣",
        "J♠",
        "🃏",
        "🃏",
        "A♥",
        "Q♠",
    ]


def test_parse_cards_keeps_repeats_and_order() -> None:
    seven, three = Card.parse("7♥"), Card.parse("3♦")
    assert parse_cards("7♥ 7h 3♦ 7 de copas") == [seven, seven, three, seven]


def test_parse_cards_empty() -> None:
    assert parse_cards("") == []
    assert parse_cards("  , ") == []


# -- bad text ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["11♥", "0h", "Zs", "7 de copa", "rey de", "6x", "13 de oros", "sota de", "de copas", "10", "♥", "66♥", "jokers"],
)
def test_bad_card_raises_naming_the_text(text: str) -> None:
    with pytest.raises(ValueError) as excinfo:
        Card.parse(text)
    assert isinstance(excinfo.value, NotationError)
    assert text in str(excinfo.value)


def test_empty_text_is_not_a_card() -> None:
    with pytest.raises(NotationError) as excinfo:
        Card.parse("")
    message = str(excinfo.value)
    # The message names the (empty) text: it shows it quoted.
    assert "''" in message or '""' in message


@pytest.mark.parametrize("value", [None, 6, Card.parse("6♥")])
def test_parse_of_a_non_string_raises_value_error(value: object) -> None:
    with pytest.raises(ValueError):
        Card.parse(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "bad"),
    [
        ("3h 4x 5h", "4x"),
        ("3♥, 11♥, 5♥", "11♥"),
        ("sota de copas 0h", "0h"),
        ("3h 7 de copa 5h", "7 de copa"),
        ("Zs", "Zs"),
    ],
)
def test_parse_cards_names_the_bad_token(text: str, bad: str) -> None:
    with pytest.raises(ValueError) as excinfo:
        parse_cards(text)
    assert isinstance(excinfo.value, NotationError)
    assert bad in str(excinfo.value)


def test_notation_error_is_a_value_error() -> None:
    assert issubclass(NotationError, ValueError)


# -- identity, immutability, hashing ----------------------------------------------------


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_repr_round_trips(card: Card) -> None:
    assert eval(repr(card), vars(chinchon)) == card


def test_interning() -> None:
    assert Card(Rank.SIX, Suit.COPAS) is Card.parse("6♥")
    assert Card.parse("6h") is Card.parse("6♥")
    assert Card.parse("sota de copas") is Card(Rank.JACK, Suit.COPAS)
    assert Card(None, None) is JOKER


@pytest.mark.parametrize("card", ALL_CARDS, ids=str)
def test_pickling_keeps_identity(card: Card) -> None:
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(card, protocol)) is card
    assert copy.copy(card) is card
    assert copy.deepcopy(card) is card


def test_pickling_a_hand() -> None:
    hand = parse_cards("3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦ 🃏")
    back = pickle.loads(pickle.dumps(hand))
    assert back == hand
    assert all(a is b for a, b in zip(back, hand, strict=True))


@pytest.mark.parametrize("attribute", ["rank", "suit", "colour"])
def test_cards_are_immutable(attribute: str) -> None:
    card = Card.parse("6♥")
    with pytest.raises(AttributeError):
        setattr(card, attribute, Rank.SEVEN)
    assert card.rank is Rank.SIX and card.suit is Suit.COPAS
    assert str(card) == "6♥"


def test_cards_cannot_lose_attributes() -> None:
    card = Card.parse("6♥")
    with pytest.raises(AttributeError):
        del card.rank
    assert card.rank is Rank.SIX


def test_equality_and_hashing() -> None:
    a = Card.parse("6♥")
    b = Card.parse("6h")
    assert a == b and hash(a) == hash(b)
    assert a != Card.parse("6♦")
    assert a != Card.parse("7♥")
    assert a != JOKER
    assert a != "6♥"
    assert len({*parse_cards("6♥ 6h 6 de copas 7♥ 🃏 *")}) == 3
    counts = {a: 1}
    counts[b] += 1
    assert counts == {Card.parse("6♥"): 2}


def test_all_cards_distinct() -> None:
    assert len(set(ALL_CARDS)) == 53


def test_bad_constructor_arguments() -> None:
    with pytest.raises(ValueError):
        Card(Rank.SIX, None)
    with pytest.raises(ValueError):
        Card(None, Suit.COPAS)
    with pytest.raises(ValueError):
        Card("six", Suit.COPAS)  # type: ignore[arg-type]


# -- order ------------------------------------------------------------------------------


def test_sort_order() -> None:
    hand = parse_cards("🃏 K♣ A♦ 7♥ J♠ 2♣ 3♦ K♦ A♥ 10♠ 9♠")
    assert [str(card) for card in sorted(hand)] == [
        "A♦",
        "3♦",
        "K♦",
        "A♥",
        "7♥",
        "9♠",
        "10♠",
        "J♠",
        "2♣",
        "K♣",
        "🃏",
    ]


def test_sort_order_of_every_card() -> None:
    expected = [Card(rank, suit) for suit in SUIT_ORDER for rank in sorted(Rank)] + [JOKER]
    assert sorted(reversed(ALL_CARDS)) == expected
    assert Card.parse("K♦") < Card.parse("A♥") < Card.parse("A♠") < Card.parse("A♣") < JOKER
    assert Card.parse("7♥") < Card.parse("J♥") < Card.parse("Q♥") < Card.parse("K♥")
    assert Card.parse("9♥") < Card.parse("10♥") < Card.parse("J♥")


@FAST
@given(cards, cards)
def test_comparisons_follow_the_order(a: Card, b: Card) -> None:
    assert (a < b) == (sort_key(a) < sort_key(b))
    assert (a <= b) == (sort_key(a) <= sort_key(b))
    assert (a > b) == (sort_key(a) > sort_key(b))
    assert (a >= b) == (sort_key(a) >= sort_key(b))
    assert (a == b) == (sort_key(a) == sort_key(b))


# -- fuzzing ----------------------------------------------------------------------------


@FAST
@given(cards)
def test_text_round_trip(card: Card) -> None:
    assert Card.parse(str(card)) == card
    assert Card.parse(card.ascii) == card
    assert Card.parse(card.ascii.upper()) == card
    assert Card.parse(card.ascii.lower()) == card


def test_ascii_notation() -> None:
    assert Card.parse("6♥").ascii == "6h"
    assert Card.parse("10♣").ascii == "10c"
    assert Card.parse("J♦").ascii == "Jd"
    assert Card.parse("Q♠").ascii == "Qs"
    assert JOKER.ascii == "*"


@FAST
@given(st.lists(cards, max_size=12))
def test_list_round_trip(hand: list[Card]) -> None:
    assert parse_cards(" ".join(map(str, hand))) == hand
    assert parse_cards(", ".join(map(str, hand))) == hand
    assert parse_cards(",".join(card.ascii for card in hand)) == hand


_SPANISH_RANK = {Rank.ACE: "as", Rank.JACK: "sota", Rank.QUEEN: "caballo", Rank.KING: "rey"}
_PRINTED_RANK = {Rank.JACK: "10", Rank.QUEEN: "11", Rank.KING: "12"}
spanish_cards = st.sampled_from([card for card in ALL_NATURAL if card.rank is not Rank.TEN])


@st.composite
def any_notation(draw: st.DrawFn) -> tuple[str, Card]:
    card = draw(st.one_of(cards, spanish_cards))
    notations = [str(card), card.ascii, card.ascii.upper(), card.ascii.lower()]
    if card.rank is not None and card.suit is not None and card.rank is not Rank.TEN:
        suit = card.suit.name.lower()
        notations.append(f"{_SPANISH_RANK.get(card.rank, str(int(card.rank)))} de {suit}")
        if card.rank in _PRINTED_RANK:
            notations.append(f"{_PRINTED_RANK[card.rank]} de {suit}")
    return draw(st.sampled_from(notations)), card


@FAST
@given(st.lists(any_notation(), max_size=10), st.sampled_from([" ", ", ", ",", "  "]))
def test_list_round_trip_mixed_notations(items: list[tuple[str, Card]], separator: str) -> None:
    assert parse_cards(separator.join(text for text, _ in items)) == [card for _, card in items]


_CARDISH = st.sampled_from(
    [
        *"0123456789AaJjQqKkDdHhSsCc♦♥♠♣🃏*, -",
        *["de", " de ", "oros", "copas", "espadas", "bastos"],
        *["sota", "caballo", "rey", "as", "joker", "10", "11", "12"],
    ]
)


@settings(max_examples=300, deadline=None, database=None)
@given(st.one_of(st.text(max_size=20), st.lists(_CARDISH, max_size=6).map("".join)))
def test_parse_arbitrary_text(text: str) -> None:
    try:
        card = Card.parse(text)
    except ValueError:
        return
    assert isinstance(card, Card)
    assert Card.parse(str(card)) == card


@settings(max_examples=150, deadline=None, database=None)
@given(st.one_of(st.text(max_size=30), st.lists(_CARDISH, max_size=10).map("".join)))
def test_parse_cards_arbitrary_text(text: str) -> None:
    try:
        hand = parse_cards(text)
    except ValueError:
        return
    assert all(isinstance(card, Card) for card in hand)
    assert parse_cards(" ".join(map(str, hand))) == hand
