"""Who is connected where, and the fan-out of messages to them.

A room's owner tells each of its events once, as an :class:`Envelope`: the
event's number, the public event, what each seat alone learns with it and
what each seat may do next. The envelope holds no engine object that
cannot be rebuilt from its JSON form (:meth:`Envelope.to_dict`), so that a
relay between processes (Redis pub/sub, DESIGN "Many nodes") can carry it;
the hub projects it for each member (:meth:`Envelope.frame`: the public
event, its text in the member's language, the member's seat's own part)
and serialises each projection once, for every member that shares its seat
and language. Each connection has a queue bounded in frames and in bytes
and a writer task, so that a slow client never holds up a room.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson
from pydantic import BaseModel

from chinchon.events import PUBLIC_EVENTS, Closed, Drew, Event, PrivateEvent, event_from_dict
from chinchon.narration import describe
from chinchon.server.protocol import Closing

__all__ = ["Connection", "Envelope", "Hub", "TokenBucket", "frame"]

QUEUE_SIZE = 512
"""Frames waiting for a client before it counts as too slow and is dropped."""
QUEUE_BYTES = 1 << 20
"""Bytes waiting for a client (1 MiB, some 400 full views) before it counts as too slow and is dropped."""

ENGINE_KINDS = frozenset(cls.kind for cls in PUBLIC_EVENTS)
"""The kinds of the engine's public events (the others an envelope carries are the room's own)."""


class Socket(Protocol):
    """What the hub needs of a WebSocket."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def frame(message: BaseModel | Mapping[str, Any]) -> str:
    """A message as the JSON text of one WebSocket frame: a protocol model (:mod:`chinchon.server.protocol`), or
    the plain form of one (the event frames, made by :meth:`Envelope.message`)."""
    if isinstance(message, BaseModel):
        return message.model_dump_json()
    return orjson.dumps(message).decode()


def _seat_keys(data: Mapping[str, Any]) -> dict[int, Any]:
    return {int(seat): value for seat, value in data.items()}


@dataclass(eq=False, slots=True)
class Envelope:
    """One numbered event of a room, as the room's owner tells it to everyone: self-contained and serialisable.

    ``event`` is the public event (an engine event's ``to_dict`` form, or the room's own: join, leave, kick,
    start, rematch); ``names`` the match's seats' names (for the texts); ``private`` each seat's private events
    that go with it; on the last event of an action (``settled``), ``legal`` the legal actions of the seat to
    move, ``arrangements`` the best arrangement of each hand that changed, and the mover's ``turn_deadline``.
    Only seats a person holds get private parts.
    """

    room: str
    n: int
    event: dict[str, Any]
    names: tuple[str, ...] = ()
    private: dict[int, list[dict[str, Any]]] = field(default_factory=dict)
    settled: bool = False
    legal: dict[int, list[str]] = field(default_factory=dict)
    arrangements: dict[int, dict[str, Any]] = field(default_factory=dict)
    turn_deadline: float | None = None
    told: tuple[Event, dict[int, list[Event]]] | None = None
    """The engine's events themselves, where the envelope was made (rebuilt from the JSON forms elsewhere)."""
    frames: dict[tuple[int | None, str], str] = field(default_factory=dict)
    """The frames made so far, by seat (``None``: a spectator) and language."""

    def to_dict(self) -> dict[str, Any]:
        """The envelope as JSON-able data (what a relay between processes carries)."""
        return {
            "room": self.room,
            "n": self.n,
            "event": self.event,
            "names": list(self.names),
            "private": {str(seat): events for seat, events in self.private.items()},
            "settled": self.settled,
            "legal": {str(seat): legal for seat, legal in self.legal.items()},
            "arrangements": {str(seat): best for seat, best in self.arrangements.items()},
            "turn_deadline": self.turn_deadline,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Envelope:
        """An envelope from its :meth:`to_dict` form."""
        return cls(
            room=str(data["room"]),
            n=int(data["n"]),
            event=dict(data["event"]),
            names=tuple(data["names"]),
            private=_seat_keys(data["private"]),
            settled=bool(data["settled"]),
            legal=_seat_keys(data["legal"]),
            arrangements=_seat_keys(data["arrangements"]),
            turn_deadline=data["turn_deadline"],
        )

    def _told(self) -> tuple[Event, dict[int, list[Event]]] | None:
        if self.event["kind"] not in ENGINE_KINDS:
            return None
        if self.told is None:
            private = {seat: [event_from_dict(e) for e in events] for seat, events in self.private.items()}
            self.told = event_from_dict(self.event), private
        return self.told

    def text(self, seat: int | None, lang: str) -> str | None:
        """The event told in a language to a seat (``None``: a spectator); ``None`` for the room's own events."""
        told = self._told()
        if told is None:
            return None
        event, private = told
        secret = None
        if seat is not None and isinstance(event, Drew | Closed):
            secret = next((e for e in private.get(seat, ()) if isinstance(e, PrivateEvent)), None)
        return describe(event, lang, names=self.names, you=seat, secret=secret)

    def message(self, seat: int | None, lang: str) -> dict[str, Any]:
        """The ``event`` message (:class:`chinchon.server.protocol.Event`) for a member: seat and language."""
        mine = seat is not None
        return {
            "type": "event",
            "n": self.n,
            "event": self.event,
            "text": self.text(seat, lang),
            "private": self.private.get(seat, []) if mine else [],  # type: ignore[arg-type]
            "settled": self.settled,
            "legal_actions": self.legal.get(seat, []) if mine else [],  # type: ignore[arg-type]
            "arrangement": self.arrangements.get(seat) if mine else None,  # type: ignore[arg-type]
            "turn_deadline": self.turn_deadline,
        }

    def frame(self, seat: int | None, lang: str) -> str:
        """The message for a seat and a language as a frame's text, made once for all the members that share them."""
        key = (seat, lang)
        text = self.frames.get(key)
        if text is None:
            text = self.frames[key] = frame(self.message(seat, lang))
        return text


class TokenBucket:
    """A rate limit: ``rate`` a second, up to ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self, cost: float = 1.0) -> bool:
        """Whether one more is allowed now (and count it)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


@dataclass(eq=False)
class Connection:
    """One client's WebSocket: its room and seat (or spectator, or lobby), language and limits."""

    socket: Socket
    address: str
    lang: str = "en"
    room: str | None = None
    seat: int | None = None
    role: str | None = None
    name: str | None = None
    limiter: TokenBucket = field(default_factory=lambda: TokenBucket(20, 40))
    chat_limiter: TokenBucket | None = None
    strikes: int = 0
    closed: bool = False
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_SIZE))
    queued: int = 0
    """The characters of the frames in the queue."""
    writer: asyncio.Task[None] | None = None
    close_code: int | None = None
    session: str | None = None
    """The id of the session in the WebSocket's cookie (a logged-in player's); never logged."""


