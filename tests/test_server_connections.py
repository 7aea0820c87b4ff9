"""Connections that never speak are closed: tried from outside, with real sockets against a real server on 127.0.0.1.

Silent sockets, requests that stop halfway (in the head or in the body,
or a byte at a time), and WebSockets that never say ``hello`` are closed
after their timeouts; one address holds at most its cap of connections,
HTTP and WebSocket alike. Every test opens a handful of sockets and waits
a few seconds at most.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets

from chinchon.server.client import Client
from tests.server_support import Running, database_url, running_server

TIMEOUT = 1.0
"""The test server's request and hello timeouts, in seconds."""
LATE = 6.0
"""How long a test waits, past a timeout, for the server to close a connection."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """A server with short timeouts and a cap of 8 connections an address."""
    folder = tmp_path_factory.mktemp("connections")
    with running_server(
        database_url("sqlite", folder), request_timeout=TIMEOUT, hello_timeout=TIMEOUT, connections_per_address=8
    ) as running:
        yield running


def port_of(server: Running) -> int:
    return int(server.base.rsplit(":", 1)[1])


def connect(server: Running, first: bytes = b"") -> socket.socket:
    """A TCP connection to the server, which sends ``first`` (possibly nothing)."""
    sock = socket.create_connection(("127.0.0.1", port_of(server)), timeout=5)
    if first:
        sock.sendall(first)
    return sock


def closed_by_server(sock: socket.socket, within: float) -> float | None:
    """Seconds until the server closed the connection (what it sent before is read and dropped); ``None``: open."""
    start = time.monotonic()
    sock.settimeout(0.1)
    while time.monotonic() - start < within:
        try:
            if sock.recv(65536) == b"":
                return time.monotonic() - start
        except TimeoutError:
            continue
        except ConnectionResetError:
            return time.monotonic() - start
    return None


def still_open(sock: socket.socket) -> bool:
    """Whether the server has not closed the connection (nothing read)."""
    sock.setblocking(False)
    try:
        return sock.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except ConnectionResetError:
        return False
    finally:
        sock.setblocking(True)


def test_silent_and_half_made_requests_are_closed_after_the_timeout(server: Running) -> None:
    head = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    body = (
        b"POST /api/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    )
    sockets = {
        "silent": connect(server),
        "silent again": connect(server),
        "half a head": connect(server, head),
        "half a request line": connect(server, b"GET /heal"),
        "half a body": connect(server, body + b'{"name": '),
    }
    drip = connect(server, b"GET / HTTP/1.1\r\n")
    try:
        # Not closed at once: each is given its time.
        time.sleep(TIMEOUT / 3)
        assert all(still_open(sock) for sock in sockets.values())
        # One that sends a byte of its head every 0.2 s is closed all the same.
        started = time.monotonic()
        dripped = None
        while time.monotonic() - started < TIMEOUT + LATE:
            try:
                drip.sendall(b"X")
            except OSError:
                dripped = time.monotonic() - started
                break
            if closed_by_server(drip, 0.2) is not None:
                dripped = time.monotonic() - started
                break
        assert dripped is not None and dripped < TIMEOUT + LATE
        waited = {name: closed_by_server(sock, TIMEOUT + LATE) for name, sock in sockets.items()}
        assert all(seconds is not None for seconds in waited.values()), waited
    finally:
        for sock in (*sockets.values(), drip):
            sock.close()
    # A whole request on a new connection is answered, and kept alive as Uvicorn keeps it.
    with httpx.Client(base_url=server.base) as http:
        assert http.get("/healthz").status_code == 200


def test_a_request_head_that_outgrows_the_limit_is_refused(server: Running) -> None:
    # A head still unfinished past 16 KB is not kept in memory while it grows: it is answered 400.
    sock = connect(server, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Long: " + b"a" * 40_000)
    try:
        sock.settimeout(5)
        answer = sock.recv(4096)
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]


def test_a_websocket_that_says_no_hello_is_closed(server: Running) -> None:
    async def go() -> None:
        quiet = await websockets.connect(server.ws, open_timeout=10)
        talker = Client(server.ws)
        assert (await talker.connect())["role"] == "lobby"
        started = time.monotonic()
        # A ping is no hello: the connection is closed all the same.
        await quiet.send(json.dumps({"type": "ping", "t": 1}))
        received = []
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while time.monotonic() - started < TIMEOUT + LATE:
                received.append(json.loads(await asyncio.wait_for(quiet.recv(), TIMEOUT + LATE)))
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
        assert time.monotonic() - started < TIMEOUT + LATE
        assert [m["type"] for m in received] == ["pong", "error"]
        assert received[1]["code"] == "not_joined" and "hello" in received[1]["message"]
        # The one that said hello stays, past the timeout.
        await asyncio.sleep(TIMEOUT + 0.5)
        start = len(talker.messages)
        await talker.send({"type": "ping", "t": 2})
        assert (await talker.wait(lambda m: m["type"] == "pong", start))["t"] == 2
        await talker.close()

    asyncio.run(asyncio.wait_for(go(), 60))


def test_one_address_holds_at_most_its_cap_of_connections(tmp_path: Path) -> None:
    with running_server(database_url("sqlite", tmp_path), request_timeout=60, connections_per_address=4) as capped:

        async def go() -> None:
            # Two WebSockets and two silent sockets: the cap.
            players = [Client(capped.ws), Client(capped.ws)]
            for player in players:
                await player.connect()
            silent = [connect(capped), connect(capped)]
            # One more is closed at once, whatever it sends.
            for first in (b"", b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"):
                extra = connect(capped, first)
                seconds = closed_by_server(extra, 3)
                extra.close()
                assert seconds is not None and seconds < 3
            with pytest.raises((websockets.InvalidHandshake, OSError, TimeoutError)):
                await websockets.connect(capped.ws, open_timeout=5)
            # The others are still there.
            assert all(still_open(sock) for sock in silent)
            start = len(players[0].messages)
            await players[0].send({"type": "ping", "t": 3})
            await players[0].wait(lambda m: m["type"] == "pong", start)
            # A WebSocket that leaves makes room for one more connection.
            await players[1].close()
            deadline = time.monotonic() + 5
            while True:
                try:
                    async with httpx.AsyncClient(base_url=capped.base) as http:
                        assert (await http.get("/healthz")).status_code == 200
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "no room was made"
                    await asyncio.sleep(0.1)
            for sock in silent:
                sock.close()
            await players[0].close()

        asyncio.run(asyncio.wait_for(go(), 60))
