"""The engine's per-rules tables: each card's integer id, value and discard, and the solver's bounds.

A deal keeps its cards as integer ids in bitmasks (kinds ``0 .. 4R-1``,
the joker ``4R``); these tables turn ids into cards and actions and back.
Built once per ``Rules`` value, in the per-rules cache (:mod:`chinchon.cache`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from chinchon.actions import Action, Discard, Draw
from chinchon.cache import per_rules
from chinchon.cards import JOKER, Card
from chinchon.events import Discarded, Drew, YouDrew
from chinchon.melds import solver_for
from chinchon.rules import Rules

__all__ = ["SeatEvents", "Tables", "tables_for"]

SeatEvents = tuple[Drew, list[Drew], list[YouDrew], list[Discarded]]
"""A seat's draw from the stock, and by card id its draws from the pile, its own draws and its discards."""


class Tables:
    """Per-rules numbering of cards: kinds ``0 .. 4R-1`` and the joker ``4R``."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        solver = solver_for(rules)
        self.solver = solver
        self.R = solver.R
        self.joker = 4 * solver.R
        self.card_of: list[Card] = [*solver.card_of, JOKER]
        self.id_of: dict[Card, int] = {card: i for i, card in enumerate(self.card_of)}
        self.ids: tuple[int, ...] = tuple(range(len(self.card_of)))
        self.discard_of: list[Discard] = [Discard(card) for card in self.card_of]
        self.discard_texts: list[str] = [str(action) for action in self.discard_of]
        self.value_of: list[int] = [rules.value(card) if rules.has_card(card) else 0 for card in self.card_of]
        # The wild ace of oros is kind 0 (oros, ace): the solver counts it as a wild card.
        self.wild_ace = 1 if rules.wild_ace_of_oros else 0
        self.id_by_code: list[int] = [-1] * 100
        self.text_by_code: list[str] = [""] * 100
        """``str(card)`` by the card's code (the log's deck orders: no call of a Python method per card)."""
        for i, card in enumerate(self.card_of):
            self.id_by_code[card._code] = i
            self.text_by_code[card._code] = str(card)
        R = self.R
        self.full = (1 << R) - 1
        self.ids_by_suit: list[list[tuple[int, ...]]] = [
            [tuple(s * R + p for p in range(R) if m >> p & 1) for m in range(1 << R)] for s in range(4)
        ]
        self.discards_by_suit: list[list[tuple[Discard, ...]]] = [
            [tuple(self.discard_of[s * R + p] for p in range(R) if m >> p & 1) for m in range(1 << R)] for s in range(4)
        ]
        self._cards: dict[int, tuple[Card, ...]] = {}
        self._seat_events: list[SeatEvents | None] = [None] * rules.max_players
        draws: list[Action] = [Draw("discard"), Draw("stock")]
        self.seat_plays: list[list[object]] = [
            [(seat, action) for action in (*draws, *self.discard_of)] for seat in range(rules.max_players)
        ]
        """By seat, then ``move + 2`` (the draw from the pile, the draw from the stock, then by card id the discard):
        the deal history's entry ``(seat, action)``, made once (no entry is changed in place). Typed as objects:
        compiled, a ``tuple[int, Action]`` taken out of a list is unboxed, and boxed again as a new tuple where it
        is put."""
        self.play_texts: list[str] = [str(Draw("discard")), str(Draw("stock")), *self.discard_texts]
        """By ``move + 2`` (draws, then card ids): the log's text of a draw or a discard."""
        self.play_lines: list[list[dict[str, Any]]] = [
            [{"seat": seat, "action": text} for text in self.play_texts] for seat in range(rules.max_players)
        ]
        """By seat, then ``move + 2``: the log's line of a draw or a discard, to copy (a copy costs less than a
        new dict; the lines themselves are never handed out)."""
        self.discard_pairs: list[list[object]] = [
            [(seat, cid) for cid in range(len(self.card_of))] for seat in range(rules.max_players)
        ]
        """By seat, then card id: a deal's record of the seat's discard ``(seat, card id)``, made once (typed as
        objects, as :attr:`seat_plays`)."""
        # For Deal.moves: the rules it asks on every move.
        self.forbid_rediscard = rules.forbid_rediscard
        self.close_on_first_turn = rules.close_on_first_turn

    def __reduce__(self) -> tuple[Callable[[Rules], Tables], tuple[Rules]]:
        # Pickled and deep-copied as the rules' tables (never changed in place): shared, not copied.
        return (tables_for, (self.rules,))

    def seat_events(self, seat: int) -> SeatEvents:
        """The events of a seat's draws and discards, made once (events are frozen values): its draw from the
        stock, and by card id its draw of the card from the pile, the card it drew from the stock (private),
        its discard of the card."""
        events = self._seat_events[seat]
        if events is None:
            cards = self.card_of
            events = self._seat_events[seat] = (
                Drew(seat, "stock", None),
                [Drew(seat, "discard", card) for card in cards],
                [YouDrew(seat, card) for card in cards],
                [Discarded(seat, card) for card in cards],
            )
        return events

    def cards(self, rules: Rules, decks: int) -> list[Card]:
        """``rules.cards(decks=decks)``, made once per number of decks."""
        cards = self._cards.get(decks)
        if cards is None:
            cards = self._cards[decks] = tuple(rules.cards(decks=decks))
        return list(cards)


def tables_for(rules: Rules) -> Tables:
    """The tables of a ``Rules``, built on first use."""
    return per_rules(rules, Tables)
