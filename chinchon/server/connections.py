"""Limits on connections, below the application: how many one address may hold, and how long a request may take.

Uvicorn closes a connection left idle after an answer (``timeout_keep_alive``)
and bounds a request's head (h11's ``max_incomplete_event_size``), but it
keeps for ever a connection that never sends a whole request: a silent
socket, or a request that stops halfway. Here the HTTP protocol (h11's)
closes such a connection once ``request_timeout`` seconds have passed since
it opened or since its last answer, and every connection, HTTP or WebSocket,
counts against its address's cap: one over it is closed at once. The
WebSocket's own rule (a ``hello`` within a few seconds) is the application's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, cast

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

from chinchon.server.rooms import ServerSettings

__all__ = ["HEAD_MAX", "KEEP_ALIVE", "WS_FRAME_MAX", "ConnectionGuard", "uvicorn_config"]

log = logging.getLogger("chinchon.server")

HEAD_MAX = 16 * 1024
"""The largest request head (request line and headers), in bytes; a longer one is answered 400."""
KEEP_ALIVE = 5
"""Seconds an idle keep-alive connection stays open after its last answer (Uvicorn's ``timeout_keep_alive``)."""
WS_FRAME_MAX = 65536
"""The largest WebSocket frame received (Uvicorn's ``ws_max_size``); the protocol's own limit is smaller."""


class ConnectionGuard:
    """The open connections of each address, and the limits on them (``per_address`` 0: no cap)."""

    def __init__(self, per_address: int, request_timeout: float) -> None:
        self.per_address = per_address
        self.request_timeout = request_timeout
        self.open: dict[str, set[asyncio.BaseTransport]] = {}
        self._warned: dict[str, float] = {}

    @staticmethod
    def address(transport: asyncio.BaseTransport) -> str | None:
        """The peer's address of a TCP connection (``None`` for a Unix socket)."""
        peer = transport.get_extra_info("peername")
        return str(peer[0]) if isinstance(peer, tuple) and peer else None

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count a new connection; whether its address is within the cap."""
        address = self.address(transport)
        if address is None:
            return True
        members = self.open.setdefault(address, set())
        if transport not in members and self.per_address and len(members) >= self.per_address:
            now = time.monotonic()
            if now - self._warned.get(address, -60.0) >= 60:
                if len(self._warned) > 10_000:
                    self._warned.clear()
                self._warned[address] = now
                log.warning("connections refused", extra={"address": address, "most": self.per_address})
            return False
        members.add(transport)
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        """A connection is gone."""
        address = self.address(transport)
        members = self.open.get(address) if address is not None else None
        if members is not None:
            members.discard(transport)
            if not members:
                del self.open[address]  # type: ignore[arg-type]

    def count(self, address: str) -> int:
        """The connections an address holds open."""
        return len(self.open.get(address, ()))


def protocols(guard: ConnectionGuard) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """Uvicorn's h11 HTTP protocol and its WebSocket protocol, held to the guard's limits."""
    websocket_base = cast("type[Any]", AutoWebSocketsProtocol)

    class GuardedHTTP(H11Protocol):
        """h11's protocol: counted per address, closed when a request does not arrive whole in time."""

        _since = 0.0
        _timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if not guard.admit(transport):
                transport.abort()
                return
            self._since = self.loop.time()
            self._timer = self.loop.call_later(guard.request_timeout, self._check)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.release(self.transport)
            if self._timer is not None:
                self._timer.cancel()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            self._since = self.loop.time()
            super().on_response_complete()

        def _check(self) -> None:
            """Close the connection if it has waited too long for a whole request; else look again later."""
            self._timer = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return  # closed, or a WebSocket now
            waited = self.loop.time() - self._since
            if self.conn.their_state in (h11.IDLE, h11.SEND_BODY) and waited >= guard.request_timeout:
                self.transport.close()
                return
            self._timer = self.loop.call_later(max(0.1, guard.request_timeout - waited), self._check)

    class GuardedWebSocket(websocket_base):  # type: ignore[misc, valid-type]
        """The WebSocket protocol, counted as its connection was (it takes the HTTP connection over)."""

        def connection_made(self, transport: asyncio.Transport) -> None:
            guard.admit(transport)
            super().connection_made(transport)

        def connection_lost(self, exc: Exception | None) -> None:
            guard.release(self.transport)
            super().connection_lost(exc)

    return GuardedHTTP, GuardedWebSocket


def uvicorn_config(app: Any, settings: ServerSettings, **options: Any) -> uvicorn.Config:
    """Uvicorn's configuration for the application with the settings' limits (``options`` go to Uvicorn too)."""
    guard = ConnectionGuard(settings.connections_per_address, settings.request_timeout)
    http, websocket = protocols(guard)
    values: dict[str, Any] = {
        "http": http,
        "ws": websocket,
        "ws_max_size": WS_FRAME_MAX,
        "ws_ping_interval": settings.heartbeat,
        "ws_ping_timeout": settings.heartbeat,
        # No permessage-deflate: the frames are small (events of some 260 bytes), compressing them costs every
        # connection its own zlib state (about 100 KiB) and its own pass over each frame, where a frame is otherwise
        # made once for every member of a seat and language (docs/benchmarks.md).
        "ws_per_message_deflate": False,
        "timeout_keep_alive": KEEP_ALIVE,
        "h11_max_incomplete_event_size": HEAD_MAX,
        **options,
    }
    return uvicorn.Config(app, **values)
