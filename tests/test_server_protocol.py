"""The server's protocol and its answers to bad input: each a typed error that changes nothing and keeps the connection.

One server (SQLite) for the module; the per-address rate limits get a server of their own.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import websockets
from prometheus_client.parser import text_string_to_metric_families

from chinchon.actions import IllegalAction, parse_action
from chinchon.i18n import translation
from chinchon.rules import Rules
from chinchon.server.client import Client, create_room, join_room
from chinchon.server.protocol import CHAT_MAX, NAME_MAX
from chinchon.server.views import translated
from chinchon.tui.rules_text import rules_paragraphs
from tests.server_support import Running, database_url, running_server

T = TypeVar("T")

FRIEND = "http://friend.example"
"""A web origin the module's server is configured to accept."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """A server for the module, with generous per-address limits and one extra origin."""
    folder = tmp_path_factory.mktemp("protocol")
    with running_server(
        database_url("sqlite", folder), origins=(FRIEND,), rooms_per_minute=10_000, lookups_per_minute=10_000
    ) as running:
        yield running


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a test's coroutine, with a generous limit."""
    return asyncio.run(asyncio.wait_for(coroutine, 120))


async def on_server(server: Running, code: str, coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine in the server's loop (its store belongs to that loop); ``code`` names an open room."""
    driver = server.manager.rooms[code].driver
    assert driver is not None
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coroutine, driver.get_loop()))


async def stored_events(server: Running, code: str) -> int:
    """How many entries the store's log holds for a room (of its current match and the latest before)."""
    row = await on_server(server, code, server.manager.store.load_room(code))
    assert row is not None
    return len(row.events)


@dataclass
class Table:
    """A room with its people's clients."""

    code: str
    tokens: list[str]
    clients: list[Client]

    def mover(self) -> Client:
        """The client whose seat is to move."""
        view = self.clients[0].view
        assert view is not None and view["game"] is not None
        seat: int = view["game"]["to_move"]
        return self.clients[seat]

    def other(self) -> Client:
        """A client whose seat is not to move."""
        return next(client for client in self.clients if client is not self.mover())

    async def close(self) -> None:
        for client in self.clients:
            await client.close()


async def table(server: Running, people: int = 2, start: bool = True, **create: Any) -> Table:
    """A room of ``people`` people, connected (and started: everyone has seen the first view)."""
    created = await create_room(server.base, name="Ana", seats=create.pop("seats", people), **create)
    tokens = [created["token"]]
    for k in range(1, people):
        tokens.append((await join_room(server.base, created["code"], f"P{k}"))["token"])
    clients = [Client(server.ws) for _ in tokens]
    for client, token in zip(clients, tokens, strict=True):
        assert (await client.connect(room=created["code"], token=token))["role"] == "seat"
    if start:
        await clients[0].send({"type": "start"})
        for client in clients:
            await client.wait(lambda m: m["type"] == "view" and m["status"] == "playing")
    return Table(created["code"], tokens, clients)


async def answer(client: Client, frame: dict[str, Any] | str | bytes, types: tuple[str, ...] = ("error",)) -> Any:
    """Send a frame as it is; the first answer of one of ``types`` after it."""
    start = len(client.messages)
    if isinstance(frame, bytes):
        await client._socket.send(frame)
    else:
        await client.send(frame)
    return await client.wait(lambda m: m["type"] in types, start)


async def alive(client: Client) -> None:
    """The connection is open and answers."""
    pong = await answer(client, {"type": "ping", "t": "still here"}, ("pong",))
    assert pong["t"] == "still here" and client.closed is None


def action(state: int, text: str, client_id: str = "x") -> dict[str, Any]:
    return {"type": "action", "id": client_id, "state": state, "action": text}


# -- bad frames ----------------------------------------------------------------------------


