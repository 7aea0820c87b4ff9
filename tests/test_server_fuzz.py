"""Thousands of random and mutated frames sent to a live server; then every room still plays on, unchanged.

A seeded generator makes the frames: random bytes and text, random JSON,
deep nesting, oversized frames, and the protocol's messages with mutated
fields (wrong types, huge and negative numbers, surrogates, long strings,
random action texts, random tokens and codes). Seat holders, spectators and
lobby clients send them, and come back when the server closes them (1008).
Then: the server is healthy and logged no error, each room's log grew only
by the actions it acknowledged, and the people finish a match in each room.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import string
import urllib.parse
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from chinchon.server.client import Client, create_room, join_room
from tests.server_support import ACTED, Running, database_url, has_options, running_server
from tests.test_server_leak import Player

SEED = 26
FRAMES_PER_CLIENT = 220
PAUSE = 0.045
"""Between frames of one client: under its 20 messages a second, so that most frames reach the parser."""

TYPES = ["hello", "action", "chat", "ping", "start", "rematch", "kick"]
"""The message types the fuzz uses (``leave`` would give a seat to a bot: a real change)."""


class Collect(logging.Handler):
    """Keeps the records of errors."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def errors() -> Iterator[Collect]:
    """The errors the server logs (it runs in a thread of this process)."""
    handler = Collect()
    loggers = [logging.getLogger(name) for name in ("chinchon.server", "uvicorn.error", "uvicorn")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


# -- the generator ----------------------------------------------------------------------------


class Fuzz:
    """Random values and frames from one seeded generator."""

    def __init__(self, rng: random.Random, codes: list[str], tokens: list[str]) -> None:
        self.rng = rng
        self.codes = codes
        self.tokens = tokens

    def text(self, most: int = 40) -> str:
        rng = self.rng
        pools = [
            string.printable,
            "áéíóúñ¿¡€ ♦♥♠♣🂡🃏",
            "".join(chr(c) for c in range(0, 32)),
            "\u202e\u200b\u2028\ufeff\uffff",
            "".join(chr(rng.randrange(0x80, 0x2FFFF)) for _ in range(20)),
        ]
        pool = rng.choice(pools)
        size = rng.choice([0, 1, rng.randrange(most + 1), most])
        return "".join(rng.choice(pool) for _ in range(size))

    def number(self) -> Any:
        rng = self.rng
        return rng.choice(
            [
                0,
                -1,
                rng.randrange(-10, 300),
                2**31,
                2**63,
                2**70,
                -(2**64),
                1e308,
                -0.0,
                rng.random(),
                1.5,
                float(rng.randrange(10)),
            ]
        )

    def value(self, depth: int = 0) -> Any:
        rng = self.rng
        pick = rng.randrange(9 if depth < 3 else 6)
        if pick == 0:
            return None
        if pick == 1:
            return rng.choice([True, False])
        if pick == 2:
            return self.number()
        if pick in (3, 4, 5):
            return self.text()
        if pick in (6, 7):
            return [self.value(depth + 1) for _ in range(rng.randrange(4))]
        return {self.text(8): self.value(depth + 1) for _ in range(rng.randrange(4))}

    def action_text(self, legal: list[str]) -> str:
        rng = self.rng
        cards = ["7♥", "J♦", "10♣", "A♠", "7h", "13♦", "0♥", "🃏", "sota de copas", "*", "♥", ""]
        choices = [
            lambda: rng.choice(legal) if legal else "draw stock",
            lambda: "draw " + rng.choice(["stock", "discard", "pile", "", "stock stock"]),
            lambda: "discard " + rng.choice(cards),
            lambda: "close " + " ".join(rng.choice(cards) for _ in range(rng.randrange(6))),
            lambda: "close 7♥ [" + " ".join(rng.choice(cards) for _ in range(3)) + "] [",
            lambda: "layoff " + rng.choice(cards) + " " + str(self.number()),
            lambda: rng.choice(["show", "pass", "reenter yes", "reenter maybe", "show []", "show [7♥"]),
            lambda: self.text(200),
        ]
        return str(rng.choice(choices)())

    def code(self) -> Any:
        rng = self.rng
        real = rng.choice(self.codes)
        return rng.choice(
            [real, real.lower(), real[:3] + "-" + real[3:], real[:-1], "ZZZZZZZ", self.text(20), self.value()]
        )

    def token(self) -> Any:
        rng = self.rng
        real = rng.choice(self.tokens)
        return rng.choice([real, real[:-1], real + "x", real.upper(), "", self.text(60), "x" * 5000, self.value()])

    def message(self, view: dict[str, Any] | None) -> dict[str, Any]:
        """A message of the protocol, some of its fields given wrong."""
        rng = self.rng
        state = view["state"] if view else 0
        legal = list(view["game"]["legal_actions"]) if view and view.get("game") else []
        kind = rng.choice(TYPES)
        fields: dict[str, Any] = {"type": kind}
        if kind == "hello":
            for key, make in (
                ("room", self.code),
                ("token", self.token),
                ("last_event", lambda: rng.choice([state, state - 3, -1, self.number()])),
                ("lang", lambda: rng.choice(["es", "ar", "xx", "es-AR", self.text(10)])),
                ("name", lambda: self.text(30)),
            ):
                if rng.random() < 0.5:
                    fields[key] = make()
        elif kind == "action":
            fields["id"] = rng.choice([f"f{rng.randrange(10**6)}", "x" * 65, "", self.text(10), "\ud800"])
            fields["state"] = rng.choice([state, state, state + 1, max(0, state - 1), self.number()])
            fields["action"] = self.action_text(legal)
        elif kind == "chat":
            fields["text"] = rng.choice([self.text(40), self.text(400), "x" * 1300, "hola"])
        elif kind == "ping":
            fields["t"] = self.value()
        elif kind == "kick":
            fields["seat"] = rng.choice([0, 1, 2, 7, 8, -1, self.number(), self.text(3)])
        mutation = rng.randrange(6)
        if mutation == 0 and len(fields) > 1:
            del fields[rng.choice([k for k in fields if k != "type"])]
        elif mutation == 1:
            fields[self.text(10) or "extra"] = self.value()
        elif mutation == 2:
            fields[rng.choice(list(fields))] = self.value()
        elif mutation == 3:
            fields["type"] = rng.choice([kind.upper(), kind + " ", self.text(8), self.value()])
        return fields

    def frame(self, view: dict[str, Any] | None) -> str | bytes:
        """One frame: mostly mutated messages, else garbage of some kind (surrogates only as JSON escapes)."""
        text = self._frame(view)
        if isinstance(text, str):
            return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return text

    def _frame(self, view: dict[str, Any] | None) -> str | bytes:
        rng = self.rng
        pick = rng.randrange(20)
        if pick == 0:
            return bytes(rng.randrange(256) for _ in range(rng.randrange(200)))
        if pick == 1:
            return self.text(300)
        if pick == 2:
            return json.dumps(self.value(), ensure_ascii=rng.random() < 0.5)
        # (A surrogate left in the text becomes U+FFFD; ``ensure_ascii`` keeps it as an escape.)
        if pick == 3:
            depth = rng.choice([50, 500, 3000, 4090])
            return rng.choice(["[" * depth + "]" * depth, '{"a":' * depth + "1" + "}" * depth, "[" * depth])
        if pick == 4:
            return json.dumps({"type": "chat", "text": "x" * rng.choice([8200, 20000, 100_000])})
        if pick == 5:
            text = json.dumps(self.message(view))
            cut = rng.randrange(len(text) + 1)
            return text[:cut] + rng.choice(["", "}", "\\", '"', "\\ud800", "\x00"]) + text[cut:]
        return json.dumps(self.message(view), ensure_ascii=rng.random() < 0.7)


# -- the clients that fuzz --------------------------------------------------------------------


@dataclass
class Slot:
    """A fuzzing client: its hello (a seat, a spectator or the lobby), what it sent and saw."""

    hello: dict[str, Any]
    sent: int = 0
    closes: list[int] = field(default_factory=list)
    acks: Counter[str | None] = field(default_factory=Counter)
    errors: int = 0

    def count(self, messages: list[dict[str, Any]]) -> None:
        """Count the acks (by the room the client was in then) and errors of one connection's messages."""
        room = None
        for message in messages:
            if message["type"] == "welcome":
                room = message["room"]
            elif message["type"] == "ack":
                self.acks[room] += 1
            elif message["type"] == "error":
                self.errors += 1


async def fuzz(server: Running, slot: Slot, fuzzer: Fuzz) -> None:
    client = Client(server.ws)
    await client.connect(**slot.hello)
    for _ in range(FRAMES_PER_CLIENT):
        frame = fuzzer.frame(client.view)
        try:
            if isinstance(frame, bytes):
                await client._socket.send(frame)
            else:
                await client.send(frame)
        except websockets.ConnectionClosed:
            pass
        slot.sent += 1
        await asyncio.sleep(PAUSE)
        if client.closed is not None:
            slot.closes.append(client.closed)
            slot.count(client.messages)
            client = Client(server.ws)
            await client.connect(**slot.hello)
    await asyncio.sleep(0.5)  # the last answers
    await client.close()
    slot.count(client.messages)


async def fuzz_http(base: str, fuzzer: Fuzz, count: int) -> list[int]:
    """Random requests to the HTTP routes; their statuses (each an error body or an answer)."""
    rng = fuzzer.rng
    statuses = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for _ in range(count):
            body: Any = {"name": rng.choice(["Ana", fuzzer.text(30)])}
            if rng.random() < 0.7:
                body["rules"] = rng.choice(
                    [
                        {"preset": rng.choice(["fournier", "clasico", "online", "polaco", fuzzer.text(10)])},
                        {"options": {rng.choice(["limit", "decks", "jokers", "values", "x"]): fuzzer.value()}},
                        {"preset": fuzzer.value(), "options": fuzzer.value()},
                        fuzzer.value(),
                    ]
                )
            for key in ("seats", "bot_level", "public", "turn_seconds", "lang"):
                if rng.random() < 0.2:
                    body[key] = fuzzer.value()
            if rng.random() < 0.1:
                body = fuzzer.value()
            # (A slash, "." or ".." would make another path: not one of the server's routes.)
            typed = str(fuzzer.code())[:40].encode("utf-8", "replace").decode().replace("/", "").strip(".")
            code = urllib.parse.quote(typed or "Z", safe="")
            choice = rng.randrange(4)
            # Mostly JSON; now and then another type (refused with 415) or none.
            kind = rng.choice(["application/json"] * 8 + ["text/plain", None])
            headers = {"Content-Type": kind} if kind else {}
            if choice == 0:
                reply = await http.post("/api/rooms", content=json.dumps(body), headers=headers)
            elif choice == 1:
                reply = await http.post(f"/api/rooms/{code}/join", content=json.dumps(body), headers=headers)
            elif choice == 2:
                reply = await http.get(f"/api/rooms/{code}")
            else:
                reply = await http.get(f"/api/rooms/{code}/record")
            statuses.append(reply.status_code)
            assert reply.status_code in (200, 201, 400, 404, 409, 429, 415), (body, code, reply.text)
            assert (reply.status_code == 415) == (choice < 2 and kind != "application/json"), (kind, reply.text)
            if reply.status_code >= 400:
                error = reply.json().get("error")
                assert error and error["code"] and error["message"], (reply.request.url, reply.text)
    return statuses


# -- the test ---------------------------------------------------------------------------------

PRESETS = ["fournier", "clasico", "online"]


def test_a_fuzzed_server_stays_well_and_every_room_plays_on(tmp_path: Path, errors: Collect) -> None:
    with running_server(
        database_url("sqlite", tmp_path), rooms_per_minute=100_000, lookups_per_minute=100_000
    ) as server:

        async def go() -> None:
            # Each room: two people who stay clean, and a third seat held by a fuzzing client.
            rooms = []
            for preset in PRESETS:
                # Only the fuzzing seat acts during the fuzz, in its first turn at most: as nobody may close in the
                # first round, it cannot end a deal (nor the match, with the others' loose points past 30).
                options = {"limit": 30, "close_on_first_turn": False}
                created = await create_room(
                    server.base, name="Ana", seats=3, rules={"preset": preset, "options": options}
                )
                has_options(server.manager.rooms[created["code"]].rules, options)
                tokens = [created["token"]]
                for name in ("Bea", "Fuzz"):
                    tokens.append((await join_room(server.base, created["code"], name))["token"])
                rooms.append((created["code"], tokens))
            people: dict[str, list[Client]] = {}
            for code, tokens in rooms:
                people[code] = [Client(server.ws) for _ in range(2)]
                for client, token in zip(people[code], tokens, strict=False):
                    await client.connect(room=code, token=token)
                await people[code][0].send({"type": "start"})
                await people[code][0].wait(lambda m: m["type"] == "view" and m["status"] == "playing")
            live = {code: server.manager.rooms[code] for code, _ in rooms}
            before = {code: room.n for code, room in live.items()}
            rng = random.Random(SEED)
            codes = [code for code, _ in rooms]
            # The fuzz knows the codes and the fuzzing seats' tokens (it acts for no one else); one
            # generator for each client, so that what each sends does not hang on the others' timing.

            def fuzzer(k: int) -> Fuzz:
                return Fuzz(random.Random(SEED * 1000 + k), codes, [tokens[2] for _, tokens in rooms])

            slots = [Slot({"room": code, "token": tokens[2]}) for code, tokens in rooms]
            slots += [Slot({"room": code, "token": tokens[2]}) for code, tokens in rooms]
            slots += [Slot({"room": code}) for code in codes]
            slots += [Slot({}), Slot({"name": "Lobby"}), Slot({"lang": "ar"})]
            outcome = await asyncio.wait_for(
                asyncio.gather(
                    *(fuzz(server, slot, fuzzer(k)) for k, slot in enumerate(slots)),
                    fuzz_http(server.base, fuzzer(len(slots)), 300),
                ),
                240,
            )
            statuses = outcome[-1]
            assert statuses is not None
            assert statuses.count(201) + statuses.count(200) > 0 and statuses.count(400) > 50

            sent = sum(slot.sent for slot in slots)
            assert sent >= 2500 and sum(slot.errors for slot in slots) > sent / 3
            # Garbage closes a connection with 1008, and a frame over the WebSocket's 64 KB with 1009 (Uvicorn's "too
            # big"; the fuzz sends a few of 100 KB), never anything else.
            closes = [code for slot in slots for code in slot.closes]
            assert closes and set(closes) <= {1008, 1009} and 1008 in closes, closes
            async with httpx.AsyncClient(base_url=server.base) as http:
                health = await http.get("/healthz")
                assert health.status_code == 200 and health.json()["status"] == "ok"

            # A room's log grew only by the actions its fuzzing seat had acknowledged.
            for code, _ in rooms:
                room = live[code]
                acked = sum(slot.acks[code] for slot in slots)
                new = [e.event for e in room.kept() if e.n > before[code] and e.event["kind"] in ACTED]
                assert acked == len(new) and room.n - before[code] >= acked, (code, room.n, before[code], acked)
                assert all(event["seat"] == 2 for event in new), new
                assert room.status == "playing" and [s.kind for s in room.seats] == ["person"] * 3

            # And every room plays on: its people finish the match.
            async def finish(code: str, tokens: list[str]) -> None:
                third = Client(server.ws)
                await third.connect(room=code, token=tokens[2])
                players = [*people[code], third]

                def over(client: Client) -> bool:
                    return bool(client.view and client.view["status"] == "over")

                await asyncio.gather(
                    *(p.play_randomly(Player(rng.random(), p), lambda p=p: over(p)) for p in players)  # type: ignore[misc]
                )
                for client in players:
                    await client.close()

            await asyncio.wait_for(asyncio.gather(*(finish(code, tokens) for code, tokens in rooms)), 180)
            for room in live.values():
                assert room.match is not None and room.match.over

        asyncio.run(go())
    problems = [f"{r.name}: {r.getMessage()} {r.exc_info[1] if r.exc_info else ''}" for r in errors.records]
    assert not problems, "\n".join(problems[:10])
