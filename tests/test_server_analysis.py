"""The server's analyses: queued over HTTP, bounded per room and in all, cancelled when nobody waits."""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import httpx
import jsonschema
import pytest

from chinchon.analysis import Settings
from chinchon.bots import make_bot
from chinchon.match import Match
from chinchon.rules import Rules
from chinchon.server.analyses import AnalysisQueue
from chinchon.server.bots import BotPool
from chinchon.server.rooms import Refused
from tests.players_support import create_room, play_to_the_end, register, socket_for
from tests.server_support import database_url, running_server, start_match

T = TypeVar("T")
R = TypeVar("R")

SHORT: dict[str, Any] = {"preset": "fournier", "options": {"limit": 10, "close_on_first_turn": False}}
"""Rules whose matches end within a deal or two."""


def record(seed: int) -> dict[str, Any]:
    """A short finished match between two ``simple`` bots (to 10 points: a deal or two)."""
    match = Match(["Ana", "Bot"], Rules.preset("fournier", limit=10), seed=seed)
    bots = [make_bot("simple"), make_bot("simple")]
    rng = random.Random(seed)
    while not match.over:
        seat = match.to_move
        assert seat is not None
        match.apply(bots[seat].choose(match.observation(seat), match.legal_actions(), rng))
    return match.record()


class GatedPool(BotPool):
    """A pool whose work waits at a gate, counting how much of it runs at once."""

    def __init__(self) -> None:
        super().__init__(1, "thread")
        self.gate = asyncio.Event()
        self.now = 0
        self.most = 0
        self.calls = 0

    async def run(self, function: Callable[[T], R], argument: T) -> R:
        self.now += 1
        self.calls += 1
        self.most = max(self.most, self.now)
        try:
            await self.gate.wait()
            return await super().run(function, argument)
        finally:
            self.now -= 1


class HeldPool(BotPool):
    """A pool whose work waits until the test lets it go (a gate another thread may open)."""

    def __init__(self) -> None:
        super().__init__(1, "thread")
        self.gate = threading.Event()

    async def run(self, function: Callable[[T], R], argument: T) -> R:
        await asyncio.to_thread(self.gate.wait, 120)
        return await super().run(function, argument)


async def settle(queue: AnalysisQueue, timeout: float = 120.0) -> None:
    """Wait until nothing is queued or running."""
    async with asyncio.timeout(timeout):
        while queue.running():
            await asyncio.sleep(0.01)


def test_a_second_analysis_of_a_match_under_way_is_refused_and_a_flood_stays_within_the_bound() -> None:
    records = [record(seed) for seed in range(12)]

    async def run() -> None:
        pool = GatedPool()
        queue = AnalysisQueue(pool, most=3, idle=600, settings=Settings(playouts=4))
        first = queue.start("ROOM0", 0, records[0])
        assert first["status"] == "queued"
        with pytest.raises(Refused) as again:
            queue.start("ROOM0", 0, records[0])
        assert again.value.code == "analysis_running"
        with pytest.raises(Refused) as other_seat:
            queue.start("ROOM0", 1, records[0])
        assert other_seat.value.code == "analysis_running"
        accepted, busy = 1, 0
        for index, match_record in enumerate(records[1:], 1):
            try:
                queue.start(f"ROOM{index}", 0, match_record)
                accepted += 1
            except Refused as exc:
                assert exc.code == "server_busy"
                busy += 1
            assert queue.running() <= 3
        assert (accepted, busy) == (3, 9)
        pool.gate.set()
        await settle(queue)
        assert pool.most <= 3
        done = [queue.status(f"ROOM{i}", records[i], 0) for i in range(3)]
        assert [status["status"] for status in done] == ["done"] * 3
        assert queue.status("ROOM9", records[9], 0)["status"] == "none"
        # Done: asking again answers at once with the analysis; now another room has room in the queue.
        assert queue.start("ROOM0", 0, records[0])["status"] == "done"
        assert queue.start("ROOM5", 0, records[5])["status"] == "queued"
        await settle(queue)
        await queue.close()

    asyncio.run(run())


