"""The server end to end: rooms over HTTP, a whole match through real WebSockets, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

from chinchon.record import replay
from chinchon.server.client import Client, create_room, join_room
from tests.server_support import database_url, has_options, running_server

EVERYONE_ACTS_TO_30 = {"options": {"limit": 30, "close_on_first_turn": False}}
"""A short match in which every seat has a turn before anyone may close."""


def test_two_people_and_a_bot_play_a_whole_match(db: str) -> None:
    with running_server(db) as server:

        async def play() -> tuple[dict[str, Any], dict[str, Any]]:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            joined = await join_room(server.base, room["code"], "Bea")
            ana, bea, watcher = Client(server.ws), Client(server.ws), Client(server.ws)
            assert (await ana.connect(room=room["code"], token=room["token"]))["seat"] == 0
            assert (await bea.connect(room=room["code"], token=joined["token"]))["seat"] == 1
            assert (await watcher.connect(room=room["code"]))["role"] == "spectator"
            await ana.send({"type": "start"})

            def over() -> bool:
                return bool(ana.view and ana.view["status"] == "over")

            rng = random.Random(3)
            await asyncio.wait_for(asyncio.gather(ana.play_randomly(rng, over), bea.play_randomly(rng, over)), 240)
            await watcher.wait_view(lambda v: v["status"] == "over")
            assert ana.view is not None and watcher.view is not None
            for client in (ana, bea, watcher):
                await client.close()
            return ana.view, watcher.view

        final, watched = asyncio.run(play())
        game = final["game"]
        assert isinstance(game, dict) and game["match_over"] and game["winner"] in (0, 1, 2)
        assert watched["game"] is not None and watched["game"]["hand"] == []
        import httpx

        record = httpx.get(f"{server.base}/api/rooms/{final['room']}/record").json()
        match = replay(record)
        assert match.over and match.winner == game["winner"] and match.scores == game["scores"]
        assert [s["name"] for s in final["seats"]][:2] == ["Ana", "Bea"]


def test_the_shipped_protocol_schemas_are_the_models_own() -> None:
    from chinchon.server.protocol import SCHEMA_DIR, schemas

    for name, schema in schemas().items():
        shipped = json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8"))
        assert shipped == schema, f"{name} is out of date: run python -m chinchon.server.protocol"


def test_every_message_of_a_match_fits_the_protocol_models(tmp_path: Path) -> None:
    from chinchon.server.protocol import server_adapter

    with running_server(database_url("sqlite", tmp_path)) as server:

        async def play() -> list[dict[str, Any]]:
            # Nobody may close in the first round: else the bot, moving first, could close at once and end the
            # match (Ana's loose points past 30) before Ana ever acted, and no "ack" would come.
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner", rules=EVERYONE_ACTS_TO_30)
            has_options(server.manager.rooms[room["code"]].rules, EVERYONE_ACTS_TO_30["options"])
            ana, watcher, lobby = Client(server.ws), Client(server.ws), Client(server.ws)
            await lobby.connect(name="Lu")
            await ana.connect(room=room["code"], token=room["token"])
            await watcher.connect(room=room["code"])
            await ana.send({"type": "chat", "text": "hola"})
            await ana.send({"type": "ping", "t": 1})
            await ana.send({"type": "start"})

            def over() -> bool:
                return bool(ana.view and ana.view["status"] == "over")

            await asyncio.wait_for(ana.play_randomly(random.Random(5), over), 240)
            await ana.send({"type": "nonsense"})
            await ana.wait(lambda m: m["type"] == "error")
            for client in (ana, watcher, lobby):
                await client.close()
            return ana.messages + watcher.messages + lobby.messages

        messages = asyncio.run(play())
    kinds = {m["type"] for m in messages}
    assert {"welcome", "view", "event", "ack", "error", "chat", "presence", "pong", "lobby"} <= kinds
    for message in messages:
        server_adapter.validate_python(message)


def test_a_void_deal_is_a_result_without_a_closer() -> None:
    from chinchon.observation import DealResult
    from chinchon.server.protocol import ResultView
    from chinchon.server.views import result_view

    void = DealResult(closer=None, points=(0, 0), table=(), loose=((), ()), chinchon=False, clean=False, void=True)
    shown = result_view(void)
    assert shown is not None and shown["void"] and shown["closer"] is None
    assert ResultView.model_validate(shown).void
