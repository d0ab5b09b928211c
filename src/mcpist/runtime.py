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
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import parse_qs

import anyio
import httpx
from pydantic import BaseModel, ValidationError
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist import __version__
from mcpist.cluster import MIGRATIONS as CLUSTER_MIGRATIONS
from mcpist.config import Settings
from mcpist.elicitations import PendingElicitations
from mcpist.errors import (
    ConfigError,
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    MCPistError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
)
from mcpist.modules.api import (
    AccountChoice,
    Caller,
    ClientChannel,
    Module,
    ModuleResources,
    ResolvedAccount,
    ResourceSpec,
    Sampler,
    ServiceSettings,
    ToolContext,
    ToolSpec,
)
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.observe import Observer, current_request_id, new_request_id, observing
from mcpist.quotas import Quotas
from mcpist.sieve import (
    HIDDEN_TOOL_CALL,
    UNKNOWN_TOOL_CALL,
    Principal,
    Sieve,
    Via,
    ensure_owner_access,
    list_disabled_modules,
    load_access,
    record_security_event,
)
from mcpist.sieve import MIGRATIONS as SIEVE_MIGRATIONS
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.storage.users import User, ensure_owner
from mcpist.tasks import MIGRATIONS as TASKS_MIGRATIONS
from mcpist.tasks import TaskRunner
from mcpist.ttlcache import TtlCache
from mcpist.upstream import Borrowed, ServiceClient
from mcpist.vault import MIGRATIONS as VAULT_MIGRATIONS
from mcpist.vault.broker import broker_for

logger = logging.getLogger("mcpist")

MASTER_KEY_FILE = "master.key"


class AccountResolver(Protocol):
    """Finds the account and credential a tool call runs with (the token broker plugs in here)."""

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None: ...

    async def usable(self, caller: Caller, module: Module) -> AccountChoice: ...


