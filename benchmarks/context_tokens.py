"""How many context tokens an LLM reads for scripted multi-step tasks: MCPist vs a flat server.

    .venv/bin/python benchmarks/context_tokens.py [--json]

Each task is a list of steps an LLM would take. MCPist: its `tools/list` (three meta-tools), the
`get_module_schema` answers it fetches (a large module's index first, then the tools it will use in
full), and the compact results of `call`/`batch`, all as the JSON
text the client passes to the model. Flat: the same module tools listed one by one in `tools/list`
(name, description, inputSchema, outputSchema, annotations: what a flat server would send), and the raw
vendor JSON of every upstream response the same steps caused (what a server returning the API's
answers as they are would send). The upstreams are the contract tests' fakes (tests/github,
tests/notion), whose canned answers follow the vendors' documented shapes; tokens are bytes / 4.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests" / "github"), str(ROOT / "tests" / "notion"), str(ROOT / "tests")]

from mcpist.modules.api import Caller, Module  # noqa: E402
from mcpist.protocol.server import MetaToolHandler  # noqa: E402
from mcpist.testing import running  # noqa: E402


def approx_tokens(n_bytes: int) -> int:
    return (n_bytes + 3) // 4


def compact(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class Recorder(httpx.AsyncBaseTransport):
    """Passes requests to the fake upstreams and keeps each raw response body."""

    def __init__(self, route: Callable[[httpx.Request], httpx.AsyncBaseTransport]) -> None:
        self.route = route
        self.bodies: list[bytes] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.route(request).handle_async_request(request)
        body = await response.aread()
        self.bodies.append(body)
        return httpx.Response(response.status_code, headers=response.headers, content=body, request=request)


Step = tuple[str, ...] | tuple[str, str, str, dict[str, Any]]


@dataclass
class Task:
    name: str
    steps: list[tuple[Any, ...]]
    mcpist_bytes: int = 0
    flat_bytes: int = 0
    detail: list[str] = field(default_factory=list)


def flat_tools(modules: list[Module]) -> int:
    from mcpist.modules.registry import Registry

    registry = Registry(modules)
    tools = []
    for tool in registry.tools():
        d = tool.definition()
        tools.append({"name": f"{tool.module.name}__{tool.spec.name}", **{k: v for k, v in d.items() if k != "name"}})
    return len(compact(tools))


async def run(tasks: list[Task], modules: list[Module], route: Callable[[httpx.Request], Any]) -> dict[str, Any]:
    recorder = Recorder(route)
    with tempfile.TemporaryDirectory() as tmp:
        async with running(modules, Path(tmp), upstream=recorder) as rt:
            await seed_accounts(rt, modules)
            handler = MetaToolHandler(rt)
            caller = Caller(user_id=rt.owner.id)
            listed = len(
                compact(
                    [
                        t.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for t in await handler.list_tools(caller)
                    ]
                )
            )
            flat_listed = flat_tools(modules)
            for task in tasks:
                task.mcpist_bytes, task.flat_bytes = listed, flat_listed
                for step in task.steps:
                    before = len(recorder.bodies)
                    if step[0] == "schema":
                        args: dict[str, Any] = {"module": step[1]}
                        if len(step) > 2:
                            args["tools"] = step[2]
                        result = await handler.run(caller, "get_module_schema", args, None)
                        text = result.content[0].text  # type: ignore[union-attr]
                        task.mcpist_bytes += len(text.encode())
                        what = f"{step[1]} {','.join(step[2])}" if len(step) > 2 else f"{step[1]} (index)"
                        task.detail.append(f"schema {what}: {len(text.encode())} B")
                        continue
                    if step[0] == "call":
                        args = {"module": step[1], "tool_name": step[2], "params": step[3]}
                        result = await handler.run(caller, "call", args, None)
                    else:
                        result = await handler.run(caller, "batch", {"tasks": step[1]}, None)
                    text = result.content[0].text  # type: ignore[union-attr]
                    if result.is_error:
                        raise RuntimeError(f"{task.name}: {step[:3]} failed: {text}")
                    raw = sum(len(b) for b in recorder.bodies[before:])
                    task.mcpist_bytes += len(text.encode())
                    task.flat_bytes += raw
                    label = ".".join(step[1:3]) if step[0] == "call" else "batch"
                    task.detail.append(f"{step[0]} {label}: {len(text.encode())} B vs raw {raw} B")
    total_m = sum(t.mcpist_bytes for t in tasks)
    total_f = sum(t.flat_bytes for t in tasks)
    return {
        "tools_list_bytes": listed,
        "flat_tools_list_bytes": flat_listed,
        "tasks": [
            {
                "task": t.name,
                "mcpist_tokens": approx_tokens(t.mcpist_bytes),
                "flat_tokens": approx_tokens(t.flat_bytes),
                "steps": t.detail,
            }
            for t in tasks
        ],
        "mcpist_tokens": approx_tokens(total_m),
        "flat_tokens": approx_tokens(total_f),
        "ratio": round(total_f / total_m, 2),
    }


async def seed_accounts(rt: Any, modules: list[Module]) -> None:
    broker = rt.accounts
    for module in modules:
        if module.needs_account:
            secret = {"github": "ghp_bench", "notion": "secret_bench"}.get(module.name, "bench")
            await broker.accounts.put(
                service=module.name, name="default", kind="api_key", secrets={"api_key": secret}, user_id=rt.owner.id
            )


def tasks(notes_page: str, tasks_source: str) -> list[Task]:
    gh = {"owner": "octo", "repo": "hello"}
    return [
        Task(
            "triage: list open issues, read the one with the long thread, comment on it",
            [
                ("schema", "github"),
                ("schema", "github", ["list_issues", "get_issue", "add_issue_comment"]),
                ("call", "github", "list_issues", {**gh, "state": "open", "limit": 20}),
                ("call", "github", "get_issue", {**gh, "issue_number": 12, "limit": 20}),
                ("call", "github", "add_issue_comment", {**gh, "issue_number": 12, "body": "Reproduced; fixing."}),
            ],
        ),
        Task(
            "review: read a pull request with its files and patches, approve it",
            [
                ("schema", "github"),
                ("schema", "github", ["get_pull_request", "review_pull_request"]),
                ("call", "github", "get_pull_request", {**gh, "pr_number": 7}),
                ("call", "github", "review_pull_request", {**gh, "pr_number": 7, "event": "APPROVE", "body": "LGTM"}),
            ],
        ),
        Task(
            "plan: read the meeting notes in Notion, list open tasks, add one task per open GitHub issue (batch)",
            [
                ("schema", "notion"),
                ("schema", "notion", ["search", "get_page", "query_data_source", "create_page"]),
                ("schema", "github", ["list_issues"]),
                ("call", "notion", "search", {"query": "会議メモ", "limit": 5}),
                ("call", "notion", "get_page", {"page_id": notes_page}),
                ("call", "notion", "query_data_source", {"data_source_id": tasks_source, "limit": 20}),
                (
                    "batch",
                    "\n".join(
                        [
                            json.dumps({"id": "i", "module": "github", "tool": "list_issues",
                                        "params": {**gh, "state": "open", "limit": 3}}),
                            *(
                                json.dumps({"id": f"p{k}", "module": "notion", "tool": "create_page", "after": "i",
                                            "params": {"title": f"${{i.items[{k}].title}}",
                                                       "data_source_id": tasks_source}})
                                for k in range(3)
                            ),
                        ]
                    ),
                ),
            ],
        ),
    ]  # fmt: skip


HELD_OUT = [
    Task(
        "held out - CI failure: list runs, the failing run's jobs, the failing job's log tail, the file it names",
        [
            ("schema", "github"),
            ("schema", "github", ["list_workflow_runs", "list_workflow_jobs", "get_job_logs", "get_file_contents"]),
            ("call", "github", "list_workflow_runs", {"owner": "octo", "repo": "hello", "limit": 10}),
            ("call", "github", "list_workflow_jobs", {"owner": "octo", "repo": "hello", "run_id": 125}),
            ("call", "github", "get_job_logs", {"owner": "octo", "repo": "hello", "job_id": 500}),
            ("call", "github", "get_file_contents", {"owner": "octo", "repo": "hello", "path": "src/app.py"}),
        ],
    )
]
"""Written after the index threshold and the result shapes were settled, and never tuned on: its ratio is
reported apart from the three tasks above."""


def upstreams() -> tuple[Callable[[httpx.Request], httpx.AsyncBaseTransport], str, str, Any, Any]:
    from fake_notion import FakeNotion
    from github_world import LOG_HOST, World, fake_upstream, install
    from notion_seed import seed

    github = fake_upstream()
    gh_world = World()
    install(github, gh_world)
    storage = httpx.MockTransport(lambda request: httpx.Response(200, content=gh_world.log.encode()))
    world = FakeNotion()
    made = seed(world)
    notion = world.fake()
    gh_transport, notion_transport = github.transport(), notion.transport()

    def route(request: httpx.Request) -> httpx.AsyncBaseTransport:
        if request.url.host == LOG_HOST:  # GitHub's signed log URLs point at blob storage
            return storage
        return notion_transport if request.url.host == "api.notion.com" else gh_transport

    return route, made.notes, made.tasks, github, notion


def report(figures: dict[str, Any]) -> str:
    lines = [
        "| task | MCPist tokens | flat + raw JSON tokens | ratio |",
        "|---|---|---|---|",
    ]
    for t in figures["tasks"]:
        ratio = t["flat_tokens"] / t["mcpist_tokens"]
        lines.append(f"| {t['task']} | {t['mcpist_tokens']:,} | {t['flat_tokens']:,} | {ratio:.1f}x |")
    lines.append(f"| all three | {figures['mcpist_tokens']:,} | {figures['flat_tokens']:,} | {figures['ratio']:.1f}x |")
    lines.append("")
    lines.append(
        f"tools/list: MCPist {figures['tools_list_bytes']:,} B; the same github and notion tools listed flat "
        f"{figures['flat_tools_list_bytes']:,} B (counted once per task: each task starts a conversation)."
    )
    return "\n".join(lines)


async def main(as_json: bool) -> None:
    from mcpist.modules.github import module as github
    from mcpist.modules.notion import module as notion

    route, notes_page, tasks_source, gh_fake, notion_fake = upstreams()
    figures = await run(tasks(notes_page, tasks_source), [github, notion], route)
    held_out = await run(HELD_OUT, [github, notion], route)
    for fake in (gh_fake, notion_fake):
        fake.assert_clean()
    if as_json:
        print(json.dumps({"tuned_on": figures, "held_out": held_out}, ensure_ascii=False, indent=2))
    else:
        print(report(figures))
        print()
        print(report(held_out).replace("| all three |", "| held out |"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--json", action="store_true", help="every figure and step as JSON")
    asyncio.run(main(parser.parse_args().json))
