"""The server's storage: rooms, seats, the append-only event log, matches and chat.

SQLAlchemy 2 (async Core) on SQLite (``sqlite+aiosqlite:///file.db``, the
default) or PostgreSQL (``postgresql+asyncpg://...``). The event log is the
source of truth: an action is written here before its events leave the
server, and a room is rebuilt from its rules, its seed and its log.
Appends are batched: those made while a transaction is written go in the
next one. On a SQLite file they are written on the event loop's thread, on
a connection of their own that never waits for the write lock (it tries
again a little later); everything else goes through aiosqlite.
Tokens are kept as SHA-256 digests only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    Float,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    event,
    false,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from sqlalchemy.pool import ConnectionPoolEntry, StaticPool
from sqlalchemy.sql.expression import Executable

__all__ = ["EventRow", "RoomRow", "SeatRow", "Store", "StoreError"]

metadata = MetaData()

rooms = Table(
    "rooms",
    metadata,
    Column("code", String(16), primary_key=True),
    Column("created", Float, nullable=False),
    Column("public", Boolean, nullable=False),
    Column("status", String(16), nullable=False),
    Column("preset", String(32)),
    Column("rules", JSON, nullable=False),
    Column("seats", Integer, nullable=False),
    Column("bot_level", String(64), nullable=False),
    Column("turn_seconds", Float),
    Column("creator", Integer, nullable=False),
    Column("match", Integer, nullable=False),
    Column("seed", String(64)),
    Column("last_event", BigInteger, nullable=False),
    Column("updated", Float, nullable=False),
    Column("rated", Boolean, nullable=False, server_default=false()),
)

seats = Table(
    "seats",
    metadata,
    Column("room", String(16), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64)),
    Column("kind", String(8), nullable=False),
    Column("level", String(64)),
    Column("token_hash", String(64)),
    Column("lang", String(8)),
    Column("account", Integer, index=True),
)

events = Table(
    "events",
    metadata,
    Column("room", String(16), primary_key=True),
    Column("n", BigInteger, primary_key=True),
    Column("match", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("seat", Integer),
    Column("data", Text),
    Column("time", Float, nullable=False),
)

matches = Table(
    "matches",
    metadata,
    Column("room", String(16), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("seed", String(64), nullable=False),
    Column("record", Text),
    Column("finished", Float),
)

chat = Table(
    "chat",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(16), nullable=False, index=True),
    Column("time", Float, nullable=False),
    Column("name", String(64), nullable=False),
    Column("seat", Integer),
    Column("text", Text, nullable=False),
)


class StoreError(Exception):
    """A database that cannot be opened or used."""


@dataclass
class SeatRow:
    """A seat as stored."""

    seat: int
    name: str | None
    kind: str
    level: str | None
    token_hash: str | None
    lang: str | None = None
    account: int | None = None


@dataclass
class EventRow:
    """One numbered event of a room's log."""

    n: int
    match: int
    kind: str
    seat: int | None
    data: str | None
    time: float


RECENT_EVENTS = 256
"""The latest events of a room loaded with it beside its current match's, for the clients that come back."""


@dataclass
class RoomRow:
    """A room as stored, with its seats, the events of its current match and the latest before them.

    ``seeds`` holds the seed of each match whose events are loaded (the current one's is ``seed``).
    """

    code: str
    created: float
    public: bool
    status: str
    preset: str | None
    rules: dict[str, Any]
    seats: int
    bot_level: str
    turn_seconds: float | None
    creator: int
    match: int
    seed: str | None
    last_event: int
    seat_rows: list[SeatRow] = field(default_factory=list)
    events: list[EventRow] = field(default_factory=list)
    rated: bool = False
    seeds: dict[int, str] = field(default_factory=dict)


def _sqlite_pragmas(busy_ms: int) -> Callable[[Any, ConnectionPoolEntry], None]:
    """A connection listener setting SQLite's journal and how long a connection waits for the write lock."""

    def listener(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
        # WAL survives a killed process with every committed transaction; NORMAL skips an fsync per commit.
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_ms)}")
        cursor.close()

    return listener


BUSY_SECONDS = 10.0
"""How long appends wait for SQLite's write lock, held by another connection, before they fail."""


class _Busy:
    """Another connection holds SQLite's write lock."""


_BUSY = _Busy()


