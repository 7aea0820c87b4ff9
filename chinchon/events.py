"""What happened in a match, told once: typed, frozen event values.

After each action a :class:`~chinchon.match.Match` tells what happened as
events, in order. *Public* events are what everyone at the table sees (a
draw from the stock without its card, a close without its face-down card);
*private* events are what one seat alone learns beside them (the card it
drew from the stock, the card it put face down, the hand it was dealt), and
each names that seat. :meth:`Match.events <chinchon.match.Match.events>`
gives the public events, numbered from 1 within a match (the event numbered
``n`` is ``match.events()[n - 1]``); :meth:`Match.events_for
<chinchon.match.Match.events_for>` adds one seat's private events, each
right after the public event it goes with. Public events alone are what a
spectator may know; with a seat's private events, what that seat may know.

Folding the events gives the state: a match starts with
:class:`MatchStarted` (names, rules, totals), each deal with
:class:`DealStarted` (seats in playing order, the face-up card, the size of
the stock) and, for each seat, :class:`YouWereDealt`. The seat to move is
the first seat at a deal's start, the drawer after a draw and the next seat
in playing order after a discard; after a close and in the showdown the
events say it (``to_move``: the engine skips seats with nothing to add and
plays forced decisions itself, each told as its own event). A deal ends
with :class:`DealEnded`, a re-entry decision is :class:`ReEntryAsked` then
one :class:`ReEntered` per seat, and the match ends with
:class:`MatchEnded`.

Each event has ``to_dict()``, a JSON-able form with a ``kind`` field (cards
as their text, melds as lists of card texts), read back by
:func:`event_from_dict` (or the class's ``from_dict``). The text every front
end shows for an event, in every language, is
:func:`chinchon.narration.describe`.

>>> from chinchon.cards import Card
>>> event = Drew(1, "discard", Card.parse("5♦"))
>>> event.to_dict()
{'kind': 'drew', 'seat': 1, 'source': 'discard', 'card': '5♦'}
>>> event_from_dict(event.to_dict()) == event
True
>>> YouDrew(0, Card.parse("7♣")).private
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from chinchon.cards import Card
from chinchon.errors import N_, ChinchonError
from chinchon.observation import DealResult, TableMeld
from chinchon.rules import Rules

__all__ = [
    "PRIVATE_EVENTS",
    "PUBLIC_EVENTS",
    "Closed",
    "DealEnded",
    "DealStarted",
    "Discarded",
    "Drew",
    "Event",
    "EventError",
    "LaidOff",
    "MatchEnded",
    "MatchStarted",
    "Passed",
    "PrivateEvent",
    "PublicEvent",
    "ReEntered",
    "ReEntryAsked",
    "Showed",
    "StockRebuilt",
    "YouDrew",
    "YouPutFaceDown",
    "YouWereDealt",
    "event_from_dict",
]

Melds = tuple[tuple[Card, ...], ...]


class EventError(ChinchonError):
    """An event's JSON form that is malformed; the message names the event and the field."""


# -- the JSON forms of the fields ------------------------------------------------------------


def _bad(kind: str, name: str) -> EventError:
    return EventError(N_("event {kind}: {field} is missing or malformed"), kind=kind, field=name)


def _int(value: Any) -> int:
    if type(value) is not int:
        raise ValueError(value)
    return value


def _card(value: Any) -> Card:
    if not isinstance(value, str):
        raise ValueError(value)
    return Card.parse(value)


def _cards(value: Any) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise ValueError(value)
    return tuple(_card(card) for card in value)


def _ints(value: Any) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise ValueError(value)
    return tuple(_int(item) for item in value)


def _melds(value: Any) -> Melds:
    if not isinstance(value, list):
        raise ValueError(value)
    return tuple(_cards(meld) for meld in value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(value)
    return value


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(name, str) for name in value):
        raise ValueError(value)
    return tuple(value)


def _source(value: Any) -> str:
    if value not in ("stock", "discard"):
        raise ValueError(value)
    return str(value)


def _optional(read: Callable[[Any], Any]) -> Callable[[Any], Any]:
    return lambda value: None if value is None else read(value)


def _meld_dict(meld: TableMeld) -> dict[str, Any]:
    return {"owner": meld.owner, "cards": [str(card) for card in meld.cards], "open": meld.open}


def _result_dict(result: DealResult) -> dict[str, Any]:
    return {
        "closer": result.closer,
        "points": list(result.points),
        "table": [_meld_dict(meld) for meld in result.table],
        "loose": [[str(card) for card in cards] for cards in result.loose],
        "chinchon": result.chinchon,
        "clean": result.clean,
        "void": result.void,
    }


