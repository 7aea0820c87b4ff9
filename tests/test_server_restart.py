"""A real ``chinchon serve`` process killed (SIGKILL) or stopped (SIGTERM) mid-match and started again.

Rooms in every phase (waiting, draw, discard, showdown, a re-entry question,
the first turn of a new deal, the first turn of a rematch, over) are rebuilt from the store: clients
reconnect with their tokens and find the same hands, state numbers and legal
actions, then play every room to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from chinchon.record import replay
from chinchon.server.client import Client, create_room, join_room
from tests.server_support import database_url, free_port, start_match

FAST = {"preset": "fournier", "options": {"close_limit": 10, "limit": 20, "reentry": "once"}}
"""Rules that reach closes, showdowns and re-entry questions within a few deals."""

WAIT = 120.0

View = dict[str, Any]


@dataclass
class Process:
    """A ``chinchon serve`` process and its address."""

    popen: subprocess.Popen[bytes]
    base: str
    ws: str
    log: Path


def start(db: str, folder: Path, port: int, number: int, level: str = "warning") -> Process:
    """``chinchon serve`` on a port, once ``/healthz`` answers."""
    log = folder / f"serve{number}.log"
    env = {**os.environ, "CHINCHON_DATA_DIR": str(folder)}
    with log.open("wb") as out:
        popen = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "chinchon",
                "serve",
                "--port",
                str(port),
                "--db",
                db,
                "--grace",
                "60",
                "--bot-workers",
                "1",
                "--bot-delay",
                "0",
                "--log-level",
                level,
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        if popen.poll() is not None:
            raise RuntimeError(f"the server exited with {popen.returncode}: {log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                break
        if time.monotonic() > deadline:
            popen.kill()
            raise RuntimeError(f"the server did not answer: {log.read_text()}")
        time.sleep(0.1)
    return Process(popen, base, f"ws://127.0.0.1:{port}/ws", log)


def children(pid: int) -> list[tuple[int, str]]:
    """The processes whose parent is ``pid``, each as its number and start time (Linux's /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append((int(stat.parent.name), fields[19]))
    return found


def running(process: tuple[int, str]) -> bool:
    """Whether the process is still there (the same one: its number is not reused) and not a zombie."""
    pid, started = process
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] != "Z"


@contextlib.contextmanager
def serving(db: str, folder: Path, port: int, number: int, level: str = "warning") -> Iterator[Process]:
    """A server process, killed on leaving if still running."""
    process = start(db, folder, port, number, level)
    try:
        yield process
    finally:
        if process.popen.poll() is None:
            process.popen.kill()
        process.popen.wait(30)


@dataclass
class Table:
    """A room of the test: its people's tokens and clients."""

    name: str
    code: str
    tokens: dict[int, str]
    clients: dict[int, Client] = field(default_factory=dict)
    saved: dict[int, View] = field(default_factory=dict)


def people_turn(table: Table) -> Client | None:
    """The client to move, once every client has the same latest state."""
    views = [c.view for c in table.clients.values()]
    if any(v is None for v in views) or len({v["state"] for v in views if v is not None}) != 1:
        return None
    for client in table.clients.values():
        if client.my_turn():
            return client
    return None


