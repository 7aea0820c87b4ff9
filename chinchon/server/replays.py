"""Replays of finished matches: each event in order, with its text and every hand shown (the match is over).

The server tells the match's events (:meth:`Match.all_events
<chinchon.match.Match.all_events>`: the public ones and every seat's
private ones, since the match is over) in the reader's language
(:func:`chinchon.narration.tell_each`), and folds them into a picture of
the table after each one; the browser's replay page only draws what it gets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chinchon.cards import Card
from chinchon.events import (
    Closed,
    DealEnded,
    DealStarted,
    Discarded,
    Drew,
    Event,
    LaidOff,
    MatchStarted,
    ReEntered,
    Showed,
    StockRebuilt,
    YouDrew,
    YouPutFaceDown,
    YouWereDealt,
)
from chinchon.match import Match
from chinchon.narration import tell_each

__all__ = ["replay_steps"]


def _cards(cards: Sequence[Card]) -> list[str]:
    return [str(card) for card in cards]


class _Table:
    """The table as a finished match's events leave it: every hand, the piles, the melds, the totals."""

    def __init__(self, started: MatchStarted) -> None:
        players = len(started.names)
        self.deal = 0
        self.hands: list[list[Card]] = [[] for _ in range(players)]
        self.stock = 0
        self.pile: list[Card] = []
        self.table: list[tuple[int, tuple[Card, ...]]] = []
        self.face_down: Card | None = None
        self.scores = list(started.scores)
        self.active = list(started.active)
        self.result: dict[str, Any] | None = None

    def _take(self, seat: int, cards: Sequence[Card]) -> None:
        hand = self.hands[seat]
        for card in cards:
            hand.remove(card)

    def fold(self, event: Event) -> None:
        """The table after ``event``."""
        if isinstance(event, DealStarted):
            self.deal = event.number
            self.hands = [[] for _ in self.hands]
            self.stock = event.stock
            self.pile = [event.discard]
            self.table = []
            self.face_down = None
            self.scores = list(event.scores)
            self.result = None
        elif isinstance(event, YouWereDealt):
            self.hands[event.seat] = sorted(event.hand)
        elif isinstance(event, StockRebuilt):
            self.stock = event.stock
            self.pile = self.pile[-1:]
        elif isinstance(event, Drew):
            if event.source == "stock":
                self.stock -= 1
            else:
                self.pile.pop()
            if event.card is not None:
                self.hands[event.seat] = sorted([*self.hands[event.seat], event.card])
        elif isinstance(event, YouDrew):
            self.hands[event.seat] = sorted([*self.hands[event.seat], event.card])
        elif isinstance(event, Discarded):
            self._take(event.seat, [event.card])
            self.pile.append(event.card)
        elif isinstance(event, Closed | Showed):
            self._take(event.seat, [card for meld in event.melds for card in meld])
            self.table += [(event.seat, meld) for meld in event.melds]
        elif isinstance(event, YouPutFaceDown):
            self._take(event.seat, [event.card])
            self.face_down = event.card
        elif isinstance(event, LaidOff):
            self._take(event.seat, [event.card])
            self.table[event.meld_index] = (event.owner, event.meld)
        elif isinstance(event, DealEnded):
            result = event.result
            if result.closer is not None:
                # Where the rules show the hands by themselves, the end tells the table and what is left.
                self.table = [(meld.owner, meld.cards) for meld in result.table]
                self.hands = [sorted(loose) for loose in result.loose]
            self.scores = list(event.scores)
            self.active = [seat for seat in self.active if seat not in event.out]
            self.result = event.to_dict()["result"]
        elif isinstance(event, ReEntered):
            self.scores[event.seat] = event.score
            if event.accept:
                self.active = sorted([*self.active, event.seat])

    def picture(self) -> dict[str, Any]:
        """What the replay page draws."""
        return {
            "deal": self.deal,
            "hands": [_cards(hand) for hand in self.hands],
            "stock": self.stock,
            "pile": _cards(self.pile),
            "table": [{"owner": owner, "cards": _cards(meld)} for owner, meld in self.table],
            "face_down": str(self.face_down) if self.face_down is not None else None,
            "scores": list(self.scores),
            "active": list(self.active),
            "result": self.result,
        }


def replay_steps(record: dict[str, Any], lang: str = "en") -> dict[str, Any]:
    """A finished match's replay: its seats, rules and a step for each of its events after the match's start.

    A step is the event (``kind``, ``event``: its JSON form; ``secret``: the private event told with it, such as
    the card a draw from the stock took), the acting ``seat`` (``None`` for the deal's start and end), its text
    in ``lang`` and the table after it, every hand shown. The cards each seat was dealt are in its deal's first
    step.

    Raises:
        ValueError: the record is malformed or tampered with.
    """
    match = Match.replay(record)
    events = match.all_events()
    started = events[0]
    assert isinstance(started, MatchStarted)
    table = _Table(started)
    steps: list[dict[str, Any]] = []
    for told in tell_each(events[1:], lang, names=match.names):
        event, secret = told.event, told.secret
        table.fold(event)
        if secret is not None:
            table.fold(secret)
        if isinstance(event, YouWereDealt):
            steps[-1].update(table.picture())
            continue
        steps.append(
            {
                "kind": event.kind,
                "event": event.to_dict(),
                "secret": secret.to_dict() if secret is not None else None,
                "seat": getattr(event, "seat", None),
                "text": "\n".join(told.lines),
                **table.picture(),
            }
        )
    return {
        "seats": list(match.names),
        "rules": match.rules.to_dict(),
        "scores": list(match.scores),
        "winner": match.winner,
        "steps": steps,
    }
