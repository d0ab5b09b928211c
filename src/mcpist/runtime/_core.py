"""The `Runtime`: who may see and run what, resource reads, and `execute`, the one path of every tool call."""

from __future__ import annotations

import asyncio
import difflib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

import anyio
import httpx
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist import __version__
from mcpist.config import Settings
from mcpist.elicitations import PendingElicitations
from mcpist.errors import DeadlineExceeded, Internal, InvalidArgument, MCPistError, NotFound
from mcpist.modules.api import (
    Caller,
    ClientChannel,
    Module,
    ResolvedAccount,
    ResourceSpec,
    Sampler,
    ToolContext,
    ToolSpec,
)
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.observe import Observer, current_request_id, new_request_id
from mcpist.quotas import Quotas
from mcpist.sieve import (
    HIDDEN_TOOL_CALL,
    UNKNOWN_TOOL_CALL,
    Principal,
    Sieve,
    Via,
    list_disabled_modules,
    load_access,
    record_security_event,
)
from mcpist.storage.users import User
from mcpist.tasks import TaskRunner
from mcpist.ttlcache import TtlCache
from mcpist.upstream import ServiceClient

from ._calls import AccountResolver, NoAccounts, check_writable, service_client

logger = logging.getLogger("mcpist")


def _unprefixed(module: str, tool: str) -> str:
    """`search` for "memory.search", "memory__search" or "memory/search" in module memory: models write
    the module into the tool's name."""
    for separator in (".", "__", "/", ":"):
        if tool.startswith(module + separator):
            return tool[len(module) + len(separator) :]
    return tool


@functools.cache
def _module_logger(name: str) -> logging.Logger:
    """A module's logger (`logging.getLogger` takes a lock on every call; the names are the installed modules)."""
    return logging.getLogger(f"mcpist.modules.{name}")


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
        found = self.visible_tool(principal, module, _unprefixed(module, tool))
        if found is None:
            # close names among the tools this caller sees: the same hint whether or not a hidden tool has the name
            seen = [t.spec.name for t in self.registry.tools(module) if principal.grants.allows(module, t.spec.name)]
            close = difflib.get_close_matches(tool, seen, n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(n) for n in close)}?" if close else ""
            raise NotFound(f"unknown tool {tool!r} in module {module!r}{hint}", {"module": module, "tool": tool})
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
            logger=_module_logger(module.name),
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
        tool = _unprefixed(module, tool)
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
            # asyncio's own deadline costs about half the CPU of anyio's cancel scope on this hot path (MCPist
            # runs on asyncio only); anyio cancel scopes inside the tool nest with it as with any other
            async with asyncio.timeout(limit):
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