def test_an_analysis_nobody_waits_for_is_cancelled_and_frees_its_place() -> None:
    async def run() -> None:
        pool = GatedPool()
        queue = AnalysisQueue(pool, most=1, idle=0.05, settings=Settings(playouts=4))
        first = record(3)
        queue.start("ROOM0", 0, first)
        await asyncio.sleep(0.2)  # nobody asks how it goes
        pool.gate.set()
        await settle(queue)
        status = queue.status("ROOM0", first, 0)
        assert status["status"] == "cancelled" and status["analysis"] is None
        assert pool.calls <= 1
        # Its place is free again.
        assert queue.start("ROOM1", 0, record(4))["status"] == "queued"
        await queue.close()

    asyncio.run(run())


def test_a_seat_not_in_the_match_is_refused() -> None:
    async def run() -> None:
        queue = AnalysisQueue(GatedPool())
        with pytest.raises(Refused) as refused:
            queue.start("ROOM0", 2, record(1))
        assert refused.value.code == "bad_seat"
        assert queue.running() == 0
        await queue.close()

    asyncio.run(run())


def test_the_analysis_of_a_finished_match_over_http(tmp_path: Path) -> None:
    schemas = resources.files("chinchon").joinpath("schemas")
    schema = json.loads(schemas.joinpath("analysis.schema.json").read_text("utf-8"))
    http_schema = json.loads(schemas.joinpath("protocol-http.schema.json").read_text("utf-8"))
    with running_server(database_url("sqlite", tmp_path)) as server:
        server.app.state.analyses.settings = Settings(playouts=20)
        held = HeldPool()
        server.app.state.analyses.pool.close()
        server.app.state.analyses.pool = held  # the analysis stays under way until the refusals are checked

        async def run() -> None:
            async with httpx.AsyncClient(base_url=server.base, timeout=30) as http:
                await register(http, "Ana")
                room = await create_room(http, seats=2, rules=SHORT, bot_level="easy")
                code = room["code"]
                early = await http.post(f"/api/rooms/{code}/analysis", json={"seat": 0})
                assert early.status_code == 404 and early.json()["error"]["code"] == "not_over"
                client = socket_for(server.ws, http)
                await client.connect(room=code)
                await start_match(client)
                await play_to_the_end([client], random.Random(3))
                await client.close()
                games: list[dict[str, Any]] = []
                for _ in range(100):
                    games = (await http.get("/api/players/Ana/games")).json()["games"]
                    if games:
                        break
                    await asyncio.sleep(0.1)
                game = f"/api/games/{games[0]['id']}/analysis"
                queued = await http.post(game, json={"seat": 0})
                assert queued.status_code == 202 and queued.json()["status"] in ("queued", "running")
                assert queued.json()["room"] == code
                # The same record by the room's route: refused while it runs, not run twice.
                twice = await http.post(f"/api/rooms/{code}/analysis", json={"seat": 0})
                assert twice.status_code == 409 and twice.json()["error"]["code"] == "analysis_running"
                other_seat = await http.post(game, json={"seat": 1})
                assert other_seat.status_code == 409
                assert (await http.post(game, json={"seat": 9})).status_code == 400
                assert (await http.get(game, params={"seat": "x"})).json()["error"]["code"] == "bad_seat"
                missing = await http.get(game, params={"seat": 1})
                assert missing.status_code == 200 and missing.json()["status"] == "none"
                unknown = await http.get("/api/games/nothing/analysis")
                assert unknown.status_code == 404 and unknown.json()["error"]["code"] == "no_game"
                held.gate.set()
                while True:
                    answer = (await http.get(game, params={"seat": 0})).json()
                    if answer["status"] not in ("queued", "running"):
                        break
                    await asyncio.sleep(0.1)
                assert answer["status"] == "done" and answer["done"] == answer["total"] > 0
                jsonschema.validate(answer["analysis"], schema)
                assert answer["analysis"]["budget"]["playouts"] == 20
                again = await http.post(f"/api/rooms/{code}/analysis", json={"seat": 0})
                assert again.status_code == 200 and again.json()["analysis"] == answer["analysis"]
                by_room = (await http.get(f"/api/rooms/{code}/analysis")).json()
                assert by_room["analysis"] == answer["analysis"]
                # Both routes name the match's game in the history, for the replay page.
                assert by_room["game"] == answer["game"] == games[0]["id"]
                for status in (queued.json(), answer, by_room):
                    jsonschema.validate(status, http_schema["$defs"]["AnalysisStatus"])

        asyncio.run(run())
