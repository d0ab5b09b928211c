"""The module's MCP prompt: creating a task page through MCPist's meta-tools."""

from __future__ import annotations

from typing import Any

from mcpist.modules import NotFound, PromptArgument, PromptInfo, PromptMessage, PromptResult, ToolContext

CREATE_TASK = "notion_create_task"


class NotionPrompts:
    async def list_prompts(self, ctx: ToolContext[Any, Any]) -> list[PromptInfo]:
        return [
            PromptInfo(
                CREATE_TASK,
                "Create a task in a Notion task database",
                (
                    PromptArgument("title", "what the task is"),
                    PromptArgument("due", "due date, e.g. 2025-06-30", required=False),
                    PromptArgument("data_source_id", "the task database's data source, if known", required=False),
                ),
            )
        ]

    async def get_prompt(self, ctx: ToolContext[Any, Any], name: str, arguments: dict[str, str]) -> PromptResult:
        if name != CREATE_TASK:
            raise NotFound(f"module notion has no prompt {name!r}")
        title = arguments.get("title", "").strip() or "(ask me for the task's title)"
        due = arguments.get("due", "").strip()
        source = arguments.get("data_source_id", "").strip()
        find = (
            f"2. The task data source is {source}."
            if source
            else '2. Find the task database: call `notion` tool `search` with type "data_source" and a query such '
            'as "Tasks", "To-do" or "タスク"; if several match, ask me which one.'
        )
        due_step = (
            f"Set the due date {due} on its date property (the one named like Due, Deadline or 期限)."
            if due
            else "Leave the due date empty."
        )
        text = "\n".join(
            [
                f"Create a task in Notion titled: {title}",
                "",
                "Use MCPist's tools:",
                '1. `get_module_schema` with module "notion" to read the notion tools.',
                find,
                "3. `call` notion `get_database` with that data_source_id to read its properties: the title "
                "property, a status or checkbox, a date for the due date.",
                f"4. `call` notion `create_page` with data_source_id, title and properties. {due_step} Set a status "
                "property to its not-started option if there is one.",
                "5. Tell me the new page's url.",
            ]
        )
        return PromptResult(f"Create the Notion task {title!r}", (PromptMessage("user", text),))
