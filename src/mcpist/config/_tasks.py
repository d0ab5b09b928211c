"""MCP Tasks: how long a task's result is kept, how often clients poll, how many tasks a caller runs.

Mounted as `Settings.tasks` (TOML `[tasks]`, environment `MCPIST_TASKS__...`).
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class TasksSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    default_ttl_s: float = Field(3_600.0, ge=1, le=30 * 86_400)
    """How long a task and its result are kept after it is created, when the client names no ttl."""
    max_ttl_s: float = Field(86_400.0, ge=1, le=30 * 86_400)
    """The longest ttl a client may ask for; a longer one is cut to this."""
    poll_interval_s: float = Field(1.0, ge=0.05, le=60)
    """The polling interval suggested to clients; also how often a replica that is not running a task
    reads the database while `tasks/result` waits for it."""
    max_per_caller: int = Field(32, ge=1, le=10_000)
    """Tasks of one caller (a user with one token) working at once; another is refused."""
    list_page_size: int = Field(50, ge=1, le=1_000)
    """Tasks per `tasks/list` page."""
    inline_s: float = Field(2.0, ge=0, le=60)
    """On 2026-07-28, where the server decides: a call that has not finished after this long becomes a task."""
    lease_s: float = Field(30.0, ge=1, le=3_600)
    """A running task's process renews its lease this often (by thirds); a task whose lease ran out
    (its process died) is marked failed."""

    @model_validator(mode="after")
    def _default_within_max(self) -> Self:
        if self.default_ttl_s > self.max_ttl_s:
            raise ValueError(f"default_ttl_s ({self.default_ttl_s:g}) exceeds max_ttl_s ({self.max_ttl_s:g})")
        return self
