"""Neither the account's token nor a project's service key (nor a secret's value) reaches any tool output, error
or log line, even when an upstream quotes them back."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from supabase_harness import Harness
from supabase_world import OTHER_REF, REF, TOKEN

from mcpist.errors import MCPistError
from mcpist.modules.supabase import module
from mcpist.modules.supabase._service_key import ServiceKeySource
from mcpist.testing import FakeCredentials

pytestmark = pytest.mark.anyio

KEY = "eyJ.service-role.acme-0001"
SECRETS = (TOKEN, KEY, "eyJ.other.0002", "sk_live_9", "eyJ.anon.public")

EVERY_CALL: list[tuple[str, dict[str, Any]]] = [
    ("list_organizations", {}),
    ("list_projects", {}),
    ("get_project", {}),
    ("create_project", {"name": "n", "organization": "acme", "region": "us-east-1"}),
    ("pause_project", {}),
    ("restore_project", {}),
    ("list_tables", {}),
    ("list_extensions", {}),
    ("list_migrations", {}),
    ("execute_sql", {"query": "select 1"}),
    ("execute_sql", {"query": "insert into notes values (1)"}),
    ("execute_sql_write", {"query": "select 1"}),
    ("apply_migration", {"name": "m", "query": "select 1"}),
    ("generate_typescript_types", {}),
    ("get_logs", {"service": "auth"}),
    ("get_advisors", {"kind": "security"}),
    ("list_edge_functions", {}),
    ("get_edge_function", {"slug": "hello"}),
    ("deploy_edge_function", {"slug": "x", "files": [{"name": "index.ts", "content": "1"}]}),
    ("delete_edge_function", {"slug": "x"}),
    ("list_secrets", {}),
    ("set_secrets", {"secrets": {"X": "y"}}),
    ("list_branches", {}),
    ("manage_branch", {"action": "create", "branch": "b"}),
    ("list_buckets", {}),
    ("manage_bucket", {"action": "create", "bucket": "m"}),
    ("list_objects", {"bucket": "docs"}),
    ("upload_object", {"bucket": "docs", "path": "a.txt", "text": "a"}),
    ("download_object", {"bucket": "docs", "path": "a.txt"}),
    ("download_object", {"bucket": "docs", "path": "a.txt", "mode": "signed_url"}),
    ("download_object", {"bucket": "docs", "path": "missing.txt"}),
    ("delete_objects", {"bucket": "docs", "paths": ["a.txt"]}),
]


def assert_no_secret(text: str) -> None:
    for secret in SECRETS:
        assert secret not in text, f"{secret} leaked"


async def run(supa: Harness, tool: str, params: dict[str, Any]) -> str:
    try:
        return json.dumps(await supa.call(tool, **params), ensure_ascii=False)
    except MCPistError as exc:
        return repr(exc) + json.dumps(exc.to_dict(), ensure_ascii=False) + str(exc)


async def test_no_tool_output_or_error_holds_a_secret(supa: Harness, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    supa.pin(REF)
    seen = [await run(supa, tool, params) for tool, params in EVERY_CALL]
    assert {tool for tool, _ in EVERY_CALL} == set(module.tools)
    assert "read-only transaction" in seen[10] and "Object not found" in seen[-2], "the errors were reached"
    seen.append(await run(supa, "get_project", {"project": OTHER_REF}))
    assert_no_secret("\n".join(seen) + caplog.text + repr(supa.cache) + repr(ServiceKeySource(supa.context(), REF)))
    assert supa.world.api_key_calls == 1 and len(supa.cache) == 1


async def test_an_upstream_quoting_a_credential_back_is_redacted(
    supa: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    store = supa.upstream.stores[REF]
    store.echo = True
    await supa.call("list_objects", project=REF, bucket="docs")  # the key is cached
    store.service_key = "eyJ.rotated"  # Storage now refuses the cached key, quoting it
    refused = await run(supa, "list_objects", {"project": REF, "bucket": "docs"})
    assert "invalid signature for [redacted]" in refused and "PERMISSION_DENIED" in refused

    # the Management API quotes the account's token in its 401
    supa.credentials = FakeCredentials("sbp_wrong_token_12345")
    rejected = await run(supa, "list_organizations", {})
    assert "UNAUTHENTICATED" in rejected and "sbp_wrong_token_12345" not in rejected
    assert_no_secret(refused + rejected + caplog.text)
    assert "sbp_wrong_token_12345" not in caplog.text
