"""Appends that arrive together are written together, and each still fails or succeeds on its own."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from chinchon.rules import Rules
from chinchon.server import store as store_module
from chinchon.server.store import EventRow, RoomRow, SeatRow, Store, StoreError


def room_row(code: str) -> RoomRow:
    return RoomRow(
        code=code,
        created=1000.0,
        public=False,
        status="playing",
        preset="fournier",
        rules=Rules().to_dict(),
        seats=2,
        bot_level="easy",
        turn_seconds=None,
        creator=0,
        match=1,
        seed="7",
        last_event=0,
        seat_rows=[SeatRow(0, "Ana", "person", None, "a" * 64, "es"), SeatRow(1, None, "open", None, None, None)],
    )


def test_many_rooms_appending_at_once_keep_every_event_in_order(db: str) -> None:
    codes = [f"R{k:06d}" for k in range(20)]

    async def room(store: Store, code: str) -> None:
        for n in range(1, 9):
            if n == 4:
                seat = SeatRow(1, "Bea", "person", None, "b" * 64, "pt")
                await store.append(code, EventRow(n, 1, "join", 1, None, float(n)), seat_changes=[seat])
            else:
                await store.append(code, EventRow(n, 1, "action", n % 2, f"move {n}", float(n)))

    async def run() -> None:
        store = Store(db)
        await store.open()
        try:
            for code in codes:
                await store.create_room(room_row(code))
            await asyncio.gather(*(room(store, code) for code in codes))
            for code in codes:
                row = await store.load_room(code)
                assert row is not None
                assert row.last_event == 8
                assert [(e.n, e.kind, e.data) for e in row.events] == [
                    (n, "join" if n == 4 else "action", None if n == 4 else f"move {n}") for n in range(1, 9)
                ]
                assert row.seat_rows[1] == SeatRow(1, "Bea", "person", None, "b" * 64, "pt")
        finally:
            await store.close()

    asyncio.run(run())


def test_a_refused_append_fails_alone_in_its_batch(db: str) -> None:
    async def run() -> None:
        store = Store(db)
        await store.open()
        try:
            for code in ("AAAAAAA", "BBBBBBB", "CCCCCCC"):
                await store.create_room(room_row(code))
            await store.append("AAAAAAA", EventRow(1, 1, "action", 0, "first", 1.0))
            # Sent together, before the writer runs: one batch, whose first append reuses an event number.
            results = await asyncio.gather(
                store.append("AAAAAAA", EventRow(1, 1, "action", 0, "again", 2.0)),
                store.append("BBBBBBB", EventRow(1, 1, "action", 0, "b", 2.0)),
                store.append(
                    "CCCCCCC",
                    EventRow(1, 1, "join", 1, None, 2.0),
                    seat_changes=[SeatRow(1, "Cy", "person", None, "c" * 64, None)],
                ),
                return_exceptions=True,
            )
            assert isinstance(results[0], Exception)
            assert list(results[1:]) == [None, None]
            a, b, c = [await store.load_room(code) for code in ("AAAAAAA", "BBBBBBB", "CCCCCCC")]
            assert a is not None and [(e.n, e.data) for e in a.events] == [(1, "first")]
            assert b is not None and b.last_event == 1 and [e.data for e in b.events] == ["b"]
            assert c is not None and c.last_event == 1 and c.seat_rows[1].name == "Cy"
        finally:
            await store.close()

    asyncio.run(run())


@contextlib.asynccontextmanager
async def locked_store(path: str, code: str) -> AsyncIterator[tuple[Store, sqlite3.Connection]]:
    """A store on a SQLite file with room ``code``, and another connection (another process, or the store's own
    async one) in the middle of a write: the caller ends it (``COMMIT`` or ``ROLLBACK``) and closes it."""
    store = Store(f"sqlite+aiosqlite:///{path}")
    await store.open()
    try:
        await store.create_room(room_row(code))
        other = sqlite3.connect(path, isolation_level=None, timeout=0)
        other.execute("BEGIN IMMEDIATE")
        other.execute("UPDATE rooms SET updated = 1")
        yield store, other
    finally:
        await store.close()


def test_an_append_waits_for_a_write_lock_held_elsewhere_without_stopping_the_loop(tmp_path: Path) -> None:
    path = str(tmp_path / "locked.db")

    async def run() -> None:
        async with locked_store(path, "LOCKED") as (store, other):
            append = asyncio.create_task(store.append("LOCKED", EventRow(1, 1, "action", 0, "move 1", 1.0)))
            ticks = 0
            for _ in range(20):
                await asyncio.sleep(0.01)
                ticks += 1
            assert not append.done()
            other.execute("COMMIT")
            other.close()
            await asyncio.wait_for(append, 5)
            assert ticks == 20
            row = await store.load_room("LOCKED")
            assert row is not None and [(e.n, e.data) for e in row.events] == [(1, "move 1")]
            assert row.last_event == 1

    asyncio.run(run())


def test_an_append_fails_with_a_clear_error_if_the_lock_stays_held_and_nothing_is_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "stuck.db")
    monkeypatch.setattr(store_module, "BUSY_SECONDS", 0.2)

    async def run() -> None:
        async with locked_store(path, "STUCK") as (store, other):
            with pytest.raises(StoreError, match=r"busy for 0\.2 seconds"):
                await store.append("STUCK", EventRow(1, 1, "action", 0, "move 1", 1.0))
            other.execute("ROLLBACK")
            other.close()
            await store.append("STUCK", EventRow(1, 1, "action", 0, "move 1 again", 2.0))
            row = await store.load_room("STUCK")
            assert row is not None and [(e.n, e.data) for e in row.events] == [(1, "move 1 again")]

    asyncio.run(run())


def test_a_batch_that_finds_the_lock_held_too_long_fails_whole_not_append_by_append(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "stuck.db")
    monkeypatch.setattr(store_module, "BUSY_SECONDS", 0.2)
    sizes: list[int] = []
    try_inline = Store._try_inline

    def counted(self: Store, batch: list[Any]) -> Any:
        sizes.append(len(batch))
        return try_inline(self, batch)

    monkeypatch.setattr(Store, "_try_inline", counted)

    async def run() -> None:
        async with locked_store(path, "STUCK") as (store, other):
            results = await asyncio.gather(
                *(store.append("STUCK", EventRow(n, 1, "action", 0, f"move {n}", 1.0)) for n in range(1, 6)),
                return_exceptions=True,
            )
            other.execute("ROLLBACK")
            other.close()
            assert [type(result) for result in results] == [StoreError] * 5
            assert set(sizes) == {5}

    asyncio.run(run())
