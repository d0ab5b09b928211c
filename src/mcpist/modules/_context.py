"""What a tool, a prompt provider, a resource reader and a module's startup receive from the server."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy.ext.asyncio import AsyncEngine
from typing_extensions import TypeVar

from mcpist.errors import InvalidArgument
from mcpist.upstream import CredentialSource, ServiceClient

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

SettingsT = TypeVar("SettingsT", bound=BaseModel, default=BaseModel)
StateT = TypeVar("StateT", default=None)


class ServiceSettings(BaseModel):
    """The settings every service module starts from: its API root and how long to wait for it.

    A subclass sets the default `base_url`; more roots go in fields named `<thing>_base_url`.
    `[modules.settings.NAME]` in mcpist.toml, or `MCPIST_MODULES__SETTINGS__NAME__BASE_URL`.
    """

    model_config = ConfigDict(extra="forbid")

    base_url: str = Field(description="the API root, e.g. https://api.github.com")
    timeout_s: float = Field(30.0, gt=0, le=600, description="seconds to wait for one upstream response")
    tries: int = Field(3, ge=1, le=5, description="attempts at a safe request that fails transiently")

    @field_validator("base_url", mode="after")
    @classmethod
    def _check_url(cls, value: str) -> str:
        if not value.startswith(("https://", "http://")) or any(c.isspace() for c in value):
            raise ValueError("must be an http:// or https:// URL")
        return value.rstrip("/")

    def base_urls(self) -> list[str]:
        """Every API root in these settings (`base_url` and each `*_base_url`), for the credential's origins."""
        out = []
        for name in type(self).model_fields:
            value = getattr(self, name)
            if (name == "base_url" or name.endswith("_base_url")) and isinstance(value, str) and value:
                out.append(value)
        return out


@dataclass(frozen=True)
class Caller:
    """Who is calling: the signed-in user and, over HTTP, the API token used."""

    user_id: str
    email: str | None = None
    token_id: str | None = None


@dataclass(frozen=True)
class Account:
    """The account a call runs with, as a tool may see it: never its secret (that stays in `ctx.http`)."""

    service: str
    name: str
    kind: Literal["api_key", "oauth2"] = "api_key"
    shared_by_role: str | None = None
    fields: Mapping[str, str] = field(default_factory=dict)
    scopes: tuple[str, ...] = ()
    expires_at: datetime | None = None
    read_only: bool = False
    """Connected with read-only scopes (`--read-only`): the server runs only read-only tools with it."""

    @property
    def label(self) -> str:
        return f"{self.service}:{self.name}"


@dataclass(frozen=True)
class ResolvedAccount:
    """What the server resolves for a call (not for tools): the account and the source of its credential."""

    account: Account
    credentials: CredentialSource = field(repr=False)


@dataclass(frozen=True)
class AccountChoice:
    """The accounts a caller may name for a module, and the one used when none is named (None: ambiguous)."""

    names: tuple[str, ...]
    default: str | None


