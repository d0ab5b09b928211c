"""One settings object, built at the edge (CLI) and passed down.

Sources, strongest first: keyword arguments (CLI flags), `MCPIST_*` environment
variables (nested with `__`, e.g. `MCPIST_BATCH__MAX_CONCURRENCY`), the TOML file
(`--config`, `MCPIST_CONFIG`, or `mcpist.toml` in the data directory), defaults.

The bottom of the layering: it imports only `mcpist.errors`, pydantic(-settings) and the standard library, so
every layer can take its section (`settings.vault`, `settings.auth`) without loading another layer.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

from mcpist.errors import ConfigError

from ._auth import AuthSettings, ExternalJwtSettings, UpstreamProvider
from ._cluster import ClusterSettings
from ._limits import LimitsSettings, TrustedProxies
from ._observe import ObserveSettings
from ._tasks import TasksSettings
from ._vault import VaultSettings
from ._web import WebSettings

__all__ = [
    "is_loopback",
    "ClusterSettings",
    "CONFIG_FILE_NAME",
    "AuthSettings",
    "BatchSettings",
    "ExternalJwtSettings",
    "LimitsSettings",
    "ModulesSettings",
    "ObserveSettings",
    "ScriptSettings",
    "Settings",
    "TasksSettings",
    "UpstreamProvider",
    "VaultSettings",
    "WebSettings",
    "default_data_dir",
    "load_settings",
]

CONFIG_FILE_NAME = "mcpist.toml"


def default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mcpist"


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BatchSettings(_Section):
    max_tasks: int = Field(100, ge=1, le=10_000)
    max_concurrency: int = Field(32, ge=1, le=1_000)
    task_timeout_s: float = Field(60.0, gt=0, le=3_600)
    max_expression_length: int = Field(500, ge=10, le=100_000)
    max_result_bytes: int = Field(1 << 20, ge=1_024)
    max_output_bytes: int = Field(4 << 20, ge=1_024)


class ScriptSettings(_Section):
    """Limits of one `run_script` run, and the warm pool of sandbox processes that run scripts."""

    wall_time_s: float = Field(30.0, gt=0, le=3_600)
    """The whole run, tool calls included."""
    cpu_time_s: float = Field(10.0, gt=0, le=600)
    """CPU time of the interpreter (Starlark exposes no step count: checked as it loops, and by RLIMIT_CPU)."""
    memory_mb: int = Field(256, ge=64, le=65_536)
    """Address space of a sandbox process (RLIMIT_AS)."""
    max_tool_calls: int = Field(200, ge=1, le=100_000)
    max_concurrency: int = Field(16, ge=1, le=1_000)
    """Tool calls of one `call_all` running at once."""
    max_output_bytes: int = Field(1 << 20, ge=1_024, le=64 << 20)
    """The result of `main()`, as compact JSON."""
    max_script_bytes: int = Field(64 << 10, ge=256, le=1 << 20)
    max_depth: int = Field(100, ge=5, le=1_000)
    """Nested function calls (recursion)."""
    max_nesting: int = Field(64, ge=2, le=900)
    """Nested lists and objects in `args`, tool params and the result."""
    workers: int = Field(2, ge=1, le=64)
    """Sandbox processes kept warm; also how many scripts run at once (others wait for a free one)."""


class ModulesSettings(_Section):
    enabled: list[str] | None = None
    """Module names to load; None loads every installed module."""
    disabled: list[str] = Field(default_factory=list)
    settings: dict[str, dict[str, Any]] = Field(default_factory=dict)
    """Per-module settings, e.g. `[modules.settings.memory]` in TOML."""


def is_loopback(host: str | None) -> bool:
    """`host` (a bind address or a URL's host, IPv6 with or without brackets) is this machine only."""
    if host == "localhost":
        return True
    try:
        return host is not None and ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="MCPIST_",
        env_nested_delimiter="__",
        extra="forbid",
        validate_default=True,
    )

    data_dir: Path = Field(default_factory=default_data_dir)
    database_url: str | None = None
    """Defaults to SQLite at `<data_dir>/mcpist.db`."""
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65_535)
    """0 picks a free port (printed at start)."""
    public_url: str | None = None
    """The URL clients use to reach `/mcp`'s server, e.g. https://mcp.example.com; defaults to http://host:port."""
    allowed_hosts: list[str] = Field(default_factory=list)
    allowed_origins: list[str] = Field(default_factory=list)
    trusted_proxies: TrustedProxies = Field(default_factory=list)
    """Reverse proxies (addresses or networks) whose X-Forwarded-For/-Proto headers are believed; none by default."""
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = "INFO"
    access_log: Literal["summary", "all", "off"] = "summary"
    """`summary`: a line per failed (4xx/5xx) or slow (1 s+) request and a summary of the rest every minute;
    `all`: a line per request (uvicorn's access log); `off`: none. Query-string secrets are redacted in each."""
    call_timeout_s: float = Field(60.0, gt=0, le=3_600)
    access_cache_s: float = Field(2.0, ge=0, le=60)
    """How long a verified API token and a caller's permissions are reused before the database is read
    again; a revocation or role change made by another process takes up to this long. 0 disables."""
    max_request_bytes: int = Field(4 << 20, ge=1_024)
    schema_index_bytes: int = Field(16_384, ge=0, le=1 << 20)
    """A module whose tool definitions exceed this many bytes answers `get_module_schema` with an index
    (names, descriptions, annotations); the LLM then asks for the tools it will use. 0: always an index."""
    upstream_proxy: str | None = None
    """An HTTP(S) proxy for every call to an external service (modules, OAuth token endpoints, identity
    providers), e.g. http://proxy.internal:3128 (MCPIST_UPSTREAM_PROXY); HTTPS_PROXY variables are not read."""
    batch: BatchSettings = Field(default_factory=BatchSettings)
    limits: LimitsSettings = Field(default_factory=LimitsSettings)
    script: ScriptSettings = Field(default_factory=ScriptSettings)
    tasks: TasksSettings = Field(default_factory=TasksSettings)
    modules: ModulesSettings = Field(default_factory=ModulesSettings)
    vault: VaultSettings = Field(default_factory=VaultSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    auth: AuthSettings = Field(default_factory=AuthSettings)
    cluster: ClusterSettings = Field(default_factory=ClusterSettings)
    observe: ObserveSettings = Field(default_factory=ObserveSettings)

    @field_validator("public_url")
    @classmethod
    def _check_public_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value.rstrip("/")

    @field_validator("upstream_proxy")
    @classmethod
    def _check_proxy(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("log_level", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        return value.upper() if isinstance(value, str) else value

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # `toml_file` is set on the per-call subclass `load_settings` makes
        return (init_settings, env_settings, TomlConfigSettingsSource(settings_cls))

    @property
    def resolved_database_url(self) -> str:
        return self.database_url or f"sqlite+aiosqlite:///{self.data_dir / 'mcpist.db'}"

    @property
    def base_url(self) -> str:
        if self.public_url:
            return self.public_url
        host = f"[{self.host}]" if ":" in self.host else self.host
        if host in ("0.0.0.0", "[::]"):  # noqa: S104 - naming the wildcard, not binding to it
            host = "127.0.0.1"
        return f"http://{host}:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.base_url}/mcp"


def _env_name(loc: tuple[int | str, ...]) -> str:
    return "MCPIST_" + "__".join(str(p).upper() for p in loc)


def _check_toml(path: Path) -> None:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"cannot read settings from {path}: {exc}") from None
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(
            f"unknown setting {unknown[0]!r} in {path}; known: {', '.join(sorted(Settings.model_fields))}"
        )


def load_settings(config_file: Path | None = None, **overrides: Any) -> Settings:
    """Build the settings from overrides, the environment and the TOML file.

    Raises:
        ConfigError: a setting is invalid; the message names it (and its environment variable).
    """
    overrides = {k: v for k, v in overrides.items() if v is not None}
    env_config = os.environ.get("MCPIST_CONFIG")
    if config_file is None and env_config:
        config_file = Path(env_config)
    if config_file is not None and not config_file.is_file():
        raise ConfigError(f"config file {config_file} does not exist")
    if config_file is None:
        data_dir = Path(overrides.get("data_dir") or os.environ.get("MCPIST_DATA_DIR") or default_data_dir())
        candidate = data_dir / CONFIG_FILE_NAME
        config_file = candidate if candidate.is_file() else None
    if config_file is not None:
        _check_toml(config_file)
    bound = type("Settings", (Settings,), {"model_config": {**Settings.model_config, "toml_file": config_file}})
    try:
        settings: Settings = bound(**overrides)
        return settings
    except ValidationError as exc:
        err = exc.errors(include_url=False)[0]
        loc = tuple(err["loc"])
        name = ".".join(str(p) for p in loc) or "(settings)"
        where = f" (environment variable {_env_name(loc)}" + (f", or in {config_file}" if config_file else "") + ")"
        raise ConfigError(f"invalid setting {name}{where}: {err['msg']}") from None
    except Exception as exc:  # a TOML syntax error surfaces as a plain exception
        raise ConfigError(f"cannot read settings from {config_file}: {exc}") from None
