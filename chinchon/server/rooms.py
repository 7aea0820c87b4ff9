"""Rooms: a match, its seats and tokens, bots and timers, and one owner that applies actions in order.

Every change to a room happens under the room's lock: the event is written
to the store, then applied, then sent. A stored entry of the log (an
action, a start, a join...) makes one or more of the room's numbered
events: the room's own (join, leave, kick, start, rematch) and the
engine's for an action (``chinchon.events``), numbered one after the other
from the entry's stored number; replaying the log numbers them again the
same way. A room's driver task plays the bots'
turns (thinking off the event loop, without the lock), the turns of seats
whose player is gone past the grace period or out of time, and closes the
room once nobody is left in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
import unicodedata
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import orjson

from chinchon.actions import Action, IllegalAction, parse_action
from chinchon.bots import make_bot
from chinchon.bots.base import BotError
from chinchon.bots.levels import LEVELS, level_of
from chinchon.errors import N_, ChinchonError
from chinchon.events import (
    Closed,
    DealEnded,
    DealStarted,
    Discarded,
    Drew,
    Event,
    LaidOff,
    PrivateEvent,
    Showed,
)
from chinchon.match import Match
from chinchon.observation import Observation
from chinchon.rules import Rules, RulesError, parse_option
from chinchon.server.hub import Connection, Envelope, Hub
from chinchon.server.protocol import CHAT_MAX, NAME_MAX, ChatLine, CreateRoom, ErrorMessage, Presence, RoomView
from chinchon.server.store import RECENT_EVENTS, EventRow, RoomRow, SeatRow, Store
from chinchon.server.views import arrangement_view, game_view, translated, translated_error

if TYPE_CHECKING:
    from chinchon.server.bots import BotPool
    from chinchon.server.metrics import Metrics
    from chinchon.server.players import Account

__all__ = ["CODE_ALPHABET", "Manager", "Refused", "Room", "ServerSettings", "hash_token", "new_code"]

log = logging.getLogger("chinchon.server")

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Room codes use letters and digits that cannot be mistaken for one another (no I, L, O, 0, 1)."""
CODE_LENGTH = 7
BUFFER = RECENT_EVENTS
"""Events kept in memory for clients that reconnect (the same after a restart); older ones get the whole view."""

HAND_EVENTS = (Drew, Discarded, Closed, Showed, LaidOff)
"""The public events that change their seat's hand."""


@dataclass
class ServerSettings:
    """The server's settings (``chinchon serve`` options)."""

    db: str = "sqlite+aiosqlite:///chinchon.db"
    grace: float = 30.0
    origins: tuple[str, ...] = ()
    bot_workers: int = 2
    bot_pool: str = "process"
    bot_nice: int = 10
    bot_deadline: float = 10.0
    max_frame: int = 8192
    rooms_per_minute: float = 10.0
    lookups_per_minute: float = 30.0
    chat_per_minute: float = 20.0
    heartbeat: float = 5.0
    request_timeout: float = 10.0
    hello_timeout: float = 5.0
    connections_per_address: int = 100
    gc_thaw: float = 600.0
    https: bool = False
    bot_delay: float = 0.0
    default_rules: Rules = field(default_factory=Rules)


class Refused(Exception):
    """A request refused with a typed error; ``message`` is a template, ``params`` fill it."""

    def __init__(self, code: str, message: str, /, **params: object) -> None:
        super().__init__(message.format(**params))
        self.code = code
        self.template = message
        self.params = params

    def text(self, lang: str) -> str:
        """The message in a language."""
        return translated(lang, self.template, **self.params)


def hash_token(token: str) -> str:
    """The digest a token is stored as."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def new_code() -> str:
    """A random room code."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normal_code(code: str) -> str:
    """A room code as typed, in capitals without spaces or dashes."""
    return code.strip().upper().replace("-", "").replace(" ", "")


def check_name(name: object) -> str:
    """A player's name, trimmed.

    Raises:
        Refused: empty, too long, or with control characters.
    """
    if not isinstance(name, str):
        raise Refused("bad_name", N_("a name is text"))
    name = unicodedata.normalize("NFC", name.strip())
    if not name:
        raise Refused("bad_name", N_("the name is empty"))
    if len(name) > NAME_MAX:
        raise Refused("bad_name", N_("a name has at most {most} characters"), most=NAME_MAX)
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in name):
        raise Refused("bad_name", N_("a name may not hold control characters"))
    return name


def check_level(level: str) -> str:
    """A bot level the server offers; an old level's name (``medium``) gives the level it plays as now."""
    current = level_of(level)
    if current is None:
        raise Refused(
            "bad_request", N_("unknown bot level {level}; levels: {known}"), level=level, known=", ".join(LEVELS)
        )
    return current


def _current(level: str | None) -> str | None:
    """A stored bot level as the level it plays as now (``hard``: ``strong``); any other value as it is."""
    return (level_of(level) or level) if level else level


@lru_cache(maxsize=256)
def shared_rules(rules: Rules) -> Rules:
    """One ``Rules`` object for all rooms with equal rules (the engine keeps its tables, about 0.7 MB, on it)."""
    return rules


