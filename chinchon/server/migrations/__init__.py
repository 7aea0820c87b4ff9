"""The database's schema changes: Alembic migrations, run by ``chinchon serve`` at start and ``chinchon db upgrade``.

Each revision in ``versions/`` changes the schema one step. A database
made before the migrations existed (the tables of ``rooms``, ``seats``,
``events``, ``matches`` and ``chat`` without Alembic's version table) is
taken to be at the first revision, which creates exactly those tables, and
is brought up from there. On PostgreSQL an advisory lock keeps two servers
starting at once from migrating together.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

__all__ = ["BASE", "HEAD", "config", "current", "upgrade"]

FOLDER = Path(__file__).resolve().parent
BASE = "0001"
"""The revision of the schema from before the migrations: the rooms' tables."""
HEAD = "0002"
"""The newest revision."""
_LOCK = 0x63686E63  # "chnc": the PostgreSQL advisory lock taken while migrating


def config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for these migrations (on a connection, to run them)."""
    settings = Config()
    settings.set_main_option("script_location", str(FOLDER))
    settings.attributes["connection"] = connection
    return settings


def current(connection: Connection) -> str | None:
    """The revision a database is at (``None``: no Alembic version table)."""
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Bring a database to a revision (the newest by default), in the connection's transaction."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})
    settings = config(connection)
    tables = set(inspect(connection).get_table_names())
    if "alembic_version" not in tables and "rooms" in tables:
        command.stamp(settings, BASE)
    command.upgrade(settings, revision)


def heads() -> tuple[str, ...]:
    """The newest revisions of the scripts (one, unless two branches were written)."""
    return tuple(ScriptDirectory.from_config(config()).get_heads())
