"""What one tool call runs with: the account it resolves to and the upstream client built for it."""

from __future__ import annotations

from typing import Any, Protocol

import httpx

from mcpist.errors import PermissionDenied, Unauthenticated
from mcpist.modules.api import AccountChoice, Caller, Module, ResolvedAccount, ServiceSettings, ToolSpec
from mcpist.upstream import ServiceClient


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
