"""Module `microsoft_todo` as the server publishes it: declaration, OAuth endpoints per tenant, kinds, schemas and
their size, a resource, and a contract test for every tool."""

from __future__ import annotations

from pathlib import Path

import pytest
from mstodo_harness import Harness
from mstodo_world import World
from pydantic import ValidationError

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.microsoft_todo import MicrosoftTodoSettings, module
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.testing import covered_in, covers, definition_problems
from mcpist.testing import definition_size as size

REGISTRY = Registry([module])
TOOLS = REGISTRY.tools("microsoft_todo")
KINDS = {
    "list_task_lists": "R",
    "create_task_list": "W",
    "rename_task_list": "Wi",
    "delete_task_list": "D",
    "list_tasks": "R",
    "search_tasks": "R",
    "get_task": "R",
    "create_task": "W",
    "update_task": "Wi",
    "complete_task": "Wi",
    "delete_task": "D",
    "manage_checklist_items": "W",
    "manage_linked_resources": "W",
    "get_task_changes": "R",
}

pytestmark = pytest.mark.anyio


def test_the_declaration() -> None:
    assert isinstance(module, Module) and module.name == "microsoft_todo" and len(module.summary) <= 100
    assert module.description != module.summary and "get_task_changes" in module.docs
    settings = MicrosoftTodoSettings.model_validate({})
    assert isinstance(settings, ServiceSettings) and settings.base_url == "https://graph.microsoft.com/v1.0"
    assert (settings.tenant, settings.time_zone) == ("common", "UTC")
    auth = module.auth
    assert isinstance(auth, OAuth2Auth) and auth.pkce and auth.refresh_scopes
    assert auth.scopes == ("offline_access", "Tasks.ReadWrite")
    assert auth.read_only_scopes == ("offline_access", "Tasks.Read")
    assert auth.authorize_params == {"prompt": "select_account"} and auth.reauth_hint
    assert auth.placeholders() == {"tenant"}
    common = auth.for_settings(settings)
    assert common.authorize_url == "https://login.microsoftonline.com/common/oauth2/v2.0/authorize"
    assert common.token_url == "https://login.microsoftonline.com/common/oauth2/v2.0/token"
    for tenant in ("consumers", "organizations", "contoso.onmicrosoft.com", "72f988bf-86f1-41af-91ab-2d7cd011db47"):
        filled = auth.for_settings(MicrosoftTodoSettings(tenant=tenant))
        assert filled.token_url == f"https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"


@pytest.mark.parametrize("tenant", ["", "../common", "a/b", "common?x=1", "-leading", "x" * 101])
def test_a_tenant_that_could_bend_the_url_is_refused(tenant: str) -> None:
    with pytest.raises(ValidationError, match="tenant"):
        MicrosoftTodoSettings(tenant=tenant)


def test_every_tool_is_declared_with_its_kind() -> None:
    assert len(module.tools) >= 14 and set(module.tools) == set(KINDS)
    for name, spec in module.tools.items():
        kind = KINDS[name]
        assert (spec.read_only, spec.destructive) == (kind == "R", kind == "D"), name
        assert spec.idempotent == (kind in ("R", "Wi", "D")), name
        assert spec.needs_account and spec.open_world, name


@pytest.mark.parametrize("tool", TOOLS, ids=[t.spec.name for t in TOOLS])
def test_each_definition_is_what_an_llm_can_use(tool: RegisteredTool) -> None:
    definition = tool.definition()
    assert definition_problems(tool) == []
    params = definition["inputSchema"]["properties"]
    for name in ("list_id", "task_id", "time_zone"):
        if name in params:
            assert "pattern" in params[name], f"{name} reaches a URL or header unchecked"


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(size(t) for t in TOOLS)
    with capsys.disabled():
        print(f"\nmicrosoft_todo: {len(TOOLS)} tools, {total} bytes of definitions; largest {max(map(size, TOOLS))} B")
    assert total <= 48_000


def test_every_tool_has_a_contract_test() -> None:
    covered = covered_in(Path(__file__).parent.glob("test_mstodo_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"


@covers("list_tasks")
async def test_the_open_tasks_resource(todo: Harness, world: World) -> None:
    (resource,) = module.resources.values()
    assert resource.uri_template == "microsoft-todo://lists/{list_id}/tasks" and resource.tool == "list_tasks"
    tasks = next(iter(world.lists))
    later = world.add_task(tasks, "Later", dueDateTime={"dateTime": "2026-03-09T00:00:00", "timeZone": "UTC"})
    soon = world.add_task(
        tasks, "Soon", importance="high", dueDateTime={"dateTime": "2026-03-08T00:00:00", "timeZone": "UTC"}
    )
    todo.called.add("list_tasks")
    text = await resource.fn(todo.context(), list_id=tasks)
    assert text == (
        f"- [ ] Soon (due 2026-03-08; important) <!-- {soon} -->\n- [ ] Later (due 2026-03-09) <!-- {later} -->\n"
    )
    assert todo.last.params["$orderby"] == "dueDateTime/dateTime" and todo.last.params["$top"] == "100"
    empty = world.add_list("Empty")
    assert await resource.fn(todo.context(), list_id=empty) == "No open tasks.\n"
