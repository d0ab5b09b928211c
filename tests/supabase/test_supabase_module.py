"""Module `supabase` as the server publishes it: declaration, kinds, schemas and their size, contract coverage."""

from __future__ import annotations

from pathlib import Path

import pytest
from supabase_harness import REGISTRY

from mcpist.modules import Module, OAuth2Auth, ServiceSettings
from mcpist.modules.registry import RegisteredTool
from mcpist.modules.supabase import SupabaseSettings, module
from mcpist.testing import covered_in, definition_problems
from mcpist.testing import definition_size as size

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
    assert definition_problems(tool) == []
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
    covered = covered_in(Path(__file__).parent.glob("test_supabase_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"
