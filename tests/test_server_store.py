"""The server's storage on SQLite and PostgreSQL: round trips, the append-only log, rooms rebuilt from it."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest

from chinchon.bots import make_bot
from chinchon.match import Match
from chinchon.record import replay
from chinchon.rules import Rules
from chinchon.server import store as store_module
from chinchon.server.bots import BotPool
from chinchon.server.client import Client, create_room
from chinchon.server.hub import Envelope, Hub
from chinchon.server.rooms import Manager, ServerSettings
from chinchon.server.store import EventRow, RoomRow, SeatRow, Store
from chinchon.server.views import game_view
from tests.server_support import running_server


def room_row(code: str, rules: Rules) -> RoomRow:
    return RoomRow(
        code=code,
        created=1000.5,
        public=False,
        status="waiting",
        preset=None,
        rules=rules.to_dict(),
        seats=3,
        bot_level="easy",
        turn_seconds=30.0,
        creator=0,
        match=0,
        seed=None,
        last_event=0,
        seat_rows=[
            SeatRow(0, "Ana", "person", None, "a" * 64, "es"),
            SeatRow(1, None, "open", None, None, None),
            SeatRow(2, None, "open", None, None, None),
        ],
    )


def test_rooms_events_matches_and_chat_round_trip(db: str) -> None:
    rules = Rules.preset("fournier", limit=50)

    async def run() -> None:
        store = Store(db)
        await store.open()
        await store.open()  # opening again keeps what is there
        try:
            row = room_row("ABCDEFG", rules)
            await store.create_room(row)
            await store.create_room(room_row("HJKMNPQ", rules))
            assert await store.code_exists("ABCDEFG") and not await store.code_exists("ZZZZZZZ")
            loaded = await store.load_room("ABCDEFG")
            assert loaded == row
            assert await store.load_room("ZZZZZZZ") is None

            join = EventRow(1, 0, "join", 1, None, 1001.0)
            await store.append("ABCDEFG", join, seat_changes=[SeatRow(1, "Bea", "person", None, "b" * 64, "pl")])
            start = EventRow(2, 1, "start", None, '{"names": ["Ana", "Bea", "Bot 3"]}', 1002.0)
            await store.append(
                "ABCDEFG",
                start,
                room={"status": "playing", "match": 1, "seed": "12345"},
                seat_changes=[SeatRow(2, None, "bot", "easy", None, None)],
                new_match_seed="12345",
            )
            match = Match(["Ana", "Bea", "Bot 3"], rules, seed=12345)
            actions = []
            for n in range(3, 8):
                seat, action = match.to_move, match.legal_actions()[0]
                assert seat is not None
                match.apply(action, seat=seat)
                entry = EventRow(n, 1, "action", seat, str(action), 1000.0 + n)
                actions.append(entry)
                await store.append("ABCDEFG", entry)

            loaded = await store.load_room("ABCDEFG")
            assert loaded is not None
            assert (loaded.status, loaded.match, loaded.seed, loaded.last_event) == ("playing", 1, "12345", 7)
            assert loaded.rules == rules.to_dict() and loaded.turn_seconds == 30.0 and not loaded.public
            assert [s.name for s in loaded.seat_rows] == ["Ana", "Bea", None]
            assert [s.kind for s in loaded.seat_rows] == ["person", "person", "bot"]
            assert loaded.seat_rows[1].token_hash == "b" * 64 and loaded.seat_rows[1].lang == "pl"
            # The events of the current match, and the latest before it (the join, in match 0): those a client that
            # comes back may ask for again, with the seeds of their matches.
            assert loaded.events == [join, start, *actions] and loaded.seeds == {1: "12345"}

            await store.set_status("HJKMNPQ", "closed")
            assert [r.code for r in await store.open_rooms()] == ["ABCDEFG"]

            assert await store.record("ABCDEFG") is None
            await store.finish_match("ABCDEFG", 1, {"kept": "ñandú", "scores": [1, 2]})
            assert await store.record("ABCDEFG") == {"kept": "ñandú", "scores": [1, 2]}
            assert await store.record("ABCDEFG", 1) == {"kept": "ñandú", "scores": [1, 2]}
            assert await store.record("ABCDEFG", 2) is None
            await store.append(
                "ABCDEFG",
                EventRow(8, 2, "rematch", None, "{}", 1010.0),
                room={"match": 2, "seed": "99"},
                new_match_seed="99",
            )
            assert await store.record("ABCDEFG") == {"kept": "ñandú", "scores": [1, 2]}
            await store.finish_match("ABCDEFG", 2, {"second": True})
            assert await store.record("ABCDEFG") == {"second": True}
            assert await store.record("ABCDEFG", 1) == {"kept": "ñandú", "scores": [1, 2]}
            again = await store.load_room("ABCDEFG")
            assert again is not None and [e.n for e in again.events] == [1, 2, 3, 4, 5, 6, 7, 8]
            assert again.seeds == {1: "12345", 2: "99"}
            # Past the latest RECENT_EVENTS, an earlier match is not loaded: only what the window reaches, whole.
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(store_module, "RECENT_EVENTS", 3)
                window = await store.load_room("ABCDEFG")
                assert window is not None and [e.n for e in window.events] == [2, 3, 4, 5, 6, 7, 8]
                patch.setattr(store_module, "RECENT_EVENTS", 1)
                window = await store.load_room("ABCDEFG")
                assert window is not None and [e.n for e in window.events] == [8] and window.seeds == {2: "99"}

            await store.add_chat("ABCDEFG", "Ana", 0, "hola 👋", 5.0)
            await store.add_chat("", "Lobby", None, "hi", 6.0)
            await store.add_chat("ABCDEFG", "Bea", 1, "¿qué tal?", 7.0)
            lines = await store.chat_lines("ABCDEFG")
            assert [(c["name"], c["seat"], c["text"], c["time"]) for c in lines] == [
                ("Ana", 0, "hola 👋", 5.0),
                ("Bea", 1, "¿qué tal?", 7.0),
            ]
            assert [c["text"] for c in await store.chat_lines("")] == ["hi"]
            assert [c["text"] for c in await store.chat_lines("ABCDEFG", last=1)] == ["¿qué tal?"]
        finally:
            await store.close()

        # A new store on the same database (as after a restart) reads it all back.
        reopened = Store(db)
        try:
            row_again = await reopened.load_room("ABCDEFG")
            assert row_again is not None and row_again.last_event == 8 and row_again.match == 2
        finally:
            await reopened.close()

    asyncio.run(run())


def test_an_event_number_is_written_once(db: str) -> None:
    async def run() -> None:
        store = Store(db)
        await store.open()
        try:
            await store.create_room(room_row("ABCDEFG", Rules()))
            first = EventRow(1, 0, "join", 1, None, 1.0)
            await store.append("ABCDEFG", first, seat_changes=[SeatRow(1, "Bea", "person", None, "b" * 64)])
            before = await store.load_room("ABCDEFG")
            with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
                await store.append(
                    "ABCDEFG",
                    EventRow(1, 1, "start", None, "{}", 2.0),
                    room={"status": "playing", "match": 1, "seed": "7"},
                    seat_changes=[SeatRow(2, None, "bot", "easy", None, None)],
                    new_match_seed="7",
                )
            after = await store.load_room("ABCDEFG")
            assert after == before  # nothing of the refused transaction was kept
            assert await store.record("ABCDEFG", 1) is None
            # The next number is still free.
            await store.append("ABCDEFG", EventRow(2, 0, "leave", 1, None, 3.0))
            latest = await store.load_room("ABCDEFG")
            assert latest is not None and latest.last_event == 2 and [e.n for e in latest.events] == [1, 2]
        finally:
            await store.close()

    asyncio.run(run())


def test_a_room_rebuilt_from_the_store_is_the_live_room(db: str) -> None:
    with running_server(db) as server:
        rules = {"preset": "fournier", "options": {}}

        async def play() -> tuple[str, int]:
            room = await create_room(server.base, name="Ana", seats=4, bot_level="easy", rules=rules)
            ana = Client(server.ws)
            await ana.connect(room=room["code"], token=room["token"])
            at = len(ana.messages)
            await ana.send({"type": "start"})
            await ana.wait(lambda m: m["type"] == "view" and m["status"] == "playing", at, 60)
            rng = random.Random(5)

            # Part of the match: a dozen of Ana's actions, the bots' in between; it stops on Ana's turn.
            def waiting() -> bool:
                return ana.my_turn() or (ana.view or {}).get("status") == "over"

            # Part of the match: a dozen of Ana's actions, the bots' in between; it stops on Ana's turn
            # (or at the end, if Ana is out and the bots finish the match).
            for _ in range(12):
                await ana.wait(lambda _m: waiting(), 0, 120)
                if not ana.my_turn():
                    break
                assert ana.view is not None
                answer = await ana.act(rng.choice(ana.view["game"]["legal_actions"]))
                assert answer["type"] == "ack", answer
                state: int = answer["state"]

                def caught_up(m: dict[str, Any], state: int = state) -> bool:
                    return bool(m["type"] == "view" and m["state"] >= state)

                await ana.wait(caught_up, 0, 60)
            await ana.wait(lambda _m: waiting(), 0, 120)
            assert ana.view is not None
            await ana.close()
            return room["code"], ana.view["state"]

        code, state = asyncio.run(play())
        live = server.manager.rooms[code]
        assert live.n == state

        async def rebuild() -> None:
            store = Store(db)
            manager = Manager(ServerSettings(db=db), store, Hub(), BotPool(1, "thread"))
            try:
                row = await store.load_room(code)
                assert row is not None
                rebuilt = manager.rebuild(row)
            finally:
                await store.close()
            assert rebuilt.n == live.n and rebuilt.status == live.status and rebuilt.match_number == 1
            assert rebuilt.match is not None and live.match is not None
            assert rebuilt.match.to_move == live.match.to_move
            assert rebuilt.match.legal_actions() == live.match.legal_actions()
            assert rebuilt.match.scores == live.match.scores
            for seat in range(4):
                assert rebuilt.match.deal.hand(seat) == live.match.deal.hand(seat)
                assert game_view(rebuilt.match.observation(seat)) == game_view(live.match.observation(seat))
                assert rebuilt.view_data(seat)["game"] == live.view_data(seat)["game"]
            assert rebuilt.match.deal.stock == live.match.deal.stock
            assert rebuilt.match.deal.discard_pile == live.match.deal.discard_pile
            assert [(s.name, s.kind, s.level, s.token_hash) for s in rebuilt.seats] == [
                (s.name, s.kind, s.level, s.token_hash) for s in live.seats
            ]
            # The events kept for returning clients are the same, numbered the same (their turn deadlines aside).

            def told(envelope: Envelope) -> dict[str, Any]:
                return {**envelope.to_dict(), "turn_deadline": None}

            again = rebuilt.kept()
            assert again and [told(e) for e in again] == [told(e) for e in live.kept(again[0].n - 1)]
            if live.match.over:
                assert replay(live.match.record()).scores == rebuilt.match.scores

        asyncio.run(rebuild())


def test_a_match_whose_end_was_logged_but_not_recorded_is_recorded_at_start(db: str) -> None:
    # The server was killed between the last action's event and the match's record.
    rules = Rules.preset("fournier", limit=10)

    async def prepare() -> Match:
        store = Store(db)
        await store.open()
        try:
            row = room_row("ABCDEFG", rules)
            row.seat_rows[1:] = [
                SeatRow(1, None, "bot", "easy", None, None),
                SeatRow(2, None, "bot", "easy", None, None),
            ]
            await store.create_room(row)
            names = ["Ana", "Bot 2", "Bot 3"]
            await store.append(
                "ABCDEFG",
                EventRow(1, 1, "start", None, json.dumps({"names": names}), 1.0),
                room={"status": "playing", "match": 1, "seed": "4242"},
                new_match_seed="4242",
            )
            match = Match(names, rules, seed=4242)
            rng = random.Random(1)
            bot = make_bot("easy")
            n = 1
            while not match.over:
                seat = match.to_move
                assert seat is not None
                action = bot.choose(match.observation(seat), match.legal_actions(), rng)
                match.apply(action, seat=seat)
                n += 1
                await store.append("ABCDEFG", EventRow(n, 1, "action", seat, str(action), float(n)))
            return match
        finally:
            await store.close()

    played = asyncio.run(prepare())
    with running_server(db) as server:
        import httpx

        answer = httpx.get(f"{server.base}/api/rooms/ABCDEFG/record")
        assert answer.status_code == 200, answer.text
        assert replay(answer.json()).scores == played.scores
        assert server.manager.rooms["ABCDEFG"].status == "over"
    row = asyncio.run(_load(db, "ABCDEFG"))
    assert row is not None and row.status == "over"


async def _load(db: str, code: str) -> RoomRow | None:
    store = Store(db)
    try:
        return await store.load_room(code)
    finally:
        await store.close()


def test_appends_written_together_each_fail_or_succeed_alone_in_order(db: str) -> None:
    async def run() -> None:
        store = Store(db)
        await store.open()
        try:
            for code in ("ABCDEFG", "HJKMNPQ"):
                await store.create_room(room_row(code, Rules()))
            await store.append("HJKMNPQ", EventRow(1, 0, "join", 1, None, 1.0))
            # Sent at once: they may go in one transaction; the duplicate fails alone.
            results = await asyncio.gather(
                store.append(
                    "ABCDEFG",
                    EventRow(1, 0, "join", 1, None, 2.0),
                    seat_changes=[SeatRow(1, "Bea", "person", None, "b" * 64)],
                ),
                store.append("ABCDEFG", EventRow(2, 0, "leave", 1, None, 3.0)),
                store.append("HJKMNPQ", EventRow(1, 0, "join", 2, None, 4.0)),
                store.append("HJKMNPQ", EventRow(2, 0, "join", 2, None, 5.0)),
                return_exceptions=True,
            )
            assert [r is None for r in results] == [True, True, False, True], results
            first, second = await store.load_room("ABCDEFG"), await store.load_room("HJKMNPQ")
            assert first is not None and second is not None
            assert [e.n for e in first.events] == [1, 2] and first.last_event == 2
            assert first.seat_rows[1].name == "Bea"
            assert [(e.n, e.seat) for e in second.events] == [(1, 1), (2, 2)] and second.last_event == 2
            # A batch that succeeds: the room's last event is its latest, whatever each append changed.
            await asyncio.gather(
                store.append(
                    "ABCDEFG",
                    EventRow(3, 0, "join", 2, None, 6.0),
                    seat_changes=[SeatRow(2, "Cid", "person", None, "c" * 64)],
                ),
                store.append("ABCDEFG", EventRow(4, 0, "leave", 2, None, 7.0)),
            )
            third = await store.load_room("ABCDEFG")
            assert third is not None and [e.n for e in third.events] == [1, 2, 3, 4]
            assert third.last_event == 4 and third.seat_rows[2].name == "Cid"
        finally:
            await store.close()

    asyncio.run(run())