def build_rules(preset: str, options: dict[str, Any]) -> Rules:
    """A preset with options on top; an option given as text is read as ``--rule`` reads it (``"50"``, ``"true"``).

    Raises:
        Refused: an unknown preset or option, or a bad value.
    """
    try:
        values = {
            name: parse_option(name, value) if isinstance(value, str) else value for name, value in options.items()
        }
        return shared_rules(Rules.preset(preset, **values))
    except RulesError as exc:
        raise Refused("bad_rules", exc.template, **exc.params) from None
    except TypeError:
        known = ", ".join(Rules().to_dict())
        raise Refused("bad_rules", N_("unknown rules option; options: {known}"), known=known) from None


@lru_cache(maxsize=256)
def rules_options(rules: Rules) -> tuple[str, ...]:
    """The ``NAME=VALUE`` options that make these rules from their nearest preset (``Rules.as_text``)."""
    return tuple(rules.as_text()[1])


@dataclass
class Seat:
    """A seat of a room: open, a person's (by token) or a bot's."""

    index: int
    name: str | None
    kind: str = "open"
    level: str | None = None
    token_hash: str | None = None
    lang: str | None = None
    connections: int = 0
    away_since: float | None = None
    bot_playing: bool = False
    account: int | None = None

    def row(self) -> SeatRow:
        """The seat as stored."""
        return SeatRow(self.index, self.name, self.kind, self.level, self.token_hash, self.lang, self.account)


@dataclass
class MatchStart:
    """Who held each seat when the match started: a person or not, and the person's account."""

    people: list[bool] = field(default_factory=list)
    accounts: list[int | None] = field(default_factory=list)


@dataclass
class StateCache:
    """What is computed of one state of a room (its number ``n``), once for every connection and the driver."""

    n: int
    observations: dict[int, Observation] = field(default_factory=dict)
    legal: list[str] | None = None
    games: dict[int | None, dict[str, Any] | None] = field(default_factory=dict)


