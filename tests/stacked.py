"""Stacked deals and matches for the engine's tests (``test_deal``, ``test_match``): hands written as text.

``stack_deck`` deals hands in playing order from the first player; the helpers
below take hands by seat and put them in that order.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

import pytest

from chinchon import Card, Rules, parse_cards
from chinchon.actions import Close, Draw, IllegalAction
from chinchon.deal import Deal, stack_deck
from chinchon.match import Match

FOURNIER = Rules()


CLASICO = Rules.preset("clasico")  # spanish48, figures10, one loose card at a close, no lay-offs, chinchón wins


POLACO = Rules.preset("polaco")


# RULES.md §VI E1: fully matched once 6♥ is drawn and A♦ goes face down.
E1 = "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ A♦"


# Hands with no meld at all; none of their cards fits E1's melds (3♥-6♥, the 7s).
JUNK_A = "A♣ 3♠ 3♦ 4♣ 6♦ 6♣ Q♦"  # fournier 32, figures10 33


JUNK_B = "2♠ 4♠ J♣ Q♠ K♦ K♣ 5♦"  # fournier 48, figures10 51


def P(text: str) -> list[Card]:
    return parse_cards(text)


def C(text: str) -> Card:
    return Card.parse(text)


def melds(*texts: str) -> tuple[tuple[Card, ...], ...]:
    return tuple(tuple(P(text)) for text in texts)


def seat_deck(
    rules: Rules,
    by_seat: Mapping[int, str],
    first: int,
    discard: str | None = None,
    stock: str = "",
    decks: int | None = None,
) -> list[Card]:
    """A deck dealing ``by_seat[s]`` to each playing seat ``s`` (playing order starts at ``first``).

    The face-up card is ``discard``, or else the last card of the rules' order that nobody is dealt.
    """
    seats = sorted(by_seat)
    start = seats.index(first)
    order = seats[start:] + seats[:start]
    hands = [P(by_seat[s]) for s in order]
    if discard is None:
        used = Counter(card for hand in hands for card in hand) + Counter(P(stock))
        free = Counter(rules.cards(len(hands) if decks is None else None, decks=decks)) - used
        top = max(card for card in free if not card.is_joker)
    else:
        top = C(discard)
    return stack_deck(rules, hands, top, P(stock), decks=decks)


def new_deal(
    rules: Rules,
    hands: Sequence[str],
    discard: str | None = None,
    stock: str = "",
    first: int = 0,
    **kwargs: object,
) -> Deal:
    """A deal of ``hands[s]`` to seat ``s``."""
    deck = seat_deck(rules, dict(enumerate(hands)), first, discard, stock)
    return Deal.new(rules, len(hands), first=first, deck=deck, **kwargs)  # type: ignore[arg-type]


def cards_in_play(deal: Deal) -> Counter[Card]:
    """Every card of the deal: hands, stock, discard pile, table and the face-down card."""
    cards: list[Card] = []
    for seat in range(deal.players):
        cards += deal.hand(seat)
    cards += deal.stock
    cards += deal.discard_pile
    for meld in deal.table:
        cards += meld.cards
    if deal.face_down is not None:
        cards.append(deal.face_down)
    return Counter(cards)


def full_deck(rules: Rules, decks: int) -> Counter[Card]:
    return Counter(rules.cards(decks=decks))


def raises(deal: Deal | Match, action: object, message: str, seat: int | None = None) -> None:
    with pytest.raises(IllegalAction) as info:
        deal.apply(action, seat=seat)  # type: ignore[arg-type]
    assert str(info.value) == message


def table_index(deal: Deal, text: str) -> int:
    cards = tuple(P(text))
    for index, meld in enumerate(deal.table):
        if meld.cards == cards:
            return index
    raise AssertionError(f"no meld {text} on the table: {[str(m) for m in deal.table]}")


def meld_texts(deal: Deal) -> list[tuple[int, str]]:
    return [(meld.owner, " ".join(map(str, meld.cards))) for meld in deal.table]


def e1_match(
    rules: Rules, others: Mapping[int, str], closer: int, scores: Sequence[int], **kwargs: object
) -> tuple[Match, list[Card]]:
    """A match whose first deal ``closer`` opens and closes at once with E1 (−10); the others hold ``others``."""
    by_seat = {closer: E1, **others}
    deck = seat_deck(rules, by_seat, closer, stock="6♥")
    match = Match(len(by_seat), rules, seed=1, scores=list(scores), first=closer, decks=[deck], **kwargs)  # type: ignore[arg-type]
    return match, deck


def close_e1(match: Match) -> None:
    match.apply(Draw("stock"))
    match.apply(Close(C("A♦")))


CHAIN = {
    0: "3♥ 4♥ 5♥ 7♣ 7♦ 7♠ 2♣",  # closes discarding K♣: [3♥ 4♥ 5♥] [7♦ 7♠ 7♣], 2♣ loose
    1: "6♥ 3♠ J♥ K♦ Q♣ A♠ 2♦",  # no meld; 6♥ fits the run at once
    2: "4♠ 5♠ 6♠ 7♥ Q♦ J♣ A♣",  # shows 4♠ 5♠ 6♠; 7♥ fits the run once 6♥ is on it
}
