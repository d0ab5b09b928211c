"""Settings of the vault and the token broker (`[vault]` in TOML, `MCPIST_VAULT__*` in the environment)."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, SecretStr


class VaultSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    key: SecretStr | None = None
    """The key-encryption key, 32 bytes as base64 or hex (MCPIST_VAULT__KEY); wins over key_file."""
    key_file: Path | None = None
    """A file holding the KEK (raw 32 bytes, base64 or hex), e.g. a mounted secret; default <data_dir>/master.key."""
    decrypt_keys: list[SecretStr] = Field(default_factory=list)
    """Further KEKs accepted for unwrapping only (base64 or hex), while rotating an operator-managed key."""
    keyring_file: Path | None = None
    """Retired KEKs that `vault rotate-key` keeps until `vault prune-keys`; default <data_dir>/vault-keyring.json."""
    refresh_ahead_s: float = Field(300.0, ge=0, le=86_400)
    """Refresh an OAuth access token this long before it expires."""
    refresh_tries: int = Field(3, ge=1, le=3)
    """Attempts at a refresh that fails transiently (network error, HTTP 429 or 5xx)."""
    refresh_backoff_s: float = Field(0.5, ge=0, le=60)
    """Wait before the second attempt; doubled before each later one."""
    refresh_lease_s: float = Field(30.0, gt=0, le=600)
    """How long one process may hold an account's refresh before another may take over."""
    refresh_poll_s: float = Field(0.2, gt=0, le=10)
    """How often a process waiting for another process's refresh looks for the new token."""
    connect_ttl_s: float = Field(900.0, ge=30, le=86_400)
    """How long a connect URL stays valid."""