def test_bad_frames_are_typed_errors_that_change_nothing(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        client = t.other()
        room = server.manager.rooms[t.code]
        before, stored = room.n, await stored_events(server, t.code)
        cases: list[tuple[str | bytes | dict[str, Any], str, str]] = [
            ("{", "bad_json", "JSON"),
            ("", "bad_json", "JSON"),
            ("[1, 2]", "bad_message", ""),
            ('"hello"', "bad_message", ""),
            ({"type": "fly"}, "bad_message", "type"),
            ({"no": "type"}, "bad_message", "type"),
            ({"type": "action"}, "bad_message", "id"),
            ({"type": "action", "id": "a", "state": "x", "action": "draw stock"}, "bad_message", "state"),
            ({"type": "action", "id": "a", "state": -1, "action": "draw stock"}, "bad_message", "state"),
            ({"type": "action", "id": "", "state": 0, "action": "draw stock"}, "bad_message", "id"),
            ({"type": "hello", "version": 2, "room": 7}, "bad_message", "room"),
            # A client of version 1 (no version in its hello) or of another version is told which one to speak.
            ({"type": "hello", "room": "ABCDEFG"}, "bad_version", "version 2"),
            ({"type": "hello", "version": 1, "room": "ABCDEFG"}, "bad_version", "version 2"),
            ({"type": "kick", "seat": 99}, "bad_message", "seat"),
            ({"type": "ping", "extra": 1}, "bad_message", "extra"),
            ({"type": "chat", "text": "x" * 9000}, "too_large", "8192"),
            ("€" * 3000, "too_large", "8192"),
            (b"\x00\xff\xfe", "bad_message", ""),
            (json.dumps({"type": "ping"}).encode(), "bad_message", ""),
        ]
        for frame, code, named in cases:
            error = await answer(client, frame)
            assert error["code"] == code, (str(frame)[:100], error)
            # An action's error names its id (when it has one an action may have).
            given = frame.get("id") if isinstance(frame, dict) else None
            assert named in error["message"] and error["id"] == (given or None)
            assert client.closed is None
        await alive(client)
        assert room.n == before and await stored_events(server, t.code) == stored
        # A frame just at the limit is read.
        padding = 8192 - len(json.dumps({"type": "ping", "t": ""}))
        await answer(client, json.dumps({"type": "ping", "t": "x" * padding}), ("pong",))
        await t.close()

    run(go())


def test_every_error_that_answers_an_action_carries_its_id(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        room = server.manager.rooms[t.code]
        mover, other = t.mover(), t.other()
        n = room.n
        assert mover.view is not None
        card = mover.view["game"]["hand"][0]
        padded = {**action(n, "draw stock", "big"), "action": "draw stock" + " " * 9000}
        cases: list[tuple[Client, str | bytes | dict[str, Any], str, str]] = [
            (mover, action(n, "x" * 201, "long"), "long", "bad_message"),
            (mover, {**action(n, "draw stock", "typed"), "state": "x"}, "typed", "bad_message"),
            (mover, {**action(n, "draw stock", "extra"), "extra": 1}, "extra", "bad_message"),
            (mover, json.dumps(padded), "big", "too_large"),
            (mover, json.dumps(action(n, "draw stock", "binary")).encode(), "binary", "bad_message"),
            (mover, action(n, "fly away", "words"), "words", "bad_action"),
            (mover, action(n, f"discard {card}", "illegal"), "illegal", "illegal_action"),
            (mover, action(n - 1, "draw stock", "stale"), "stale", "stale_state"),
            (other, action(n, "draw stock", "turn"), "turn", "not_your_turn"),
        ]
        for client, frame, given, code in cases:
            error = await answer(client, frame)
            assert (error["code"], error["id"]) == (code, given), (str(frame)[:80], error)
        assert (await answer(mover, action(n, "draw stock", "twice"), ("ack",)))["id"] == "twice"
        error = await answer(mover, action(n + 1, "draw stock", "twice"))
        assert (error["code"], error["id"]) == ("duplicate", "twice")
        # Before hello, as a spectator, in a room that waits: still the action's id.
        async with websockets.connect(server.ws, open_timeout=10) as lone:
            await lone.send(json.dumps(action(0, "draw stock", "early")))
            error = json.loads(await asyncio.wait_for(lone.recv(), 10))
        assert (error["code"], error["id"]) == ("not_joined", "early")
        watcher = Client(server.ws)
        await watcher.connect(room=t.code)
        error = await answer(watcher, action(n + 1, "draw stock", "watching"))
        assert (error["code"], error["id"]) == ("not_seated", "watching")
        waiting = await table(server, start=False)
        error = await answer(waiting.clients[0], action(0, "draw stock", "early2"))
        assert (error["code"], error["id"]) == ("wrong_status", "early2")
        # Too fast (pings spend the connection's allowance): the refused actions each name theirs. The allowance
        # refills at 20 a second, so a stall of a loaded machine could let one through: it stops refilling here.
        seat = t.clients.index(other)
        limited_here = [c for c in server.app.state.hub.rooms[t.code] if c.seat == seat]
        assert len(limited_here) == 1
        limited_here[0].limiter.rate = 0.0
        for k in range(50):
            await other.send({"type": "ping", "t": k})
        for k in range(3):
            await other.send(action(n + 1, "draw stock", f"fast{k}"))
        await other.wait(lambda m: m.get("id") == "fast2")
        limited = [m for m in other.messages if m.get("code") == "rate_limited"]
        assert [m["id"] for m in limited if m["id"] is not None] == ["fast0", "fast1", "fast2"]
        await watcher.close()
        await waiting.close()
        await t.close()

    run(go())


def test_a_client_that_keeps_sending_garbage_is_closed_with_1008(server: Running) -> None:
    async def go() -> None:
        client = Client(server.ws)
        await client.connect()
        for k in range(19):
            await answer(client, "not json")
            assert client.closed is None, k
        await alive(client)  # a good message forgives the strikes
        for _ in range(20):
            await client.send("not json")
        with pytest.raises(ConnectionError):
            await client.wait(lambda m: False)
        assert client.closed == 1008
        assert sum(1 for m in client.messages if m["type"] == "error") == 39

    run(go())


def test_the_per_connection_rate_limit(server: Running) -> None:
    async def go() -> None:
        client = Client(server.ws)
        await client.connect()
        for k in range(50):
            await client.send({"type": "ping", "t": k})
        await client.wait(lambda m: (m["type"] == "pong" and m["t"] == 49) or m.get("code") == "rate_limited")
        await asyncio.sleep(0.5)
        limited = [m for m in client.messages if m.get("code") == "rate_limited"]
        pongs = [m for m in client.messages if m["type"] == "pong"]
        assert limited and len(pongs) >= 39 and len(pongs) + len(limited) == 50
        assert "slow down" in limited[0]["message"]
        await asyncio.sleep(1.5)
        await alive(client)
        await client.close()

    run(go())


# -- hello, seats and tokens ----------------------------------------------------------------


def test_tokens_rooms_and_roles(server: Running) -> None:
    async def go() -> None:
        a = await table(server, start=False)
        b = await table(server, start=False)
        client = Client(server.ws)
        assert (await client.connect(room=a.code, token="not-a-token"))["code"] == "bad_token"
        assert (await answer(client, {"type": "hello", "version": 2, "room": b.code, "token": a.tokens[0]}))[
            "code"
        ] == "bad_token"
        assert (await answer(client, {"type": "hello", "version": 2, "token": a.tokens[0]}))["code"] == "no_room"
        error = await answer(client, {"type": "hello", "version": 2, "room": "ZZZZZZZ", "token": a.tokens[0]})
        assert error["code"] == "no_room" and "ZZZZZZZ" in error["message"]
        assert (await answer(client, {"type": "start"}))["code"] == "not_joined"
        await alive(client)
        assert all(s.connections <= 1 for s in server.manager.rooms[b.code].seats)
        # The right token, typed with another case or dashes in the code, holds its seat.
        code = a.code[:3] + "-" + a.code[3:].lower()
        welcome = await answer(
            client, {"type": "hello", "version": 2, "room": code, "token": a.tokens[1]}, ("welcome",)
        )
        assert welcome["role"] == "seat" and welcome["seat"] == 1 and welcome["room"] == a.code
        # No message but the answers to its own creation and join holds a token.
        for c in (*a.clients, *b.clients, client):
            text = json.dumps(c.messages)
            assert not any(token in text for token in (*a.tokens, *b.tokens))
        for c in (client,):
            await c.close()
        await a.close()
        await b.close()

    run(go())


def test_a_failed_hello_keeps_the_seat_it_had(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        mover = t.mover()
        seat = t.clients.index(mover)
        room = server.manager.rooms[t.code]
        for hello in (
            {"type": "hello", "version": 2, "room": "ZZZZZZZ", "token": t.tokens[seat]},
            {"type": "hello", "version": 2, "room": t.code, "token": "wrong"},
            {"type": "hello", "version": 2, "token": t.tokens[seat]},
            {"type": "hello", "version": 2, "name": ""},
        ):
            assert (await answer(mover, hello))["code"] in ("no_room", "bad_token", "bad_name"), hello
            assert room.seats[seat].connections == 1
        assert (await mover.act("draw stock"))["type"] == "ack"
        await t.close()

    run(go())


def test_lone_surrogates_get_an_error_and_the_connection_stays(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        mover = t.mover()
        assert mover.view is not None
        state = mover.view["state"]
        for frame in (
            '{"type": "ping", "t": "\\ud800"}',
            '{"type": "action", "id": "\\udfff", "state": 0, "action": "draw stock"}',
            '{"type": "action", "id": "a", "state": 0, "action": "discard \\ud800"}',
            '{"type": "chat", "text": "hi \\ud800"}',
            '{"type": "hello", "version": 2, "room": "\\ud800\\ud800", "lang": "\\ud800"}',
        ):
            error = await answer(mover, frame)
            assert error["code"] in ("bad_json", "bad_message"), (frame, error)
            await alive(mover)
        # A pair of surrogates is one character, and fine.
        pong = await answer(mover, '{"type": "ping", "t": "\\ud83c\\udca1"}', ("pong",))
        assert pong["t"] == "🂡"
        assert server.manager.rooms[t.code].n == state
        assert (await mover.act("draw stock"))["type"] == "ack"
        await t.close()

    run(go())


def test_actions_out_of_turn_illegal_stale_and_twice(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        room = server.manager.rooms[t.code]
        mover, other = t.mover(), t.other()
        n = room.n
        stored = await stored_events(server, t.code)
        assert (await answer(other, action(n, "draw stock")))["code"] == "not_your_turn"
        # Illegal: the engine's reason is the message.
        assert mover.view is not None
        card = mover.view["game"]["hand"][0]
        probe = copy.deepcopy(room.match)
        assert probe is not None
        with pytest.raises(IllegalAction) as reason:
            probe.apply(parse_action(f"discard {card}"))
        error = await answer(mover, action(n, f"discard {card}", "i1"))
        assert error["code"] == "illegal_action" and error["id"] == "i1"
        assert error["message"] == translated("en", reason.value.template, **reason.value.params)
        error = await answer(mover, action(n, "fly away", "b1"))
        assert error["code"] == "bad_action" and "fly away" in error["message"]
        # Chosen in an older state.
        assert (await answer(mover, action(n - 1, "draw stock", "s1")))["code"] == "stale_state"
        assert room.n == n and await stored_events(server, t.code) == stored
        # Sent twice at once: applied once.
        frame = action(n, "draw stock", "d1")
        start = len(mover.messages)
        await mover.send(frame)
        await mover.send(frame)
        first = await mover.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == "d1", start)
        index = mover.messages.index(first)
        second = await mover.wait(lambda m: m["type"] in ("ack", "error") and m.get("id") == "d1", index + 1)
        assert first["type"] == "ack" and first["state"] == n + 1
        assert second["type"] == "error" and second["code"] == "duplicate"
        await mover.wait(lambda m: m["type"] == "view" and m["state"] == n + 1)
        # The same id again in the new state, with an action that is legal there: still refused.
        assert mover.view is not None
        legal = mover.view["game"]["legal_actions"][0]
        assert (await answer(mover, action(n + 1, legal, "d1")))["code"] == "duplicate"
        assert room.n == n + 1 and await stored_events(server, t.code) == stored + 1
        # Spectators and lobby clients have no seat to act for.
        watcher, lobby = Client(server.ws), Client(server.ws)
        await watcher.connect(room=t.code)
        await lobby.connect()
        for client in (watcher, lobby):
            assert (await answer(client, action(n + 1, legal)))["code"] == "not_seated"
            assert (await answer(client, {"type": "start"}))["code"] == "not_seated"
        assert room.n == n + 1
        for client in (watcher, lobby):
            await client.close()
        # And the room plays on: the legal action is taken.
        assert (await mover.act(legal))["type"] == "ack"
        await t.close()

    run(go())


def test_start_and_rematch_and_kick_refusals(server: Running) -> None:
    async def go() -> None:
        t = await table(server, start=False)
        creator, other = t.clients
        assert (await answer(other, {"type": "start"}))["code"] == "not_creator"
        assert (await answer(other, {"type": "kick", "seat": 0}))["code"] == "not_creator"
        assert (await answer(creator, {"type": "kick", "seat": 0}))["code"] == "bad_seat"
        assert (await answer(creator, {"type": "rematch"}))["code"] == "wrong_status"
        assert (await answer(creator, action(0, "draw stock")))["code"] == "wrong_status"
        assert server.manager.rooms[t.code].status == "waiting"
        await alive(creator)
        await t.close()

    run(go())


# -- names, chat, lobby, spectators ---------------------------------------------------------


def test_names(server: Running) -> None:
    async def go() -> None:
        async with httpx.AsyncClient(base_url=server.base) as http:
            for name in ("", "   ", "x" * (NAME_MAX + 1), "a\x00b", "tab\there", "a\u202eb", "a\u2028b"):
                body = json.dumps({"name": name})  # escaped: a lone surrogate travels as JSON text
                reply = await http.post("/api/rooms", content=body, headers={"Content-Type": "application/json"})
                assert reply.status_code == 400, name
                assert reply.json()["error"]["code"] == "bad_name", name
            # A lone surrogate is no text: the body is refused as it is read.
            reply = await http.post(
                "/api/rooms", content='{"name": "\\ud800"}', headers={"Content-Type": "application/json"}
            )
            assert reply.status_code == 400 and reply.json()["error"]["code"] == "bad_request"
            created = await http.post("/api/rooms", json={"name": "  " + "ñ" * NAME_MAX + " "})
            assert created.status_code == 201
            code = created.json()["code"]
            assert server.manager.rooms[code].seats[0].name == "ñ" * NAME_MAX
            joined = await http.post(f"/api/rooms/{code}/join", json={"name": "x" * 100})
            assert joined.status_code == 400 and joined.json()["error"]["code"] == "bad_name"
            assert server.manager.rooms[code].seats[1].kind == "open"
        lobby = Client(server.ws)
        assert (await lobby.connect(name="\x07bell"))["code"] == "bad_name"
        assert (await answer(lobby, {"type": "hello", "version": 2, "name": "Zoe"}, ("welcome",)))["role"] == "lobby"
        await lobby.close()

    run(go())


def test_chat_is_capped_limited_stored_and_sent_to_the_room(server: Running) -> None:
    async def go() -> None:
        t = await table(server, start=False)
        ana, bea = t.clients
        watcher = Client(server.ws)
        await watcher.connect(room=t.code)
        line = await answer(ana, {"type": "chat", "text": "  hola, ¿qué tal? 🂡  "}, ("chat",))
        assert line["text"] == "hola, ¿qué tal? 🂡" and line["name"] == "Ana" and line["seat"] == 0
        for client in (bea, watcher):
            await client.wait(lambda m: m["type"] == "chat" and m["text"] == "hola, ¿qué tal? 🂡")
        for text in ("", "   ", "x" * (CHAT_MAX + 1), "bell\x07"):
            assert (await answer(bea, {"type": "chat", "text": text}))["code"] == "chat_refused", text
        assert (await answer(watcher, {"type": "chat", "text": "hi"}))["code"] == "not_seated"
        assert (await answer(ana, {"type": "chat", "text": "two\nlines"}, ("chat",)))["text"] == "two\nlines"
        for k in range(3):
            assert (await answer(ana, {"type": "chat", "text": f"line {k}"}, ("chat",)))["seat"] == 0
        limited = await answer(ana, {"type": "chat", "text": "one too many"})
        assert limited["code"] == "rate_limited"
        lines = await on_server(server, t.code, server.manager.store.chat_lines(t.code))
        assert [line["text"] for line in lines] == ["hola, ¿qué tal? 🂡", "two\nlines", "line 0", "line 1", "line 2"]
        assert {line["name"] for line in lines} == {"Ana"}
        # The lobby's chat needs a name, and stays in the lobby.
        nameless, named = Client(server.ws), Client(server.ws)
        await nameless.connect()
        await named.connect(name="Zoe")
        assert (await answer(nameless, {"type": "chat", "text": "hi"}))["code"] == "chat_refused"
        text = f"lobby line for {t.code}"
        await answer(named, {"type": "chat", "text": text}, ("chat",))
        heard = await nameless.wait(lambda m: m["type"] == "chat" and m["text"] == text)
        assert heard["name"] == "Zoe" and heard["room"] is None
        assert not any(m["type"] == "chat" and m["text"] == text for m in ana.messages)
        stored = await on_server(server, t.code, server.manager.store.chat_lines(""))
        assert text in [line["text"] for line in stored]
        for client in (watcher, nameless, named):
            await client.close()
        await t.close()

    run(go())


def test_the_lobby_lists_public_rooms_and_updates_live(server: Running) -> None:
    async def go() -> None:
        lobby = Client(server.ws)
        await lobby.connect()
        await lobby.wait(lambda m: m["type"] == "lobby")
        hidden = await create_room(server.base, name="Ana", seats=2, public=False)
        shown = await create_room(server.base, name="Bea", seats=3, rules={"preset": "clasico"})

        def entry(message: dict[str, Any]) -> dict[str, Any] | None:
            if message["type"] != "lobby":
                return None
            assert all(room["code"] != hidden["code"] for room in message["rooms"])
            return next((room for room in message["rooms"] if room["code"] == shown["code"]), None)

        def lobby_says(test: Callable[[dict[str, Any]], bool]) -> Callable[[dict[str, Any]], bool]:
            return lambda m: (found := entry(m)) is not None and test(found)

        first = entry(await lobby.wait(lobby_says(lambda e: True)))
        assert first == {
            "code": shown["code"],
            "preset": "clasico",
            "options": [],
            "rules": Rules.preset("clasico").to_dict(),
            "seats": 3,
            "taken": 1,
            "status": "waiting",
            "names": ["Bea"],
            "turn_seconds": None,
            "rated": False,
        }
        await join_room(server.base, shown["code"], "Cai")
        await lobby.wait(lobby_says(lambda e: e["taken"] == 2 and e["names"] == ["Bea", "Cai"]))
        bea = Client(server.ws)
        await bea.connect(room=shown["code"], token=shown["token"])
        await bea.send({"type": "start"})
        await lobby.wait(lobby_says(lambda e: e["status"] == "playing" and e["taken"] == 3))
        async with httpx.AsyncClient(base_url=server.base) as http:
            listed = (await http.get("/api/lobby")).json()
        codes = [room["code"] for room in listed]
        assert shown["code"] in codes and hidden["code"] not in codes
        for client in (lobby, bea):
            await client.close()

    run(go())


def test_watchers_are_counted_for_everyone(server: Running) -> None:
    async def go() -> None:
        t = await table(server)
        first, second = Client(server.ws), Client(server.ws)
        assert (await first.connect(room=t.code))["role"] == "spectator"
        for client in (*t.clients, first):
            await client.wait(lambda m: m["type"] == "presence" and m["watchers"] == 1)
        await second.connect(room=t.code)
        for client in (*t.clients, first, second):
            await client.wait(lambda m: m["type"] == "presence" and m["watchers"] == 2)
        view = await second.wait(lambda m: m["type"] == "view")
        assert view["watchers"] == 2 and view["seat"] is None and view["game"]["hand"] == []
        await second.close()
        for client in (*t.clients, first):
            await client.wait(lambda m: m["type"] == "presence" and m["watchers"] == 1)
        # The next view counts one watcher too.
        start = len(t.clients[0].messages)
        assert (await t.mover().act("draw stock"))["type"] == "ack"
        view = await t.clients[0].wait(lambda m: m["type"] == "view", start)
        assert view["watchers"] == 1
        await first.close()
        await t.close()

    run(go())


# -- origins, languages ---------------------------------------------------------------------


def test_origins(server: Running) -> None:
    host = server.base.removeprefix("http://")  # 127.0.0.1:PORT
    # Foreign origins, among them those a substring or prefix check of the server's own or --origin's would let in.
    foreign = [
        "http://evil.example",
        "null",
        f"{server.base}.evil.example",
        f"http://{host}.evil.example",
        f"http://{host.split(':')[0]}.evil.example",
        f"http://x{host}",
        f"http://evil.example/{host}",
        f"http://evil.example/?{host}",
        f"http://{host}@evil.example",
        f"{server.base}/",
        f"{FRIEND}.evil.example",
        f"http://x{FRIEND.removeprefix('http://')}",
        f"http://evil.example/{FRIEND}",
        FRIEND.removesuffix(".example"),
    ]

    async def go() -> None:
        for stranger in foreign:
            with pytest.raises(websockets.InvalidStatus) as refused:
                await websockets.connect(server.ws, origin=websockets.Origin(stranger), open_timeout=10)
            assert refused.value.response.status_code == 403, stranger
        for origin in (server.base, FRIEND, None):
            socket = await websockets.connect(
                server.ws, origin=websockets.Origin(origin) if origin else None, open_timeout=10
            )
            await socket.send(json.dumps({"type": "ping", "t": 1}))
            assert json.loads(await socket.recv())["type"] == "pong"
            await socket.close()

    run(go())


def test_errors_come_in_the_seats_language(server: Running) -> None:
    spanish = translation("es")

    async def go() -> None:
        t = await table(server, start=True)
        client = Client(server.ws)
        welcome = await client.connect(room=t.code, token=t.tokens[t.clients.index(t.other())], lang="es")
        assert welcome["lang"] == "es"
        view = await client.wait(lambda m: m["type"] == "view")
        error = await answer(client, action(view["state"], "fly away"))
        wanted = spanish.gettext("not an action: {text}").format(text="'fly away'")
        assert error["code"] == "bad_action" and error["message"] == wanted
        assert wanted != "not an action: 'fly away'"  # the catalog translates it: the test can tell
        error = await answer(client, action(view["state"], "draw stock"))
        assert error["message"] == spanish.gettext("it is not your turn")
        assert (await answer(client, "{"))["message"] == spanish.gettext("the message is not JSON")
        # Over HTTP, the request's Accept-Language.
        async with httpx.AsyncClient(base_url=server.base) as http:
            reply = await http.post(
                "/api/rooms",
                json={"name": "Ana", "rules": {"preset": "nope"}},
                headers={"Accept-Language": "es-AR,es;q=0.9,en;q=0.5"},
            )
        message = reply.json()["error"]["message"]
        assert message.startswith(spanish.gettext("unknown preset {value}; known presets: {known}").split("{")[0])
        assert "'nope'" in message and not message.startswith("unknown")
        await client.close()
        await t.close()

    run(go())


# -- HTTP -------------------------------------------------------------------------------------


def test_rooms_over_http(server: Running) -> None:
    async def go() -> None:
        async with httpx.AsyncClient(base_url=server.base) as http:

            async def create(**payload: Any) -> httpx.Response:
                return await http.post("/api/rooms", json={"name": "Ana", **payload})

            for preset in Rules.presets():
                created = await create(rules={"preset": preset})
                assert created.status_code == 201, created.text
                body = created.json()
                assert set(body) == {"code", "seat", "token"} and body["seat"] == 0 and len(body["token"]) >= 43
                summary = (await http.get(f"/api/rooms/{body['code']}")).json()
                assert summary["preset"] == preset and summary["rules"] == Rules.preset(preset).to_dict()
            created = await create(rules={"preset": "clasico", "options": {"limit": 50}}, seats=3, turn_seconds=30)
            assert created.status_code == 201
            summary = (await http.get(f"/api/rooms/{created.json()['code']}")).json()
            assert summary["rules"] == Rules.preset("clasico", limit=50).to_dict() and summary["seats"] == 3
            assert summary["turn_seconds"] == 30

            # The rules in words, for "How to play": a room's preset and options, in a language.
            words = await http.get("/api/rules/es", params=[("preset", "clasico"), ("option", "limit=50")])
            assert words.status_code == 200
            rules = Rules.preset("clasico", limit=50)
            assert words.json()["rules"] == rules.to_dict()
            assert words.json()["paragraphs"] == rules_paragraphs(rules, "es")
            assert words.json()["values"] == {str(card): rules.value(card) for card in rules.cards()}
            unknown = await http.get("/api/rules/es", params=[("preset", "nope")])
            assert unknown.status_code == 400 and unknown.json()["error"]["code"] == "bad_rules"
            assert unknown.json()["error"]["message"] == translated(
                "es", "unknown preset {value}; known presets: {known}", value="'nope'", known=", ".join(Rules.presets())
            )

            async def refused(status: int, code: str, named: str, **payload: Any) -> None:
                reply = await create(**payload)
                assert reply.status_code == status, (payload, reply.text)
                error = reply.json()["error"]
                assert error["code"] == code and named in error["message"], (payload, error)

            await refused(400, "bad_rules", "nope", rules={"preset": "nope"})
            await refused(400, "bad_rules", "colour", rules={"preset": "clasico", "options": {"colour": "red"}})
            await refused(400, "bad_rules", "limit", rules={"options": {"limit": -3}})
            await refused(400, "bad_rules", "limit", rules={"options": {"limit": "many"}})
            await refused(400, "bad_rules", "5", seats=5)  # fournier seats 2 to 4
            await refused(400, "bad_request", "seats", seats=9)
            await refused(400, "bad_request", "turn_seconds", turn_seconds=1)
            await refused(400, "bad_request", "godlike", bot_level="godlike")
            await refused(400, "bad_request", "extra", extra=1)
            malformed = await http.post("/api/rooms", content=b"{", headers={"Content-Type": "application/json"})
            assert malformed.status_code == 400 and malformed.json()["error"]["code"] == "bad_request"
            huge = await create(lang="x" * 9000)
            assert huge.status_code == 400 and huge.json()["error"]["code"] == "too_large"

            full = (await create(seats=2)).json()
            assert (await http.post(f"/api/rooms/{full['code']}/join", json={"name": "Bea"})).status_code == 201
            joined = await http.post(f"/api/rooms/{full['code']}/join", json={"name": "Cai"})
            assert joined.status_code == 409 and joined.json()["error"]["code"] == "room_full"
            started = (await create(seats=3)).json()
            client = Client(server.ws)
            await client.connect(room=started["code"], token=started["token"])
            await client.send({"type": "start"})
            await client.wait(lambda m: m["type"] == "view" and m["status"] == "playing")
            joined = await http.post(f"/api/rooms/{started['code']}/join", json={"name": "Cai"})
            assert joined.status_code == 409 and joined.json()["error"]["code"] == "wrong_status"
            for path in ("/api/rooms/ZZZZZZZ", "/api/rooms/ZZZZZZZ/join"):
                reply = await (http.get(path) if "join" not in path else http.post(path, json={"name": "Cai"}))
                assert reply.status_code == 404 and reply.json()["error"]["code"] == "no_room"
            record = await http.get(f"/api/rooms/{started['code']}/record")
            assert record.status_code == 404 and record.json()["error"]["code"] == "not_over"
            await client.close()

    run(go())


def test_health_and_metrics_follow_play(server: Running) -> None:
    def metrics(page: str) -> dict[str, float]:
        values: dict[str, float] = {}
        for family in text_string_to_metric_families(page):
            for sample in family.samples:
                labels = ",".join(f"{k}={v}" for k, v in sorted(sample.labels.items()))
                values[sample.name + (f"{{{labels}}}" if labels else "")] = sample.value
        return values

    async def go() -> None:
        async with httpx.AsyncClient(base_url=server.base) as http:
            health = (await http.get("/healthz")).json()
            assert health["status"] == "ok" and health["rooms"] >= 0
            page = await http.get("/metrics")
            assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
            before = metrics(page.text)
            t = await table(server)
            assert (await t.mover().act("draw stock"))["type"] == "ack"
            assert (await answer(t.clients[0], "{"))["code"] == "bad_json"
            after = metrics((await http.get("/metrics")).text)
            assert after["chinchon_rooms_open"] >= before["chinchon_rooms_open"] + 1
            assert after["chinchon_actions_total"] >= before.get("chinchon_actions_total", 0) + 1
            assert (
                after["chinchon_errors_total{code=bad_json}"]
                >= before.get("chinchon_errors_total{code=bad_json}", 0) + 1
            )
            assert after["chinchon_connections"] >= 2
            assert after["chinchon_action_round_trip_seconds_count"] >= 1
            assert (await http.get("/healthz")).json()["connections"] >= 2
            await t.close()

    run(go())


# -- per-address limits -----------------------------------------------------------------------


def test_per_address_limits_on_creation_and_lookups(tmp_path: Path) -> None:
    with running_server(database_url("sqlite", tmp_path), rooms_per_minute=3, lookups_per_minute=4) as limited:

        async def go() -> None:
            async with httpx.AsyncClient(base_url=limited.base) as http:
                codes = []
                for _ in range(3):
                    created = await http.post("/api/rooms", json={"name": "Ana"})
                    assert created.status_code == 201
                    codes.append(created.json()["code"])
                refused = await http.post("/api/rooms", json={"name": "Ana"})
                assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
                assert len(limited.manager.rooms) == 3
                looked = [
                    await http.get(f"/api/rooms/{codes[0]}"),
                    await http.get("/api/rooms/ZZZZZZZ"),
                    await http.post(f"/api/rooms/{codes[1]}/join", json={"name": "Bea"}),
                    await http.get(f"/api/rooms/{codes[0]}/record"),
                ]
                assert [reply.status_code for reply in looked] == [200, 404, 201, 404]
                for request in (
                    http.get(f"/api/rooms/{codes[0]}"),
                    http.post(f"/api/rooms/{codes[2]}/join", json={"name": "Cai"}),
                ):
                    reply = await request
                    assert reply.status_code == 429 and reply.json()["error"]["code"] == "rate_limited"
                assert limited.manager.rooms[codes[2]].seats[1].kind == "open"
                # The limits are per address and per kind: the lobby and health stay open.
                assert (await http.get("/api/lobby")).status_code == 200
                assert (await http.get("/healthz")).status_code == 200

        run(go())
