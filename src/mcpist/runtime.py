"""The running server's parts, built once from Settings: database, modules, HTTP client.

`Runtime.execute` is the one path every tool call takes (single `call`, each
`batch` task, scripts): visibility, parameter validation, account resolution,
timeout, and error normalisation. Visibility is the caller's `Principal`,
resolved once per request by `Runtime.principal`.
"""

from __future__ import annotations

import logging
import os
import secrets
import stat
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio
import httpx
from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist import __version__
from mcpist.config import Settings
from mcpist.elicitations import PendingElicitations
from mcpist.errors import ConfigError, DeadlineExceeded, Internal, MCPistError, NotFound, Unauthenticated
from mcpist.modules.api import Account, Caller, Module, ModuleResources, Sampler, ToolContext
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.sieve import (
    HIDDEN_TOOL_CALL,
    UNKNOWN_TOOL_CALL,
    Principal,
    Sieve,
    Via,
    ensure_owner_access,
    load_access,
    record_security_event,
)
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.storage.users import User, ensure_owner
from mcpist.ttlcache import TtlCache
from mcpist.vault.broker import broker_for

logger = logging.getLogger("mcpist")

MASTER_KEY_FILE = "master.key"


class AccountResolver(Protocol):
    """Finds the credential a tool call runs with (the token broker plugs in here)."""

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> Account | None: ...


class NoAccounts:
    """What a runtime resolves with until `start_runtime` installs the token broker: nothing."""

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> Account | None:
        raise Unauthenticated(
            f"module {module.name!r} needs a connected account and none is connected",
            {"module": module.name, "account": account},
        )


def ensure_master_key(data_dir: Path) -> Path:
    """Create the 32-byte master key file (mode 0600) on first start; refuse a readable one."""
    path = data_dir / MASTER_KEY_FILE
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(secrets.token_bytes(32))
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        raise ConfigError(f"master key file {path} is readable by others (mode {mode:o}); run: chmod 600 {path}")
    return path


@dataclass
class Runtime:
    settings: Settings
    engine: AsyncEngine
    registry: Registry
    http: httpx.AsyncClient
    owner: User
    owner_created: bool
    accounts: AccountResolver = field(default_factory=NoAccounts)
    module_settings: dict[str, BaseModel] = field(default_factory=dict)
    module_states: dict[str, Any] = field(default_factory=dict)
    version: str = __version__
    elicitations: PendingElicitations = field(default_factory=PendingElicitations)

    sieve: Sieve = field(init=False)

    _principals: TtlCache[tuple[str, str | None], Principal] = field(init=False)

    def __post_init__(self) -> None:
        self.sieve = Sieve(self.registry)
        self._principals = TtlCache(self.settings.access_cache_s)

    async def principal(self, caller: Caller) -> Principal:
        """The caller with the tools its user's roles (kept to its token's roles) allow.

        Cached for `settings.access_cache_s` seconds per user and token: a role change made
        elsewhere takes that long to bite, and a call costs no database read meanwhile.
        """
        key = (caller.user_id, caller.token_id)
        cached = self._principals.get(key)
        if cached is not None and cached.caller == caller:
            return cached
        roles, rules = await load_access(self.engine, caller.user_id, caller.token_id)
        principal = Principal(caller, self.sieve.grants(rules), tuple(roles))
        self._principals.put(key, principal)
        return principal

    def forget_access(self) -> None:
        """Drop cached permissions, after this process changed roles or grants."""
        self._principals.clear()

    async def roles_of(self, caller: Caller) -> list[str]:
        """The names of the roles in force for this caller, by name (the token broker's shared accounts)."""
        return list((await self.principal(caller)).roles)

    def visible_modules(self, principal: Principal) -> list[Module]:
        """The modules with at least one tool this principal may use."""
        return [m for m in self.registry if m.name in principal.grants.modules]

    def visible_tool(self, principal: Principal, module: str, tool: str) -> RegisteredTool | None:
        return self.registry.tool(module, tool) if principal.grants.allows(module, tool) else None

    def find_tool(self, principal: Principal, module: str, tool: str) -> RegisteredTool:
        """The tool, if the principal may use it; a hidden tool is reported exactly as a missing one.

        Raises:
            NotFound: no such module or tool for this principal.
        """
        if module not in principal.grants.modules:
            names = ", ".join(m.name for m in self.visible_modules(principal)) or "(none)"
            raise NotFound(f"unknown module {module!r}; available: {names}", {"module": module})
        found = self.visible_tool(principal, module, tool)
        if found is None:
            raise NotFound(f"unknown tool {tool!r} in module {module!r}", {"module": module, "tool": tool})
        return found

    async def record_refusal(self, principal: Principal, module: str, tool: str, via: Via) -> None:
        """Record a refused tool reference as a security event; a failure to record is logged, not raised.

        A missing tool is recorded too, as `unknown_tool_call`: both refusals then cost the same
        database write, so response time cannot tell a hidden tool from a missing one.
        """
        kind = HIDDEN_TOOL_CALL if self.registry.tool(module, tool) is not None else UNKNOWN_TOOL_CALL
        caller = principal.caller
        if kind == HIDDEN_TOOL_CALL:
            logger.warning(
                "security: user %s (token %s) called hidden tool %s.%s via %s",
                caller.user_id,
                caller.token_id,
                module,
                tool,
                via,
            )
        try:
            await record_security_event(
                self.engine,
                user_id=caller.user_id,
                token_id=caller.token_id,
                module=module,
                tool=tool,
                kind=kind,
                via=via,
            )
        except Exception:
            logger.exception("security event %s for %s.%s could not be recorded", kind, module[:64], tool[:128])

    async def authorize(self, principal: Principal, module: str, tool: str, via: Via) -> RegisteredTool:
        """`find_tool`, recording a security event when it refuses.

        Raises:
            NotFound: no such module or tool for this principal.
        """
        try:
            return self.find_tool(principal, module, tool)
        except NotFound:
            await self.record_refusal(principal, module, tool, via)
            raise

    def context(
        self, caller: Caller, module: Module, account: Account | None, sampler: Sampler | None
    ) -> ToolContext[Any]:
        return ToolContext(
            http=self.http,
            settings=self.module_settings[module.name],
            account=account,
            logger=logging.getLogger(f"mcpist.modules.{module.name}"),
            caller=caller,
            state=self.module_states.get(module.name),
            engine=self.engine,
            sampler=sampler,
        )

    async def execute(
        self,
        who: Principal | Caller,
        module: str,
        tool: str,
        params: dict[str, Any],
        account: str | None = None,
        sampler: Sampler | None = None,
        timeout_s: float | None = None,
        via: Via = "call",
    ) -> Any:
        """Validate and run one tool; returns its JSON-ready result.

        `who` is the request's principal, or a bare caller whose permissions are looked up now.

        Raises:
            MCPistError: any expected failure, with its code; unexpected exceptions become
                Internal carrying a request id (the traceback goes to the log only).
        """
        principal = who if isinstance(who, Principal) else await self.principal(who)
        caller = principal.caller
        found = await self.authorize(principal, module, tool, via)
        kwargs = found.schema.validate(params)
        resolved = await self.accounts.resolve(caller, found.module, account) if found.spec.needs_account else None
        ctx = self.context(caller, found.module, resolved, sampler)
        limit = timeout_s if timeout_s is not None else self.settings.call_timeout_s
        try:
            with anyio.fail_after(limit):
                value = await found.spec.fn(ctx, **kwargs)
            return found.schema.dump_output(value)
        except TimeoutError:
            raise DeadlineExceeded(f"{module}.{tool} did not finish within {limit:g} s", {"timeout_s": limit}) from None
        except MCPistError:
            raise
        except Exception:
            request_id = uuid.uuid4().hex[:12]
            logger.exception("tool %s.%s failed unexpectedly (request id %s)", module, tool, request_id)
            raise Internal(
                f"internal error in {module}.{tool}; the server log has details under request id {request_id}",
                {"request_id": request_id},
            ) from None


