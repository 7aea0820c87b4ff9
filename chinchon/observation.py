"""What a seat knows: the :class:`Observation`, and the pieces of a deal it shows.

``Phase`` says what the seat to move does; ``TableMeld`` is a meld on the
table after a close; ``DealResult`` is how a deal ended. The engine builds
observations (:meth:`chinchon.deal.Deal.observation`,
:meth:`chinchon.match.Match.observation`): a seat's :class:`Observation`,
or with ``None`` the :class:`PublicObservation` of a spectator; bots and
front ends read them.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from chinchon.actions import Action
from chinchon.cards import Card
from chinchon.rules import Rules

__all__ = ["DealResult", "Observation", "Phase", "PublicObservation", "TableMeld"]


class Phase(enum.Enum):
    """What the seat to move does: draw, discard (or close), show and lay off; or nothing."""

    DRAW = "draw"
    DISCARD = "discard"
    SHOWDOWN = "showdown"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table after a close: its owner, its cards, and whether it takes lay-offs."""

    owner: int
    cards: tuple[Card, ...]
    open: bool = True

    def __str__(self) -> str:
        return "[" + " ".join(map(str, self.cards)) + "]"


@dataclass(frozen=True, slots=True)
class DealResult:
    """How a deal ended.

    ``points`` is what the deal adds to each seat's total (the clean-close
    bonus included); ``loose`` the cards each seat was left with;
    ``chinchon`` whether the closer's cards were one run of the whole hand.
    A ``void`` deal (the stock ran out once more than ``max_reshuffles``
    allows) has no closer and adds no points.
    """

    closer: int | None
    points: tuple[int, ...]
    table: tuple[TableMeld, ...]
    loose: tuple[tuple[Card, ...], ...]
    chinchon: bool
    clean: bool
    void: bool = False


@dataclass(frozen=True)
class PublicObservation:
    """All that anyone watching the table may know: what a spectator sees.

    Built from public facts only (an allow-list), never from a seat's
    observation with fields taken out: ``seat`` is ``None``, ``hand`` and
    ``legal_actions`` are empty, and ``history`` shows every close without
    its face-down card. A seat's :class:`Observation` is this and what that
    seat alone knows.

    Deal part: the face-up ``discard_pile`` (top last); every discard so far
    (``discards``, as (seat, card)); the cards each seat took from the discard
    pile and still holds (``taken``; a closer's card put face down counts as
    held until the deal is over); ``hand_sizes``; ``stock_size``; how many
    times the stock has been rebuilt (``rebuilds``); the table melds in a
    showdown; every hand once the deal is over (``revealed``). Match part:
    totals, seats still in, dealer, deal number, pending re-entry.
    """

    seat: int | None
    players: int
    rules: Rules
    seats: tuple[int, ...]
    decks: int
    phase: Phase
    to_move: int | None
    first: int
    turn: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    stock_size: int
    discard_pile: tuple[Card, ...]
    discards: tuple[tuple[int, Card], ...]
    taken: tuple[tuple[Card, ...], ...]
    last_draw: str | None
    closer: int | None
    table: tuple[TableMeld, ...]
    revealed: tuple[tuple[Card, ...], ...]
    result: DealResult | None
    history: tuple[tuple[int, str], ...]
    legal_actions: tuple[Action, ...]
    scores: tuple[int, ...] = ()
    active: tuple[int, ...] = ()
    dealer: int | None = None
    deal_number: int = 0
    reentry_pending: tuple[int, ...] = ()
    match_over: bool = False
    winner: int | None = None
    pot: int = 0
    names: tuple[str, ...] = field(default=())
    previous_result: DealResult | None = None
    rebuilds: int = 0

    @property
    def top_discard(self) -> Card | None:
        """The card on top of the discard pile, if any."""
        return self.discard_pile[-1] if self.discard_pile else None


@dataclass(frozen=True)
class Observation(PublicObservation):
    """All that one seat may know, and nothing more: the public observation, and the seat's own.

    The seat's own part: its ``hand``, its ``legal_actions`` when it is to
    move, and its ``history`` (its own close shows the card it put face
    down). Two positions that differ only in cards hidden from the seat give
    equal observations.
    """

    seat: int