def _busy(exc: OperationalError) -> bool:
    return getattr(exc.orig, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


@dataclass(eq=False)
class _Append:
    """One append waiting for its transaction."""

    code: str
    entry: EventRow
    room: dict[str, Any] | None
    seat_changes: list[SeatRow] | None
    new_match_seed: str | None
    done: asyncio.Future[None]


def _settle(done: asyncio.Future[None], error: BaseException | None) -> None:
    if done.done():
        return
    if error is None:
        done.set_result(None)
    else:
        done.set_exception(error)


def _statements(batch: list[_Append]) -> list[tuple[Executable, Any]]:
    """The statements that write a batch of appends, each with its parameters."""
    out: list[tuple[Executable, Any]] = [
        (
            insert(events),
            [
                {
                    "room": one.code,
                    "n": one.entry.n,
                    "match": one.entry.match,
                    "kind": one.entry.kind,
                    "seat": one.entry.seat,
                    "data": one.entry.data,
                    "time": one.entry.time,
                }
                for one in batch
            ],
        )
    ]
    # Each room's last event is its latest in the batch, whichever append changed the room too.
    latest: dict[str, EventRow] = {}
    for one in batch:
        if one.code not in latest or one.entry.n > latest[one.code].n:
            latest[one.code] = one.entry
    out.append(
        (
            update(rooms)
            .where(rooms.c.code == bindparam("room_code"))
            .values(last_event=bindparam("room_last"), updated=bindparam("room_updated")),
            [{"room_code": code, "room_last": entry.n, "room_updated": entry.time} for code, entry in latest.items()],
        )
    )
    for one in batch:
        code, entry = one.code, one.entry
        if one.room:
            out.append((update(rooms).where(rooms.c.code == code).values(**one.room), None))
        for change in one.seat_changes or ():
            out.append(
                (
                    update(seats)
                    .where(seats.c.room == code, seats.c.seat == change.seat)
                    .values(
                        name=change.name,
                        kind=change.kind,
                        level=change.level,
                        token_hash=change.token_hash,
                        lang=change.lang,
                        account=change.account,
                    ),
                    None,
                )
            )
        if one.new_match_seed is not None:
            out.append(
                (insert(matches).values(room=code, number=entry.match, seed=one.new_match_seed, record=None), None)
            )
    return out


class Store:
    """The rooms' storage on one database URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        self._pending: list[_Append] = []
        self._writer: asyncio.Task[None] | None = None
        try:
            self.engine: AsyncEngine = create_async_engine(url, pool_pre_ping=True)
        except Exception as exc:  # SQLAlchemy raises several kinds for a bad URL
            raise StoreError(f"cannot use the database {_safe_url(url)}: {exc}") from None
        # On a SQLite file the appends are written on the event loop, on a connection of their own (a batch
        # takes about a millisecond), never waiting for the write lock. Through aiosqlite's thread a batch took
        # ten hand-offs (a cursor, an execute and a close a statement, the pool's ping, the commit), and in
        # any thread each row's step gives up the interpreter's lock and waits up to 5 ms to get it back: at
        # a thousand rooms, batches of 40 appends took 40 ms at the median and a second at worst.
        self._writer_engine: Engine | None = None
        if self.engine.dialect.name == "sqlite":
            sync: Engine = self.engine.sync_engine
            event.listen(sync, "connect", _sqlite_pragmas(5000))
            database = self.engine.url.database
            if database and database != ":memory:" and not database.startswith("file:"):
                self._writer_engine = create_engine(
                    self.engine.url.set(drivername="sqlite+pysqlite"),
                    poolclass=StaticPool,
                    isolation_level="AUTOCOMMIT",
                    connect_args={"check_same_thread": False, "timeout": 0},
                )
                # The appends' connection never waits for the write lock: it would stop the event loop.
                event.listen(self._writer_engine, "connect", _sqlite_pragmas(0))

    async def open(self) -> None:
        """Bring the database's schema up to date (Alembic's migrations; see :mod:`chinchon.server.migrations`)."""
        from chinchon.server.migrations import upgrade

        try:
            async with self.engine.begin() as connection:
                await connection.run_sync(upgrade)
        except Exception as exc:
            raise StoreError(f"cannot open the database {_safe_url(self.url)}: {exc}") from None

    async def revision(self) -> str | None:
        """The migration the database's schema is at (``None`` before any)."""
        from chinchon.server.migrations import current

        async with self.engine.connect() as connection:
            return await connection.run_sync(current)

    async def close(self) -> None:
        """Close every connection (once the appends waiting are written)."""
        if self._writer is not None:
            await asyncio.wait([self._writer], timeout=10)
        await self.engine.dispose()
        if self._writer_engine is not None:
            self._writer_engine.dispose()

    async def create_room(self, row: RoomRow) -> None:
        """Store a new room and its seats."""
        now = time.time()
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(rooms).values(
                    code=row.code,
                    created=row.created,
                    public=row.public,
                    status=row.status,
                    preset=row.preset,
                    rules=row.rules,
                    seats=row.seats,
                    bot_level=row.bot_level,
                    turn_seconds=row.turn_seconds,
                    creator=row.creator,
                    match=row.match,
                    seed=row.seed,
                    last_event=row.last_event,
                    updated=now,
                    rated=row.rated,
                )
            )
            await connection.execute(
                insert(seats),
                [
                    {
                        "room": row.code,
                        "seat": s.seat,
                        "name": s.name,
                        "kind": s.kind,
                        "level": s.level,
                        "token_hash": s.token_hash,
                        "lang": s.lang,
                        "account": s.account,
                    }
                    for s in row.seat_rows
                ],
            )

    async def code_exists(self, code: str) -> bool:
        """Whether a room has this code, open or closed."""
        async with self.engine.connect() as connection:
            found = await connection.execute(select(rooms.c.code).where(rooms.c.code == code))
            return found.first() is not None

    async def append(
        self,
        code: str,
        entry: EventRow,
        *,
        room: dict[str, Any] | None = None,
        seat_changes: list[SeatRow] | None = None,
        new_match_seed: str | None = None,
    ) -> None:
        """Append one event to a room's log, with the room's and seats' changes; returns once it is committed.

        Appends that arrive while a transaction is being written wait and go
        together in the next one (a commit costs the same for one event as for
        a hundred); a batch that fails is written again one append at a time,
        so that each append fails or succeeds on its own.
        """
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(_Append(code, entry, room, seat_changes, new_match_seed, done))
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._write_pending())
        await asyncio.shield(done)

    async def _write_pending(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            commit = self._commit_inline if self._writer_engine is not None else self._commit_here
            errors = await self._write(batch, commit)
            for one, error in zip(batch, errors, strict=True):
                _settle(one.done, error)
            # The appends made while this batch was written go together in the next one, a turn of the loop later.
            await asyncio.sleep(0)

    async def _write(
        self, batch: list[_Append], commit: Callable[[list[_Append]], Awaitable[BaseException | None]]
    ) -> list[BaseException | None]:
        """Each append's error (``None`` once written): the batch in one transaction, each append alone if that
        fails."""
        error = await commit(batch)
        if error is None:
            return [None] * len(batch)
        if isinstance(error, StoreError):
            # The lock stayed held elsewhere, no append's fault: each alone would wait as long again.
            return [error] * len(batch)
        if len(batch) == 1:
            return [error]
        return [(await self._write([one], commit))[0] for one in batch]

    async def _commit_inline(self, batch: list[_Append]) -> BaseException | None:
        """Write a batch on the writer's connection, in one transaction: ``None``, or the error that stopped it."""
        deadline = time.monotonic() + BUSY_SECONDS
        while isinstance(outcome := self._try_inline(batch), _Busy):
            if time.monotonic() > deadline:
                return StoreError(f"the database stayed busy for {BUSY_SECONDS:g} seconds")
            # Another connection is writing (a room created, a match recorded): it commits in its thread.
            await asyncio.sleep(0.002)
        return outcome

    def _try_inline(self, batch: list[_Append]) -> BaseException | _Busy | None:
        """Write a batch now if the database's write lock is free: ``None`` once committed, the error that
        rolled it back, or ``_BUSY`` (nothing done) if another connection holds the lock."""
        assert self._writer_engine is not None
        with self._writer_engine.connect() as connection:
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            except OperationalError as exc:
                return _BUSY if _busy(exc) else exc
            try:
                for statement, parameters in _statements(batch):
                    connection.execute(statement, parameters)
                connection.exec_driver_sql("COMMIT")
            except Exception as exc:
                with contextlib.suppress(Exception):
                    connection.exec_driver_sql("ROLLBACK")
                return exc
        return None

    async def _commit_here(self, batch: list[_Append]) -> BaseException | None:
        """Write a batch on the event loop's connection, in one transaction: ``None``, or the error that stopped
        it."""
        try:
            async with self.engine.begin() as connection:
                for statement, parameters in _statements(batch):
                    await connection.execute(statement, parameters)
        except Exception as exc:
            return exc
        return None

    async def set_status(self, code: str, status: str) -> None:
        """Change a room's status (closing it, for one)."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(rooms).where(rooms.c.code == code).values(status=status, updated=time.time())
            )

    async def finish_match(self, code: str, number: int, record: dict[str, Any]) -> None:
        """Keep a finished match's record."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(matches)
                .where(matches.c.room == code, matches.c.number == number)
                .values(record=json.dumps(record, ensure_ascii=False), finished=time.time())
            )

    async def record(self, code: str, number: int | None = None) -> dict[str, Any] | None:
        """The record of a room's finished match (its latest finished one by default)."""
        query = select(matches.c.record).where(matches.c.room == code, matches.c.record.is_not(None))
        if number is not None:
            query = query.where(matches.c.number == number)
        query = query.order_by(matches.c.number.desc()).limit(1)
        async with self.engine.connect() as connection:
            found = (await connection.execute(query)).first()
        return None if found is None else dict(json.loads(found[0]))

    async def load_room(self, code: str) -> RoomRow | None:
        """A room with its seats, the events of its current match and the latest before them."""
        async with self.engine.connect() as connection:
            found = (await connection.execute(select(rooms).where(rooms.c.code == code))).mappings().first()
            if found is None:
                return None
            return await self._load(connection, dict(found))

    async def open_rooms(self) -> list[RoomRow]:
        """Every room not closed, to rebuild at start."""
        async with self.engine.connect() as connection:
            found = (await connection.execute(select(rooms).where(rooms.c.status != "closed"))).mappings().all()
            return [await self._load(connection, dict(row)) for row in found]

    async def _load(self, connection: Any, row: dict[str, Any]) -> RoomRow:
        code = row["code"]
        seat_rows = (
            (await connection.execute(select(seats).where(seats.c.room == code).order_by(seats.c.seat)))
            .mappings()
            .all()
        )
        # The latest events may go back into earlier matches: those matches are loaded whole, to be replayed.
        oldest = (
            await connection.execute(
                select(func.min(events.c.match)).where(
                    events.c.room == code, events.c.n > row["last_event"] - RECENT_EVENTS
                )
            )
        ).scalar()
        since = row["match"] if oldest is None else min(int(oldest), row["match"])
        event_rows = (
            (
                await connection.execute(
                    select(events).where(events.c.room == code, events.c.match >= since).order_by(events.c.n)
                )
            )
            .mappings()
            .all()
        )
        seed_rows = await connection.execute(
            select(matches.c.number, matches.c.seed).where(matches.c.room == code, matches.c.number >= since)
        )
        return RoomRow(
            code=code,
            created=row["created"],
            public=bool(row["public"]),
            status=row["status"],
            preset=row["preset"],
            rules=dict(row["rules"]),
            seats=row["seats"],
            bot_level=row["bot_level"],
            turn_seconds=row["turn_seconds"],
            creator=row["creator"],
            match=row["match"],
            seed=row["seed"],
            last_event=row["last_event"],
            seat_rows=[
                SeatRow(s["seat"], s["name"], s["kind"], s["level"], s["token_hash"], s["lang"], s["account"])
                for s in seat_rows
            ],
            events=[EventRow(e["n"], e["match"], e["kind"], e["seat"], e["data"], e["time"]) for e in event_rows],
            rated=bool(row["rated"]),
            seeds={int(number): str(seed) for number, seed in seed_rows},
        )

    async def add_chat(self, room: str, name: str, seat: int | None, text: str, when: float) -> None:
        """Keep a chat line (``room`` is ``""`` for the lobby)."""
        async with self.engine.begin() as connection:
            await connection.execute(insert(chat).values(room=room, time=when, name=name, seat=seat, text=text))

    async def chat_lines(self, room: str, last: int = 50) -> list[dict[str, Any]]:
        """The last chat lines of a room (``""``: the lobby), oldest first."""
        query = select(chat).where(chat.c.room == room).order_by(chat.c.id.desc()).limit(last)
        async with self.engine.connect() as connection:
            found = (await connection.execute(query)).mappings().all()
        return [dict(row) for row in reversed(found)]


def _safe_url(url: str) -> str:
    """A database URL without its password."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return "(a malformed URL)"
