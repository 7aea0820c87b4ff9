"""The players' storage: accounts, sessions, ratings and finished games, on the rooms' database.

Passwords are kept as argon2 hashes and session ids and CSRF tokens as
SHA-256 digests: nothing in these tables lets anyone log in. The tables
belong to the same metadata as the rooms' (:mod:`chinchon.server.store`);
the migrations in :mod:`chinchon.server.migrations` create them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Float,
    Integer,
    String,
    Table,
    UniqueConstraint,
    case,
    delete,
    func,
    insert,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from chinchon.server.store import matches, metadata, rooms, seats

__all__ = ["Account", "GameRow", "Players", "RatingRow", "Session"]

accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(64), nullable=False),
    Column("name_key", String(255), nullable=False, unique=True),
    Column("password_hash", String(255), nullable=False),
    Column("created", Float, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id_hash", String(64), primary_key=True),
    Column("account", Integer, nullable=False, index=True),
    Column("csrf_hash", String(64), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

ratings = Table(
    "ratings",
    metadata,
    Column("account", Integer, primary_key=True),
    Column("pool", String(160), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),
    Column("wins", Integer, nullable=False),
    Column("updated", Float, nullable=False),
)

rating_history = Table(
    "rating_history",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account", Integer, nullable=False, index=True),
    Column("pool", String(160), nullable=False),
    Column("game", String(16), nullable=False),
    Column("time", Float, nullable=False),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
)

games = Table(
    "games",
    metadata,
    Column("id", String(16), primary_key=True),
    Column("room", String(16), nullable=False),
    Column("number", Integer, nullable=False),
    Column("finished", Float, nullable=False),
    Column("preset", String(32)),
    Column("options", JSON, nullable=False),
    Column("rated", Boolean, nullable=False),
    Column("pool", String(160), nullable=False),
    Column("players", JSON, nullable=False),
    Column("winner", Integer),
    UniqueConstraint("room", "number", name="uq_games_room_number"),
)

game_players = Table(
    "game_players",
    metadata,
    Column("game", String(16), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account", Integer, index=True),
    Column("finished", Float, nullable=False),
    Column("won", Boolean, nullable=False),
)


@dataclass
class Account:
    """An account as stored."""

    id: int
    name: str
    password_hash: str


@dataclass
class Session:
    """A live session: its account and the digest of its CSRF token."""

    account: Account
    csrf_hash: str
    expires: float


@dataclass
class RatingRow:
    """A player's rating in one pool (a preset, or a preset with options)."""

    account: int
    pool: str
    mu: float
    sigma: float
    games: int
    wins: int


@dataclass
class GameRow:
    """A finished match as the history lists it."""

    id: str
    room: str
    number: int
    finished: float
    preset: str | None
    options: list[str]
    rated: bool
    pool: str
    players: list[dict[str, Any]]
    winner: int | None


class NameTaken(Exception):
    """An account with the same name key exists."""


def _game(row: Any) -> GameRow:
    return GameRow(
        row["id"],
        row["room"],
        row["number"],
        row["finished"],
        row["preset"],
        list(row["options"]),
        bool(row["rated"]),
        row["pool"],
        list(row["players"]),
        row["winner"],
    )