def _module_settings(settings: Settings, registry: Registry) -> dict[str, BaseModel]:
    out: dict[str, BaseModel] = {}
    unknown = set(settings.modules.settings) - set(registry.names())
    if unknown:
        raise ConfigError(f"modules.settings names module(s) that are not loaded: {sorted(unknown)}")
    for module in registry:
        raw = settings.modules.settings.get(module.name, {})
        try:
            out[module.name] = module.settings_model.model_validate(raw)
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            name = ".".join(str(p) for p in err["loc"])
            raise ConfigError(f"invalid setting modules.settings.{module.name}.{name}: {err['msg']}") from None
    return out


@asynccontextmanager
async def start_runtime(
    settings: Settings, registry: Registry | None = None, *, start_modules: bool = True
) -> AsyncIterator[Runtime]:
    """Create the data directory, database, master key and owner; enter every module's startup.

    Administrative commands pass `start_modules=False`: they need the database, not the
    modules' running state (loading a model, say).

    Raises:
        ConfigError: the data directory, database or module settings are unusable.
    """
    if registry is None:
        registry = Registry.from_entry_points(settings.modules.enabled, settings.modules.disabled)
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    except OSError as exc:
        raise ConfigError(f"data_dir {settings.data_dir} cannot be created: {exc.strerror}") from None
    ensure_master_key(settings.data_dir)
    module_settings = _module_settings(settings, registry)
    engine = create_engine(settings.resolved_database_url)
    async with AsyncExitStack() as stack:
        stack.push_async_callback(engine.dispose)
        try:
            await upgrade(engine, [m.migrations for m in registry if m.migrations is not None])
        except OSError as exc:
            raise ConfigError(f"database_url: the database cannot be opened: {exc}") from None
        except Exception as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"database_url: the database cannot be opened or migrated: {_short(exc)}") from None
        owner, created = await ensure_owner(engine)
        await ensure_owner_access(engine, owner.id)
        http = await stack.enter_async_context(
            httpx.AsyncClient(timeout=httpx.Timeout(30.0), headers={"User-Agent": f"mcpist/{__version__}"})
        )
        states: dict[str, Any] = {}
        for module in registry:
            if start_modules and module.lifespan is not None:
                resources = ModuleResources(
                    engine=engine,
                    settings=module_settings[module.name],
                    data_dir=settings.data_dir,
                    logger=logging.getLogger(f"mcpist.modules.{module.name}"),
                )
                states[module.name] = await stack.enter_async_context(module.lifespan(resources))
        runtime = Runtime(
            settings=settings,
            engine=engine,
            registry=registry,
            http=http,
            owner=owner,
            owner_created=created,
            module_settings=module_settings,
            module_states=states,
        )
        runtime.accounts = broker_for(runtime, settings.vault, roles_of=runtime.roles_of)
        yield runtime


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
