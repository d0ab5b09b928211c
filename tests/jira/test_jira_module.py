"""Module `jira` as the server publishes it: declaration, kinds, schemas and their size, contract coverage."""

from __future__ import annotations

from pathlib import Path

import pytest
from jira_harness import REGISTRY

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.jira import JiraSettings, module
from mcpist.modules.registry import RegisteredTool
from mcpist.testing import covered_in, definition_problems
from mcpist.testing import definition_size as size

TOOLS = REGISTRY.tools("jira")
KINDS = {
    "get_myself": "R",
    "search_issues": "R",
    "get_issue": "R",
    "create_issue": "W",
    "update_issue": "Wi",
    "delete_issue": "D",
    "get_transitions": "R",
    "transition_issue": "W",
    "add_comment": "W",
    "edit_comment": "Wi",
    "assign_issue": "Wi",
    "list_projects": "R",
    "get_create_metadata": "R",
    "search_fields": "R",
    "search_users": "R",
    "list_worklogs": "R",
    "add_worklog": "W",
    "link_issues": "W",
    "list_boards_and_sprints": "R",
    "move_to_sprint": "Wi",
    "list_attachments": "R",
}


def test_the_declaration() -> None:
    assert isinstance(module, Module) and module.name == "jira" and len(module.summary) <= 100
    assert module.description != module.summary and "get_create_metadata" in module.docs
    settings = JiraSettings.model_validate({})
    assert isinstance(settings, ServiceSettings) and settings.base_url == "https://api.atlassian.com"
    assert settings.site_override is None
    assert isinstance(module.auth, OAuth2Auth) and module.auth.basic_user_field == "email"
    assert "offline_access" in module.auth.scopes and module.connected is not None
    assert set(module.account_fields) == {"site", "email", "sites"}
    assert module.account_fields["site"].problem("https://acme.atlassian.net") is None
    assert module.account_fields["site"].problem("acme.atlassian.net") is not None
    assert module.account_fields["sites"].max_length == 8000


def test_every_tool_is_declared_with_its_kind() -> None:
    assert len(module.tools) >= 20 and set(module.tools) == set(KINDS)
    for name, spec in module.tools.items():
        kind = KINDS[name]
        assert (spec.read_only, spec.destructive) == (kind == "R", kind == "D"), name
        assert spec.idempotent == (kind in ("R", "Wi")), name
        assert spec.needs_account and spec.open_world, name


@pytest.mark.parametrize("tool", TOOLS, ids=[t.spec.name for t in TOOLS])
def test_each_definition_is_what_an_llm_can_use(tool: RegisteredTool) -> None:
    definition = tool.definition()
    assert definition_problems(tool) == []
    params = definition["inputSchema"]["properties"]
    assert "site" in params, "OAuth accounts with several sites choose one on every tool"
    for name in ("key", "project", "comment_id", "account_id"):
        if name in params and params[name].get("type") == "string":
            assert "pattern" in params[name], f"{name} reaches a URL unchecked"


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(size(t) for t in TOOLS)
    with capsys.disabled():
        print(f"\njira: {len(TOOLS)} tools, {total} bytes of definitions; largest {max(size(t) for t in TOOLS)} B")
    assert total <= 64_000


def test_every_tool_has_a_contract_test() -> None:
    covered = covered_in(Path(__file__).parent.glob("test_jira_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
