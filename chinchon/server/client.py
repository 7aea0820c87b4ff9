"""A small client of the server's protocol (``websockets``), used by the tests and the load benchmark.

>>> Client.__name__
'Client'
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import random
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import websockets

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "Client", "create_room", "join_room", "served"]

_ids = itertools.count(1)

CHROMIUM = "/usr/bin/chromium"
"""Debian's Chromium, which the browser tests, the browser benchmark and the screenshots launch (headless)."""
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Chromium's flags for a machine with no network beyond loopback (it would try to reach its own services)."""


def _post(url: str, payload: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, dict(json.loads(answer.read()))
    except urllib.error.HTTPError as error:
        return error.code, dict(json.loads(error.read()))


@contextlib.contextmanager
def served(*options: str, timeout: float = 60.0) -> Iterator[str]:
    """A ``chinchon serve`` process on a free loopback port and a temporary SQLite database; its base URL.

    ``options`` go to ``chinchon serve`` as they are; the server is stopped (SIGTERM) on leaving.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as folder:
        command = [sys.executable, "-m", "chinchon", "serve", "--port", str(port)]
        command += ["--db", f"sqlite+aiosqlite:///{folder}/server.db", "--log-level", "warning", *options]
        server = subprocess.Popen(command, cwd=folder)
        try:
            deadline = time.monotonic() + timeout
            while True:
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=2).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or server.poll() is not None:
                        raise RuntimeError("the server did not start") from None
                    time.sleep(0.2)
            yield base
        finally:
            server.terminate()
            server.wait(30)


async def create_room(base: str, **payload: Any) -> dict[str, Any]:
    """``POST /api/rooms``: the code, seat and token (raises ``RuntimeError`` on an error)."""
    status, answer = await asyncio.to_thread(_post, f"{base}/api/rooms", payload)
    if status != 201:
        raise RuntimeError(f"{status}: {answer}")
    return answer


async def join_room(base: str, code: str, name: str) -> dict[str, Any]:
    """``POST /api/rooms/{code}/join``: the seat and token (raises ``RuntimeError`` on an error)."""
    status, answer = await asyncio.to_thread(_post, f"{base}/api/rooms/{code}/join", {"name": name})
    if status != 201:
        raise RuntimeError(f"{status}: {answer}")
    return answer


class Client:
    """One WebSocket client: it keeps every message received and the latest view."""

    def __init__(
        self,
        url: str,
        on_message: Callable[[dict[str, Any]], None] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.url = url
        self.headers = headers or {}
        self.messages: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.last_event = 0
        self.on_message = on_message
        self._socket: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self.closed: int | None = None

    async def connect(self, **hello: Any) -> dict[str, Any]:
        """Open the socket and say hello; the welcome (or the error) that answers."""
        self._socket = await websockets.connect(
            self.url, max_size=2**22, open_timeout=10, additional_headers=self.headers or None
        )
        self.closed = None
        self._reader = asyncio.create_task(self._read())
        start = len(self.messages)
        await self.send({"type": "hello", **{k: v for k, v in hello.items() if v is not None}})
        return await self.wait(lambda m: m["type"] in ("welcome", "error"), start)

    async def _read(self) -> None:
        try:
            async for frame in self._socket:
                message = json.loads(frame)
                self.messages.append(message)
                if message.get("type") == "view":
                    self.view = message
                    self.last_event = max(self.last_event, message["state"])
                elif message.get("type") == "event":
                    self.last_event = max(self.last_event, message["n"])
                if self.on_message is not None:
                    self.on_message(message)
                self._changed.set()
        except websockets.ConnectionClosed:
            pass
        finally:
            self.closed = self._socket.close_code if self._socket.close_code is not None else 1006
            self._changed.set()

    async def send(self, message: dict[str, Any] | str) -> None:
        """Send a message (a dict as JSON, a string as it is)."""
        await self._socket.send(message if isinstance(message, str) else json.dumps(message))

    async def wait(
        self, test: Callable[[dict[str, Any]], bool], start: int = 0, timeout: float = 20.0
    ) -> dict[str, Any]:
        """The first message from index ``start`` on that passes ``test``."""
        deadline = asyncio.get_running_loop().time() + timeout
        index = start
        while True:
            while index < len(self.messages):
                if test(self.messages[index]):
                    return self.messages[index]
                index += 1
            if self.closed is not None:
                raise ConnectionError(f"closed with {self.closed}")
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                raise TimeoutError("no such message")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), left)

    async def act(self, action: str, state: int | None = None) -> dict[str, Any]:
        """Send an action (in the state of the latest view); the ack or error that answers it."""
        client_id = f"a{next(_ids)}"
        start = len(self.messages)
        assert self.view is not None
        await self.send(
            {
                "type": "action",
                "id": client_id,
                "state": self.view["state"] if state is None else state,
                "action": action,
            }
        )
        return await self.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == client_id, start)

    def my_turn(self) -> bool:
        """Whether the latest view waits for this client's seat."""
        view = self.view
        return bool(
            view
            and view["game"]
            and view["status"] == "playing"
            and view["game"]["legal_actions"]
            and view["game"]["to_move"] == view["seat"]
        )

    async def play_randomly(self, rng: random.Random, until: Callable[[], bool], think: float = 0.0) -> int:
        """Play random legal actions whenever it is this seat's turn, until ``until()``; the actions played."""
        played = 0
        while not until() and self.closed is None:
            if self.my_turn():
                assert self.view is not None
                if think:
                    await asyncio.sleep(think)
                answer = await self.act(rng.choice(self.view["game"]["legal_actions"]))
                if answer["type"] == "ack":
                    played += 1
                    # The view of the new state comes with the event; wait for it.
                    state: int = answer["state"]

                    def caught_up(m: dict[str, Any], state: int = state) -> bool:
                        return bool(m["type"] == "view" and m["state"] >= state)

                    await self.wait(caught_up, 0)
                    continue
                if answer.get("code") == "rate_limited":
                    await asyncio.sleep(1)
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), 0.5)
        return played

    async def close(self) -> None:
        """Close the socket."""
        if self._socket is not None:
            await self._socket.close()
        if self._reader is not None:
            with contextlib.suppress(Exception):
                await self._reader