async def settled(table: Table, timeout: float = WAIT) -> Client | None:
    """The person to move once the room waits for one (``None``: the match is over)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        client = people_turn(table)
        if client is not None:
            return client
        first = next(iter(table.clients.values()))
        if first.view is not None and first.view["status"] == "over" and people_turn_views_equal(table):
            return None
        await asyncio.sleep(0.05)
    raise TimeoutError(f"room {table.name} never waited for a person")


def people_turn_views_equal(table: Table) -> bool:
    states = {c.view["state"] for c in table.clients.values() if c.view is not None}
    return len(states) == 1


async def drive(table: Table, stop: Callable[[View], bool], rng: random.Random) -> None:
    """Play the people (a close whenever one is legal, else a random action) until ``stop`` holds.

    A match that ends first is followed by a rematch, so that every phase is reached eventually.
    """
    for _ in range(5000):
        client = await settled(table)
        if client is None:
            await start_match(table.clients[0], "rematch", WAIT)
            continue
        assert client.view is not None
        if stop(client.view):
            return
        legal = client.view["game"]["legal_actions"]
        closes = [a for a in legal if a.startswith("close")]
        answer = await client.act(closes[0] if closes else rng.choice(legal))
        if answer.get("code") == "rate_limited":
            # A room played out to its rematch sends more than a person's rate a second: wait, as a client would.
            await asyncio.sleep(1)
            continue
        assert answer["type"] == "ack", answer
        state: int = answer["state"]

        def caught_up(m: View, state: int = state) -> bool:
            return bool(m["type"] == "view" and m["state"] >= state)

        for other in table.clients.values():
            await other.wait(caught_up, 0, WAIT)
    raise AssertionError(f"room {table.name} never reached its phase")


def phase(view: View) -> str:
    game = view["game"]
    if game["reentry_pending"]:
        return "reentry"
    return str(game["phase"])


def between_deals(view: View) -> bool:
    """The first turn of a deal after another: its result is kept, none of the people has played yet."""
    game = view["game"]
    return bool(
        phase(view) == "draw"
        and game["deal_number"] >= 2
        and game["previous_result"] is not None
        and all(seat == 2 for seat, _ in game["history"])
    )


STOPS: dict[str, Callable[[View], bool]] = {
    "draw": lambda v: phase(v) == "draw" and v["game"]["deal_number"] == 1,
    "discard": lambda v: phase(v) == "discard",
    "showdown": lambda v: phase(v) == "showdown" and v["game"]["closer"] != v["seat"],
    "reentry": lambda v: phase(v) == "reentry",
    "between": between_deals,
    # Nobody has moved in a second match yet: its rematch is the only event the rebuilt room keeps.
    "rematch": lambda v: v["match"] >= 2 and v["game"]["deal_number"] == 1 and not v["game"]["history"],
}


async def open_tables(server: Process, kinds: list[str]) -> list[Table]:
    """A room of two people and an easy bot for each kind; every room but "waiting" started."""
    tables = []
    for kind in kinds:
        room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner", rules=FAST)
        joined = await join_room(server.base, room["code"], "Bea")
        table = Table(kind, room["code"], {0: room["token"], 1: joined["token"]})
        for seat, token in table.tokens.items():
            client = Client(server.ws)
            welcome = await client.connect(room=table.code, token=token)
            assert welcome["type"] == "welcome" and welcome["seat"] == seat, welcome
            table.clients[seat] = client
        if kind != "waiting":
            creator = table.clients[0]
            at = len(creator.messages)
            await creator.send({"type": "start"})
            await creator.wait(lambda m: m["type"] == "view" and m["status"] == "playing", at, WAIT)
        tables.append(table)
    return tables


async def reach(tables: list[Table], seed: int) -> None:
    """Drive every room to its phase (the finished one to its end)."""

    async def one(table: Table, rng: random.Random) -> None:
        if table.name == "waiting":
            return
        if table.name == "over":

            def done() -> bool:
                return all(c.view is not None and c.view["status"] == "over" for c in table.clients.values())

            await asyncio.gather(*(c.play_randomly(rng, done) for c in table.clients.values()))
            return
        await drive(table, STOPS[table.name], rng)

    await asyncio.wait_for(asyncio.gather(*(one(t, random.Random(seed + i)) for i, t in enumerate(tables))), 4 * WAIT)
    for table in tables:
        for seat, client in table.clients.items():
            assert client.view is not None
            table.saved[seat] = client.view


def public(event: View) -> tuple[Any, ...]:
    """An event message as a returning client is told it again (the turn's deadline is the room's timer's)."""
    return tuple((key, value) for key, value in sorted(event.items()) if key != "turn_deadline")


async def replayed(tables: list[Table], server: Process) -> dict[str, list[tuple[Any, ...]]]:
    """What a ``hello`` with a ``last_event`` 200 events back (or 0) gets again in each room (seat 1's token, on a
    connection of its own): every event since."""
    found = {}
    for table in tables:
        state = max(c.last_event for c in table.clients.values())
        client = Client(server.ws)
        since = max(0, state - 200)
        welcome = await client.connect(room=table.code, token=table.tokens[1], last_event=since)
        assert welcome["type"] == "welcome", welcome

        def told(m: View, state: int = state) -> bool:
            return bool(m["type"] == "view" or (m["type"], m.get("n")) == ("event", state))

        last = await client.wait(told, 0, WAIT)
        events = [m for m in client.messages if m["type"] == "event"]
        assert last["type"] == "event", table.name
        assert [e["n"] for e in events] == list(range(since + 1, state + 1)), table.name
        found[table.name] = [public(e) for e in events]
        await client.close()
    return found


async def reconnect(tables: list[Table], server: Process) -> None:
    """New clients for every seat, with their tokens; each gets its view back.

    Seat 0 says it has seen a few events less than it had: the rebuilt room sends it the ones it
    missed, the same as were sent before the restart (the latest 256 events, across matches).
    """
    for table in tables:
        for seat, old in list(table.clients.items()):
            seen = {e["n"]: public(e) for e in old.messages if e["type"] == "event"}
            starts = [
                e["n"] for e in old.messages if e["type"] == "event" and e["event"]["kind"] in ("start", "rematch")
            ]
            kept = old.view
            if seat == 0 and starts and seen:
                # The state it kept: a view it had a few events before (its client's copies of each state).
                goal = max(starts[-1] - 2, old.last_event - 3, min(seen) - 1)
                views = [m for i, m in enumerate(old.messages) if i in old.folded and m["state"] <= goal]
                kept = views[-1] if views else kept
            assert kept is not None
            last = kept["state"]
            client = Client(server.ws, view=kept)
            welcome = await client.connect(room=table.code, token=table.tokens[seat], last_event=last)
            assert welcome["type"] == "welcome" and welcome["seat"] == seat, (table.name, welcome)
            await client.wait_state(old.last_event, WAIT)
            missed = [public(e) for e in client.messages if e["type"] == "event"]
            assert missed == [seen[n] for n in range(last + 1, old.last_event + 1)], table.name
            assert client.gaps == 0 and client.view is not None and old.view is not None
            # Folded from the events told again, the state is the one the client had (presence aside).
            assert client.view["game"] == old.view["game"] and client.view["state"] == old.view["state"], table.name
            table.clients[seat] = client


KEYS = ("hand", "legal_actions", "to_move", "phase", "scores", "discard_pile", "history", "reentry_pending")


def same_position(table: Table) -> None:
    """Every reconnected seat sees what it saw before the restart."""
    for seat, client in table.clients.items():
        before, after = table.saved[seat], client.view
        assert after is not None
        assert after["state"] == before["state"], table.name
        assert after["match"] == before["match"], table.name
        assert after["status"] == before["status"], table.name
        if before["game"] is None:
            assert after["game"] is None, table.name
            continue
        for key in KEYS:
            assert after["game"][key] == before["game"][key], (table.name, key)
        assert [s["name"] for s in after["seats"]] == [s["name"] for s in before["seats"]]


async def play_to_the_end(tables: list[Table], server: Process, seed: int) -> None:
    """Every unfinished room played on to the end of its match; the waiting one started first."""

    async def one(table: Table, rng: random.Random) -> None:
        if table.name == "waiting":
            creator = table.clients[0]
            at = len(creator.messages)
            await creator.send({"type": "start"})
            await creator.wait(lambda m: m["type"] == "view" and m["status"] == "playing", at, WAIT)

        def done() -> bool:
            return all(c.view is not None and c.view["status"] == "over" for c in table.clients.values())

        await asyncio.gather(*(c.play_randomly(rng, done) for c in table.clients.values()))

    await asyncio.wait_for(asyncio.gather(*(one(t, random.Random(seed + i)) for i, t in enumerate(tables))), 4 * WAIT)
    async with httpx.AsyncClient() as http:
        for table in tables:
            final = table.clients[0].view
            assert final is not None and final["game"]["match_over"]
            record = (await http.get(f"{server.base}/api/rooms/{table.code}/record")).json()
            match = replay(record)
            assert match.over and match.winner == final["game"]["winner"], table.name
            assert match.scores == final["game"]["scores"], table.name


async def play_on(tables: list[Table]) -> None:
    """One more action of a person in every room (the waiting one started first)."""
    for table in tables:
        if table.name == "waiting":
            creator = table.clients[0]
            at = len(creator.messages)
            await creator.send({"type": "start"})
            await creator.wait(lambda m: m["type"] == "view" and m["status"] == "playing", at, WAIT)
        client = await settled(table)
        assert client is not None and client.view is not None
        state = client.view["state"]
        answer = await client.act(client.view["game"]["legal_actions"][0])
        assert answer["type"] == "ack" and answer["state"] > state, answer


async def close_all(tables: list[Table]) -> None:
    for table in tables:
        for client in table.clients.values():
            await client.close()


KINDS = ["waiting", "draw", "discard", "showdown", "reentry", "between", "rematch", "over"]


def test_sigkill_mid_match_rebuilds_every_room(db: str, tmp_path: Path) -> None:
    port = free_port()

    with serving(db, tmp_path, port, 1) as first:

        async def before() -> tuple[list[Table], dict[str, list[tuple[Any, ...]]]]:
            tables = await open_tables(first, KINDS)
            await reach(tables, 11)
            for table in tables:
                for view in table.saved.values():
                    expected = {"waiting": "waiting", "over": "over"}.get(table.name, "playing")
                    assert view["status"] == expected, table.name
                    if table.name not in ("waiting", "over"):
                        assert STOPS[table.name](table.clients[view["game"]["to_move"]].view or {}), table.name
                        assert view["game"]["to_move"] in (0, 1)
            # The clients' sockets die with the process: nothing is closed politely.
            return tables, await replayed(tables, first)

        tables, replays = asyncio.run(before())
        # Events of more than one match are asked for again (the first match's end, its rematch).
        kinds = {dict(e)["event"]["kind"] for e in replays["rematch"]}
        assert {"match_ended", "rematch", "match_started", "drew", "discarded"} <= kinds, kinds
        helpers = children(first.popen.pid)
        assert helpers, "the bots have played, in no worker process"
        first.popen.send_signal(signal.SIGKILL)
        assert first.popen.wait(30) == -signal.SIGKILL
        # The bots' workers end with the server: a killed server leaves no process behind.
        deadline = time.monotonic() + 20
        while any(running(process) for process in helpers):
            assert time.monotonic() < deadline, f"the killed server's processes live on: {helpers}"
            time.sleep(0.1)

    with serving(db, tmp_path, port, 2) as second:

        async def after() -> None:
            # The same hello gets the same events after the restart as before it.
            assert await replayed(tables, second) == replays
            await reconnect(tables, second)
            for table in tables:
                same_position(table)
            await play_to_the_end(tables, second, 23)
            await close_all(tables)

        asyncio.run(after())


def test_sigterm_drains_then_the_next_start_picks_every_room_up(tmp_path: Path) -> None:
    # On SQLite only (the SIGKILL test covers both databases): the file stays within a minute.
    db = database_url("sqlite", tmp_path)
    port = free_port()
    with serving(db, tmp_path, port, 1, "info") as first:

        async def before() -> list[Table]:
            tables = await open_tables(first, ["waiting", "discard", "showdown"])
            await reach(tables, 5)
            first.popen.send_signal(signal.SIGTERM)
            for table in tables:
                for client in table.clients.values():
                    await client.wait(lambda m: m["type"] == "closing", 0, WAIT)
                    deadline = time.monotonic() + WAIT
                    while client.closed is None and time.monotonic() < deadline:
                        await asyncio.sleep(0.05)
                    assert client.closed == 1012
            return tables

        tables = asyncio.run(before())
        # Uvicorn raises the signal again once it has shut down: the exit status says SIGTERM.
        assert first.popen.wait(60) in (0, -signal.SIGTERM)
        log = first.log.read_text()
        assert "server stopped" in log and "Traceback" not in log and " error " not in log, log

    with serving(db, tmp_path, port, 2) as second:

        async def after() -> None:
            await reconnect(tables, second)
            for table in tables:
                same_position(table)
            await play_on(tables)
            await close_all(tables)

        asyncio.run(after())
