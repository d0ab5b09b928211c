"""The module API: everything a module (built-in or third-party) may import.

A module declares, in one place, its name, a one-line summary, a description,
a settings model, its auth needs, the fields its accounts carry, and its tools,
resources, prompts and CLI commands. Tools are typed async functions; their JSON
Schemas derive from their signatures. Each receives a `ToolContext` first and
imports nothing from the server.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from mcpist.observe.metrics import embedding_timer
from mcpist.upstream import ServiceClient

from ._auth import URL_PATTERN, AccountField, ApiKeyAuth, AuthSpec, NoAuth, OAuth2Auth
from ._context import (
    LOG_SENT_MARK,
    Account,
    AccountChoice,
    Caller,
    ClientChannel,
    LogLevel,
    ModuleResources,
    NoChannel,
    ResolvedAccount,
    Sampler,
    ServiceSettings,
    SettingsT,
    StateT,
    ToolContext,
)
from ._extras import (
    URI_TEMPLATE_RE,
    Arguments,
    CommandContext,
    CommandFn,
    CommandSpec,
    CompleteFn,
    PromptArgument,
    PromptCompleter,
    PromptInfo,
    PromptMessage,
    PromptProvider,
    PromptResult,
    ResourceFn,
    ResourceSpec,
)

__all__ = [
    "LOG_SENT_MARK",
    "URL_PATTERN",
    "Account",
    "AccountChoice",
    "AccountField",
    "ApiKeyAuth",
    "AuthSpec",
    "BaseUrlFn",
    "Caller",
    "ClientChannel",
    "CommandContext",
    "ConnectedFn",
    "CommandSpec",
    "LogLevel",
    "Module",
    "ModuleResources",
    "NoAuth",
    "NoChannel",
    "OAuth2Auth",
    "PromptArgument",
    "PromptCompleter",
    "PromptInfo",
    "PromptMessage",
    "PromptProvider",
    "PromptResult",
    "ResolvedAccount",
    "ResourceSpec",
    "Sampler",
    "ServiceSettings",
    "SettingsT",
    "StateT",
    "ToolContext",
    "ToolSpec",
    "embedding_timer",
]

NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
TOOL_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$")
COMMAND_NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
MAX_TOOL_NAME = 64
RESERVED_NAMES = frozenset({"batch"})  # get_module_schema("batch") returns the batch guide
RESERVED_FIELDS = frozenset({"name", "role", "user", "service"})  # the account command's own options


class EmptySettings(BaseModel):
    model_config = ConfigDict(extra="forbid")


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


BaseUrlFn = Callable[[Any, Account], str]
"""(module settings, account) -> the API root for this account; the default reads `settings.base_url`."""
ConnectedFn = Callable[["ServiceClient", Account], Awaitable[Mapping[str, str]]]
"""(a client with the new credential, the account) -> account fields to store, after an OAuth consent."""


class Module:
    """A named set of tools, registered through the `mcpist.modules` entry-point group.

    Raises:
        ValueError: a name, summary or declaration is invalid.
    """

    def __init__(
        self,
        name: str,
        *,
        summary: str,
        description: str = "",
        settings: type[BaseModel] = EmptySettings,
        auth: AuthSpec | None = None,
        account_fields: Sequence[AccountField] = (),
        headers: Mapping[str, str] | None = None,
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
        fields = {f.name: f for f in account_fields}
        if len(fields) != len(account_fields):
            raise ValueError(f"module {name!r}: duplicate account field")
        if RESERVED_FIELDS & set(fields):
            raise ValueError(f"module {name!r}: account fields may not be named {sorted(RESERVED_FIELDS)}")
        if fields and isinstance(self.auth, NoAuth):
            raise ValueError(f"module {name!r}: account fields need an auth spec")
        if isinstance(self.auth, OAuth2Auth):
            missing = self.auth.placeholders() - set(settings.model_fields)
            if missing:
                raise ValueError(f"module {name!r}: the OAuth URLs name unknown settings {sorted(missing)}")
        self.account_fields: dict[str, AccountField] = fields
        self.headers: dict[str, str] = dict(headers or {})
        self.api_version = api_version
        self.migrations = migrations
        self.docs = docs
        self.tools: dict[str, ToolSpec] = {}
        self.resources: dict[str, ResourceSpec] = {}
        self.commands: dict[str, CommandSpec] = {}
        self.lifespan: Lifespan | None = None
        self.prompts: PromptProvider | None = None
        self.base_url_for: BaseUrlFn | None = None
        self.connected: ConnectedFn | None = None

    @property
    def needs_account(self) -> bool:
        return not isinstance(self.auth, NoAuth)

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
            _check_ctx_first(self.name, f"tool {tool_name!r}", fn)
            text = description if description is not None else _first_paragraph(fn.__doc__)
            if not text:
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} needs a description (docstring)")
            if read_only and destructive:
                raise ValueError(f"module {self.name!r}: tool {tool_name!r} cannot be read-only and destructive")
            remote = self.needs_account
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

    def resource(
        self,
        uri_template: str,
        *,
        tool: str,
        name: str | None = None,
        description: str | None = None,
        mime_type: str = "text/plain",
        complete: Mapping[str, CompleteFn] | None = None,
    ) -> Callable[[ResourceFn], ResourceFn]:
        """Register `fn(ctx, **variables) -> str | bytes` as an MCP resource (template); returns it unchanged.

        `tool` names this module's tool that reads the same data: the resource is visible to whoever
        may use that tool, and runs with the account that tool would. `complete` maps a variable to a
        function suggesting its values (`completion/complete`).
        """

        def register(fn: ResourceFn) -> ResourceFn:
            if not URI_TEMPLATE_RE.fullmatch(uri_template) or len(uri_template) > 300:
                raise ValueError(f"module {self.name!r}: invalid resource URI template {uri_template!r}")
            if not uri_template.startswith(f"{self.name.replace('_', '-')}://") and not uri_template.startswith(
                f"{self.name}://"
            ):
                raise ValueError(f"module {self.name!r}: resource URIs must use the scheme {self.name}://")
            if uri_template in self.resources:
                raise ValueError(f"module {self.name!r}: duplicate resource {uri_template!r}")
            _check_ctx_first(self.name, f"resource {uri_template!r}", fn)
            text = description if description is not None else _first_paragraph(fn.__doc__)
            if not text:
                raise ValueError(f"module {self.name!r}: resource {uri_template!r} needs a description")
            spec = ResourceSpec(
                uri_template=uri_template,
                name=name or fn.__name__,
                description=text,
                mime_type=mime_type,
                tool=tool,
                fn=fn,
                complete=dict(complete or {}),
            )
            params = set(inspect.signature(fn).parameters) - {"ctx"}
            if set(spec.variables) != params:
                raise ValueError(
                    f"module {self.name!r}: resource {uri_template!r} takes {sorted(params)} "
                    f"but its template names {sorted(spec.variables)}"
                )
            unknown = set(spec.complete) - set(spec.variables)
            if unknown:
                raise ValueError(f"module {self.name!r}: resource {uri_template!r} completes unknown {sorted(unknown)}")
            self.resources[uri_template] = spec
            return fn

        return register

    def command(self, name: str, *, help: str, arguments: Arguments | None = None) -> Callable[[CommandFn], CommandFn]:
        """Register `fn(ctx: CommandContext, args) -> exit code | None` as `mcpist MODULE NAME`; returns it.

        `arguments(parser)` adds the command's own arguments to its argparse parser.
        """

        def register(fn: CommandFn) -> CommandFn:
            if not COMMAND_NAME_RE.fullmatch(name):
                raise ValueError(f"module {self.name!r}: invalid command name {name!r}")
            if name in self.commands:
                raise ValueError(f"module {self.name!r}: duplicate command {name!r}")
            if not inspect.iscoroutinefunction(fn):
                raise ValueError(f"module {self.name!r}: command {name!r} must be an async function")
            self.commands[name] = CommandSpec(name=name, help=help, arguments=arguments, fn=fn)
            return fn

        return register

    def base_url(self, fn: BaseUrlFn) -> BaseUrlFn:
        """Register `fn(settings, account) -> str`, the API root for one account (e.g. from its `site` field)."""
        if self.base_url_for is not None:
            raise ValueError(f"module {self.name!r}: base_url is already registered")
        self.base_url_for = fn
        return fn

    def on_connect(self, fn: ConnectedFn) -> ConnectedFn:
        """Register `fn(http, account) -> fields`, run once an OAuth consent succeeds and before the account is
        stored: what it returns (declared account fields, e.g. the sites the grant covers) is kept with it.
        If it raises, the connection fails with its error and nothing is stored."""
        if self.connected is not None:
            raise ValueError(f"module {self.name!r}: on_connect is already registered")
        self.connected = fn
        return fn

    def startup(self, fn: StartupFn) -> StartupFn:
        """Register an async generator run for the server's lifetime; what it yields becomes `ctx.state`."""
        if self.lifespan is not None:
            raise ValueError(f"module {self.name!r}: startup is already registered")
        self.lifespan = asynccontextmanager(fn)
        return fn

    def __repr__(self) -> str:
        return f"Module({self.name!r}, tools={sorted(self.tools)})"


def _check_ctx_first(module: str, what: str, fn: Callable[..., Any]) -> None:
    if not inspect.iscoroutinefunction(fn):
        raise ValueError(f"module {module!r}: {what} must be an async function")
    params = list(inspect.signature(fn).parameters.values())
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if not params or params[0].name != "ctx" or params[0].kind not in positional:
        raise ValueError(f"module {module!r}: {what} must take `ctx` as its first parameter")
    if any(p.kind is p.POSITIONAL_ONLY for p in params[1:]):
        # the runtime passes parameters by name
        raise ValueError(f"module {module!r}: {what} has positional-only parameters")