class Players:
    """Accounts, sessions, ratings and finished games on a database engine (the rooms' store's)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    # -- accounts -------------------------------------------------------------------------

    async def create_account(self, name: str, key: str, password_hash: str) -> Account:
        """A new account.

        Raises:
            NameTaken: another account has the same name key.
        """
        try:
            async with self.engine.begin() as connection:
                found = await connection.execute(
                    insert(accounts)
                    .values(name=name, name_key=key, password_hash=password_hash, created=time.time())
                    .returning(accounts.c.id)
                )
                return Account(int(found.scalar_one()), name, password_hash)
        except IntegrityError:
            raise NameTaken(key) from None

    async def account_by_key(self, key: str) -> Account | None:
        """The account of a name key."""
        async with self.engine.connect() as connection:
            row = (await connection.execute(select(accounts).where(accounts.c.name_key == key))).mappings().first()
        return None if row is None else Account(row["id"], row["name"], row["password_hash"])

    async def account_names(self, ids: list[int]) -> dict[int, str]:
        """The names of accounts by id."""
        if not ids:
            return {}
        async with self.engine.connect() as connection:
            rows = await connection.execute(select(accounts.c.id, accounts.c.name).where(accounts.c.id.in_(ids)))
            return {int(row[0]): str(row[1]) for row in rows}

    async def set_password(self, account: int, password_hash: str) -> None:
        """Replace an account's password hash."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(accounts).where(accounts.c.id == account).values(password_hash=password_hash)
            )

    # -- sessions -------------------------------------------------------------------------

    async def add_session(self, id_hash: str, account: int, csrf_hash: str, expires: float) -> None:
        """Keep a new session."""
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(sessions).values(
                    id_hash=id_hash, account=account, csrf_hash=csrf_hash, created=time.time(), expires=expires
                )
            )

    async def session(self, id_hash: str) -> Session | None:
        """The live session of an id's digest (``None`` once expired or revoked)."""
        query = (
            select(sessions.c.csrf_hash, sessions.c.expires, accounts.c.id, accounts.c.name, accounts.c.password_hash)
            .join(accounts, accounts.c.id == sessions.c.account)
            .where(sessions.c.id_hash == id_hash, sessions.c.expires > time.time())
        )
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        if row is None:
            return None
        return Session(Account(row[2], row[3], row[4]), row[0], row[1])

    async def drop_session(self, id_hash: str) -> None:
        """Revoke one session."""
        async with self.engine.begin() as connection:
            await connection.execute(delete(sessions).where(sessions.c.id_hash == id_hash))

    async def drop_sessions(self, account: int, keep: str | None = None) -> int:
        """Revoke every session of an account (but ``keep``); how many."""
        query = delete(sessions).where(sessions.c.account == account)
        if keep is not None:
            query = query.where(sessions.c.id_hash != keep)
        async with self.engine.begin() as connection:
            return int((await connection.execute(query)).rowcount or 0)

    async def drop_expired(self) -> None:
        """Forget the sessions past their time."""
        async with self.engine.begin() as connection:
            await connection.execute(delete(sessions).where(sessions.c.expires <= time.time()))

    # -- seats ----------------------------------------------------------------------------

    async def bind_seat(self, room: str, seat: int, account: int) -> None:
        """Give a room's seat to an account (its token stays valid)."""
        async with self.engine.begin() as connection:
            await connection.execute(
                update(seats).where(seats.c.room == room, seats.c.seat == seat).values(account=account)
            )

    # -- games and ratings ----------------------------------------------------------------

    async def add_game(self, game: GameRow, new_ratings: list[RatingRow]) -> None:
        """Keep a finished match, its players and (for a rated one) their new ratings, in one transaction."""
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(games).values(
                    id=game.id,
                    room=game.room,
                    number=game.number,
                    finished=game.finished,
                    preset=game.preset,
                    options=game.options,
                    rated=game.rated,
                    pool=game.pool,
                    players=game.players,
                    winner=game.winner,
                )
            )
            await connection.execute(
                insert(game_players),
                [
                    {
                        "game": game.id,
                        "seat": p["seat"],
                        "account": p.get("account"),
                        "finished": game.finished,
                        "won": bool(p.get("won")),
                    }
                    for p in game.players
                ],
            )
            for rating in new_ratings:
                changed = await connection.execute(
                    update(ratings)
                    .where(ratings.c.account == rating.account, ratings.c.pool == rating.pool)
                    .values(
                        mu=rating.mu,
                        sigma=rating.sigma,
                        games=rating.games,
                        wins=rating.wins,
                        updated=game.finished,
                    )
                )
                if not changed.rowcount:
                    await connection.execute(
                        insert(ratings).values(
                            account=rating.account,
                            pool=rating.pool,
                            mu=rating.mu,
                            sigma=rating.sigma,
                            games=rating.games,
                            wins=rating.wins,
                            updated=game.finished,
                        )
                    )
                await connection.execute(
                    insert(rating_history).values(
                        account=rating.account,
                        pool=rating.pool,
                        game=game.id,
                        time=game.finished,
                        mu=rating.mu,
                        sigma=rating.sigma,
                    )
                )

    async def has_game(self, room: str, number: int) -> bool:
        """Whether a room's match is already kept as a game."""
        async with self.engine.connect() as connection:
            found = await connection.execute(select(games.c.id).where(games.c.room == room, games.c.number == number))
            return found.first() is not None

    async def latest_game(self, room: str) -> str | None:
        """The id of a room's latest match kept as a game, if any."""
        query = select(games.c.id).where(games.c.room == room).order_by(games.c.number.desc()).limit(1)
        async with self.engine.connect() as connection:
            found = (await connection.execute(query)).first()
            return None if found is None else str(found[0])

    async def ratings_of(self, accounts_ids: list[int], pool: str) -> dict[int, RatingRow]:
        """The ratings of accounts in a pool (those that have one)."""
        async with self.engine.connect() as connection:
            rows = (
                (
                    await connection.execute(
                        select(ratings).where(ratings.c.pool == pool, ratings.c.account.in_(accounts_ids))
                    )
                )
                .mappings()
                .all()
            )
        return {
            r["account"]: RatingRow(r["account"], r["pool"], r["mu"], r["sigma"], r["games"], r["wins"]) for r in rows
        }

    async def player_ratings(self, account: int) -> list[RatingRow]:
        """Every rating of an account."""
        async with self.engine.connect() as connection:
            rows = (
                (await connection.execute(select(ratings).where(ratings.c.account == account).order_by(ratings.c.pool)))
                .mappings()
                .all()
            )
        return [RatingRow(r["account"], r["pool"], r["mu"], r["sigma"], r["games"], r["wins"]) for r in rows]

    async def history(self, account: int) -> list[dict[str, Any]]:
        """An account's ratings over time, oldest first."""
        query = (
            select(rating_history.c.pool, rating_history.c.time, rating_history.c.mu, rating_history.c.sigma)
            .where(rating_history.c.account == account)
            .order_by(rating_history.c.id)
        )
        async with self.engine.connect() as connection:
            return [dict(row) for row in (await connection.execute(query)).mappings().all()]

    async def leaderboard(self, pool: str, limit: int = 100) -> list[tuple[str, RatingRow]]:
        """The accounts of a pool by rating (the ordinal, ``mu - 3 sigma``), best first."""
        query = (
            select(ratings, accounts.c.name)
            .join(accounts, accounts.c.id == ratings.c.account)
            .where(ratings.c.pool == pool)
            .order_by((ratings.c.mu - 3 * ratings.c.sigma).desc(), accounts.c.name_key)
            .limit(limit)
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).mappings().all()
        return [
            (r["name"], RatingRow(r["account"], r["pool"], r["mu"], r["sigma"], r["games"], r["wins"])) for r in rows
        ]

    async def pools(self) -> list[tuple[str, int]]:
        """The rating pools and how many players each has, largest first."""
        query = select(ratings.c.pool, func.count()).group_by(ratings.c.pool).order_by(func.count().desc())
        async with self.engine.connect() as connection:
            return [(str(r[0]), int(r[1])) for r in await connection.execute(query)]

    async def counts(self, account: int) -> tuple[int, int]:
        """How many finished matches an account played, and won."""
        query = select(func.count(), func.coalesce(func.sum(case((game_players.c.won, 1), else_=0)), 0)).where(
            game_players.c.account == account
        )
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).one()
        return int(row[0]), int(row[1])

    async def seats_of(self, account: int, room: str | None = None) -> list[dict[str, Any]]:
        """The rooms where an account holds a seat (not closed ones, unless one ``room`` is asked for)."""
        query = (
            select(seats.c.room, seats.c.seat, rooms.c.status, rooms.c.updated)
            .join(rooms, rooms.c.code == seats.c.room)
            .where(seats.c.account == account, seats.c.kind == "person")
            .order_by(rooms.c.updated.desc())
            .limit(50)
        )
        query = query.where(seats.c.room == room) if room is not None else query.where(rooms.c.status != "closed")
        async with self.engine.connect() as connection:
            found = (await connection.execute(query)).all()
        return [{"code": r[0], "seat": r[1], "status": r[2]} for r in found]

    async def games_of(self, account: int, before: float | None = None, limit: int = 50) -> list[GameRow]:
        """An account's finished matches, newest first (those finished before ``before``)."""
        query = (
            select(games)
            .join(game_players, game_players.c.game == games.c.id)
            .where(game_players.c.account == account)
            .order_by(games.c.finished.desc())
            .limit(limit)
        )
        if before is not None:
            query = query.where(games.c.finished < before)
        async with self.engine.connect() as connection:
            return [_game(row) for row in (await connection.execute(query)).mappings().all()]

    async def game(self, game_id: str) -> tuple[GameRow, dict[str, Any] | None] | None:
        """A finished match and its record."""
        query = (
            select(games, matches.c.record)
            .select_from(
                games.outerjoin(matches, (matches.c.room == games.c.room) & (matches.c.number == games.c.number))
            )
            .where(games.c.id == game_id)
        )
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).mappings().first()
        if row is None:
            return None
        record = json.loads(row["record"]) if row["record"] else None
        return _game(row), record
