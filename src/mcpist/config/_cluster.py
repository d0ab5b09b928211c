"""Several processes serving one MCPist: workers on one machine, replicas on one PostgreSQL.

Mounted as `Settings.cluster` (TOML `[cluster]`, environment `MCPIST_CLUSTER__...`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ClusterSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    workers: int | None = Field(None, ge=1, le=64)
    """Processes `mcpist serve` runs on its port (`--workers` overrides). Unset: one per CPU core when
    bound beyond loopback with PostgreSQL (a server), else one (a laptop: one user, SQLite's single
    writer, and each worker loads its own embedding model)."""
    advertise_host: str | None = Field(None, min_length=1, max_length=253, pattern=r"^[A-Za-z0-9.:\[\]-]+$")
    """The address other replicas reach this machine by (replicas on several machines share a
    PostgreSQL database). Each worker then also listens on a port of its own on `host`, and a request
    for a session another worker or replica holds is passed to it there. Unset: sessions are passed
    between the workers of this machine only (over unix sockets in the data directory)."""
    heartbeat_s: float = Field(5.0, ge=0.5, le=300)
    """How often a process tells the others it is alive (a row in `cluster_nodes`)."""
    node_ttl_s: float = Field(20.0, ge=2, le=3_600)
    """A process silent this long is taken for gone: requests for its sessions answer 404, and the
    client opens a new session."""
