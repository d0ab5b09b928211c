"""The module API: everything a module (built-in or third-party) may import.

A module declares, in one place, its name, a one-line summary, a description,
a settings model, its auth needs and its tools. Tools are typed async
functions; their JSON Schemas derive from their signatures. Each receives a
`ToolContext` first and imports nothing from the server.
"""

from __future__ import annotations

import inspect
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeVar

import httpx
from pydantic import BaseModel, ConfigDict
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = [
    "Account",
    "ApiKeyAuth",
    "AuthSpec",
    "Caller",
    "Module",
    "ModuleResources",
    "NoAuth",
    "OAuth2Auth",
    "PromptArgument",
    "PromptInfo",
    "PromptMessage",
    "PromptProvider",
    "PromptResult",
    "Sampler",
    "ToolContext",
    "ToolSpec",
]

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
TOOL_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
MAX_TOOL_NAME = 64
RESERVED_NAMES = frozenset({"batch"})  # get_module_schema("batch") returns the batch guide

SettingsT = TypeVar("SettingsT", bound=BaseModel)


class EmptySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class NoAuth:
    """The module needs no credential."""

    kind: Literal["none"] = "none"


@dataclass(frozen=True)
class ApiKeyAuth:
    """A long-lived token or API key (seed 001 type A)."""

    kind: Literal["api_key"] = "api_key"
    header: str = "Authorization"
    scheme: str = "Bearer"


@dataclass(frozen=True)
class OAuth2Auth:
    """OAuth 2 authorization code with refresh (seed 001 type B)."""

    authorize_url: str
    token_url: str
    scopes: tuple[str, ...] = ()
    kind: Literal["oauth2"] = "oauth2"
    pkce: bool = True


AuthSpec = NoAuth | ApiKeyAuth | OAuth2Auth


@dataclass(frozen=True)
class Caller:
    """Who is calling: the signed-in user and, over HTTP, the API token used."""

    user_id: str
    email: str | None = None
    token_id: str | None = None


@dataclass(frozen=True)
class Account:
    """One credential set for one external service, resolved for this call."""

    service: str
    name: str
    secret: str = field(repr=False)
    extra: Mapping[str, Any] = field(default_factory=dict)


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


@dataclass(frozen=True)
class ModuleResources:
    """What the server hands a module's lifespan at start."""

    engine: AsyncEngine
    settings: BaseModel
    data_dir: Path
    logger: logging.Logger


@dataclass
class ToolContext(Generic[SettingsT]):
    """Injected as the first argument of every tool."""

    http: httpx.AsyncClient
    settings: SettingsT
    account: Account | None
    logger: logging.Logger
    caller: Caller
    state: Any = None
    engine: AsyncEngine | None = None
    sampler: Sampler | None = None


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = True


@dataclass(frozen=True)
class PromptInfo:
    """One MCP prompt a module offers (`prompts/list`)."""

    name: str
    description: str
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class PromptMessage:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class PromptResult:
    """The expansion of a prompt (`prompts/get`)."""

    description: str
    messages: tuple[PromptMessage, ...]


class PromptProvider(Protocol):
    """Serves a module's MCP prompts for the calling user; `ctx.account` is always None here."""

    async def list_prompts(self, ctx: ToolContext[Any]) -> list[PromptInfo]: ...

    async def get_prompt(self, ctx: ToolContext[Any], name: str, arguments: dict[str, str]) -> PromptResult: ...


ToolFn = Callable[..., Awaitable[Any]]
Lifespan = Callable[[ModuleResources], AbstractAsyncContextManager[Any]]
StartupFn = Callable[[ModuleResources], AsyncIterator[Any]]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    fn: ToolFn
    description: str
    read_only: bool
    destructive: bool
    idempotent: bool
    open_world: bool
    needs_account: bool


def _first_paragraph(doc: str | None) -> str:
    if not doc:
        return ""
    text = inspect.cleandoc(doc)
    return " ".join(text.split("\n\n", 1)[0].split())


class Module:
    """A named set of tools, registered through the `mcpist.modules` entry-point group.

    Raises:
        ValueError: a name, summary or tool declaration is invalid.
    """

    def __init__(
        self,
        name: str,
        *,
        summary: str,
        description: str = "",
        settings: type[BaseModel] = EmptySettings,
        auth: AuthSpec | None = None,
        api_version: str | None = None,
        migrations: Path | None = None,
        docs: str = "",
    ) -> None:
        if not NAME_RE.fullmatch(name):
            raise ValueError(f"invalid module name {name!r}: use 1-32 of a-z, 0-9 and _, starting with a letter")
        if name in RESERVED_NAMES:
            raise ValueError(f"invalid module name {name!r}: reserved by the server")
        summary = " ".join(summary.split())
        if not summary or len(summary) > 100:
            raise ValueError(f"module {name!r}: summary must be one line of 1-100 characters")
        self.name = name
        self.summary = summary
        self.description = description or summary
        self.settings_model = settings
        self.auth: AuthSpec = auth or NoAuth()
        self.api_version = api_version
        self.migrations = migrations
        self.docs = docs
        self.tools: dict[str, ToolSpec] = {}
        self.lifespan: Lifespan | None = None
        self.prompts: PromptProvider | None = None

    def tool(
        self,
        name: str | None = None,
        *,
        description: str | None = None,
        read_only: bool = False,
        destructive: bool = False,
        idempotent: bool = False,
        open_world: bool | None = None,
        needs_account: bool | None = None,
    ) -> Callable[[ToolFn], ToolFn]:
        """Register an async function as a tool; returns the function unchanged."""

        def register(fn: ToolFn) -> ToolFn:
            tool_name = name or fn.__name__
            if not TOOL_NAME_RE.fullmatch(tool_name) or len(tool_name) > MAX_TOOL_NAME:
                raise ValueError(f"module {self.name!r}: invalid tool name {tool_name!r}")
            if tool_name in self.tools:
                raise ValueError(f"module {self.name!r}: duplicate tool {tool_name!r}")
            if not inspect.iscoroutinefunction(fn):
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} must be an async function")
            params = list(inspect.signature(fn).parameters.values())
            positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            if not params or params[0].name != "ctx" or params[0].kind not in positional:
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} must take `ctx` as its first parameter")
            if any(p.kind is p.POSITIONAL_ONLY for p in params[1:]):
                # the runtime passes parameters by name
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} has positional-only parameters")
            text = description if description is not None else _first_paragraph(fn.__doc__)
            if not text:
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} needs a description (docstring)")
            if read_only and destructive:
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} cannot be read-only and destructive")
            remote = not isinstance(self.auth, NoAuth)
            self.tools[tool_name] = ToolSpec(
                name=tool_name,
                fn=fn,
                description=text,
                read_only=read_only,
                destructive=destructive,
                idempotent=idempotent or read_only,
                open_world=remote if open_world is None else open_world,
                needs_account=remote if needs_account is None else needs_account,
            )
            return fn

        return register

    def startup(self, fn: StartupFn) -> StartupFn:
        """Register an async generator run for the server's lifetime; what it yields becomes `ctx.state`."""
        if self.lifespan is not None:
            raise ValueError(f"module {self.name!r}: startup is already registered")
        self.lifespan = asynccontextmanager(fn)
        return fn

    def __repr__(self) -> str:
        return f"Module({self.name!r}, tools={sorted(self.tools)})"