def _result(value: Any) -> DealResult:
    if not isinstance(value, Mapping):
        raise ValueError(value)
    table = value.get("table")
    if not isinstance(table, list) or not all(isinstance(meld, Mapping) for meld in table):
        raise ValueError(value)
    loose = value.get("loose")
    if not isinstance(loose, list):
        raise ValueError(value)
    return DealResult(
        closer=_optional(_int)(value.get("closer")),
        points=_ints(value.get("points")),
        table=tuple(TableMeld(_int(m.get("owner")), _cards(m.get("cards")), _bool(m.get("open"))) for m in table),
        loose=tuple(_cards(cards) for cards in loose),
        chinchon=_bool(value.get("chinchon")),
        clean=_bool(value.get("clean")),
        void=_bool(value.get("void")),
    )


def _rules(value: Any) -> Rules:
    if not isinstance(value, Mapping):
        raise ValueError(value)
    return Rules.from_dict(value)


def _plain(value: Any) -> Any:
    """A field's value in its JSON form."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Rules):
        return value.to_dict()
    if isinstance(value, DealResult):
        return _result_dict(value)
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


# How each field's JSON form is read back, by field name.
_READERS: dict[str, Callable[[Any], Any]] = {
    "seat": _int,
    "number": _int,
    "dealer": _int,
    "first": _int,
    "stock": _int,
    "meld_index": _int,
    "owner": _int,
    "decks": _int,
    "pot": _int,
    "score": _int,
    "to_move": _optional(_int),
    "winner": _optional(_int),
    "source": _source,
    "card": _card,
    "discard": _card,
    "hand": _cards,
    "meld": _cards,
    "melds": _melds,
    "seats": _ints,
    "scores": _ints,
    "out": _ints,
    "active": _ints,
    "names": _names,
    "open": _bool,
    "accept": _bool,
    "playoff": _bool,
    "rules": _rules,
    "result": _result,
}


class _EventBase:
    """What every event has: its ``kind`` and its JSON form."""

    __slots__ = ()
    kind: ClassVar[str]
    private: ClassVar[bool] = False

    def to_dict(self) -> dict[str, Any]:
        """The event as JSON-able data: ``kind`` and each field (cards as text)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):  # type: ignore[arg-type]  # every subclass is a dataclass
            out[f.name] = _plain(getattr(self, f.name))
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """The event of this class from its :meth:`to_dict` form.

        Raises:
            EventError: the data is not this kind of event, or a field is missing or malformed.
        """
        kind = cls.kind
        if not isinstance(data, Mapping) or data.get("kind") != kind:
            raise EventError(N_("event: {text} is not an event"), text=repr(data)[:80])
        values: dict[str, Any] = {}
        for f in fields(cls):  # type: ignore[arg-type]  # every subclass is a dataclass
            if f.name not in data:
                raise _bad(kind, f.name)
            value = data[f.name]
            if f.name == "card" and value is None and cls is Drew:
                values[f.name] = None
                continue
            try:
                values[f.name] = _READERS[f.name](value)
            except (ValueError, TypeError):
                raise _bad(kind, f.name) from None
        return cls(**values)


class PublicEvent(_EventBase):
    """An event everyone at the table sees."""

    __slots__ = ()


class PrivateEvent(_EventBase):
    """An event one seat alone learns: ``seat`` is that seat."""

    __slots__ = ()
    private: ClassVar[bool] = True
    seat: int


# -- public events ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchStarted(PublicEvent):
    """A match begins: the seats' names, the rules, the starting totals, the seats in the match (under the
    limit), the decks a deal uses and the pot."""

    kind: ClassVar[str] = "match_started"
    names: tuple[str, ...]
    rules: Rules
    scores: tuple[int, ...]
    active: tuple[int, ...]
    decks: int
    pot: int


@dataclass(frozen=True, slots=True)
class DealStarted(PublicEvent):
    """A deal is dealt: its number (from 1), the dealer, the first player, the seats that play in playing
    order, the face-up card that starts the discard pile, the cards left in the stock and the totals.
    ``playoff``: every seat went over the limit and these, tied at the lowest total, play on to decide the
    match."""

    kind: ClassVar[str] = "deal_started"
    number: int
    dealer: int
    first: int
    seats: tuple[int, ...]
    discard: Card
    stock: int
    scores: tuple[int, ...]
    playoff: bool


@dataclass(frozen=True, slots=True)
class Drew(PublicEvent):
    """A seat drew from the stock or the discard pile (``source``); ``card`` only when it came from the pile."""

    kind: ClassVar[str] = "drew"
    seat: int
    source: Literal["stock", "discard"]
    card: Card | None


@dataclass(frozen=True, slots=True)
class Discarded(PublicEvent):
    """A seat put a card face up on the discard pile, ending its turn."""

    kind: ClassVar[str] = "discarded"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class StockRebuilt(PublicEvent):
    """The stock ran out: the discard pile but its top card was shuffled into a new stock of ``stock`` cards.

    Told just before the draw that needed it.
    """

    kind: ClassVar[str] = "stock_rebuilt"
    stock: int