class Sampler(Protocol):
    """Asks the user's own LLM (MCP sampling) or a configured endpoint for text."""

    async def complete(
        self,
        messages: list[dict[str, str]],
        *,
        system: str | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> str: ...


class ClientChannel(Protocol):
    """Notifications to the MCP client that made the request, when it asked for them."""

    async def progress(self, progress: float, total: float | None, message: str | None) -> None: ...

    async def log(self, level: LogLevel, logger: str, data: Any) -> None: ...


class NoChannel:
    """Where notifications go when nobody listens (CLI, tests, a client without the capability)."""

    async def progress(self, progress: float, total: float | None, message: str | None) -> None:
        return None

    async def log(self, level: LogLevel, logger: str, data: Any) -> None:
        return None


LOG_SENT_MARK = "mcpist_sent_to_client"
"""Set on a log record `ToolContext.log` already sent to the client, so the forwarder skips it."""

_PY_LEVELS: dict[LogLevel, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "notice": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
    "critical": logging.CRITICAL,
    "alert": logging.CRITICAL,
    "emergency": logging.CRITICAL,
}


class ToolContext(Generic[SettingsT, StateT]):
    """Injected as the first argument of every tool: `ToolContext[MySettings, MyState]`.

    `state` is what the module's startup yielded (None without one). `http` is a client bound to this
    call's account: it adds the credential, refreshes it once on a 401, retries what is safe to retry
    and maps upstream errors; it is made on first use and closed when the call ends. `http_for(name)`
    is the same for another account of this module the caller may use (free time across two calendars).
    """

    def __init__(
        self,
        *,
        settings: SettingsT,
        state: StateT,
        engine: AsyncEngine,
        caller: Caller,
        logger: logging.Logger,
        account: Account | None = None,
        http: ServiceClient | Callable[[], ServiceClient] | None = None,
        sampler: Sampler | None = None,
        channel: ClientChannel | None = None,
        other_accounts: Callable[[str], Awaitable[ServiceClient]] | None = None,
    ) -> None:
        self.settings = settings
        self.state = state
        self.engine = engine
        self.caller = caller
        self.logger = logger
        self.account = account
        self.sampler = sampler
        self.channel: ClientChannel = channel or NoChannel()
        self._http = http
        self._made: ServiceClient | None = None
        self._other_accounts = other_accounts
        self._others: dict[str, ServiceClient] = {}

    @property
    def http(self) -> ServiceClient:
        """Raises: RuntimeError: the server gave this context no HTTP client (a bug in a test harness)."""
        if self._made is None:
            if self._http is None:
                raise RuntimeError("this context has no HTTP client")
            self._made = self._http if isinstance(self._http, ServiceClient) else self._http()
        return self._made

    async def http_for(self, account: str) -> ServiceClient:
        """A client bound to another account of this module, chosen as the `account` argument of a call is:
        one of the caller's own accounts or one shared with a role the caller holds. Closed when the call ends.

        Raises:
            InvalidArgument: the name is invalid or the module has no accounts.
            ConnectRequired: the caller has no such account (the error carries a connect URL).
            PermissionDenied: the account is read-only and this tool writes.
        """
        if self.account is not None and account == self.account.name:
            return self.http
        found = self._others.get(account)
        if found is None:
            if self._other_accounts is None:
                raise InvalidArgument(f"this tool cannot use another account ({account!r}) here", {"account": account})
            found = self._others[account] = await self._other_accounts(account)
        return found

    @property
    def holds_resources(self) -> bool:
        """Whether `aclose` has anything to close."""
        return bool(self._others) or (self._made is not None and self._made is not self._http)

    async def aclose(self) -> None:
        """Close the HTTP clients the call made (the server does this when the call ends)."""
        others, self._others = list(self._others.values()), {}
        for client in others:
            await client.aclose()
        if self._made is not None and self._made is not self._http:
            await self._made.aclose()
        self._made = None

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the client how far a long call is, if it asked (`progressToken`); otherwise nothing happens."""
        await self.channel.progress(progress, total, message)

    async def log(self, level: LogLevel, message: str, **data: Any) -> None:
        """Log to the server log and, at or above the level the client chose, to the client.

        Never pass a secret: the client sees `message` and `data` as they are.
        """
        self.logger.log(_PY_LEVELS[level], "%s", message, extra={LOG_SENT_MARK: True})
        payload: Any = {"message": message, **data} if data else message
        await self.channel.log(level, self.logger.name, payload)


@dataclass(frozen=True)
class ModuleResources:
    """What the server hands a module's startup: database, settings, data directory, a logger,
    and an HTTP client without credentials on the module's `base_url` (None for a module without one)."""

    engine: AsyncEngine
    settings: BaseModel
    data_dir: Path
    logger: logging.Logger
    http: ServiceClient | None = None
