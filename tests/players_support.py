"""Helpers for the players' tests: accounts over HTTP (cookies kept by an httpx client) and their WebSockets."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from chinchon.server.client import Client

PASSWORD = "correct horse battery"


def csrf(http: httpx.AsyncClient) -> dict[str, str]:
    """The CSRF header of the client's session (the page reads it from its cookie)."""
    return {"X-CSRF-Token": http.cookies.get("chinchon_csrf") or ""}


async def register(http: httpx.AsyncClient, name: str, password: str = PASSWORD, **extra: Any) -> httpx.Response:
    """Register an account (the client keeps its cookies); the answer, which must be a 201."""
    answer = await http.post("/api/account/register", json={"name": name, "password": password, **extra})
    assert answer.status_code == 201, answer.text
    return answer


async def login(http: httpx.AsyncClient, name: str, password: str = PASSWORD, **extra: Any) -> httpx.Response:
    """Log in (the client keeps its cookies); the answer."""
    return await http.post("/api/account/login", json={"name": name, "password": password, **extra})


def socket_for(ws: str, http: httpx.AsyncClient) -> Client:
    """A WebSocket client sending the http client's session cookie, as a browser would."""
    session = http.cookies.get("chinchon_session")
    return Client(ws, headers={"Cookie": f"chinchon_session={session}"} if session else None)


async def create_room(http: httpx.AsyncClient, **payload: Any) -> dict[str, Any]:
    """Create a room as the client's account (with its CSRF header); the answer."""
    answer = await http.post("/api/rooms", json={"name": "?", **payload}, headers=csrf(http))
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


async def join_room(http: httpx.AsyncClient, code: str) -> dict[str, Any]:
    """Join a room as the client's account; the answer."""
    answer = await http.post(f"/api/rooms/{code}/join", json={"name": "?"}, headers=csrf(http))
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


async def play_to_the_end(clients: list[Client], rng: random.Random, leaver: Client | None = None) -> None:
    """Every client plays until the match is over: a close whenever one is legal (short deals), else a random legal
    move; the leaver leaves at once (the match has started: its seat is a bot's from then on)."""

    def over() -> bool:
        return all(c.view is not None and c.view["status"] == "over" for c in clients if c is not leaver)

    async def play(client: Client) -> None:
        while not over():
            if client is leaver:
                await client.send({"type": "leave"})
                return
            if client.my_turn():
                assert client.view is not None
                legal = client.view["game"]["legal_actions"]
                closes = [a for a in legal if a.startswith("close")]
                answer = await client.act(rng.choice(closes or legal))
                if answer["type"] == "ack":
                    state: int = answer["state"]

                    def caught_up(m: dict[str, Any], state: int = state) -> bool:
                        return bool(m["type"] == "view" and m["state"] >= state)

                    await client.wait(caught_up, 0, 60)
                    continue
                if answer.get("code") == "rate_limited":
                    await asyncio.sleep(1)
            await asyncio.sleep(0.01)

    await asyncio.wait_for(asyncio.gather(*(play(c) for c in clients)), 300)
