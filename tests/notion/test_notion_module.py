"""The module's declaration, its tool definitions as an LLM reads them, its prompt and its page resource."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from notion_seed import Seed

from mcpist.modules import NotFound, OAuth2Auth
from mcpist.modules.notion import NotionSettings, module
from mcpist.modules.notion._module import notion_id
from mcpist.modules.registry import RegisteredTool, Registry
from mcpist.testing import definition_size as size
from test_module_contract import MAX_DEFINITION_BYTES, SENTENCE_END, schema_problems

HERE = Path(__file__).parent
pytestmark = pytest.mark.anyio
REGISTRY = Registry([module])
TOOLS = REGISTRY.tools("notion")
READ = {"search", "get_page", "get_block_children", "get_page_property", "get_database", "query_data_source"}
READ |= {"list_comments", "list_users"}
DESTRUCTIVE = {"delete_block", "archive_page", "update_page_content"}


def test_the_declaration() -> None:
    assert module.name == "notion" and len(module.summary) <= 100
    assert module.headers == {"Notion-Version": "2025-09-03"}
    assert isinstance(module.auth, OAuth2Auth)
    assert module.auth.authorize_url == "https://api.notion.com/v1/oauth/authorize"
    assert module.auth.token_url == "https://api.notion.com/v1/oauth/token"
    assert dict(module.auth.authorize_params) == {"owner": "user"}
    assert NotionSettings.model_validate({}).base_url == "https://api.notion.com"
    assert "<!-- notion:" in module.docs  # the Markdown conventions reach the LLM


def test_at_least_twenty_tools_annotated_by_what_they_do() -> None:
    assert len(TOOLS) >= 20
    for tool in TOOLS:
        spec = tool.spec
        assert spec.read_only == (spec.name in READ), spec.name
        assert spec.destructive == (spec.name in DESTRUCTIVE), spec.name
        assert spec.needs_account and spec.open_world


@pytest.mark.parametrize("tool", TOOLS, ids=[t.spec.name for t in TOOLS])
def test_each_definition_keeps_the_module_contract(tool: RegisteredTool) -> None:
    definition = tool.definition()
    text = definition["description"]
    assert text[0].isupper() and text.endswith(SENTENCE_END)
    assert definition["inputSchema"]["additionalProperties"] is False
    assert schema_problems(definition["inputSchema"]) == []
    assert definition["outputSchema"]["type"] == "object", "every tool returns a model"
    assert schema_problems(definition["outputSchema"]) == []
    assert "$ref" not in json.dumps(definition)
    assert size(tool) <= MAX_DEFINITION_BYTES


def test_schema_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    ranked = sorted(TOOLS, key=size, reverse=True)
    total = sum(size(tool) for tool in TOOLS)
    with capsys.disabled():
        print(f"\nnotion: {len(TOOLS)} tools, {total} bytes of definitions; largest: "
              + ", ".join(f"{t.spec.name} {size(t)} B" for t in ranked[:3]))  # fmt: skip
    assert total <= 32_000


def test_every_tool_is_exercised_by_the_contract_suite() -> None:
    """Each tool is called as `call(ctx, "<tool>", ...)` in a test checked against Notion's API description."""
    called: set[str] = set()
    for path in (HERE / "test_notion_read.py", HERE / "test_notion_write.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            calls = isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "call"
            if calls and len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                called.add(node.args[1].value)
    assert {tool.spec.name for tool in TOOLS} - called == set()


async def test_the_create_task_prompt_guides_through_the_meta_tools(ctx: Any) -> None:
    assert module.prompts is not None
    (info,) = await module.prompts.list_prompts(ctx)
    assert info.name == "notion_create_task" and [a.name for a in info.arguments] == ["title", "due", "data_source_id"]
    found = await module.prompts.get_prompt(ctx, "notion_create_task", {"title": "請求書を送る", "due": "2025-10-31"})
    (message,) = found.messages
    assert message.role == "user"
    for step in ("get_module_schema", '"data_source"', "get_database", "create_page", "2025-10-31", "請求書を送る"):
        assert step in message.text
    known = await module.prompts.get_prompt(ctx, "notion_create_task", {"title": "x", "data_source_id": "ds-1"})
    assert "The task data source is ds-1." in known.messages[0].text and "search" not in known.messages[0].text
    with pytest.raises(NotFound):
        await module.prompts.get_prompt(ctx, "notion_other", {})


async def test_the_page_resource_is_the_page_as_markdown(ctx: Any, seeded: Seed) -> None:
    (spec,) = module.resources.values()
    assert spec.uri_template == "notion://pages/{page_id}" and spec.tool == "get_page"
    assert spec.mime_type == "text/markdown"
    assert spec.match(f"notion://pages/{seeded.rows[0]}") == {"page_id": seeded.rows[0]}
    text = await spec.fn(ctx, page_id=seeded.rows[0])
    assert text.startswith("# 見積もりを送る\n\n- Status: 未着手\n- Due: 2025-10-01\n- Tags: 仕事\n")
    notes = await spec.fn(ctx, page_id=seeded.notes)
    assert notes.startswith("# 会議メモ\n\n週次の定例です。\n\n- [議題](https://example.com/a)")


@pytest.mark.parametrize(
    "given",
    [
        "0123456789abcdef0123456789abcdef",
        "01234567-89ab-cdef-0123-456789ABCDEF",
        "https://www.notion.so/acme/会議メモ-0123456789abcdef0123456789abcdef",
        "https://www.notion.so/acme/0123456789abcdef0123456789abcdef?v=ffffffffffffffffffffffffffffffff",
        "https://www.notion.so/acme/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa?v=ffffffffffffffffffffffffffffffff&p=0123456789abcdef0123456789abcdef",
        "https://www.notion.so/x-0123456789abcdef0123456789abcdef#bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
    ],
)
def test_ids_are_read_from_ids_and_notion_urls(given: str) -> None:
    assert notion_id(given, "page_id") == "01234567-89ab-cdef-0123-456789abcdef"
