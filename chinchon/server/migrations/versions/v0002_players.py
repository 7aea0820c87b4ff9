"""Players: accounts and their sessions, seats owned by an account, rated rooms, ratings, finished games.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rooms", sa.Column("rated", sa.Boolean, nullable=False, server_default=sa.false()))
    op.add_column("seats", sa.Column("account", sa.Integer))
    op.create_index("ix_seats_account", "seats", ["account"])
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("name_key", sa.String(255), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(255), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id_hash", sa.String(64), primary_key=True),
        sa.Column("account", sa.Integer, nullable=False),
        sa.Column("csrf_hash", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_account", "sessions", ["account"])
    op.create_table(
        "ratings",
        sa.Column("account", sa.Integer, primary_key=True),
        sa.Column("pool", sa.String(160), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
        sa.Column("wins", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account", sa.Integer, nullable=False),
        sa.Column("pool", sa.String(160), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
    )
    op.create_index("ix_rating_history_account", "rating_history", ["account"])
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
        sa.Column("preset", sa.String(32)),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("pool", sa.String(160), nullable=False),
        sa.Column("players", sa.JSON, nullable=False),
        sa.Column("winner", sa.Integer),
        sa.UniqueConstraint("room", "number", name="uq_games_room_number"),
    )
    op.create_table(
        "game_players",
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account", sa.Integer),
        sa.Column("finished", sa.Float, nullable=False),
        sa.Column("won", sa.Boolean, nullable=False),
    )
    op.create_index("ix_game_players_account", "game_players", ["account"])


def downgrade() -> None:
    for table in ("game_players", "games", "rating_history", "ratings", "sessions", "accounts"):
        op.drop_table(table)
    op.drop_index("ix_seats_account", "seats")
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("account")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("rated")
