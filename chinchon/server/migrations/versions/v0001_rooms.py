"""The rooms' tables as the server made them before the migrations: rooms, seats, events, matches, chat.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(16), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("public", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("preset", sa.String(32)),
        sa.Column("rules", sa.JSON, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("bot_level", sa.String(64), nullable=False),
        sa.Column("turn_seconds", sa.Float),
        sa.Column("creator", sa.Integer, nullable=False),
        sa.Column("match", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(64)),
        sa.Column("last_event", sa.BigInteger, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(64)),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("level", sa.String(64)),
        sa.Column("token_hash", sa.String(64)),
        sa.Column("lang", sa.String(8)),
    )
    op.create_table(
        "events",
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("n", sa.BigInteger, primary_key=True),
        sa.Column("match", sa.Integer, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("data", sa.Text),
        sa.Column("time", sa.Float, nullable=False),
    )
    op.create_table(
        "matches",
        sa.Column("room", sa.String(16), primary_key=True),
        sa.Column("number", sa.Integer, primary_key=True),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("record", sa.Text),
        sa.Column("finished", sa.Float),
    )
    op.create_table(
        "chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("time", sa.Float, nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("text", sa.Text, nullable=False),
    )
    op.create_index("ix_chat_room", "chat", ["room"])


def downgrade() -> None:
    for table in ("chat", "matches", "events", "seats", "rooms"):
        op.drop_table(table)
