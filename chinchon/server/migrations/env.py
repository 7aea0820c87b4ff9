"""Alembic's environment: the migrations run on the connection the server hands over (see ``upgrade``)."""

from __future__ import annotations

from alembic import context

import chinchon.server.players  # noqa: F401  (its tables join the metadata)
from chinchon.server.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("the migrations run through chinchon.server.migrations.upgrade (chinchon db upgrade)")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
