"""Rooms on a real in-thread server: starting, bots, presence and the grace period, turn timers, closing and
reopening, rematch, leave and kick, actions in order, bots off the event loop, resync, records and logs."""

from __future__ import annotations

import asyncio
import copy
import io
import json
import logging
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from chinchon.record import replay
from chinchon.server import bots
from chinchon.server.client import Client, create_room, join_room
from chinchon.server.logs import setup_logging
from chinchon.server.rooms import hash_token
from chinchon.server.store import Store
from tests.server_support import Running, acted, action_text, database_url, has_options, running_server

Message = dict[str, Any]
WAIT = 60.0
SHORT: dict[str, Any] = {"preset": "fournier", "options": {"limit": 10, "close_on_first_turn": False}}
"""Rules whose matches end within a deal or two, and not before every seat has had a turn (nobody may close in
the first round: else a bot could close at once and end the match before a person acted)."""
FIRST_ROUND_OPEN: dict[str, Any] = {"preset": "fournier", "options": {"close_on_first_turn": False}}
"""Rules under which every seat's first decision is a draw of the first deal: nobody may close in the first round."""


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A fresh SQLite database (the PostgreSQL paths are in test_server, test_server_store, test_server_restart)."""
    return database_url("sqlite", tmp_path)


def is_view(test: Callable[[Message], bool] = lambda _m: True) -> Callable[[Message], bool]:
    """A view that passes ``test``."""
    return lambda m: m["type"] == "view" and test(m)


def at_least(state: int) -> Callable[[Message], bool]:
    """A view of state ``state`` or later."""
    return lambda m: bool(m["type"] == "view" and m["state"] >= state)


def seat_info(message: Message, seat: int) -> Message:
    info: Message = message["seats"][seat]
    return info


async def seated(server: Running, code: str, token: str) -> Client:
    """A client in its seat, its first view received."""
    client = Client(server.ws)
    welcome = await client.connect(room=code, token=token)
    assert welcome["type"] == "welcome" and welcome["role"] == "seat", welcome
    await client.wait(is_view(), 0, WAIT)
    return client


async def start(client: Client) -> Message:
    """The creator starts the match; the first view of it."""
    at = len(client.messages)
    await client.send({"type": "start"})
    return await client.wait(is_view(lambda m: m["status"] == "playing"), at, WAIT)


async def play_until(client: Client, rng: random.Random, done: Callable[[], bool]) -> None:
    await asyncio.wait_for(client.play_randomly(rng, done), 4 * WAIT)


def over(client: Client) -> Callable[[], bool]:
    return lambda: bool(client.view and client.view["status"] == "over")


def events(client: Client, start: int = 0) -> list[Message]:
    return [m for m in client.messages[start:] if m["type"] == "event"]


def test_the_creator_starts_and_open_seats_get_bots_of_the_level(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=4, bot_level="beginner")
            joined = await join_room(server.base, room["code"], "Bea")
            ana = await seated(server, room["code"], room["token"])
            bea = await seated(server, room["code"], joined["token"])
            at = len(bea.messages)
            await bea.send({"type": "start"})
            refused = await bea.wait(lambda m: m["type"] == "error", at, WAIT)
            assert refused["code"] == "not_creator"
            assert bea.view is not None and bea.view["status"] == "waiting"
            view = await start(ana)
            kinds = [(s["kind"], s["level"], s["presence"]) for s in view["seats"]]
            assert kinds == [
                ("person", None, "connected"),
                ("person", None, "connected"),
                ("bot", "beginner", "bot"),
                ("bot", "beginner", "bot"),
            ]
            assert view["game"]["hand"] and len(view["game"]["hand_sizes"]) == 4
            at = len(ana.messages)
            await ana.send({"type": "start"})
            again = await ana.wait(lambda m: m["type"] == "error", at, WAIT)
            assert again["code"] == "wrong_status"
            for client in (ana, bea):
                await client.close()

        asyncio.run(run())


def test_an_away_seat_counts_down_then_a_bot_plays_it_until_its_person_comes_back(db: str) -> None:
    with running_server(db, grace=1.5) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner")
            joined = await join_room(server.base, room["code"], "Bea")
            ana = await seated(server, room["code"], room["token"])
            bea = await seated(server, room["code"], joined["token"])
            await start(ana)
            at = len(ana.messages)
            await bea.close()
            away = await ana.wait(lambda m: m["type"] == "presence" and seat_info(m, 1)["presence"] == "away", at, WAIT)
            assert 0 < seat_info(away, 1)["away_seconds"] <= 1.5
            assert seat_info(away, 0)["presence"] == "connected"
            botted = await ana.wait(
                lambda m: m["type"] in ("presence", "view") and seat_info(m, 1)["presence"] == "bot", at, WAIT
            )
            assert seat_info(botted, 1)["kind"] == "person" and seat_info(botted, 1)["name"] == "Bea"
            # The bot plays Bea's turns while Ana plays hers.
            rng = random.Random(2)
            mark = len(ana.messages)

            def bot_played() -> bool:
                return any(acted(e, 1) for e in events(ana, mark)) or over(ana)()

            await play_until(ana, rng, bot_played)
            assert any(acted(e, 1) for e in events(ana, mark))
            if over(ana)():
                return
            # Bea comes back with her token: her seat is hers again and waits for her.
            back = Client(server.ws, view=bea.view)
            returned = len(ana.messages)
            await back.connect(room=room["code"], token=joined["token"], last_event=bea.last_event)
            await ana.wait(lambda m: m["type"] == "presence" and seat_info(m, 1)["presence"] == "connected", returned)

            async def bea_plays() -> int:
                mine = 0
                while mine < 3 and not over(back)():
                    await back.wait(lambda _m: back.my_turn() or over(back)(), 0, WAIT)
                    if over(back)():
                        break
                    assert back.view is not None
                    answer = await back.act(rng.choice(back.view["game"]["legal_actions"]))
                    assert answer["type"] == "ack", answer
                    mine += 1
                    await back.wait(at_least(answer["state"]), 0, WAIT)
                return mine

            bea_done = asyncio.Event()
            ana_task = asyncio.create_task(ana.play_randomly(rng, lambda: over(ana)() or bea_done.is_set()))
            mine = await asyncio.wait_for(bea_plays(), 4 * WAIT)
            bea_done.set()
            await asyncio.wait_for(ana_task, WAIT)
            assert mine == 3 or over(back)()
            for client in (ana, back):
                await client.close()

        asyncio.run(run())


def test_a_seat_out_of_time_has_its_turn_played_by_its_bot(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner", turn_seconds=5)
            ana = await seated(server, room["code"], room["token"])
            await start(ana)
            await ana.wait(lambda _m: ana.my_turn(), 0, WAIT)
            assert ana.view is not None
            waited = copy.deepcopy(ana.view)
            assert waited["turn_seconds"] == 5 and waited["turn_deadline"] is not None
            at = len(ana.messages)
            # Ana does nothing: her turn is played for her once the timer runs out.
            played = await ana.wait(lambda m: acted(m, 0), at, WAIT)
            assert played["n"] == waited["state"] + 1
            text = action_text(played["event"])
            assert text in waited["game"]["legal_actions"] or text.startswith(("close", "show"))
            after = await ana.wait(is_view(lambda m: m["state"] >= played["n"]), at, WAIT)
            assert seat_info(after, 0)["presence"] == "connected" and seat_info(after, 0)["kind"] == "person"
            await ana.close()

        asyncio.run(run())


def test_a_turn_has_one_timer_from_the_draw_to_the_discard(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            # Ana's first turn is a draw: the bot, if it moves first, may not close the deal and leave her a showdown.
            room = await create_room(
                server.base, name="Ana", seats=2, bot_level="beginner", turn_seconds=5, rules=FIRST_ROUND_OPEN
            )
            ana = await seated(server, room["code"], room["token"])
            live = server.manager.rooms[room["code"]]
            has_options(live.rules, FIRST_ROUND_OPEN["options"])
            await start(ana)
            await ana.wait(lambda _m: ana.my_turn(), 0, WAIT)
            began = live.turn_started
            answer = await ana.act("draw stock")
            assert answer["type"] == "ack", answer
            assert live.turn_started == began  # the draw did not give the seat a new timer
            at = len(ana.messages)
            discarded = await ana.wait(lambda m: acted(m, 0), at, WAIT)
            assert action_text(discarded["event"]).startswith(("discard", "close"))
            assert live.turn_started != began  # the next seat's turn has its own
            await ana.close()

        asyncio.run(run())


async def stored_status(db: str, code: str) -> str | None:
    store = Store(db)
    try:
        row = await store.load_room(code)
        return None if row is None else row.status
    finally:
        await store.close()


def test_a_room_with_nobody_left_is_closed_kept_and_reopened_by_a_token(db: str) -> None:
    with running_server(db, grace=1) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            code = room["code"]
            joined = await join_room(server.base, code, "Bea")
            ana = await seated(server, code, room["token"])
            bea = await seated(server, code, joined["token"])
            await start(ana)
            await ana.close()
            await bea.close()
            for _ in range(int(WAIT * 10)):
                if code not in server.manager.rooms and await stored_status(db, code) == "closed":
                    break
                await asyncio.sleep(0.1)
            assert code not in server.manager.rooms
            assert await stored_status(db, code) == "closed"
            async with httpx.AsyncClient() as http:
                assert (await http.get(f"{server.base}/api/rooms/{code}")).status_code == 404
            # A token of no seat of the room does not open it again.
            stranger = Client(server.ws)
            refused = await stranger.connect(room=code, token="not-a-seat-token")
            assert refused["type"] == "error" and refused["code"] == "no_room", refused
            await stranger.close()
            assert code not in server.manager.rooms
            assert await stored_status(db, code) == "closed"
            # Both people come back at once: one room, rebuilt once, holds them both.
            ana, bea = Client(server.ws), Client(server.ws)
            welcomes = await asyncio.gather(
                ana.connect(room=code, token=room["token"]), bea.connect(room=code, token=joined["token"])
            )
            assert [w["seat"] for w in welcomes] == [0, 1], welcomes
            view = await ana.wait(is_view(), 0, WAIT)
            assert view["status"] in ("playing", "over")
            assert await stored_status(db, code) == view["status"]
            rng = random.Random(4)
            mark = len(bea.messages)

            def ana_moved() -> bool:
                return any(acted(e, 0) for e in events(ana, mark)) or over(ana)()

            await asyncio.wait_for(
                asyncio.gather(ana.play_randomly(rng, ana_moved), bea.play_randomly(rng, ana_moved)), 4 * WAIT
            )
            if not over(ana)():
                mine = [e for e in events(ana) if acted(e, 0)][-1]
                await bea.wait(lambda m: m["type"] == "event" and m["n"] == mine["n"], 0, WAIT)
            assert server.manager.rooms[code].seats[0].connections == 1
            assert server.manager.rooms[code].seats[1].connections == 1
            for client in (ana, bea):
                await client.close()

        asyncio.run(run())


def test_a_rematch_in_the_same_room_and_the_record_of_the_match(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner", rules=SHORT)
            code = room["code"]
            has_options(server.manager.rooms[code].rules, SHORT["options"])
            ana = await seated(server, code, room["token"])
            first = await start(ana)
            async with httpx.AsyncClient() as http:
                early = await http.get(f"{server.base}/api/rooms/{code}/record")
                assert early.status_code == 404 and early.json()["error"]["code"] == "not_over"
                await play_until(ana, random.Random(1), over(ana))
                assert ana.view is not None
                final = ana.view["game"]
                record = (await http.get(f"{server.base}/api/rooms/{code}/record")).json()
                match = replay(record)
                assert match.over and match.winner == final["winner"] and match.scores == final["scores"]
                at = len(ana.messages)
                await ana.send({"type": "rematch"})
                second = await ana.wait(is_view(lambda m: m["status"] == "playing"), at, WAIT)
                assert second["match"] == 2 and first["match"] == 1
                assert second["state"] > final_state(ana, at)
                assert [(s["name"], s["kind"], s["level"]) for s in second["seats"]] == [
                    (s["name"], s["kind"], s["level"]) for s in first["seats"]
                ]
                assert second["game"]["deal_number"] == 1 and not second["game"]["match_over"]
                # The finished match's record is still the one served while the second is played.
                assert (await http.get(f"{server.base}/api/rooms/{code}/record")).json() == record
            await ana.close()

        asyncio.run(run())


def final_state(client: Client, before: int) -> int:
    """The state of the last view before message ``before``."""
    return int(max(m["state"] for m in client.messages[:before] if m["type"] == "view"))


def test_leave_opens_the_seat_while_waiting_and_gives_it_to_a_bot_in_a_match(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            code = room["code"]
            joined = await join_room(server.base, code, "Bea")
            ana = await seated(server, code, room["token"])
            bea = await seated(server, code, joined["token"])
            at = len(bea.messages)
            await bea.send({"type": "leave"})
            told = await bea.wait(lambda m: m["type"] == "error", at, WAIT)
            assert told["code"] == "not_seated"
            opened = await ana.wait(is_view(lambda m: seat_info(m, 1)["kind"] == "open"), 0, WAIT)
            assert seat_info(opened, 1)["name"] is None
            # The seat is open again: the next to join gets it; the old token holds nothing.
            again = await join_room(server.base, code, "Cid")
            assert again["seat"] == 1
            cid_view = await ana.wait(is_view(lambda m: seat_info(m, 1)["name"] == "Cid"), 0, WAIT)
            assert seat_info(cid_view, 1)["presence"] == "away"  # Cid has not connected
            stale = Client(server.ws)
            assert (await stale.connect(room=code, token=joined["token"]))["code"] == "bad_token"
            cid = await seated(server, code, again["token"])
            await start(ana)
            at = len(cid.messages)
            await cid.send({"type": "leave"})
            assert (await cid.wait(lambda m: m["type"] == "error", at, WAIT))["code"] == "not_seated"
            botted = await ana.wait(is_view(lambda m: seat_info(m, 1)["kind"] == "bot"), 0, WAIT)
            assert seat_info(botted, 1)["presence"] == "bot" and seat_info(botted, 1)["level"] == "beginner"
            mark = len(ana.messages)

            def bot_moved() -> bool:
                return any(acted(e, 1) for e in events(ana, mark)) or over(ana)()

            await play_until(ana, random.Random(8), bot_moved)
            assert any(acted(e, 1) for e in events(ana, mark))
            for client in (ana, cid, stale):
                await client.close()

        asyncio.run(run())


def test_the_creator_kicks_a_player_whose_token_then_holds_nothing(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            code = room["code"]
            joined = await join_room(server.base, code, "Bea")
            cid_joined = await join_room(server.base, code, "Cid")
            ana = await seated(server, code, room["token"])
            bea = await seated(server, code, joined["token"])
            cid = await seated(server, code, cid_joined["token"])
            await start(ana)
            at = len(cid.messages)
            await cid.send({"type": "kick", "seat": 1})
            assert (await cid.wait(lambda m: m["type"] == "error", at, WAIT))["code"] == "not_creator"
            at = len(bea.messages)
            await ana.send({"type": "kick", "seat": 1})
            told = await bea.wait(lambda m: m["type"] == "error", at, WAIT)
            assert told["code"] == "not_seated"
            kicked = await ana.wait(is_view(lambda m: seat_info(m, 1)["kind"] == "bot"), 0, WAIT)
            assert seat_info(kicked, 1)["presence"] == "bot"
            # The kicked connection watches now: it has no hand, and no action of its is taken.
            view = await bea.wait(is_view(lambda m: m["seat"] is None), at, WAIT)
            assert view["game"]["hand"] == []
            at = len(bea.messages)
            await bea.send({"type": "action", "id": "x1", "state": view["state"], "action": "draw stock"})
            assert (await bea.wait(lambda m: m["type"] == "error", at, WAIT))["code"] == "not_seated"
            again = Client(server.ws)
            assert (await again.connect(room=code, token=joined["token"]))["code"] == "bad_token"
            at = len(ana.messages)
            await ana.send({"type": "kick", "seat": 0})
            assert (await ana.wait(lambda m: m["type"] == "error", at, WAIT))["code"] == "bad_seat"
            for client in (ana, bea, cid, again):
                await client.close()

        asyncio.run(run())


def test_two_actions_sent_at_once_never_interleave(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner")
            code = room["code"]
            joined = await join_room(server.base, code, "Bea")
            # Ana twice (two devices on one token), and Bea.
            one = await seated(server, code, room["token"])
            two = await seated(server, code, room["token"])
            bea = await seated(server, code, joined["token"])
            await start(one)
            rng = random.Random(6)
            rounds = 0
            while rounds < 12 and not over(one)():
                # Poll: the turn may show in Bea's view after Ana's clients got their last message.
                for _ in range(int(WAIT * 20)):
                    if one.my_turn() or bea.my_turn() or over(one)():
                        break
                    await asyncio.sleep(0.05)
                if over(one)():
                    break
                mover, other = (one, two) if one.my_turn() else (bea, one)
                assert mover.view is not None
                state = mover.view["state"]
                await other.wait(at_least(state), 0, WAIT)
                legal = mover.view["game"]["legal_actions"]
                first, second = rng.choice(legal), rng.choice(legal)
                if mover is one:
                    answers = await asyncio.gather(one.act(first, state), two.act(second, state))
                    codes = sorted(a.get("code", "ack") for a in answers)
                    assert codes == ["ack", "stale_state"], answers
                else:
                    answers = await asyncio.gather(bea.act(first, state), one.act(second, state))
                    assert answers[0]["type"] == "ack", answers
                    assert answers[1]["code"] in ("not_your_turn", "stale_state"), answers
                acked = [a for a in answers if a["type"] == "ack"]
                # An action that ends a deal makes several events; the ack names the last, which came before it.
                made = acked[0]["state"]
                assert made > state
                acker = mover if answers[0]["type"] == "ack" else two
                before = acker.messages[: acker.messages.index(acked[0])]
                assert [m["n"] for m in before if m["type"] == "event"][-1] == made
                await bea.wait(at_least(made), 0, WAIT)
                rounds += 1
            numbers = [e["n"] for e in events(bea)]
            assert numbers == list(range(numbers[0], numbers[0] + len(numbers)))
            assert len({(e["n"]) for e in events(bea)}) == len(numbers)
            for client in (one, two, bea):
                await client.close()

        asyncio.run(run())


def test_a_slow_bot_thinks_off_the_event_loop(db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    thinking, release = threading.Event(), threading.Event()
    real = bots._think

    def slow(payload: bytes) -> tuple[str, float]:
        thinking.set()
        release.wait(WAIT)
        return real(payload)

    monkeypatch.setattr(bots, "_think", slow)
    with running_server(db, bot_deadline=WAIT * 2) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner")
            other = await create_room(server.base, name="Bea", seats=2, bot_level="beginner")
            ana = await seated(server, room["code"], room["token"])
            bea = await seated(server, other["code"], other["token"])
            await start(ana)
            rng = random.Random(3)
            # Ana plays until the bot has to think.
            await asyncio.wait_for(ana.play_randomly(rng, lambda: thinking.is_set() or over(ana)()), 4 * WAIT)
            assert thinking.is_set()
            mark = len(ana.messages)
            at = len(bea.messages)
            await bea.send({"type": "ping", "t": "while the bot thinks"})
            pong = await bea.wait(lambda m: m["type"] == "pong", at, WAIT)
            # The pong came back while the bot was still thinking: no move of it yet.
            assert pong["t"] == "while the bot thinks" and not release.is_set()
            assert not any(acted(e, 1) for e in events(ana, mark))
            release.set()
            await ana.wait(lambda m: acted(m, 1), mark, WAIT)
            for client in (ana, bea):
                await client.close()

        try:
            asyncio.run(run())
        finally:
            release.set()


def test_a_returning_client_gets_the_events_it_missed_or_else_the_whole_view(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=4, bot_level="beginner")
            code = room["code"]
            ana = await seated(server, code, room["token"])
            await start(ana)
            rng = random.Random(9)
            # A second connection of Ana's seat plays on while the first one leaves at event ``last``.
            player = await seated(server, code, room["token"])
            await play_until(player, rng, lambda: bool(player.view and player.view["state"] >= 12))
            last = ana.last_event
            kept = ana.view
            await ana.close()
            await play_until(player, rng, lambda: bool(player.view and player.view["state"] >= last + 20))
            # The client goes on from the view it kept: the events it missed come, and no whole view.
            back = Client(server.ws, view=kept)
            await back.connect(room=code, token=room["token"], last_event=last)
            now = player.last_event
            view = await back.wait_state(now, WAIT)
            missed = events(back)
            assert [e["n"] for e in missed] == list(range(last + 1, len(missed) + last + 1))
            assert not [m for i, m in enumerate(back.messages) if m["type"] == "view" and i not in back.folded]
            # Those events are the ones the playing connection saw, and fold into the view it has.
            seen = {e["n"]: e for e in events(player)}
            assert all(e == seen[e["n"]] for e in missed if e["n"] in seen)
            await player.wait_state(view["state"], WAIT)
            same = [m for m in player.messages if m["type"] == "view" and m["state"] == view["state"]]
            assert same and view == same[-1] and back.gaps == 0
            await back.close()

            # Far behind (more than the 256 events kept): the whole view only.
            def far() -> bool:
                return bool(player.view and player.view["state"] >= last + 300)

            while not far():
                await play_until(player, rng, lambda: far() or over(player)())
                if not far():
                    at = len(player.messages)
                    await player.send({"type": "rematch"})
                    await player.wait(is_view(lambda m: m["status"] == "playing"), at, WAIT)
            old = Client(server.ws, view=kept)
            await old.connect(room=code, token=room["token"], last_event=last)
            whole = await old.wait(lambda m: m["type"] == "view" and m["state"] > last, 0, WAIT)
            # The bots play on, so events may follow the whole view; none comes before it.
            at = next(i for i, m in enumerate(old.messages) if m is whole)
            after = [e["n"] for e in events(old, at)]
            assert [m for m in old.messages[:at] if m["type"] == "event"] == [] and whole["state"] >= last + 300
            assert after == list(range(whole["state"] + 1, whole["state"] + 1 + len(after)))
            await player.wait(at_least(whole["state"]), 0, WAIT)
            same = [m for m in player.messages if m["type"] == "view" and m["state"] == whole["state"]]
            assert same and whole["game"] == same[-1]["game"] and whole["seat"] == 0
            for client in (player, old):
                await client.close()

        asyncio.run(run())


@pytest.fixture
def restored_logging() -> Iterator[None]:
    """The server's and Uvicorn's loggers as they were, after the test."""
    names = ("chinchon.server", "uvicorn", "uvicorn.error", "uvicorn.access")
    saved = [(logging.getLogger(n), logging.getLogger(n).handlers[:], logging.getLogger(n).level) for n in names]
    propagate = [logging.getLogger(n).propagate for n in names]
    yield
    for (logger, handlers, level), flag in zip(saved, propagate, strict=True):
        logger.handlers[:] = handlers
        logger.setLevel(level)
        logger.propagate = flag


def test_logs_carry_no_token_and_json_logs_are_one_object_a_line(
    db: str, restored_logging: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    with running_server(db) as server:
        setup_logging("debug", as_json=True)

        async def run() -> list[str]:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            code = room["code"]
            joined = await join_room(server.base, code, "Bea")
            ana = await seated(server, code, room["token"])
            bea = await seated(server, code, joined["token"])
            wrong = Client(server.ws)
            await wrong.connect(room=code, token=joined["token"][::-1])
            await bea.send('{"type": "hello", "room": "' + code + '", "token": ' + json.dumps(joined["token"]) + "}")
            await bea.send("not json " + joined["token"])
            await start(ana)
            await ana.send({"type": "kick", "seat": 1})
            await play_until(ana, random.Random(1), lambda: bool(ana.view and ana.view["state"] >= 10))
            async with httpx.AsyncClient() as http:
                await http.get(f"{server.base}/api/rooms/{code}")
                await http.get(f"{server.base}/api/rooms/{code}/record")
            for client in (ana, bea, wrong):
                await client.close()
            return [room["token"], joined["token"]]

        tokens = asyncio.run(run())
    text = stream.getvalue()
    lines = text.splitlines()
    assert any('"room created"' in line for line in lines) and any('"uvicorn' in line for line in lines)
    for line in lines:
        entry = json.loads(line)
        assert isinstance(entry, dict) and {"time", "level", "logger", "message"} <= set(entry)
    for token in tokens:
        for secret in (token, hash_token(token), token[::-1]):
            assert secret not in text


def test_a_person_back_just_as_the_room_closes_keeps_it_open(db: str) -> None:
    # The driver finds nobody left while Ana's hello waits for the room's lock: Ana gets in first.
    with running_server(db, grace=1) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=2, bot_level="beginner")
            code = room["code"]
            ana = await seated(server, code, room["token"])
            await start(ana)
            live = server.manager.rooms[code]
            assert live.driver is not None
            loop = live.driver.get_loop()
            held = asyncio.run_coroutine_threadsafe(live.lock.acquire(), loop)
            await asyncio.wrap_future(held)
            try:
                await ana.close()

                def waiting() -> int:
                    return len(live.lock._waiters or ())

                for _ in range(int(WAIT * 10)):
                    if waiting() >= 1:  # the driver, woken by the disconnection
                        break
                    await asyncio.sleep(0.1)
                assert waiting() >= 1
                await asyncio.sleep(1.5)  # the grace period runs out while the driver waits
                back = Client(server.ws)
                hello = asyncio.create_task(back.connect(room=code, token=room["token"]))
                for _ in range(int(WAIT * 10)):
                    if waiting() >= 2:
                        break
                    await asyncio.sleep(0.05)
                assert waiting() >= 2
            finally:
                loop.call_soon_threadsafe(live.lock.release)
            welcome = await asyncio.wait_for(hello, WAIT)
            assert welcome["type"] == "welcome" and welcome["seat"] == 0
            at = len(back.messages)
            await back.send({"type": "ping"})
            await back.wait(lambda m: m["type"] == "pong", at, WAIT)
            assert back.view is not None and back.view["status"] == "playing"
            assert not live.closed and server.manager.rooms.get(code) is live
            assert await stored_status(db, code) == "playing"
            await back.close()

        asyncio.run(run())


def test_the_creator_leaving_a_waiting_room_hands_it_on(db: str) -> None:
    with running_server(db) as server:

        async def run() -> None:
            room = await create_room(server.base, name="Ana", seats=3, bot_level="beginner")
            code = room["code"]
            bea_joined = await join_room(server.base, code, "Bea")
            cid_joined = await join_room(server.base, code, "Cid")
            ana = await seated(server, code, room["token"])
            bea = await seated(server, code, bea_joined["token"])
            cid = await seated(server, code, cid_joined["token"])
            at = len(bea.messages)
            await ana.send({"type": "leave"})
            handed = await bea.wait(is_view(lambda m: seat_info(m, 0)["kind"] == "open"), at, WAIT)
            assert [s["creator"] for s in handed["seats"]] == [False, True, False]
            # The new creator kicks Cid: in a waiting room the seat is open again.
            await bea.send({"type": "kick", "seat": 2})
            assert (await cid.wait(lambda m: m["type"] == "error", 0, WAIT))["code"] == "not_seated"
            kicked = await bea.wait(is_view(lambda m: seat_info(m, 2)["kind"] == "open"), at, WAIT)
            assert seat_info(kicked, 2)["name"] is None
            view = await start(bea)
            assert [s["kind"] for s in view["seats"]] == ["bot", "person", "bot"]
            for token in (room["token"], cid_joined["token"]):
                stale = Client(server.ws)
                assert (await stale.connect(room=code, token=token))["code"] == "bad_token"
                await stale.close()
            for client in (ana, bea, cid):
                await client.close()

        asyncio.run(run())


def test_log_lines_leave_out_uvicorns_coloured_copy_of_the_message() -> None:
    from chinchon.server.logs import JsonFormatter, TextFormatter

    record = logging.LogRecord("uvicorn.error", logging.INFO, "x", 0, "Started server process [%d]", (7,), None)
    record.color_message = "Started server process [\x1b[36m%d\x1b[0m]"
    record.room = "ABCDEFG"
    text = TextFormatter().format(record)
    assert "\x1b" not in text and "color_message" not in text and "room=ABCDEFG" in text
    entry = json.loads(JsonFormatter().format(record))
    assert "color_message" not in entry and entry["room"] == "ABCDEFG"
