"""The MCP prompt `github_pr_review`: a review workflow over MCPist's meta-tools, for one pull request."""

from __future__ import annotations

from typing import Any

from mcpist.modules import (
    InvalidArgument,
    NotFound,
    PromptArgument,
    PromptInfo,
    PromptMessage,
    PromptResult,
    ToolContext,
)

from ._common import is_repo

PR_REVIEW = "github_pr_review"

_INSTRUCTIONS = """\
Review pull request #{number} of {owner}/{repo} on GitHub, through MCPist.

1. Call `get_module_schema` with module "github" to read its tools.
2. `call` github `get_pull_request` with {{"owner": "{owner}", "repo": "{repo}", "pr_number": {number}}}: \
read the description, the branches and every changed file's patch. Follow `next_cursor` for more files, and \
pass `path` and `patch_offset` to read a patch that was cut (`patch_next_offset`). When a change needs \
context, read the file with `get_file_contents` at the pull request's `head_sha`.
3. Judge correctness, tests, security, error handling and readability; name concrete lines.
4. Show me the review you propose (verdict, summary, line comments) and wait for my go-ahead.
5. Then `call` github `review_pull_request` with event APPROVE, REQUEST_CHANGES or COMMENT, the summary as \
`body`, and `comments` as {{"path", "line", "body"}} on lines of the new version."""


class GitHubPrompts:
    """The `PromptProvider` of module `github`."""

    async def list_prompts(self, ctx: ToolContext[Any, Any]) -> list[PromptInfo]:
        return [
            PromptInfo(
                name=PR_REVIEW,
                description="Review a GitHub pull request: read its diff, then submit a verdict with line comments",
                arguments=(
                    PromptArgument("owner", "the repository's owner, e.g. octocat"),
                    PromptArgument("repo", "the repository's name, e.g. hello-world"),
                    PromptArgument("pr_number", "the pull request's number, e.g. 42"),
                ),
            )
        ]

    async def get_prompt(self, ctx: ToolContext[Any, Any], name: str, arguments: dict[str, str]) -> PromptResult:
        if name != PR_REVIEW:
            raise NotFound(f"module github has no prompt {name!r}")
        owner, repo = arguments.get("owner", "").strip(), arguments.get("repo", "").strip()
        number = arguments.get("pr_number", "").strip().lstrip("#")
        if not is_repo(owner, repo):
            raise InvalidArgument("github_pr_review needs `owner` and `repo`, e.g. octocat and hello-world")
        if not (number.isascii() and number.isdigit() and int(number) > 0):
            raise InvalidArgument("github_pr_review needs `pr_number`, a pull request number such as 42")
        text = _INSTRUCTIONS.format(owner=owner, repo=repo, number=int(number))
        return PromptResult(f"Review {owner}/{repo}#{int(number)}", (PromptMessage("user", text),))
