"""The game record's format: a match written as JSON-able data, and read back into a match.

:mod:`chinchon.record` is the public face of it (``replay`` rebuilds a
:class:`~chinchon.match.Match`); this module knows a match only by what it
reads of one (:class:`RecordedMatch`), so that the match can write its own
record without the two modules importing each other.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from chinchon.actions import Action, parse_action
from chinchon.cards import Card
from chinchon.chance import Chance
from chinchon.errors import N_, ChinchonError
from chinchon.rules import Rules

__all__ = [
    "FORMAT",
    "VERSION",
    "RecordError",
    "RecordedMatch",
    "ReplayChance",
    "dumps",
    "loads",
    "match_record",
    "replay_match",
]


class RecordedMatch(Protocol):
    """What the record reads of a match, and the one thing a replay does to it: play its actions."""

    @property
    def rules(self) -> Rules: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    @property
    def seed(self) -> int | str | None: ...

    @property
    def initial_scores(self) -> tuple[int, ...]: ...

    @property
    def first_given(self) -> bool: ...

    @property
    def log(self) -> list[dict[str, Any]]: ...

    @property
    def over(self) -> bool: ...

    @property
    def winner(self) -> int | None: ...

    @property
    def scores(self) -> list[int]: ...

    @property
    def pot(self) -> int: ...

    @property
    def deals(self) -> Sequence[object]: ...

    def apply(self, action: Action, seat: int | None = None) -> None: ...


M = TypeVar("M", bound=RecordedMatch)


FORMAT = "chinchon-record"
VERSION = 3
"""The version records are written in. Version 1 records (from before ``max_reshuffles``) and version 2
records (whose log was named ``events``) still replay."""
_LEGACY_OPTIONS: dict[int, dict[str, Any]] = {1: {"max_reshuffles": None}}
"""What an option missing from an older version's rules meant: the behaviour before the option existed."""


class RecordError(ChinchonError):
    """A malformed or tampered game record; the message says where and why."""


def match_record(match: RecordedMatch) -> dict[str, Any]:
    """The record of a match as it stands (finished or not)."""
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "rules": match.rules.to_dict(),
        "seats": list(match.names),
        "scores": list(match.initial_scores),
        "first_given": match.first_given,
        "log": json.loads(json.dumps(match.log)),
        "result": {
            "over": match.over,
            "winner": match.winner,
            "scores": list(match.scores),
            "pot": match.pot,
            "deals": len(match.deals),
        },
    }
    if isinstance(match.seed, int | str) and not isinstance(match.seed, bool):
        record["seed"] = match.seed
    return record


def dumps(record: Mapping[str, Any]) -> str:
    """The record as JSON text."""
    return json.dumps(record, ensure_ascii=False, indent=1)


def loads(text: str) -> dict[str, Any]:
    """A record from JSON text (checked only when replayed).

    Raises:
        RecordError: the text is not a JSON object.
    """
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as error:
        # ValueError covers JSONDecodeError and numbers longer than Python converts.
        raise RecordError(N_("record: not JSON ({error})"), error=error) from None
    if not isinstance(data, dict):
        raise RecordError(N_("record: expected a JSON object"))
    return data


def _cards(value: Any, where: str) -> list[Card]:
    if not isinstance(value, list):
        raise RecordError(N_("record: {where}: expected a list of cards"), where=where)
    try:
        return [Card.parse(text) for text in value]
    except ValueError as error:
        raise RecordError(N_("record: {where}: {error}"), where=where, error=error) from None


class ReplayChance(Chance):
    """The chance outcomes of a record, handed out in order; then, with ``live``, that source's.

    ``live`` is drawn from at every event, recorded or not, so that past the
    record it is where the recorded match's own source would be.
    """

    def __init__(self, events: list[tuple[int, dict[str, Any]]], live: Chance | None = None) -> None:
        self.queue: Iterator[tuple[int, dict[str, Any]]] = iter(events)
        self.used = 0
        self._rounds: Iterator[list[Card]] | None = None
        self.live = live
        self._past = False

    def _next(self, kind: str) -> tuple[int, dict[str, Any]] | None:
        """The next recorded event, or ``None`` past the end of the record when there is a live source."""
        item = None if self._past else next(self.queue, None)
        if item is None and self.live is not None:
            self._past = True
            return None
        if item is None:
            raise RecordError(N_("record: the match needs a chance event ({kind}) that the record lacks"), kind=kind)
        index, event = item
        actual = event.get("chance", "deck" if "deck" in event else None)
        if actual != kind:
            raise RecordError(
                N_("record: event {index}: expected the chance event {kind}, found {actual}"),
                index=index,
                kind=kind,
                actual=actual,
            )
        self.used += 1
        return item

    def deck(self, cards: list[Card]) -> list[Card]:
        live = self.live.deck(cards) if self.live is not None else cards
        item = self._next("deck")
        if item is None:
            return live
        index, event = item
        return _cards(event.get("deck"), f"event {index}")

    def reshuffle(self, cards: list[Card]) -> list[Card]:
        live = self.live.reshuffle(cards) if self.live is not None else cards
        item = self._next("reshuffle")
        if item is None:
            return live
        index, event = item
        order = _cards(event.get("stock"), f"event {index}")
        if sorted(order) != sorted(cards):
            raise RecordError(N_("record: event {index}: the new stock is not the discard pile"), index=index)
        return order

    def lot(self, seats: list[int]) -> int:
        live = self.live.lot(seats) if self.live is not None else seats[0]
        item = self._next("lot")
        if item is None:
            return live
        index, event = item
        seat = event.get("seat")
        if not isinstance(seat, int) or seat not in seats:
            raise RecordError(N_("record: event {index}: seat {seat} cannot be drawn"), index=index, seat=seat)
        return seat

    def high_card(self, cards: list[Card]) -> list[Card]:
        live = self.live.high_card(cards) if self.live is not None else cards
        if self._past:
            return live
        if self._rounds is None:
            item = self._next("high_card")
            if item is None:
                return live
            index, event = item
            draws = event.get("draws")
            if not isinstance(draws, list) or not draws:
                raise RecordError(N_("record: event {index}: no draws for the high card"), index=index)
            self._rounds = iter([_cards(draw, f"event {index}") for draw in draws])
        drawn = next(self._rounds, None)
        if drawn is None:
            raise RecordError(N_("record: the draws for the high card end in a tie"))
        deck = Counter(cards)
        for card in drawn:
            if deck[card] <= 0:
                raise RecordError(N_("record: the high-card draw holds {card}, not in the deck"), card=card)
            deck[card] -= 1
        return drawn


