"""What a review of the server found: refused changes leave the room as it was, and the bots' pool recovers."""

from __future__ import annotations

import asyncio
import copy
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from chinchon.actions import Discard
from chinchon.server.bots import BotPool
from chinchon.server.hub import Hub
from chinchon.server.protocol import CreateRoom
from chinchon.server.rooms import Manager, Refused, ServerSettings
from chinchon.server.store import Store


async def _manager(tmp_path: Path) -> Manager:
    settings = ServerSettings(db=f"sqlite+aiosqlite:///{tmp_path / 'server.db'}", bot_pool="thread", grace=60)
    store = Store(settings.db)
    await store.open()
    return Manager(settings, store, Hub(), BotPool(1, "thread"))


def _failing(_self: Any = None, *args: Any, **kwargs: Any) -> Any:
    raise OSError("disk full")


def _seats(room: Any) -> list[tuple[Any, ...]]:
    return [(s.kind, s.name, s.level, s.token_hash) for s in room.seats]


def test_a_kick_join_or_start_the_store_refuses_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def run() -> None:
        manager = await _manager(tmp_path)
        room, _token = await manager.create(CreateRoom(name="Ana", seats=3, bot_level="beginner"))
        await room.join("Bea", None)
        before = _seats(room)
        real_append = manager.store.append
        monkeypatch.setattr(manager.store, "append", _failing)
        for attempt in (room.remove(0, 1, "kick"), room.join("Cai", None), room.start(0)):
            with pytest.raises(Refused) as refused:
                await attempt
            assert refused.value.code == "server_busy"
            assert _seats(room) == before and room.creator == 0 and room.status == "waiting"
        monkeypatch.setattr(manager.store, "append", real_append)
        await room.start(0)
        stored = await manager.store.load_room(room.code)
        assert stored is not None
        assert [(s.kind, s.name) for s in stored.seat_rows] == [("person", "Ana"), ("person", "Bea"), ("bot", None)]
        await manager.shutdown()
        await manager.store.close()

    asyncio.run(run())


def test_a_chat_line_the_store_refuses_is_a_typed_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def run() -> None:
        manager = await _manager(tmp_path)
        room, _token = await manager.create(CreateRoom(name="Ana", seats=2))
        monkeypatch.setattr(manager.store, "add_chat", _failing)
        with pytest.raises(Refused) as refused:
            await manager.chat(room, "Ana", 0, "hola")
        assert refused.value.code == "server_busy"
        await manager.shutdown()
        await manager.store.close()

    asyncio.run(run())


def test_an_illegal_action_is_explained_without_copying_the_match(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
        raise AssertionError("the match was copied to explain a refusal")

    async def run() -> None:
        manager = await _manager(tmp_path)
        room, _token = await manager.create(CreateRoom(name="Ana", seats=2, bot_level="beginner"))
        await room.start(0)
        match = room.match
        assert match is not None
        seat = match.to_move
        assert seat is not None
        monkeypatch.setattr(copy, "deepcopy", no_copy)
        with pytest.raises(Refused) as refused:
            async with room.lock:
                room._check_legal(Discard(match.deal.hand(seat)[0]))
        assert refused.value.code == "illegal_action"
        assert refused.value.template == "you must draw first"
        await manager.shutdown()
        await manager.store.close()

    asyncio.run(run())


def test_the_bots_pool_recovers_when_a_worker_dies() -> None:
    from chinchon.match import Match

    match = Match(["Ana", "Bot"], seed=3)
    seat = match.to_move
    assert seat is not None
    pool = BotPool(1, "process")

    async def run() -> tuple[str, str]:
        first, _ = await pool.choose("simple", match.observation(seat), 60)
        pids = pool.pids()
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        second, _ = await pool.choose("simple", match.observation(seat), 60)
        return first, second

    try:
        first, second = asyncio.run(run())
    finally:
        pool.close()
    legal = {str(action) for action in match.legal_actions()}
    assert first in legal and second in legal


def test_a_language_tag_longer_than_the_store_keeps_is_refused() -> None:
    with pytest.raises(ValidationError):
        CreateRoom.model_validate({"name": "Ana", "lang": "x" * 9})
    assert CreateRoom.model_validate({"name": "Ana", "lang": "pt-BR"}).lang == "pt-BR"


def _fail(message: str) -> None:
    raise ValueError(message)


def test_the_bots_pool_runs_no_thread_in_the_servers_process_and_survives_errors_and_deadlines() -> None:
    from chinchon.match import Match

    match = Match(["Ana", "Bot"], seed=5)
    seat = match.to_move
    assert seat is not None
    pool = BotPool(2, "process")
    before = threading.active_count()

    async def run() -> tuple[int, str]:
        threads = 0
        with pytest.raises(ValueError, match="told to fail"):
            await pool.run(_fail, "told to fail")
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(pool.run(time.sleep, 2.0), 0.05)
        for _ in range(4):
            chosen, _ = await pool.choose("simple", match.observation(seat), 60)
            threads = max(threads, threading.active_count())
        return threads, chosen

    try:
        threads, chosen = asyncio.run(run())
    finally:
        pool.close()
    assert threads == before, "a thread ran beside the event loop for the bots"
    assert chosen in {str(action) for action in match.legal_actions()}


def test_the_bots_think_below_the_servers_scheduling_priority() -> None:
    from chinchon.match import Match
    from chinchon.server.app import create_app

    match = Match(["Ana", "Bot"], seed=5)
    seat = match.to_move
    assert seat is not None
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    pool = BotPool(1, "process", nice=5)

    async def run() -> list[int]:
        await pool.choose("simple", match.observation(seat), 60)
        return [os.getpriority(os.PRIO_PROCESS, pid) for pid in pool.pids()]

    try:
        assert asyncio.run(run()) == [min(19, mine + 5)]
    finally:
        pool.close()
    # The server's pools, the bots' and the analyses', take the setting (10 steps by default).
    assert ServerSettings().bot_nice == 10
    app = create_app(ServerSettings(db="sqlite+aiosqlite:///:memory:", bot_nice=7))
    assert app.state.manager.pool.nice == 7 and app.state.analyses.pool.nice == 7
