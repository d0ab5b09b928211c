"""Module `github` as the server publishes it: declaration, schemas and their size, annotations, every tool
covered by a contract test, resources, the review prompt, and one pass through a running server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from github_harness import REGISTRY, Harness

from mcpist.modules import (
    Account,
    AccountChoice,
    Caller,
    InvalidArgument,
    Module,
    NotFound,
    OAuth2Auth,
    ResolvedAccount,
    ServiceSettings,
)
from mcpist.modules.github import GitHubSettings, module
from mcpist.modules.registry import RegisteredTool
from mcpist.testing import FakeCredentials, covered_in, in_process_client, running, schema_problems
from mcpist.testing import definition_size as size

pytestmark = pytest.mark.anyio

TOOLS = REGISTRY.tools("github")
MAX_DEFINITION_BYTES = 4096
# R: read-only; W: writes; D: destructive. The `idempotent` flag of the writes follows in the second column.
KINDS = {
    "get_me": "R",
    "list_repositories": "R",
    "get_repository": "R",
    "search_repositories": "R",
    "get_file_contents": "R",
    "get_repository_tree": "R",
    "search_code": "R",
    "list_commits": "R",
    "get_commit": "R",
    "compare_commits": "R",
    "list_branches": "R",
    "create_branch": "W",
    "write_files": "W",
    "delete_file": "D",
    "search_issues": "R",
    "list_issues": "R",
    "get_issue": "R",
    "create_issue": "W",
    "update_issue": "Wi",
    "add_issue_comment": "W",
    "list_pull_requests": "R",
    "get_pull_request": "R",
    "create_pull_request": "W",
    "update_pull_request": "Wi",
    "merge_pull_request": "D",
    "review_pull_request": "W",
    "list_workflow_runs": "R",
    "list_workflow_jobs": "R",
    "get_job_logs": "R",
    "run_workflow": "W",
    "list_notifications": "R",
    "mark_notifications_read": "Wi",
    "list_releases": "R",
    "create_release": "W",
}


def test_the_declaration() -> None:
    assert isinstance(module, Module) and module.name == "github" and len(module.summary) <= 100
    assert module.description != module.summary and "get_repository_tree" in module.docs
    assert GitHubSettings.model_validate({}).base_url == "https://api.github.com"
    assert issubclass(GitHubSettings, ServiceSettings)
    assert isinstance(module.auth, OAuth2Auth) and module.auth.scopes == (
        "repo",
        "read:org",
        "workflow",
        "notifications",
    )
    assert module.account_fields["base_url"].problem("https://ghe.example.com/api/v3") is None
    assert module.account_fields["base_url"].problem("ftp://x") is not None
    assert module.headers == {"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"}


def test_every_tool_is_declared_with_its_kind() -> None:
    assert len(module.tools) >= 28 and set(module.tools) == set(KINDS)
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
    assert size(tool) <= MAX_DEFINITION_BYTES, f"{tool.spec.name} is {size(tool)} bytes"
    params = definition["inputSchema"]["properties"]
    for name in ("owner", "repo", "path", "ref", "branch"):
        if name in params and params[name].get("type") == "string":
            assert "pattern" in params[name] or "maxLength" in params[name], f"{name} reaches a URL unchecked"


def test_the_module_schema_size(capsys: pytest.CaptureFixture[str]) -> None:
    total = sum(len(json.dumps(t.definition())) for t in TOOLS)
    largest = sorted(TOOLS, key=size, reverse=True)[:3]
    with capsys.disabled():
        print(
            f"\ngithub: {len(TOOLS)} tools, {total} bytes of definitions; largest: "
            + ", ".join(f"{t.spec.name} {size(t)} B" for t in largest)
        )
    assert total <= 64_000  # about 16k tokens, read only when the LLM opens the module


def test_every_tool_has_a_contract_test() -> None:
    covered = covered_in(Path(__file__).parent.glob("test_github_*.py"))
    assert covered == set(module.tools), f"no contract test for {sorted(set(module.tools) - covered)}"


async def test_the_readme_and_issue_resources_are_markdown(gh: Harness) -> None:
    specs = {spec.name: spec for spec in module.resources.values()}
    assert {s.uri_template: s.tool for s in specs.values()} == {
        "github://repos/{owner}/{repo}/readme": "get_file_contents",
        "github://repos/{owner}/{repo}/issues/{number}": "get_issue",
        "github://repos/{owner}/{repo}/pulls/{number}": "get_pull_request",
    }
    assert specs["readme"].match("github://repos/octo/hello/readme") == {"owner": "octo", "repo": "hello"}
    ctx = gh.context()
    assert await specs["readme"].fn(ctx, owner="octo", repo="hello") == "# hello\n\nA greeting.\n"
    text = await specs["issue"].fn(ctx, owner="octo", repo="hello", number="12")
    assert isinstance(text, str)
    assert text.startswith("# Crash on start (#12)\n\nIssue: open · author: @octocat")
    assert "milestone: v1.0" in text and "**@hubot** on 2026-03-01:\n\nComment 19" in text
    assert "_15 more comments: call get_issue with the cursor to read them._" in text
    pull = await specs["pull"].fn(ctx, owner="octo", repo="hello", number="7")
    assert "branches: feature/x → main" in pull and "### src/file_00.py (modified, +1 -1)\n```diff\n" in pull
    with pytest.raises(InvalidArgument):
        await specs["issue"].fn(ctx, owner="octo", repo="..", number="12")
    with pytest.raises(InvalidArgument):
        await specs["issue"].fn(ctx, owner="octo", repo="hello", number="12abc")
    await ctx.aclose()


async def test_the_review_prompt_names_the_workflow_and_the_pull_request(gh: Harness) -> None:
    assert module.prompts is not None
    ctx = gh.context()
    (info,) = await module.prompts.list_prompts(ctx)
    assert info.name == "github_pr_review" and [a.name for a in info.arguments] == ["owner", "repo", "pr_number"]
    result = await module.prompts.get_prompt(
        ctx, "github_pr_review", {"owner": "octo", "repo": "hello", "pr_number": "#7"}
    )
    (message,) = result.messages
    assert result.description == "Review octo/hello#7" and message.role == "user"
    for step in ("get_module_schema", "get_pull_request", "review_pull_request", '"pr_number": 7'):
        assert step in message.text
    with pytest.raises(InvalidArgument):
        await module.prompts.get_prompt(ctx, "github_pr_review", {"owner": "octo", "repo": "hello", "pr_number": "x"})
    with pytest.raises(NotFound):
        await module.prompts.get_prompt(ctx, "github_other", {})


class _Accounts:
    async def resolve(self, caller: Caller, module: Module, account: str | None) -> ResolvedAccount | None:
        return ResolvedAccount(Account(service="github", name="work"), FakeCredentials("ghp_test"))

    async def usable(self, caller: Caller, module: Module) -> AccountChoice:
        return AccountChoice(("work",), "work")


async def test_through_a_running_server(gh: Harness, tmp_path: Path) -> None:
    async with running([module], tmp_path, upstream=gh.fake.transport()) as rt:
        rt.accounts = _Accounts()
        async with in_process_client(rt) as client:
            schema = (await client.call_tool("get_module_schema", {"module": "github"})).structured_content
            # 34 tools are over the index threshold: the names first, then the tools asked for in full
            assert schema is not None and len(schema["index"]) == len(KINDS) and "tools" not in schema
            chosen = await client.call_tool("get_module_schema", {"module": "github", "tools": ["get_me"]})
            assert [t["name"] for t in chosen.structured_content["tools"]] == ["get_me"]
            assert schema["accounts"] == {"names": ["work"], "default": "work"}
            params = {"owner": "octo", "repo": "hello", "pr_number": 7, "limit": 2}
            result = await client.call_tool(
                "call", {"module": "github", "tool_name": "get_pull_request", "params": params}
            )
            assert not result.is_error, result.content
            assert result.structured_content is not None
            body = result.structured_content
            assert (body["number"], body["head"], len(body["files"])) == (7, "feature/x", 2)
            assert "merged_at" not in body  # None fields are left out, as the output schema says
            read = await client.read_resource("github://repos/octo/hello/issues/12")
            assert read.contents[0].text.startswith("# Crash on start (#12)")  # type: ignore[union-attr]
            prompt = await client.get_prompt("github_pr_review", {"owner": "octo", "repo": "hello", "pr_number": "7"})
            assert "review_pull_request" in prompt.messages[0].content.text  # type: ignore[union-attr]
