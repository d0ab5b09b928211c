"""Alembic environment of the UI's tables: their own version table, so the core's commands, which
never load the web package, do not meet a revision they cannot locate."""

from __future__ import annotations

from alembic import context

VERSION_TABLE = "mcpist_web_version"

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None, render_as_batch=True, version_table=VERSION_TABLE)
with context.begin_transaction():
    context.run_migrations()