@dataclass(frozen=True, slots=True)
class Closed(PublicEvent):
    """A seat closed: it put a card face down (never told here) and laid ``melds`` on the table, in order.

    ``open``: whether those melds take lay-offs; ``to_move``: the seat to act next (``None``: the deal is over).
    """

    kind: ClassVar[str] = "closed"
    seat: int
    melds: Melds
    open: bool
    to_move: int | None


@dataclass(frozen=True, slots=True)
class Showed(PublicEvent):
    """A seat showed its melds in the showdown (each added to the table, open); ``to_move`` as in :class:`Closed`."""

    kind: ClassVar[str] = "showed"
    seat: int
    melds: Melds
    to_move: int | None


@dataclass(frozen=True, slots=True)
class LaidOff(PublicEvent):
    """A seat laid off ``card`` on the table's meld ``meld_index`` (of ``owner``), which is now ``meld``."""

    kind: ClassVar[str] = "laid_off"
    seat: int
    card: Card
    meld_index: int
    meld: tuple[Card, ...]
    owner: int
    to_move: int | None


@dataclass(frozen=True, slots=True)
class Passed(PublicEvent):
    """A seat made no more lay-offs in this round of the showdown; ``to_move`` as in :class:`Closed`."""

    kind: ClassVar[str] = "passed"
    seat: int
    to_move: int | None


@dataclass(frozen=True, slots=True)
class DealEnded(PublicEvent):
    """A deal is over: its ``result`` (closer or void, points, table, every hand's loose cards, chinchón), the
    seats that played it, the totals after it, and the seats it put over the limit (``out``), in the order
    they decide on re-entry."""

    kind: ClassVar[str] = "deal_ended"
    number: int
    seats: tuple[int, ...]
    result: DealResult
    scores: tuple[int, ...]
    out: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class ReEntryAsked(PublicEvent):
    """These seats, over the limit, decide one by one whether to re-enter at the total ``score``."""

    kind: ClassVar[str] = "reentry_asked"
    seats: tuple[int, ...]
    score: int


@dataclass(frozen=True, slots=True)
class ReEntered(PublicEvent):
    """A seat's answer to re-entry: back in (``accept``) or out; ``score`` is its total now, ``pot`` the pot
    (a seat that re-enters pays the stake again)."""

    kind: ClassVar[str] = "reentered"
    seat: int
    accept: bool
    score: int
    pot: int


@dataclass(frozen=True, slots=True)
class MatchEnded(PublicEvent):
    """The match is over: its winner, the final totals and the pot."""

    kind: ClassVar[str] = "match_ended"
    winner: int
    scores: tuple[int, ...]
    pot: int


# -- private events --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class YouWereDealt(PrivateEvent):
    """The cards ``seat`` was dealt, in card order (told after :class:`DealStarted`)."""

    kind: ClassVar[str] = "you_were_dealt"
    seat: int
    hand: tuple[Card, ...]


@dataclass(frozen=True, slots=True)
class YouDrew(PrivateEvent):
    """The card ``seat`` drew from the stock (told after its :class:`Drew`)."""

    kind: ClassVar[str] = "you_drew"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class YouPutFaceDown(PrivateEvent):
    """The card ``seat`` put face down when it closed (told after its :class:`Closed`)."""

    kind: ClassVar[str] = "you_put_face_down"
    seat: int
    card: Card


Event = (
    MatchStarted
    | DealStarted
    | Drew
    | Discarded
    | StockRebuilt
    | Closed
    | Showed
    | LaidOff
    | Passed
    | DealEnded
    | ReEntryAsked
    | ReEntered
    | MatchEnded
    | YouWereDealt
    | YouDrew
    | YouPutFaceDown
)
"""Any event, public or private."""

PUBLIC_EVENTS: tuple[type[PublicEvent], ...] = (
    MatchStarted,
    DealStarted,
    Drew,
    Discarded,
    StockRebuilt,
    Closed,
    Showed,
    LaidOff,
    Passed,
    DealEnded,
    ReEntryAsked,
    ReEntered,
    MatchEnded,
)
"""Every kind of public event."""
PRIVATE_EVENTS: tuple[type[PrivateEvent], ...] = (YouWereDealt, YouDrew, YouPutFaceDown)
"""Every kind of private event."""

_BY_KIND: dict[str, type[_EventBase]] = {cls.kind: cls for cls in (*PUBLIC_EVENTS, *PRIVATE_EVENTS)}


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """The event of any kind from its :meth:`to_dict` form.

    Raises:
        EventError: the data names no kind of event, or a field is missing or malformed.
    """
    kind = data.get("kind") if isinstance(data, Mapping) else None
    cls = _BY_KIND.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise EventError(N_("event: {text} is not an event"), text=repr(data)[:80])
    event: Event = cls.from_dict(data)
    return event