def _require(record: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = record.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise RecordError(N_("record: {key} is missing or malformed"), key=key)
    return value


def replay_match(
    factory: Callable[..., M],
    record: Mapping[str, Any],
    *,
    go_on: bool = False,
    play: Callable[[M, Action, Any], None] | None = None,
) -> M:
    """Rebuild with ``factory`` (the match class) the match a record describes: :func:`chinchon.record.replay`.

    ``play(match, action, seat)`` plays each recorded action (by default ``match.apply(action, seat=seat)``),
    for a reader that looks at the match before and after each one.

    Raises:
        RecordError: the record is malformed, of an unknown version, or tampered with.
    """
    if not isinstance(record, Mapping):
        raise RecordError(N_("record: expected a JSON object"))
    if record.get("format") != FORMAT:
        raise RecordError(N_("record: not a chinchon record (format {value})"), value=repr(record.get("format")))
    version = record.get("version")
    if type(version) is not int or not 1 <= version <= VERSION:
        raise RecordError(
            N_("record: unknown version {value}; this chinchon reads version {version}"),
            value=repr(version),
            version=VERSION,
        )
    try:
        options = _require(record, "rules", dict)
        rules = Rules.from_dict({**_LEGACY_OPTIONS.get(version, {}), **options})
    except ValueError as error:
        raise RecordError(N_("record: rules: {error}"), error=error) from None
    seats = _require(record, "seats", list)
    scores = _require(record, "scores", list)
    # The log of chance and actions: "events" before version 3, when the match's events became its told events.
    events = _require(record, "log" if version >= 3 else "events", list)
    if not all(isinstance(event, dict) for event in events):
        raise RecordError(N_("record: every event must be a JSON object"))
    chance = [(i, e) for i, e in enumerate(events) if "chance" in e or "deck" in e]
    actions = [(i, e) for i, e in enumerate(events) if "action" in e]
    first = None
    if record.get("first_given"):
        deals = [e for e in events if "deck" in e]
        first = deals[0].get("first") if deals else None
    seed = record.get("seed")
    if go_on and seed is not None and (isinstance(seed, bool) or not isinstance(seed, int | str)):
        raise RecordError(N_("record: {key} is missing or malformed"), key="seed")
    source = ReplayChance(chance, Chance(random.Random(seed), None) if go_on else None)
    try:
        match = factory(seats, rules, seed, scores=scores, first=first, _chance=source)
    except RecordError:
        raise
    except ValueError as error:
        raise RecordError(N_("record: {error}"), error=error) from None
    for index, event in actions:
        seat = event.get("seat")
        text = event.get("action")
        deal = len(match.deals)
        try:
            action = parse_action(text)
            if play is None:
                match.apply(action, seat=seat)
            else:
                play(match, action, seat)
        except RecordError:
            raise
        except ValueError as error:
            raise RecordError(
                N_("record: event {index} (deal {deal}): seat {seat} cannot play {action}: {error}"),
                index=index,
                deal=deal,
                seat=seat,
                action=repr(text),
                error=error,
            ) from None
    if source.used != len(chance):
        raise RecordError(N_("record: {count} chance events were never used"), count=len(chance) - source.used)
    if match.log != events:
        for index, (mine, theirs) in enumerate(zip(match.log, events, strict=False)):
            if mine != theirs:
                raise RecordError(N_("record: event {index} does not follow from the ones before"), index=index)
        raise RecordError(N_("record: the events do not follow from each other"))
    result = record.get("result")
    mine = match_record(match)["result"]
    if result is not None and result != mine:
        raise RecordError(N_("record: the recorded result does not match the replayed match"))
    return match
