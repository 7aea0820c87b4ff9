"""Who is connected where, and the fan-out of messages to them.

In one process for now: each connection has a bounded queue of outgoing
frames and a writer task, so that a slow client never holds up a room.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

__all__ = ["Connection", "Hub", "TokenBucket", "frame"]

QUEUE_SIZE = 512
"""Frames waiting for a client before it counts as too slow and is dropped."""


class Socket(Protocol):
    """What the hub needs of a WebSocket."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = 1000, reason: str | None = None) -> None: ...


def frame(message: dict[str, Any]) -> str:
    """A message as the JSON text of one WebSocket frame."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


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
    writer: asyncio.Task[None] | None = None
    close_code: int | None = None
    session: str | None = None
    """The id of the session in the WebSocket's cookie (a logged-in player's); never logged."""


Observer = Callable[[Connection, dict[str, Any]], None]


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
                await connection.socket.send_text(text)
        except Exception:  # a socket that went away mid-send: the reader sees it too
            connection.closed = True
        if connection.close_code is not None:
            with contextlib.suppress(Exception):
                await connection.socket.close(connection.close_code)

    def send(self, connection: Connection, message: dict[str, Any], text: str | None = None) -> None:
        """Queue a message for one connection (a client too slow to read is disconnected).

        ``text`` is the message already as JSON (:func:`frame`), when the same message goes to many.
        """
        if connection.closed:
            return
        for observe in self.observers:
            observe(connection, message)
        try:
            connection.queue.put_nowait(frame(message) if text is None else text)
        except asyncio.QueueFull:
            self.close(connection, 1013)

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
        for connection in list(self.lobby):
            self.send(connection, message)

    async def shut(self, code: int) -> None:
        """Tell every client to go (``code`` 1012: reconnect later) and wait for the frames to leave."""
        for connection in list(self.everyone):
            self.send(connection, {"type": "closing", "reason": "restart"})
            self.close(connection, code)
        writers = [c.writer for c in self.everyone if c.writer is not None]
        if writers:
            await asyncio.wait(writers, timeout=5)
