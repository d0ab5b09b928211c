"""A `ToolContext` as the server would build it, for calling a module's tools directly in tests."""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

import httpx
from pydantic import BaseModel
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from mcpist.errors import InvalidArgument, MCPistError, Unauthenticated
from mcpist.modules.api import Account, Caller, ClientChannel, Module, Sampler, ServiceSettings, ToolContext
from mcpist.modules.registry import Registry
from mcpist.upstream import Credential, CredentialSource, ServiceClient


class FakeCredentials:
    """A credential source for tests: sends `tokens[0]` as a Bearer token, and each 401 refresh moves to
    the next one; `refreshes` counts them. With no token left, the upstream's refusal stands."""

    def __init__(self, *tokens: str, header: str = "Authorization", scheme: str = "Bearer") -> None:
        if not tokens:
            raise ValueError("give at least one token")
        self.tokens = list(tokens)
        self.refreshes = 0
        self._header = header
        self._scheme = scheme

    def __repr__(self) -> str:
        return f"FakeCredentials(<{len(self.tokens)} tokens>, refreshes={self.refreshes})"

    def _credential(self) -> Credential:
        token = self.tokens[self.refreshes]
        value = f"{self._scheme} {token}" if self._scheme else token
        return Credential({self._header: value}, token)

    async def current(self) -> Credential:
        return self._credential()

    async def refresh(self, stale: Credential) -> Credential | None:
        if self.refreshes + 1 >= len(self.tokens):
            return None
        self.refreshes += 1
        return self._credential()

    async def rejected(self) -> MCPistError:
        return Unauthenticated("the upstream refused the test account's credential; connect it again")


class RecordedSleep:
    """Stands in for `anyio.sleep` in a client's retries: records each wait instead of waiting."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def tool_context(
    module: Module,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    settings: BaseModel | Mapping[str, Any] | None = None,
    state: Any = None,
    engine: AsyncEngine | None = None,
    account: Account | None = None,
    credentials: CredentialSource | None = None,
    caller: Caller | None = None,
    sampler: Sampler | None = None,
    channel: ClientChannel | None = None,
    sleep: RecordedSleep | None = None,
    other_accounts: Mapping[str, CredentialSource | tuple[Account, CredentialSource]] | None = None,
) -> ToolContext[Any, Any]:
    """The context a tool of `module` receives, with its upstream faked at `transport`.

    `settings` may be the module's settings model or a dict validated into it. With `credentials`
    (e.g. `FakeCredentials("t1", "t2")`) the HTTP client authenticates as the server's would; `account`
    defaults to one named "test". `engine` defaults to an in-memory SQLite engine (not migrated).
    Retries wait through `sleep` (a `RecordedSleep` by default), so tests never sleep.
    `other_accounts` are what `ctx.http_for(name)` reaches: a credential source (the account is then
    `Account(service=module.name, name=name)`) or an (account, credentials) pair, over the same transport.

    Raises:
        pydantic.ValidationError: `settings` do not fit the module's model.
    """
    if settings is None or isinstance(settings, Mapping):
        settings = module.settings_model.model_validate(dict(settings or {}))
    if credentials is not None and account is None:
        account = Account(service=module.name, name="test")
    wait = sleep or RecordedSleep()
    inner = transport or httpx.MockTransport(_no_upstream)

    def make_client(
        account: Account | None = account, credentials: CredentialSource | None = credentials
    ) -> ServiceClient:
        roots = settings.base_urls() if isinstance(settings, ServiceSettings) else []
        base_url = roots[0] if roots else ""
        if account is not None and isinstance(settings, ServiceSettings):
            # the server's rule (runtime.service_client): the module's hook, else an account's base_url field
            if module.base_url_for is not None:
                base_url = module.base_url_for(settings, account).rstrip("/")
            elif "base_url" in module.account_fields and account.fields.get("base_url"):
                base_url = account.fields["base_url"].rstrip("/")
        return ServiceClient(
            module.name,
            base_url,
            transport=inner,
            credentials=credentials,
            headers=module.headers,
            user_agent="mcpist-test",
            extra_origins=roots,
            tries=settings.tries if isinstance(settings, ServiceSettings) else 3,
            sleep=wait,
        )

    others = dict(other_accounts or {})

    async def other_account(name: str) -> ServiceClient:
        if name not in others:
            raise InvalidArgument(f"no {module.name} account named {name!r} in this test", {"account": name})
        given = others[name]
        other, source = given if isinstance(given, tuple) else (Account(service=module.name, name=name), given)
        return make_client(other, source)

    return ToolContext(
        settings=settings,
        state=state,
        engine=engine or create_async_engine("sqlite+aiosqlite://"),
        caller=caller or Caller(user_id="test-user"),
        logger=logging.getLogger(f"mcpist.modules.{module.name}"),
        account=account,
        http=make_client,
        sampler=sampler,
        channel=channel,
        other_accounts=other_account,
    )


def _no_upstream(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"the test gave no upstream, yet the tool sent {request.method} {request.url}")


@functools.cache
def _registry(module: Module) -> Registry:
    return Registry([module])


async def call_tool(
    module: Module, ctx: ToolContext[Any, Any], tool: str, params: Mapping[str, Any], *, dump: bool = False
) -> Any:
    """Run one tool as the server does: `params` validated against its input schema, the result checked
    against its output schema. Returns the tool's own return value, or with `dump` the JSON-ready result
    the server would send. The context's HTTP client is closed afterwards, as after a server call.

    Raises:
        AssertionError: the module has no such tool.
        MCPistError: whatever the tool or the validation raises (INVALID_ARGUMENT for bad params).
    """
    registered = _registry(module).tool(module.name, tool)
    assert registered is not None, f"module {module.name!r} has no tool {tool!r}"
    try:
        result = await registered.spec.fn(ctx, **registered.schema.validate(dict(params)))
    finally:
        await ctx.aclose()
    dumped = registered.schema.dump_output(result)
    return dumped if dump else result
