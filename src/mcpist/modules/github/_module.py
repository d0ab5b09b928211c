"""The `github` module object: settings, auth, the account's API root and the guide the LLM reads."""

from __future__ import annotations

from pydantic import Field

from mcpist.modules import (
    URL_PATTERN,
    Account,
    AccountField,
    Module,
    OAuth2Auth,
    ServiceSettings,
    ToolContext,
)

DOCS = """\
Repositories are named by `owner` and `repo`. Lists take `limit` and return `next_cursor`: pass it back as \
`cursor` for more. Long text comes in windows: a `truncated` file or log goes on with `offset=next_offset`; a \
patch cut short (`patch_next_offset`) goes on with `path` and `patch_offset`.
- Read code: get_repository_tree (paths), then get_file_contents; search_code for a symbol.
- Change code: create_branch, write_files (one commit, several files), then create_pull_request.
- Review: get_pull_request (metadata, files, patches), then review_pull_request (verdict, line comments).
- CI: list_workflow_runs, list_workflow_jobs(run_id), get_job_logs(job_id) returns a log's tail.
- Search queries use GitHub's syntax: `repo:owner/name is:issue is:open label:bug`, `org:acme language:go`.
Results are compact: ids, numbers, titles, states, urls, dates and the text itself."""


class GitHubSettings(ServiceSettings):
    """`[modules.settings.github]` in mcpist.toml; an account's `base_url` field overrides `base_url`."""

    base_url: str = Field(default="https://api.github.com", description="GitHub's REST API root")


module = Module(
    "github",
    summary="GitHub repos, files, commits, issues, PRs, Actions",
    description=(
        "Read and change GitHub with your own accounts (github.com or Enterprise Server): browse and search "
        "code, write files in one commit, work issues and pull requests (review and merge), follow Actions "
        "runs and their logs, releases and notifications."
    ),
    settings=GitHubSettings,
    # OAuth sign-in (`mcpist account connect github`), or a personal access token, classic or fine-grained
    # (`mcpist account add github --name work --token-stdin`), sent as Bearer either way
    auth=OAuth2Auth(
        authorize_url="https://github.com/login/oauth/authorize",
        token_url="https://github.com/login/oauth/access_token",  # noqa: S106 - a URL, not a password
        scopes=("repo", "read:org", "workflow", "notifications"),
    ),
    account_fields=[
        AccountField(
            "base_url",
            "GitHub Enterprise Server's API root, e.g. https://ghe.example.com/api/v3",
            pattern=URL_PATTERN,
        )
    ],
    headers={"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"},
    docs=DOCS,
)

Ctx = ToolContext[GitHubSettings]


@module.base_url
def _api_root(settings: GitHubSettings, account: Account) -> str:
    # the server applies the same rule on its own; registering it makes every context (tests too) agree
    return (account.fields.get("base_url") or settings.base_url).rstrip("/")
