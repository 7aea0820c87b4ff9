"""The database's migrations (Alembic): from an empty database and from one made before them, on SQLite and
PostgreSQL; the schema they make is the one the server's tables describe."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
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
    insert,
    inspect,
)
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from typer.testing import CliRunner

import chinchon.server.players  # noqa: F401  (its tables join the metadata)
from chinchon.cli import app as cli_app
from chinchon.match import Match
from chinchon.rules import Rules
from chinchon.server.bots import BotPool
from chinchon.server.hub import Hub
from chinchon.server.migrations import BASE, HEAD, heads
from chinchon.server.players import Players
from chinchon.server.rooms import Manager, ServerSettings
from chinchon.server.store import Store, metadata

# The schema as the server made it before the migrations (store.py's tables, created by metadata.create_all).
legacy = MetaData()
Table(
    "rooms",
    legacy,
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
)
Table(
    "seats",
    legacy,
    Column("room", String(16), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("name", String(64)),
    Column("kind", String(8), nullable=False),
    Column("level", String(64)),
    Column("token_hash", String(64)),
    Column("lang", String(8)),
)
Table(
    "events",
    legacy,
    Column("room", String(16), primary_key=True),
    Column("n", BigInteger, primary_key=True),
    Column("match", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("seat", Integer),
    Column("data", Text),
    Column("time", Float, nullable=False),
)
Table(
    "matches",
    legacy,
    Column("room", String(16), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("seed", String(64), nullable=False),
    Column("record", Text),
    Column("finished", Float),
)
Table(
    "chat",
    legacy,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("room", String(16), nullable=False, index=True),
    Column("time", Float, nullable=False),
    Column("name", String(64), nullable=False),
    Column("seat", Integer),
    Column("text", Text, nullable=False),
)


def _differences(connection: Connection) -> list[object]:
    return list(compare_metadata(MigrationContext.configure(connection), metadata))


async def _check_schema(url: str) -> None:
    engine = create_async_engine(url)
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_differences) == []
            tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
            assert {
                "accounts",
                "sessions",
                "ratings",
                "rating_history",
                "games",
                "game_players",
                "alembic_version",
            } <= tables
    finally:
        await engine.dispose()


def test_the_migrations_have_one_head() -> None:
    assert heads() == (HEAD,)


def test_an_empty_database_is_migrated_to_the_newest_schema(db: str) -> None:
    async def run() -> None:
        store = Store(db)
        try:
            assert await store.revision() is None
            await store.open()
            assert await store.revision() == HEAD
            await store.open()  # again: nothing to do
            assert await store.revision() == HEAD
        finally:
            await store.close()
        await _check_schema(db)

    asyncio.run(run())


def test_a_database_made_before_the_migrations_keeps_its_rooms_and_gets_the_new_tables(db: str) -> None:
    rules = Rules.preset("fournier", limit=40)
    names = ["Ana", "Bot 2"]
    match = Match(names, rules, seed=99)
    actions = []
    for _ in range(6):
        seat = match.to_move
        assert seat is not None
        action = match.legal_actions()[0]
        match.apply(action, seat=seat)
        actions.append((seat, str(action)))

    async def make_legacy() -> None:
        engine = create_async_engine(db)
        try:
            async with engine.begin() as connection:
                await connection.run_sync(legacy.create_all)
                tables = legacy.tables
                await connection.execute(
                    insert(tables["rooms"]).values(
                        code="ABCDEFG",
                        created=1.0,
                        public=True,
                        status="playing",
                        preset="fournier",
                        rules=rules.to_dict(),
                        seats=2,
                        bot_level="easy",
                        turn_seconds=None,
                        creator=0,
                        match=1,
                        seed="99",
                        last_event=2 + len(actions),
                        updated=2.0,
                    )
                )
                await connection.execute(
                    insert(tables["seats"]),
                    [
                        {
                            "room": "ABCDEFG",
                            "seat": 0,
                            "name": "Ana",
                            "kind": "person",
                            "level": None,
                            "token_hash": "a" * 64,
                        },
                        {
                            "room": "ABCDEFG",
                            "seat": 1,
                            "name": None,
                            "kind": "bot",
                            "level": "easy",
                            "token_hash": None,
                        },
                    ],
                )
                rows = [
                    {"room": "ABCDEFG", "n": 1, "match": 0, "kind": "join", "seat": 0, "data": None, "time": 1.0},
                    {
                        "room": "ABCDEFG",
                        "n": 2,
                        "match": 1,
                        "kind": "start",
                        "seat": None,
                        "data": json.dumps({"names": names}),
                        "time": 2.0,
                    },
                ]
                rows += [
                    {"room": "ABCDEFG", "n": 3 + i, "match": 1, "kind": "action", "seat": s, "data": a, "time": 3.0}
                    for i, (s, a) in enumerate(actions)
                ]
                await connection.execute(insert(tables["events"]), rows)
                await connection.execute(insert(tables["matches"]).values(room="ABCDEFG", number=1, seed="99"))
                await connection.execute(
                    insert(tables["chat"]).values(room="ABCDEFG", time=3.0, name="Ana", seat=0, text="hola")
                )
        finally:
            await engine.dispose()

    async def run() -> None:
        await make_legacy()
        store = Store(db)
        try:
            assert await store.revision() is None
            await store.open()
            assert await store.revision() == HEAD
            row = await store.load_room("ABCDEFG")
            assert row is not None and not row.rated and row.last_event == 2 + len(actions)
            assert [(s.name, s.kind, s.account) for s in row.seat_rows] == [
                ("Ana", "person", None),
                (None, "bot", None),
            ]
            assert [c["text"] for c in await store.chat_lines("ABCDEFG")] == ["hola"]
            room = Manager(ServerSettings(db=db), store, Hub(), BotPool(1, "thread")).rebuild(row)
            assert room.match is not None and room.match.observation(0) == match.observation(0)
            assert room.match_start.people == [True, False] and room.match_start.accounts == [None, None]
            # The new tables work on the old database.
            players = Players(store.engine)
            account = await players.create_account("Ana", "ana", "$argon2id$x")
            await players.bind_seat("ABCDEFG", 0, account.id)
            again = await store.load_room("ABCDEFG")
            assert again is not None and again.seat_rows[0].account == account.id
        finally:
            await store.close()
        await _check_schema(db)

    asyncio.run(run())


def test_chinchon_db_upgrade_migrates_a_database_made_before(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"

    async def make() -> None:
        engine = create_async_engine(url)
        async with engine.begin() as connection:
            await connection.run_sync(legacy.create_all)
        await engine.dispose()

    asyncio.run(make())
    result = CliRunner().invoke(cli_app, ["db", "upgrade", "--db", url, "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"The database is at revision {HEAD}."
    asyncio.run(_check_schema(url))
    assert BASE != HEAD
    bad = CliRunner().invoke(cli_app, ["db", "upgrade", "--db", "nosuchdriver://x", "--lang", "en"])
    assert bad.exit_code == 2 and "cannot use the database" in bad.output
