"""Module `confluence` as the server publishes it: declaration, kinds, schemas and sizes, and coverage."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from confluence_harness import REGISTRY

from mcpist.modules import OAuth2Auth, ServiceSettings
from mcpist.modules.confluence import ConfluenceSettings, module
from mcpist.modules.registry import RegisteredTool
from mcpist.testing import covered_in
from mcpist.testing import definition_size as size

TOOLS = REGISTRY.tools("confluence")
KINDS = {
    "search": "R",
    "list_spaces": "R",
    "list_pages_in_space": "R",
    "get_page": "R",
    "get_page_tree": "R",
    "get_page_history": "R",
    "get_comments": "R",
    "list_attachments": "R",
    "create_page": "W",
    "update_page": "W",
    "update_page_section": "W",
    "move_page": "W",
    "add_comment": "W",
    "manage_labels": "Wi",
    "upload_attachment": "W",
    "delete_page": "D",
}


def keywords(schema: Any) -> set[str]:
    """The `$ref`, `$defs` and `title` keywords anywhere in a schema (property names do not count)."""
    found: set[str] = set()
    if isinstance(schema, dict):
        found |= {k for k in ("$ref", "$defs", "definitions", "title") if k in schema}
        for key, sub in schema.items():
            subs = sub.values() if key == "properties" and isinstance(sub, dict) else [sub]
            for one in subs:
                found |= keywords(one)
    elif isinstance(schema, list):
        for one in schema:
            found |= keywords(one)
    return found


def test_the_declaration() -> None:
    assert module.name == "confluence" and len(module.summary) <= 100 and module.description != module.summary
    assert isinstance(module.auth, OAuth2Auth) and module.auth.basic_user_field == "email"
    assert "offline_access" in module.auth.scopes and module.connected is not None
    assert set(module.account_fields) == {"site", "email", "sites"}
    assert module.account_fields["site"].problem("https://acme.atlassian.net") is None
    assert module.account_fields["site"].problem("ftp://x") is not None
    settings = ConfluenceSettings.model_validate({})
    assert isinstance(settings, ServiceSettings) and settings.base_url == "https://api.atlassian.com"
    assert settings.site_override is None


def test_every_tool_is_declared_with_its_kind() -> None:
    assert set(module.tools) == set(KINDS)
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
    assert definition["outputSchema"]["type"] == "object"
    assert keywords(definition["inputSchema"]) == keywords(definition["outputSchema"]) == set()
    assert size(tool) <= 4096, f"{tool.spec.name} is {size(tool)} bytes"
    params = definition["inputSchema"]["properties"]
    for name in ("page_id", "parent_id", "space", "reply_to"):
        if name in params:
            assert "pattern" in params[name], f"{name} reaches a URL path unchecked"


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(size(t) for t in TOOLS)
    largest = sorted(TOOLS, key=size, reverse=True)[:3]
    with capsys.disabled():
        print(
            f"\nconfluence: {len(TOOLS)} tools, {total} bytes; largest: "
            + ", ".join(f"{t.spec.name} {size(t)} B" for t in largest)
        )
    assert total <= 64_000


def test_every_tool_has_a_contract_test() -> None:
    covered = covered_in(Path(__file__).parent.glob("test_confluence_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