class NoAccounts:
    """What a runtime resolves with until `start_runtime` installs the token broker: nothing."""

    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        raise Unauthenticated(
            f"module {module.name!r} needs a connected account and none is connected",
            {"module": module.name, "account": account},
        )

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        return AccountChoice((), None)


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
    """The server's own client (token endpoints, JWKS); modules get `service_client`s instead."""
    owner: User
    owner_created: bool
    accounts: AccountResolver = field(default_factory=NoAccounts)
    module_settings: dict[str, BaseModel] = field(default_factory=dict)
    module_states: dict[str, Any] = field(default_factory=dict)
    version: str = __version__
    elicitations: PendingElicitations = field(default_factory=PendingElicitations)
    transport: httpx.AsyncBaseTransport = field(default_factory=httpx.AsyncHTTPTransport)
    """The connection pool every module's upstream client shares (each call has its own cookies and auth)."""
    tasks: TaskRunner | None = None
    """MCP tasks running in this process (`start_runtime` starts it)."""
    observer: Observer = field(default_factory=Observer)
    """Counts, audits and traces tool calls (`start_runtime` applies `settings.observe`)."""

    sieve: Sieve = field(init=False)
    quotas: Quotas = field(init=False)
    """Work each user and token has running at once (`settings.limits`)."""

    _principals: TtlCache[tuple[str, str | None], Principal] = field(init=False)
    _disabled: TtlCache[None, frozenset[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.sieve = Sieve(self.registry)
        self.quotas = Quotas(self.settings.limits)
        self._principals = TtlCache(self.settings.access_cache_s)
        self._disabled = TtlCache(self.settings.access_cache_s)

    async def principal(self, caller: Caller) -> Principal:
        """The caller with the tools its user's roles (kept to its token's roles) allow.

        Cached for `settings.access_cache_s` seconds per user and token: a role change made
        elsewhere takes that long to bite, and a call costs no database read meanwhile.
        """

        async def load() -> Principal:
            roles, rules = await load_access(self.engine, caller.user_id, caller.token_id)
            grants = self.sieve.grants(rules).without(await self.disabled_modules())
            return Principal(caller, grants, tuple(roles))

        # concurrent requests of one caller share one read when the entry has expired
        key = (caller.user_id, caller.token_id)
        principal = await self._principals.get_or_load(key, load)
        if principal is None or principal.caller != caller:
            principal = await load()
            self._principals.put(key, principal)
        return principal

    def forget_access(self) -> None:
        """Drop cached permissions, after this process changed roles, grants or switched modules."""
        self._principals.clear()
        self._disabled.clear()

    async def disabled_modules(self) -> frozenset[str]:
        """The modules an admin switched off for everyone (cached as permissions are): every caller's
        grants leave them out, so no path lists, describes or runs their tools, resources or prompts."""
        found = self._disabled.get(None)
        if found is None:
            found = await list_disabled_modules(self.engine)
            self._disabled.put(None, found)
        return found

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

    def service_client(self, module: Module, resolved: ResolvedAccount | None = None) -> ServiceClient:
        """An upstream HTTP client for `module`, bound to `resolved`'s credential when given."""
        return service_client(
            module,
            self.module_settings[module.name],
            self.transport,
            resolved,
            user_agent=f"mcpist/{self.version}",
        )

    def context(
        self,
        caller: Caller,
        module: Module,
        resolved: ResolvedAccount | None,
        sampler: Sampler | None = None,
        channel: ClientChannel | None = None,
        *,
        tool: ToolSpec | None = None,
    ) -> ToolContext[Any, Any]:
        """The context `tool` (None: a resource reader or prompt, which only read) runs in."""

        async def other_account(name: str) -> ServiceClient:
            if not module.needs_account:
                raise InvalidArgument(f"{module.name} has no accounts", {"account": name})
            other = await self.accounts.resolve(caller, module, name)
            if other is None:
                raise InvalidArgument(f"{module.name} has no accounts", {"account": name})
            check_writable(module, tool, other)
            return self.service_client(module, other)

        return ToolContext(
            settings=self.module_settings[module.name],
            state=self.module_states.get(module.name),
            engine=self.engine,
            caller=caller,
            logger=logging.getLogger(f"mcpist.modules.{module.name}"),
            account=resolved.account if resolved is not None else None,
            http=lambda: self.service_client(module, resolved),
            sampler=sampler,
            channel=channel,
            other_accounts=other_account,
        )

    def visible_resources(self, principal: Principal) -> list[tuple[Module, ResourceSpec]]:
        """The resources (templates) whose tool this principal may use."""
        return [
            (m, r)
            for m in self.visible_modules(principal)
            for r in m.resources.values()
            if principal.grants.allows(m.name, r.tool)
        ]

    async def read_resource(
        self,
        principal: Principal,
        uri: str,
        sampler: Sampler | None = None,
        channel: ClientChannel | None = None,
    ) -> tuple[ResourceSpec, str | bytes]:
        """Read a resource by URI, with the account its tool would use (`?account=NAME` picks one).

        A resource whose tool the principal may not use is answered exactly as an unknown one.

        Raises:
            NotFound: no resource of a visible module matches.
            MCPistError: as `execute`.
        """
        if len(uri) > 2048:
            raise InvalidArgument("the resource URI is too long", {"field": "uri"})
        base, _, query = uri.partition("?")
        extra = parse_qs(query, keep_blank_values=True)
        if set(extra) - {"account"} or len(extra.get("account", [])) > 1:
            raise InvalidArgument("a resource URI takes no query but ?account=NAME", {"field": "uri"})
        account = extra["account"][0] if "account" in extra else None
        found = next(
            ((m, r, v) for m in self.registry for r in m.resources.values() if (v := r.match(base)) is not None),
            None,
        )
        if found is not None:
            module, spec, variables = found
            if not principal.grants.allows(module.name, spec.tool):
                await self.record_refusal(principal, module.name, spec.tool, "resource")
            else:
                caller = principal.caller
                # audited as a call of the resource's tool (via "resource"), never its content
                with self.observer.tool_call(
                    caller.user_id, caller.token_id, module.name, spec.tool, "resource", account
                ) as call:
                    tool = module.tools[spec.tool]
                    resolved = await self.accounts.resolve(caller, module, account) if tool.needs_account else None
                    if resolved is not None:
                        call.account = resolved.account.name
                    check_writable(module, tool, resolved)
                    ctx = self.context(caller, module, resolved, sampler, channel, tool=tool)
                    value = await self.run_guarded(
                        f"{module.name} resource", self.settings.call_timeout_s, ctx, lambda: spec.fn(ctx, **variables)
                    )
                    if not isinstance(value, str | bytes):
                        raise Internal(f"the {module.name} resource reader returned {type(value).__name__}")
                    return spec, value
        raise NotFound(f"unknown resource {base[:200]!r}", {"uri": base[:200]})

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
        channel: ClientChannel | None = None,
    ) -> Any:
        """Validate and run one tool; returns its JSON-ready result.

        `who` is the request's principal, or a bare caller whose permissions are looked up now.

        Raises:
            MCPistError: any expected failure, with its code; unexpected exceptions become
                Internal carrying a request id (the traceback goes to the log only).
        """
        caller = who.caller if isinstance(who, Principal) else who
        # counted, audited and traced however it ends, refusals included (never its params or result)
        with self.observer.tool_call(caller.user_id, caller.token_id, module, tool, via, account) as call:
            principal = who if isinstance(who, Principal) else await self.principal(who)
            found = await self.authorize(principal, module, tool, via)
            kwargs = found.schema.validate(params)
            resolved = await self.accounts.resolve(caller, found.module, account) if found.spec.needs_account else None
            if resolved is not None:
                call.account = resolved.account.name
            check_writable(found.module, found.spec, resolved)
            ctx = self.context(caller, found.module, resolved, sampler, channel, tool=found.spec)
            limit = timeout_s if timeout_s is not None else self.settings.call_timeout_s
            # a batch or script was admitted as a whole: its tool calls queue for a slot instead of failing
            async with self.quotas.hold("call", caller, wait=via != "call"):
                return await self.run_guarded(
                    f"{module}.{tool}", limit, ctx, lambda: found.spec.fn(ctx, **kwargs), found.schema.dump_output
                )

    async def run_guarded(
        self,
        what: str,
        limit: float,
        ctx: ToolContext[Any, Any],
        work: Callable[[], Awaitable[Any]],
        dump: Callable[[Any], Any] = lambda value: value,
    ) -> Any:
        """Run a module's function under the deadline, closing its HTTP client, with errors normalised.

        Raises:
            MCPistError: as `execute`.
        """
        try:
            with anyio.fail_after(limit):
                value = await work()
            return dump(value)
        except TimeoutError:
            raise DeadlineExceeded(f"{what} did not finish within {limit:g} s", {"timeout_s": limit}) from None
        except MCPistError:
            raise
        except Exception:
            # the HTTP request's id, which its log lines carry too; a call outside HTTP (stdio, a task) gets its own
            request_id = current_request_id() or new_request_id()
            logger.exception("%s failed unexpectedly (request id %s)", what, request_id)
            raise Internal(
                f"internal error in {what}; the server log has details under request id {request_id}",
                {"request_id": request_id},
            ) from None
        finally:
            if ctx.holds_resources:  # most calls never made an HTTP client: no shielded scope for them
                with anyio.CancelScope(shield=True):
                    await ctx.aclose()


def check_writable(module: Module, tool: ToolSpec | None, resolved: ResolvedAccount | None) -> None:
    """Raises: PermissionDenied: `tool` changes data and the account was connected read-only."""
    if resolved is None or not resolved.account.read_only or tool is None or tool.read_only:
        return
    label = resolved.account.label
    raise PermissionDenied(
        f"account {label} is read-only, and {module.name}.{tool.name} changes data; use an account connected "
        f"without --read-only",
        {"service": module.name, "account": resolved.account.name, "reason": "read_only_account"},
    )


def service_client(
    module: Module,
    settings: Any,
    transport: httpx.AsyncBaseTransport,
    resolved: ResolvedAccount | None,
    *,
    user_agent: str,
) -> ServiceClient:
    """The upstream client of one call: the module's API root (for this account), version headers,
    timeouts and retries from its settings, and the account's credential when there is one."""
    if isinstance(settings, ServiceSettings):
        base_url = settings.base_url
        origins = settings.base_urls()
        if resolved is not None:
            account = resolved.account
            if module.base_url_for is not None:
                base_url = module.base_url_for(settings, account).rstrip("/")
            elif "base_url" in module.account_fields and account.fields.get("base_url"):
                base_url = account.fields["base_url"].rstrip("/")
        if base_url != settings.base_url:
            # an account with its own API root (GitHub Enterprise, an Atlassian site): its credential goes
            # there and to the module's other named roots, never to the default root of other accounts
            origins = [u for u in origins if u != settings.base_url]
        return ServiceClient(
            module.name,
            base_url,
            transport=transport,
            credentials=resolved.credentials if resolved is not None else None,
            headers=module.headers,
            user_agent=user_agent,
            timeout_s=settings.timeout_s,
            tries=settings.tries,
            extra_origins=origins,
        )
    return ServiceClient(
        module.name,
        "",
        transport=transport,
        credentials=resolved.credentials if resolved is not None else None,
        headers=module.headers,
        user_agent=user_agent,
    )


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
    settings: Settings,
    registry: Registry | None = None,
    *,
    start_modules: bool = True,
    transport: httpx.AsyncBaseTransport | None = None,
) -> AsyncIterator[Runtime]:
    """Create the data directory, database, master key and owner; enter every module's startup.

    Administrative commands pass `start_modules=False`: they need the database, not the
    modules' running state (loading a model, say). `transport` replaces the connection pool the
    modules' upstream clients share (tests fake the upstreams there).

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
            await upgrade(
                engine,
                [
                    SIEVE_MIGRATIONS,
                    VAULT_MIGRATIONS,
                    TASKS_MIGRATIONS,
                    CLUSTER_MIGRATIONS,
                    *(m.migrations for m in registry if m.migrations),
                ],
            )
        except OSError as exc:
            raise ConfigError(f"database_url: the database cannot be opened: {exc}") from None
        except Exception as exc:
            if isinstance(exc, ConfigError):
                raise
            raise ConfigError(f"database_url: the database cannot be opened or migrated: {_short(exc)}") from None
        owner, created = await ensure_owner(engine)
        await ensure_owner_access(engine, owner.id)
        # entered before the modules and tasks, so it outlives them and writes their last tool calls
        tool_of = registry.tool
        observer = await stack.enter_async_context(
            observing(engine, settings.observe, version=__version__, known=lambda m, t: tool_of(m, t) is not None)
        )
        if transport is None:
            transport = await stack.enter_async_context(httpx.AsyncHTTPTransport(proxy=settings.upstream_proxy))
        # token endpoints and identity providers go through the same pool (and proxy) as the modules' calls
        http = await stack.enter_async_context(
            httpx.AsyncClient(
                transport=Borrowed(transport),
                timeout=httpx.Timeout(30.0),
                headers={"User-Agent": f"mcpist/{__version__}"},
            )
        )
        states: dict[str, Any] = {}
        for module in registry:
            if start_modules and module.lifespan is not None:
                module_http = None
                if isinstance(module_settings[module.name], ServiceSettings):
                    module_http = service_client(
                        module, module_settings[module.name], transport, None, user_agent=f"mcpist/{__version__}"
                    )
                    stack.push_async_callback(module_http.aclose)
                resources = ModuleResources(
                    engine=engine,
                    settings=module_settings[module.name],
                    data_dir=settings.data_dir,
                    logger=logging.getLogger(f"mcpist.modules.{module.name}"),
                    http=module_http,
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
            transport=transport,
            observer=observer,
        )
        runtime.tasks = await stack.enter_async_context(TaskRunner.running(engine, settings.tasks))
        runtime.accounts = broker_for(
            engine=engine,
            data_dir=settings.data_dir,
            services=registry,
            http=http,
            base_url=settings.base_url,
            settings=settings.vault,
            roles_of=runtime.roles_of,
            client_for=runtime.service_client,
            module_settings=module_settings,
        )
        yield runtime


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__