@dataclass
class Room:
    """One room: seats, status, the match and its numbered events."""

    manager: Manager
    code: str
    rules: Rules
    preset: str | None
    public: bool
    seats: list[Seat]
    bot_level: str
    turn_seconds: float | None
    creator: int = 0
    created: float = field(default_factory=time.time)
    status: str = "waiting"
    n: int = 0
    match_number: int = 0
    seed: str | None = None
    match: Match | None = None
    buffer: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=BUFFER))
    """The latest events, each as its number and its envelope's JSON (bytes: nothing the collector looks into)."""
    seen: dict[int, OrderedDict[str, int]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    driver: asyncio.Task[None] | None = None
    turn_started: float = field(default_factory=time.monotonic)
    turn_expired: bool = False
    closed: bool = False
    rated: bool = False
    match_start: MatchStart = field(default_factory=MatchStart)
    state: StateCache = field(default_factory=lambda: StateCache(-1))
    """What is computed of the room's latest state, once, for every connection and the driver."""

    # -- what clients see ---------------------------------------------------------------

    def presence(self, seat: Seat) -> tuple[str, float | None]:
        """A seat's presence and, while away, the seconds before a bot plays for it."""
        if seat.kind == "open":
            return "open", None
        if seat.kind == "bot":
            return "bot", None
        if seat.connections > 0:
            return "connected", None
        if seat.bot_playing:
            return "bot", None
        since = seat.away_since if seat.away_since is not None else time.monotonic()
        return "away", max(0.0, round(self.manager.settings.grace - (time.monotonic() - since), 1))

    def seat_infos(self) -> list[dict[str, Any]]:
        """Every seat as everyone sees it."""
        infos = []
        for seat in self.seats:
            presence, left = self.presence(seat)
            infos.append(
                {
                    "seat": seat.index,
                    "name": seat.name,
                    "kind": seat.kind,
                    "level": seat.level,
                    "presence": presence,
                    "away_seconds": left,
                    "creator": seat.index == self.creator,
                }
            )
        return infos

    def watchers(self) -> int:
        """The spectators connected."""
        return sum(1 for c in self.manager.hub.members(self.code) if c.role == "spectator")

    def turn_deadline(self) -> float | None:
        """When the person to move runs out of time (a wall-clock time), with a turn timer."""
        if self.turn_seconds is None or self.match is None or self.status != "playing":
            return None
        seat = self.match.to_move
        if seat is None or self.bot_controls(seat):
            return None
        return time.time() + max(0.0, self.turn_seconds - (time.monotonic() - self.turn_started))

    def cached(self) -> StateCache:
        """The cache of the room's latest state (a new one once the state changed)."""
        if self.state.n != self.n:
            self.state = StateCache(self.n)
        return self.state

    def observation(self, seat: int) -> Observation:
        """A seat's observation of the latest state (made once a state)."""
        assert self.match is not None
        cache = self.cached()
        found = cache.observations.get(seat)
        if found is None:
            found = cache.observations[seat] = self.match.observation(seat)
        return found

    def legal_texts(self) -> list[str]:
        """The legal actions of the seat to move, as text (made once a state)."""
        assert self.match is not None
        cache = self.cached()
        if cache.legal is None:
            cache.legal = [str(action) for action in self.match.legal_actions()]
        return cache.legal

    def game(self, seat: int | None) -> dict[str, Any] | None:
        """The game as a seat (or a spectator, ``None``) sees it (made once a state and seat)."""
        if self.match is None:
            return None
        cache = self.cached()
        if seat not in cache.games:
            observation = self.match.observation(None) if seat is None else self.observation(seat)
            cache.games[seat] = game_view(observation)
        return cache.games[seat]

    def view(self, seat: int | None) -> RoomView:
        """The whole room as a seat (or a spectator, ``None``) may see it."""
        return RoomView.model_validate(self.view_data(seat))

    def view_data(self, seat: int | None) -> dict[str, Any]:
        """The whole room as a seat (or a spectator, ``None``) may see it, as plain data."""
        return {
            "type": "view",
            "room": self.code,
            "seat": seat,
            "state": self.n,
            "status": "closed" if self.closed else self.status,
            "match": self.match_number,
            "rules": self.rules.to_dict(),
            "preset": self.preset,
            "options": list(rules_options(self.rules)),
            "seats": self.seat_infos(),
            "watchers": self.watchers(),
            "turn_seconds": self.turn_seconds,
            "turn_deadline": self.turn_deadline(),
            "game": self.game(seat),
            "rated": self.rated,
        }

    def lobby_entry(self) -> dict[str, Any]:
        """The room as the lobby lists it."""
        return {
            "code": self.code,
            "preset": self.preset,
            "options": list(rules_options(self.rules)),
            "rules": self.rules.to_dict(),
            "seats": len(self.seats),
            "taken": sum(1 for s in self.seats if s.kind != "open"),
            "status": self.status,
            "names": [s.name for s in self.seats if s.kind == "person" and s.name],
            "turn_seconds": self.turn_seconds,
            "rated": self.rated,
        }

    def publish(self, envelopes: list[Envelope]) -> None:
        """Keep the events for the clients that come back and send them to every member."""
        hub = self.manager.hub
        for envelope in envelopes:
            self.keep(envelope)
            hub.publish(envelope)

    def keep(self, envelope: Envelope) -> None:
        """Keep an event for the clients that come back."""
        self.buffer.append((envelope.n, orjson.dumps(envelope.to_dict())))

    def kept(self, after: int = 0) -> list[Envelope]:
        """The events kept for the clients that come back, after number ``after``."""
        return [Envelope.from_dict(orjson.loads(data)) for n, data in self.buffer if n > after]

    def send_presence(self) -> None:
        """Tell every member who is connected, away or played by a bot."""
        message = Presence.model_validate(
            {"type": "presence", "room": self.code, "seats": self.seat_infos(), "watchers": self.watchers()}
        )
        hub = self.manager.hub
        members = hub.members(self.code)
        if members:
            text = message.model_dump_json()
            for connection in members:
                hub.send(connection, message, text)

    # -- the room's events -----------------------------------------------------------------

    def people(self) -> set[int]:
        """The seats a person holds: those that get their private part of each event."""
        return {s.index for s in self.seats if s.kind == "person"}

    def room_envelope(self, n: int, event: dict[str, Any], *, settle: bool = True, deadline: bool = True) -> Envelope:
        """The envelope of one of the room's own events (join, leave, kick, start, rematch), numbered ``n``
        (``settle``: the room waits in the state after it)."""
        envelope = Envelope(self.code, n, event)
        self.n = n
        if settle:
            self.settle(envelope, set(), deadline=deadline)
        return envelope

    def engine_envelopes(self, first: int, since: int, *, deadline: bool = True) -> list[Envelope]:
        """The envelopes of the match's events after public event ``since``, numbered from ``first``; the last
        one settles the state (the room's number is then the last one's)."""
        assert self.match is not None
        told: list[tuple[Event, dict[int, list[Event]]]] = []
        changed: set[int] = set()
        for event in self.match.all_events(since):
            if not isinstance(event, PrivateEvent):
                told.append((event, {}))
                if isinstance(event, HAND_EVENTS):
                    changed.add(event.seat)
                elif isinstance(event, DealStarted | DealEnded):
                    changed.update(range(self.match.players))
            else:
                told[-1][1].setdefault(event.seat, []).append(event)
        people = self.people()
        names = self.match.names
        envelopes = []
        for offset, (public, private) in enumerate(told):
            mine = {seat: events for seat, events in private.items() if seat in people}
            envelopes.append(
                Envelope(
                    self.code,
                    first + offset,
                    public.to_dict(),
                    names,
                    {seat: [e.to_dict() for e in events] for seat, events in mine.items()},
                    told=(public, mine),
                )
            )
        self.n = envelopes[-1].n
        self.settle(envelopes[-1], changed & people, deadline=deadline)
        return envelopes

    def settle(self, envelope: Envelope, changed: set[int], *, deadline: bool = True) -> None:
        """Mark the room's latest envelope as a state one may act in: the mover's legal actions (a person's), the
        arrangements of the people's hands that changed, the turn's deadline."""
        envelope.settled = True
        match = self.match
        if match is None or self.status != "playing":
            return
        mover = match.to_move
        if mover is not None and self.seats[mover].kind == "person":
            envelope.legal[mover] = self.legal_texts()
        for seat in sorted(changed):
            best = arrangement_view(self.observation(seat).hand, self.rules)
            if best is not None:
                envelope.arrangements[seat] = best
        envelope.turn_deadline = self.turn_deadline() if deadline else None

    # -- the log ------------------------------------------------------------------------

    async def append(
        self,
        kind: str,
        seat: int | None,
        data: str | None = None,
        *,
        room_changes: dict[str, Any] | None = None,
        seat_changes: list[Seat] | None = None,
        new_seed: str | None = None,
        match_number: int | None = None,
    ) -> int:
        """Write the next numbered event to the store (before anything is applied or sent); its number."""
        n = self.n + 1
        entry = EventRow(n, self.match_number if match_number is None else match_number, kind, seat, data, time.time())
        try:
            await self.manager.store.append(
                self.code,
                entry,
                room=room_changes,
                seat_changes=[s.row() for s in seat_changes or ()],
                new_match_seed=new_seed,
            )
        except Exception:
            log.exception("storage failed", extra={"room": self.code, "kind": kind})
            raise Refused("server_busy", N_("the server could not save this; try again")) from None
        return n

    # -- who plays a seat ----------------------------------------------------------------

    def bot_controls(self, seat: int) -> bool:
        """Whether a bot plays this seat now."""
        s = self.seats[seat]
        return s.kind == "bot" or (s.kind == "person" and s.bot_playing)

    def bot_spec(self, seat: int) -> str:
        """The bot that plays a seat."""
        s = self.seats[seat]
        return s.level if s.kind == "bot" and s.level else self.bot_level

    def people_left(self) -> bool:
        """Whether a person is connected, or away within the grace period."""
        return any(s.kind == "person" and (s.connections > 0 or not s.bot_playing) for s in self.seats)

    # -- actions ------------------------------------------------------------------------

    async def act(self, seat: int, client_id: str, state: int, text: str) -> int:
        """Apply a person's action, chosen in event ``state``; the number of the last event it made.

        Raises:
            Refused: the action is stale, repeated, not this seat's, or illegal; nothing changed.
        """
        async with self.lock:
            seen = self.seen.setdefault(seat, OrderedDict())
            if client_id in seen:
                raise Refused("duplicate", N_("this action was already received"))
            if self.status != "playing" or self.match is None or self.closed:
                raise Refused("wrong_status", N_("no match is being played in this room"))
            if state != self.n:
                raise Refused(
                    "stale_state", N_("the table changed since this action was chosen (now {state})"), state=self.n
                )
            try:
                action = parse_action(text)
            except ChinchonError as exc:
                raise Refused("bad_action", exc.template, **exc.params) from None
            if self.match.to_move != seat:
                raise Refused("not_your_turn", N_("it is not your turn"))
            self._check_legal(action)
            n = await self._apply(seat, action)
            seen[client_id] = n
            while len(seen) > 256:
                seen.popitem(last=False)
            return n

    def _check_legal(self, action: Action) -> None:
        assert self.match is not None
        try:
            self.match.check(action)
        except IllegalAction as exc:
            raise Refused("illegal_action", exc.template, **exc.params) from None

    async def _apply(self, seat: int, action: Action) -> int:
        """Store, apply and send one action (under the lock, legality checked); the number of its last event."""
        assert self.match is not None
        n = await self.append("action", seat, str(action))
        since = len(self.match.events())
        self.match.apply(action, seat=seat)
        if self.match.to_move != seat:
            # A turn (draw and discard, or a showdown's decisions) has one timer, and ends when another seat moves.
            self.turn_started = time.monotonic()
            self.turn_expired = False
        if self.match.over:
            self.status = "over"
        envelopes = self.engine_envelopes(n, since)
        metrics = self.manager.metrics
        if metrics is not None:
            metrics.actions.inc()
        if self.match.over:
            try:
                await self.manager.store.finish_match(self.code, self.match_number, self.match.record())
                await self.manager.store.set_status(self.code, "over")
                if self.manager.on_match_over is not None:
                    await self.manager.on_match_over(self)
            except Exception:
                log.exception("storage failed", extra={"room": self.code, "kind": "finish"})
            self.manager.lobby_changed()
        self.publish(envelopes)
        self.wake.set()
        return self.n

    # -- the room's life ------------------------------------------------------------------

    @contextlib.contextmanager
    def _undone_if_refused(self) -> Iterator[None]:
        """Put the seats and the creator back as they were if the change is refused (its event not stored)."""
        saved = [dataclasses.replace(s) for s in self.seats]
        creator = self.creator
        try:
            yield
        except Refused:
            for seat, old in zip(self.seats, saved, strict=True):
                for name in (
                    "name",
                    "kind",
                    "level",
                    "token_hash",
                    "lang",
                    "away_since",
                    "bot_playing",
                    "connections",
                    "account",
                ):
                    setattr(seat, name, getattr(old, name))
            self.creator = creator
            raise

    async def start(self, seat: int) -> None:
        """The creator starts the match; open seats get bots."""
        async with self.lock:
            if seat != self.creator:
                raise Refused("not_creator", N_("only the room's creator can do this"))
            if self.status != "waiting":
                raise Refused("wrong_status", N_("the match has already started"))
            await self._new_match("start")

    async def rematch(self, seat: int) -> None:
        """A new match with the same seats, once the match is over."""
        async with self.lock:
            if self.status != "over":
                raise Refused("wrong_status", N_("a rematch can start only once the match is over"))
            await self._new_match("rematch")

    async def _new_match(self, kind: str) -> None:
        with self._undone_if_refused():
            await self._start_match(kind)

    async def _start_match(self, kind: str) -> None:
        if self.rated and any(s.kind != "person" or s.account is None for s in self.seats):
            raise Refused(
                "rated_seats", N_("a rated match needs every seat taken by a logged-in player (bots are not rated)")
            )
        changed = []
        for s in self.seats:
            if s.kind == "open":
                s.kind, s.level, s.name = "bot", self.bot_level, None
                changed.append(s)
        names = [s.name or f"Bot {s.index + 1}" for s in self.seats]
        start = MatchStart([s.kind == "person" for s in self.seats], [s.account for s in self.seats])
        seed = str(secrets.randbits(64))
        number = self.match_number + 1
        n = await self.append(
            kind,
            None,
            json.dumps({"names": names, "people": start.people, "accounts": start.accounts}),
            room_changes={"status": "playing", "match": number, "seed": seed},
            seat_changes=changed,
            new_seed=seed,
            match_number=number,
        )
        self.match = Match(names, self.rules, seed=int(seed))
        self.match_start = start
        self.match_number, self.seed, self.status = number, seed, "playing"
        self.seen.clear()
        self.turn_started = time.monotonic()
        start_envelope = self.room_envelope(n, {"kind": kind, "match": number}, settle=False)
        envelopes = [start_envelope, *self.engine_envelopes(n + 1, 0)]
        self.manager.lobby_changed()
        self.send_presence()  # (before the events: a client's state after them has the seats as they are)
        self.publish(envelopes)
        self.wake.set()

    async def join(self, name: str, lang: str | None, account: Account | None = None) -> tuple[int, str]:
        """A person (an account's, under its name) takes the first open seat; the seat and its token."""
        async with self.lock:
            if self.status != "waiting" or self.closed:
                raise Refused("wrong_status", N_("the match has already started; you can watch it"))
            if self.rated and account is None:
                raise Refused("login_needed", N_("log in to play in a rated room"))
            if account is not None and self.seat_of_account(account.id) is not None:
                raise Refused("already_seated", N_("you already have a seat in this room"))
            if account is not None:
                name = account.name
            for s in self.seats:
                if s.kind == "open":
                    token = secrets.token_urlsafe(32)
                    with self._undone_if_refused():
                        s.kind, s.name, s.token_hash, s.lang = "person", name, hash_token(token), lang
                        s.account = account.id if account is not None else None
                        s.away_since, s.bot_playing = time.monotonic(), False
                        n = await self.append("join", s.index, json.dumps({"name": name}), seat_changes=[s])
                    envelope = self.room_envelope(n, {"kind": "join", "seat": s.index, "name": name})
                    self.manager.lobby_changed()
                    self.send_presence()
                    self.publish([envelope])
                    self.wake.set()
                    return s.index, token
            raise Refused("room_full", N_("every seat is taken; you can watch the match"))

    async def remove(self, by: int, seat: int, kind: str) -> None:
        """A player leaves (``kind`` "leave") or the creator removes one ("kick"): a bot or nobody takes the seat."""
        async with self.lock:
            if kind == "kick" and by != self.creator:
                raise Refused("not_creator", N_("only the room's creator can do this"))
            if not 0 <= seat < len(self.seats) or self.seats[seat].kind != "person" or (kind == "kick" and seat == by):
                raise Refused("bad_seat", N_("seat {seat} has no other player to remove"), seat=seat)
            s = self.seats[seat]
            with self._undone_if_refused():
                if self.status == "waiting":
                    s.kind, s.name, s.level = "open", None, None
                else:
                    s.kind, s.level = "bot", self.bot_level
                s.token_hash, s.bot_playing, s.away_since, s.connections = None, False, None, 0
                s.account = None
                changes: dict[str, Any] = {}
                if seat == self.creator:
                    others = [x.index for x in self.seats if x.kind == "person"]
                    if others:
                        self.creator = others[0]
                        changes["creator"] = self.creator
                n = await self.append(kind, seat, None, seat_changes=[s], room_changes=changes or None)
            envelope = self.room_envelope(n, {"kind": kind, "seat": seat})
            hub = self.manager.hub
            removed = [c for c in hub.members(self.code) if c.seat == seat]
            for connection in removed:
                connection.seat, connection.role = None, "spectator"
            self.manager.lobby_changed()
            self.send_presence()
            self.publish([envelope])
            for connection in removed:
                # Its seat's private part is gone: it starts again from the spectator's whole view.
                message = translated(connection.lang, N_("you no longer have a seat in this room"))
                hub.send(connection, ErrorMessage(type="error", code="not_seated", message=message, id=None))
                hub.send(connection, self.view(None))
            self.wake.set()

    def connect(self, connection: Connection) -> None:
        """A member arrives (its role set); presence changes."""
        if connection.seat is not None:
            s = self.seats[connection.seat]
            s.connections += 1
            s.away_since = None
            s.bot_playing = False
        self.send_presence()
        self.wake.set()

    def disconnect(self, connection: Connection) -> None:
        """A member is gone; a seat left with no connection is away from now."""
        if connection.seat is not None and connection.room == self.code:
            s = self.seats[connection.seat]
            s.connections = max(0, s.connections - 1)
            if s.connections == 0 and s.kind == "person":
                s.away_since = time.monotonic()
        self.send_presence()
        self.wake.set()

    def resync(self, connection: Connection, last: int | None) -> None:
        """The events a returning client missed after ``last`` (when they are all still kept), else its whole view."""
        hub = self.manager.hub
        kept = self.buffer[0][0] <= last + 1 if last is not None and self.buffer else last == self.n
        if last is not None and last <= self.n and kept:
            for envelope in self.kept(last):
                hub.deliver(connection, envelope)
            return
        hub.send(connection, self.view(connection.seat))

    def seat_of_account(self, account: int) -> int | None:
        """The seat a person's account holds in this room."""
        for s in self.seats:
            if s.kind == "person" and s.account == account:
                return s.index
        return None

    def seat_for(self, token: str) -> int | None:
        """The seat whose token this is (compared in constant time with every seat's)."""
        digest = hash_token(token)
        found = None
        for s in self.seats:
            if s.token_hash is not None and hmac.compare_digest(digest, s.token_hash):
                found = s.index
        return found

    # -- the driver ---------------------------------------------------------------------

    def _next_step(self) -> tuple[str, int | None, float | None]:
        """What the driver does next: ("bot", seat, None), ("wait", None, timeout) or ("close", None, None)."""
        grace = self.manager.settings.grace
        now = time.monotonic()
        timeout: float | None = None
        changed = False
        for s in self.seats:
            if s.kind == "person" and s.connections == 0 and not s.bot_playing:
                since = s.away_since if s.away_since is not None else now
                left = grace - (now - since)
                if left <= 0:
                    s.bot_playing = True
                    changed = True
                else:
                    timeout = left if timeout is None else min(timeout, left)
        if changed:
            self.send_presence()
        if not self.people_left():
            return "close", None, None
        if self.status == "playing" and self.match is not None and not self.match.over:
            seat = self.match.to_move
            if seat is not None:
                if self.bot_controls(seat) or self.turn_expired:
                    return "bot", seat, None
                if self.turn_seconds is not None:
                    left = self.turn_seconds - (now - self.turn_started)
                    if left <= 0:
                        self.turn_expired = True
                        return "bot", seat, None
                    timeout = left if timeout is None else min(timeout, left)
        return "wait", None, timeout

    async def drive(self) -> None:
        """Play the bots' turns and keep the timers until the room closes (a failing step is logged and retried)."""
        while not self.closed:
            try:
                if await self._drive_step():
                    return
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("room driver failed", extra={"room": self.code})
                await asyncio.sleep(1)

    async def _drive_step(self) -> bool:
        """One step of the driver; whether the room is done."""
        manager = self.manager
        if not self.closed:
            self.wake.clear()
            async with self.lock:
                step, seat, timeout = self._next_step()
                if step == "bot" and seat is not None and self.match is not None:
                    state = self.n
                    observation = self.observation(seat)
                    spec = self.bot_spec(seat)
            if step == "close":
                await manager.close_room(self, "nobody left")
                return self.closed
            if step == "wait":
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), timeout)
                return False
            assert seat is not None
            if manager.settings.bot_delay:
                await asyncio.sleep(manager.settings.bot_delay)
            text = await manager.think(spec, observation)
            async with self.lock:
                if self.closed or self.n != state or self.match is None or self.match.to_move != seat:
                    return False
                if not (self.bot_controls(seat) or self.turn_expired):
                    return False
                try:
                    action = parse_action(text)
                    if not self.match.is_legal(action):
                        raise IllegalAction(N_("this action is not legal now"))
                except ChinchonError:
                    log.error("a bot chose an illegal action", extra={"room": self.code, "bot": spec})
                    action = observation.legal_actions[0]
                try:
                    await self._apply(seat, action)
                    return self.closed
                except Refused:
                    pass
            await asyncio.sleep(1)  # the store refused the move: try again, without holding the room
        return self.closed


