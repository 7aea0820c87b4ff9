"""Appends that arrive together are written together, and each still fails or succeeds on its own."""

from __future__ import annotations

import asyncio

from chinchon.rules import Rules
from chinchon.server.store import EventRow, RoomRow, SeatRow, Store


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