Observer = Callable[[Connection, dict[str, Any]], None]
"""A hook shown every message as it is queued (the tests' checks), as plain data."""


class Hub:
    """The connections of every room and of the lobby."""

    def __init__(self) -> None:
        self.rooms: dict[str, set[Connection]] = {}
        self.lobby: set[Connection] = set()
        self.observers: list[Observer] = []
        self.everyone: set[Connection] = set()

    def start(self, connection: Connection) -> None:
        """Begin sending a connection's queued frames."""
        self.everyone.add(connection)
        connection.writer = asyncio.create_task(self._write(connection))

    async def _write(self, connection: Connection) -> None:
        try:
            while True:
                text = await connection.queue.get()
                if text is None:
                    break
                connection.queued -= len(text)
                await connection.socket.send_text(text)
        except Exception:  # a socket that went away mid-send: the reader sees it too
            connection.closed = True
        if connection.close_code is not None:
            with contextlib.suppress(Exception):
                await connection.socket.close(connection.close_code)

    def send(self, connection: Connection, message: BaseModel | dict[str, Any], text: str | None = None) -> None:
        """Queue a message for one connection (a client too slow to read is disconnected).

        ``text`` is the message already as JSON (:func:`frame`), when the same message goes to many.
        """
        if connection.closed:
            return
        if text is None:
            text = frame(message)
        if self.observers:
            plain = message.model_dump(mode="json") if isinstance(message, BaseModel) else orjson.loads(text)
            for observe in self.observers:
                observe(connection, plain)
        self._queue(connection, text)

    def _queue(self, connection: Connection, text: str) -> None:
        if connection.queued + len(text) > QUEUE_BYTES:
            self.close(connection, 1013)
            return
        try:
            connection.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.close(connection, 1013)
            return
        connection.queued += len(text)

    def deliver(self, connection: Connection, envelope: Envelope) -> None:
        """Queue an envelope's projection for one connection (its seat's, in its language)."""
        if connection.closed:
            return
        text = envelope.frame(connection.seat, connection.lang)
        if self.observers:
            plain = orjson.loads(text)
            for observe in self.observers:
                observe(connection, plain)
        self._queue(connection, text)

    def publish(self, envelope: Envelope) -> None:
        """Tell an envelope to every member of its room.

        In one process this is the fan-out itself; a relay between nodes publishes the envelope's
        :meth:`~Envelope.to_dict` and calls :meth:`fan_out` with :meth:`Envelope.from_dict` on every node.
        """
        self.fan_out(envelope)

    def fan_out(self, envelope: Envelope) -> None:
        """Deliver an envelope to this process's members of its room."""
        for connection in self.rooms.get(envelope.room, ()):
            self.deliver(connection, envelope)

    def close(self, connection: Connection, code: int) -> None:
        """Close a connection once what is queued for it is sent."""
        if connection.closed:
            return
        connection.closed = True
        connection.close_code = code
        with contextlib.suppress(asyncio.QueueFull):
            connection.queue.put_nowait(None)
        if connection.queue.full():
            # Nothing more can be queued: drop what waits and close at once.
            while not connection.queue.empty():
                connection.queue.get_nowait()
            connection.queued = 0
            connection.queue.put_nowait(None)

    def join(self, connection: Connection, room: str | None) -> None:
        """Put a connection in a room (``None``: the lobby)."""
        self.leave(connection)
        if room is None:
            self.lobby.add(connection)
        else:
            self.rooms.setdefault(room, set()).add(connection)
        connection.room = room

    def leave(self, connection: Connection) -> None:
        """Take a connection out of its room or the lobby."""
        self.lobby.discard(connection)
        if connection.room is not None:
            members = self.rooms.get(connection.room)
            if members is not None:
                members.discard(connection)
                if not members:
                    del self.rooms[connection.room]

    def forget(self, connection: Connection) -> None:
        """A connection that is gone."""
        self.leave(connection)
        self.everyone.discard(connection)
        connection.closed = True

    def members(self, room: str) -> list[Connection]:
        """The connections in a room."""
        return list(self.rooms.get(room, ()))

    def broadcast_lobby(self, message: dict[str, Any]) -> None:
        """Send a message to every lobby connection."""
        text = frame(message)
        for connection in list(self.lobby):
            self.send(connection, message, text)

    async def shut(self, code: int) -> None:
        """Tell every client to go (``code`` 1012: reconnect later) and wait for the frames to leave."""
        for connection in list(self.everyone):
            self.send(connection, Closing(type="closing", reason="restart"))
            self.close(connection, code)
        writers = [c.writer for c in self.everyone if c.writer is not None]
        if writers:
            await asyncio.wait(writers, timeout=5)
