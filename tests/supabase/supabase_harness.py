"""How the contract tests call the tools: through the schema the server derives, on a context it would build."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from supabase_storage_fake import Upstream
from supabase_world import TOKEN, World

from mcpist.modules import Account, ToolContext
from mcpist.modules.registry import Registry
from mcpist.modules.supabase import KeyCache, module
from mcpist.testing import FakeCredentials, RecordedSleep, call_tool, tool_context

REGISTRY = Registry([module])
F = TypeVar("F", bound=Callable[..., Any])
WORK = Account(service="supabase", name="work")


@dataclass
class Harness:
    upstream: Upstream
    world: World
    credentials: FakeCredentials = field(default_factory=lambda: FakeCredentials(TOKEN))
    account: Account = WORK
    settings: dict[str, Any] = field(default_factory=dict)
    cache: KeyCache = field(default_factory=KeyCache)
    called: set[str] = field(default_factory=set)

    def context(self) -> ToolContext[Any, Any]:
        return tool_context(
            module,
            transport=self.upstream,
            credentials=self.credentials,
            account=self.account,
            settings=self.settings,
            state=self.cache,
            sleep=RecordedSleep(),
        )

    def pin(self, ref: str) -> None:
        self.account = Account(service="supabase", name="work", fields={"project_ref": ref})

    async def call(self, tool: str, **params: Any) -> Any:
        """Validate `params` as the server does, run the tool, and dump its result as the server would."""
        self.called.add(tool)
        return await call_tool(module, self.context(), tool, params, dump=True)

    def sent(self, operation: str) -> list[Any]:
        """Requests for one documented operation ("POST /v1/projects"), to any of the fakes."""
        return [r for fake in self.upstream.fakes() for r in fake.requests if r.operation == operation]
