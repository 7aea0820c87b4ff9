"""Helpers for the server's tests: a real Uvicorn server in a thread, on a free port, on a chosen database."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from chinchon.rules import Rules
from chinchon.server.app import create_app
from chinchon.server.client import Client
from chinchon.server.connections import uvicorn_config
from chinchon.server.rooms import ServerSettings

POSTGRES_VARIABLE = "CHINCHON_TEST_POSTGRES"
"""The environment variable naming a PostgreSQL database for the tests (``.ci/run`` sets it)."""


def free_port() -> int:
    """A TCP port free on the loopback address."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def postgres_url() -> str:
    """The test PostgreSQL database's URL; in CI its absence fails the test, elsewhere it skips it."""
    url = os.environ.get(POSTGRES_VARIABLE)
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_VARIABLE} is not set: CI must run the PostgreSQL tests")
        pytest.skip(f"{POSTGRES_VARIABLE} is not set (.ci/run starts a PostgreSQL cluster and sets it)")
    return url


def database_url(kind: str, folder: Path) -> str:
    """A fresh database of a kind ("sqlite" or "postgresql") for one test."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{folder / 'server.db'}"
    url = postgres_url()
    schema = f"t{os.getpid()}_{time.monotonic_ns()}"
    asyncio.run(_create_database(url, schema))
    return url.rsplit("/", 1)[0] + "/" + schema


async def _create_database(url: str, name: str) -> None:
    import asyncpg

    plain = url.replace("postgresql+asyncpg://", "postgresql://")
    connection = await asyncpg.connect(plain)
    try:
        await connection.execute(f'CREATE DATABASE "{name}"')
    finally:
        await connection.close()


@dataclass
class Running:
    """A server running in a thread: its addresses and application."""

    base: str
    ws: str
    app: FastAPI
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def manager(self) -> Any:
        return self.app.state.manager


@contextlib.contextmanager
def running_server(db: str, **settings: Any) -> Iterator[Running]:
    """A real Uvicorn server on a free loopback port, stopped (as by SIGTERM) on leaving."""
    options = {"bot_pool": "thread", "grace": 30.0, **settings}
    app = create_app(ServerSettings(db=db, **options))
    port = free_port()
    config = uvicorn_config(
        app,
        app.state.settings,
        host="127.0.0.1",
        port=port,
        log_config=None,
        log_level="warning",
        ws_ping_interval=2,
        ws_ping_timeout=2,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield Running(f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/ws", app, server, thread)
    finally:
        server.should_exit = True
        thread.join(30)


def has_options(rules: Rules, options: Mapping[str, object]) -> None:
    """The rules have these options (a test that needs them cannot silently go back to chance)."""
    assert {name: getattr(rules, name) for name in options} == dict(options), rules


async def start_match(creator: Client, kind: str = "start", timeout: float = 20.0) -> dict[str, Any]:
    """Send ``start`` (or ``rematch``) from the creator's client until the server takes it; the new match's first
    view.

    A message refused for the client's pace is sent again a second later, as a person would click again: a test's
    client playing at full speed can spend its connection's allowance (20 messages a second) just before.
    """
    while True:
        at = len(creator.messages)
        await creator.send({"type": kind})
        answer = await creator.wait(
            lambda m: m["type"] == "error" or (m["type"] == "event" and m["event"]["kind"] == kind), at, timeout
        )
        if answer["type"] == "event":
            number: int = answer["event"]["match"]

            def started(view: dict[str, Any], number: int = number) -> bool:
                return playing(view, number)

            return await creator.wait_view(started, timeout)
        assert answer["code"] == "rate_limited", answer
        await asyncio.sleep(1)


def playing(view: dict[str, Any], match: int | None = None) -> bool:
    """Whether a view shows a match dealt and being played (match number ``match``, if given)."""
    game = view["game"]
    return bool(view["status"] == "playing" and game is not None and "phase" in game and match in (None, view["match"]))


ACTED = {"drew", "discarded", "closed", "showed", "laid_off", "passed", "reentered"}
"""The kinds of the engine's events that tell a seat's action."""


def acted(message: dict[str, Any], seat: int | None = None) -> bool:
    """Whether a message is the event of an action (of ``seat``, if given)."""
    if message["type"] != "event" or message["event"]["kind"] not in ACTED:
        return False
    return seat is None or message["event"]["seat"] == seat


def action_text(event: dict[str, Any]) -> str:
    """The action an event of an action tells, as its text (a close without its card and melds: ``close``)."""
    kind = event["kind"]
    if kind == "drew":
        return f"draw {event['source']}"
    if kind == "discarded":
        return f"discard {event['card']}"
    if kind == "laid_off":
        return f"layoff {event['card']} {event['meld_index']}"
    if kind == "reentered":
        return "reenter yes" if event["accept"] else "reenter no"
    return {"closed": "close", "showed": "show", "passed": "pass"}[kind]
