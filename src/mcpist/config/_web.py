"""Settings of the admin web UI (`[web]` in TOML, `MCPIST_WEB__*` in the environment)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class WebSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ui: bool = True
    """Serve the admin UI (`/`, `/login`, `/profile`, ...); off leaves `/mcp` and the OAuth endpoints."""
    default_language: Literal["en", "ja"] = "en"
    """The UI's language when neither the user's profile nor the browser's Accept-Language picks one."""
    setup_link_ttl_s: int = Field(3_600, ge=60, le=86_400)
    """How long the one-time set-up link printed at start stays valid (a restart prints a new one)."""
    page_size: int = Field(50, ge=10, le=500)
    """Rows per page of the logs."""
