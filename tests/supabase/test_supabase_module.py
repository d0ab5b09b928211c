"""Module `supabase` as the server publishes it: declaration, kinds, schemas and their size, contract coverage."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from supabase_harness import REGISTRY

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.registry import RegisteredTool
from mcpist.modules.supabase import SupabaseSettings, module

TOOLS = REGISTRY.tools("supabase")
# R read-only, W write, Wi idempotent write, D destructive, Di idempotent destructive
KINDS = {
    "list_organizations": "R",
    "list_projects": "R",
    "get_project": "R",
    "create_project": "W",
    "pause_project": "Wi",
    "restore_project": "Wi",
    "list_tables": "R",
    "list_extensions": "R",
    "list_migrations": "R",
    "execute_sql": "R",
    "execute_sql_write": "D",
    "apply_migration": "D",
    "generate_typescript_types": "R",
    "get_logs": "R",
    "get_advisors": "R",
    "list_edge_functions": "R",
    "get_edge_function": "R",
    "deploy_edge_function": "W",
    "delete_edge_function": "Di",
    "list_secrets": "R",
    "set_secrets": "Wi",
    "list_branches": "R",
    "manage_branch": "D",
    "list_buckets": "R",
    "manage_bucket": "D",
    "list_objects": "R",
    "upload_object": "W",
    "download_object": "R",
    "delete_objects": "Di",
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
    assert isinstance(module, Module) and module.name == "supabase" and len(module.summary) <= 100
    assert module.description != module.summary and "execute_sql_write" in module.docs
    settings = SupabaseSettings.model_validate({})
    assert isinstance(settings, ServiceSettings) and settings.base_url == "https://api.supabase.com"
    assert settings.storage_base_url is None and (settings.max_rows, settings.max_bytes) == (200, 65536)
    # the account's token may go to the Management API only, even when a storage root is configured
    configured = SupabaseSettings.model_validate({"storage_base_url": "https://storage.example.test/storage/v1/"})
    assert configured.storage_base_url == "https://storage.example.test/storage/v1"
    assert configured.base_urls() == ["https://api.supabase.com"]
    with pytest.raises(ValueError):
        SupabaseSettings.model_validate({"storage_base_url": "ftp://x"})
    assert isinstance(module.auth, OAuth2Auth)
    assert module.auth.authorize_url == "https://api.supabase.com/v1/oauth/authorize"
    assert module.auth.token_url == "https://api.supabase.com/v1/oauth/token"
    assert set(module.account_fields) == {"project_ref"}
    field = module.account_fields["project_ref"]
    assert field.problem("abcdefghijklmnopqrst") is None
    for bad in ("abcdefghijklmnopqrs", "ABCDEFGHIJKLMNOPQRST", "abcdefghijklmnopqrst1", "https://x.supabase.co"):
        assert field.problem(bad) is not None, bad
    assert module.lifespan is not None


def test_every_tool_is_declared_with_its_kind() -> None:
    assert len(module.tools) >= 28 and set(module.tools) == set(KINDS)
    for name, spec in module.tools.items():
        kind = KINDS[name]
        assert (spec.read_only, spec.destructive) == (kind == "R", kind.startswith("D")), name
        assert spec.idempotent == (kind in ("R", "Wi", "Di")), name
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
    if tool.spec.name not in ("list_organizations", "list_projects", "create_project"):
        assert params["project"]["pattern"] == "^[a-z]{20}$", "every project-scoped tool takes a checked ref"
        assert "project" not in definition["inputSchema"].get("required", []), "a pinned account supplies it"
    for name in ("slug", "bucket", "path", "branch", "organization"):
        if name in params and params[name].get("type") == "string":
            assert "pattern" in params[name], f"{name} reaches a URL unchecked"


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(size(t) for t in TOOLS)
    with capsys.disabled():
        print(f"\nsupabase: {len(TOOLS)} tools, {total} bytes of definitions; largest {max(size(t) for t in TOOLS)} B")
    assert total <= 64_000


def test_every_tool_has_a_contract_test() -> None:
    covered: set[str] = set()
    for test_file in Path(__file__).parent.glob("test_supabase_*.py"):
        for names in re.findall(r"@covers\(([^)]*)\)", test_file.read_text(encoding="utf-8")):
            covered.update(re.findall(r'"([a-z_]+)"', names))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