class Manager:
    """Every room of the server: creation, lookup, rebuilding from the store, closing."""

    def __init__(
        self, settings: ServerSettings, store: Store, hub: Hub, pool: BotPool, metrics: Metrics | None = None
    ) -> None:
        self.settings = settings
        self.store = store
        self.hub = hub
        self.pool = pool
        self.metrics = metrics
        self.rooms: dict[str, Room] = {}
        self._lobby_task: asyncio.Task[None] | None = None
        self._lobby_dirty = False
        self._closing = False
        self.on_match_over: Callable[[Room], Awaitable[None]] | None = None
        """Called once a room's match is over and recorded (the players' history and ratings)."""

    # -- bots ---------------------------------------------------------------------------

    async def think(self, spec: str, observation: Observation) -> str:
        """A bot's choice (from the seat's observation alone) off the event loop; a quick fallback if the pool
        fails or is too slow."""
        try:
            text, seconds = await self.pool.choose(spec, observation, self.settings.bot_deadline)
        except (TimeoutError, Exception) as exc:  # a broken or slow pool must not stop the room
            log.warning("bot fallback", extra={"bot": spec, "problem": type(exc).__name__})
            legal = list(observation.legal_actions)
            return str(make_bot("simple").choose(observation, legal, random.Random()))
        if self.metrics is not None:
            self.metrics.bot_seconds.observe(seconds)
        return text

    # -- rooms --------------------------------------------------------------------------

    async def create(self, request: CreateRoom, account: Account | None = None) -> tuple[Room, str]:
        """A new room with its creator (an account's, under its name) in seat 0; the room and the creator's token."""
        if request.rated and account is None:
            raise Refused("login_needed", N_("log in to create a rated room"))
        name = account.name if account is not None else check_name(request.name)
        level = check_level(request.bot_level)
        if request.rules is None:
            rules = self.settings.default_rules
        else:
            rules = build_rules(request.rules.preset, dict(request.rules.options))
        preset = rules.as_text()[0]
        try:
            Match(["x"] * request.seats, rules, seed=0)
        except RulesError as exc:
            raise Refused("bad_rules", exc.template, **exc.params) from None
        code = new_code()
        while code in self.rooms or await self.store.code_exists(code):
            code = new_code()
        token = secrets.token_urlsafe(32)
        seats = [Seat(i, None) for i in range(request.seats)]
        seats[0] = Seat(
            0,
            name,
            "person",
            None,
            hash_token(token),
            request.lang,
            away_since=time.monotonic(),
            account=account.id if account is not None else None,
        )
        room = Room(
            self,
            code,
            rules,
            preset,
            request.public,
            seats,
            level,
            request.turn_seconds,
            rated=request.rated,
        )
        await self.store.create_room(
            RoomRow(
                code=code,
                created=room.created,
                public=room.public,
                status="waiting",
                preset=room.preset,
                rules=rules.to_dict(),
                seats=len(seats),
                bot_level=level,
                turn_seconds=room.turn_seconds,
                creator=0,
                match=0,
                seed=None,
                last_event=0,
                seat_rows=[s.row() for s in seats],
                rated=request.rated,
            )
        )
        self._adopt(room)
        log.info("room created", extra={"room": code, "seats": len(seats)})
        return room, token

    def _adopt(self, room: Room) -> None:
        self.rooms[room.code] = room
        room.driver = asyncio.create_task(room.drive())
        if self.metrics is not None:
            self.metrics.rooms.set(len(self.rooms))
        self.lobby_changed()

    async def get(self, code: str, token: str | None = None, account: int | None = None) -> Room | None:
        """An open room by code; with a seat's ``token`` (or the account holding a seat), a closed one is rebuilt
        from the store."""
        code = normal_code(code)
        room = self.rooms.get(code)
        if room is None and (token is not None or account is not None) and not self._closing:
            try:
                row = await self.store.load_room(code)
            except Exception:
                log.exception("storage failed", extra={"room": code, "kind": "load"})
                raise Refused("server_busy", N_("the server could not save this; try again")) from None
            digest = hash_token(token) if token is not None else None
            if row is not None and not any(
                (digest is not None and s.token_hash is not None and hmac.compare_digest(digest, s.token_hash))
                or (account is not None and s.kind == "person" and s.account == account)
                for s in row.seat_rows
            ):
                return None  # only a seat of the room reopens it
            # Another hello may have reopened the room while this one read the store.
            room = self.rooms.get(code)
            if room is None and row is not None:
                room = self.rebuild(row)
                reopened = room.closed
                room.closed = False
                self._adopt(room)
                if reopened:
                    await self.store.set_status(code, room.status)
        return room

    def rebuild(self, row: RoomRow) -> Room:
        """A room as its stored rules, seats, seed and log make it."""
        rules = shared_rules(Rules.from_dict(row.rules))
        # A room stored before the ladder names its bots by the old levels: they play as the levels they became.
        seats = [
            Seat(s.seat, s.name, s.kind, _current(s.level), s.token_hash, s.lang, account=s.account)
            for s in row.seat_rows
        ]
        now = time.monotonic()
        for s in seats:
            if s.kind == "person":
                s.away_since = now
        room = Room(
            self,
            row.code,
            rules,
            row.preset,
            row.public,
            seats,
            _current(row.bot_level) or row.bot_level,
            row.turn_seconds,
            row.creator,
            row.created,
            rated=row.rated,
        )
        room.n = row.last_event
        room.seed = row.seed
        room.closed = row.status == "closed"
        # Earlier matches' events (the latest events before the current match) are replayed to be sent again; the
        # current match's rebuild the room. Each entry's events are numbered from its stored number on (or after the
        # previous entry's, for a log written by an older server that stored one number an entry).
        earlier_ok = True
        end: int | None = None
        for entry in row.events:
            current = entry.match == row.match
            if not current and not earlier_ok:
                continue
            first = entry.n if end is None else max(entry.n, end + 1)
            try:
                for envelope in self._rebuilt_events(room, row, entry, first):
                    room.keep(envelope)
            except (ChinchonError, ValueError, KeyError):
                if current:
                    raise
                earlier_ok = False  # an earlier match that does not replay: its events are not sent again
                room.buffer.clear()
                end = None
                continue
            end = room.n
        room.match_number = row.match
        room.status = "waiting" if room.match is None else "over" if room.match.over else "playing"
        return room

    @staticmethod
    def _rebuilt_events(room: Room, row: RoomRow, entry: EventRow, first: int) -> list[Envelope]:
        """The events an entry of the log made, numbered from ``first``, its action applied to the room's match (a
        start makes the match)."""
        if entry.kind in ("start", "rematch"):
            data = json.loads(entry.data or "{}")
            names = data.get("names", [])
            seed = row.seed if entry.match == row.match else row.seeds[entry.match]
            room.match = Match(names, room.rules, seed=int(seed or 0))
            room.match_start = MatchStart(
                list(data.get("people", [not name.startswith("Bot ") for name in names])),
                list(data.get("accounts", [None] * len(names))),
            )
            room.status, room.match_number = "playing", entry.match
            start = room.room_envelope(first, {"kind": entry.kind, "match": entry.match}, settle=False)
            return [start, *room.engine_envelopes(first + 1, 0, deadline=False)]
        if entry.kind == "action" and room.match is not None and entry.seat is not None:
            action = parse_action(entry.data or "")
            since = len(room.match.events())
            room.match.apply(action, seat=entry.seat)
            if room.match.over:
                room.status = "over"
            return room.engine_envelopes(first, since, deadline=False)
        event: dict[str, Any] = {"kind": entry.kind, "seat": entry.seat}
        if entry.kind == "join":
            event["name"] = json.loads(entry.data or "{}")["name"]
        return [room.room_envelope(first, event, deadline=False)]

    async def restore(self) -> int:
        """Rebuild every room that was open when the server stopped; how many."""
        count = 0
        for row in await self.store.open_rooms():
            try:
                room = self.rebuild(row)
            except (ChinchonError, ValueError, KeyError) as exc:
                log.error("room not rebuilt", extra={"room": row.code, "problem": str(exc)})
                continue
            self._adopt(room)
            await self._keep_record(room, row)
            count += 1
        return count

    async def _keep_record(self, room: Room, row: RoomRow) -> None:
        """Store the record of a rebuilt room's finished match if it was lost (a stop right after its end)."""
        if room.match is None or not room.match.over:
            return
        try:
            if row.status != "over":
                if await self.store.record(room.code, room.match_number) is None:
                    await self.store.finish_match(room.code, room.match_number, room.match.record())
                await self.store.set_status(room.code, "over")
            if self.on_match_over is not None:
                await self.on_match_over(room)
        except Exception:
            log.exception("storage failed", extra={"room": room.code, "kind": "finish"})

    async def close_room(self, room: Room, reason: str) -> None:
        """Close a room (it stays in the store) and tell its spectators."""
        async with room.lock:
            # A person may have come back while this waited for the lock.
            if room.closed or room.people_left():
                return
            room.closed = True
            self.rooms.pop(room.code, None)
            with contextlib.suppress(Exception):
                await self.store.set_status(room.code, "closed")
            for connection in self.hub.members(room.code):
                # (The room's closing is no event: a last whole view tells it.)
                self.hub.send(connection, room.view(connection.seat))
        if self.metrics is not None:
            self.metrics.rooms.set(len(self.rooms))
        log.info("room closed", extra={"room": room.code, "reason": reason})
        self.lobby_changed()

    # -- the lobby ----------------------------------------------------------------------

    def lobby(self) -> dict[str, Any]:
        """The lobby message: open public rooms, newest first (at most 100)."""
        rooms = sorted(
            (r for r in self.rooms.values() if r.public and not r.closed), key=lambda r: r.created, reverse=True
        )
        return {"type": "lobby", "rooms": [r.lobby_entry() for r in rooms[:100]]}

    def lobby_changed(self) -> None:
        """Send the lobby to its members soon (at most twice a second)."""
        self._lobby_dirty = True
        if self._lobby_task is None or self._lobby_task.done():
            self._lobby_task = asyncio.create_task(self._send_lobby())

    async def _send_lobby(self) -> None:
        while self._lobby_dirty:
            self._lobby_dirty = False
            if self.hub.lobby:
                self.hub.broadcast_lobby(self.lobby())
            await asyncio.sleep(0.5)

    async def chat(self, room: Room | None, name: str, seat: int | None, text: str) -> None:
        """Keep and send a chat line to a room's members, or to the lobby."""
        text = text.strip()
        if not text or len(text) > CHAT_MAX:
            raise Refused("chat_refused", N_("a chat line has 1 to {most} characters"), most=CHAT_MAX)
        if any(unicodedata.category(ch) in ("Cc", "Cs") and ch not in "\n" for ch in text):
            raise Refused("chat_refused", N_("a chat line may not hold control characters"))
        when = time.time()
        try:
            await self.store.add_chat(room.code if room else "", name, seat, text, when)
        except Exception:
            log.exception("storage failed", extra={"room": room.code if room else "", "kind": "chat"})
            raise Refused("server_busy", N_("the server could not save this; try again")) from None
        message = ChatLine(type="chat", room=room.code if room else None, name=name, seat=seat, text=text, time=when)
        members = self.hub.members(room.code) if room else list(self.hub.lobby)
        frame = message.model_dump_json()
        for connection in members:
            self.hub.send(connection, message, frame)

    async def shutdown(self) -> None:
        """Stop every room's driver once its writes are done."""
        self._closing = True
        for room in list(self.rooms.values()):
            async with room.lock:
                room.closed = True
            if room.driver is not None:
                room.driver.cancel()
        drivers = [r.driver for r in self.rooms.values() if r.driver is not None]
        if drivers:
            await asyncio.gather(*drivers, return_exceptions=True)
        if self._lobby_task is not None:
            self._lobby_task.cancel()


def error_message(refused: Refused, lang: str, client_id: str | None = None) -> ErrorMessage:
    """A typed error for a client."""
    return ErrorMessage(type="error", code=refused.code, message=refused.text(lang), id=client_id)  # type: ignore[arg-type]


def engine_error(code: str, exc: ChinchonError, lang: str) -> ErrorMessage:
    """A typed error from an engine error."""
    return ErrorMessage(type="error", code=code, message=translated_error(lang, exc), id=None)  # type: ignore[arg-type]


__all__ += ["BotError", "check_name", "error_message", "normal_code"]
