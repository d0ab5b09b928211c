"""The cluster's table: one row per live process (its node id and the address it answers on)."""

from __future__ import annotations

import sqlalchemy as sa

from mcpist.storage.types import UTCDateTime

metadata = sa.MetaData()

nodes = sa.Table(
    "cluster_nodes",
    metadata,
    sa.Column("node_id", sa.String(32), primary_key=True),
    sa.Column("address", sa.String(400), nullable=False),
    sa.Column("started_at", UTCDateTime(), nullable=False),
    sa.Column("seen_at", UTCDateTime(), nullable=False),
)
