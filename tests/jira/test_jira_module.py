"""Module `jira` as the server publishes it: declaration, kinds, schemas and their size, contract coverage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from jira_harness import REGISTRY

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.jira import JiraSettings, module
from mcpist.modules.registry import RegisteredTool

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


def size(tool: RegisteredTool) -> int:
    return len(json.dumps(tool.definition(), ensure_ascii=False, separators=(",", ":")).encode())


def schema_problems(schema: Any, where: str = "") -> list[str]:
    """tests/test_module_contract.py's check, for this module before its entry point exists."""
    if not isinstance(schema, dict):
        return []
    problems = [
        f"{where}: has {k!r}" for k in ("$ref", "$defs", "definitions", "title", "discriminator") if k in schema
    ]
    props = schema.get("properties")
    if isinstance(props, dict):
        problems += [f"{where}: required {n!r} missing" for n in schema.get("required", []) if n not in props]
        for name, sub in props.items():
            if not isinstance(sub, dict) or not any(k in sub for k in ("type", "anyOf", "oneOf")):
                problems.append(f"{where}.{name}: has no type or anyOf")
            problems += schema_problems(sub, f"{where}.{name}")
    for key in ("items", "additionalProperties"):
        problems += schema_problems(schema.get(key), f"{where}[]")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            problems += schema_problems(sub, f"{where}<{key}{i}>")
    return problems


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
    text = tool.spec.description
    assert text[0].isupper() and text.endswith(".") and len(text) <= 120, text
    assert definition["inputSchema"]["additionalProperties"] is False
    assert schema_problems(definition["inputSchema"]) == []
    assert definition["outputSchema"]["type"] == "object" and schema_problems(definition["outputSchema"]) == []
    assert "$ref" not in json.dumps(definition)
    assert size(tool) <= 4096, f"{tool.spec.name} is {size(tool)} bytes"
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
    covered: set[str] = set()
    for test_file in Path(__file__).parent.glob("test_jira_*.py"):
        for names in re.findall(r"@covers\(([^)]*)\)", test_file.read_text(encoding="utf-8")):
            covered.update(re.findall(r'"([a-z_]+)"', names))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
