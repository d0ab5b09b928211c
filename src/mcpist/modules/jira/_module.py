"""The `jira` module object: settings, auth, each account's API root and the guide the LLM reads."""

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
    granted_sites,
)
from mcpist.upstream import ServiceClient

DOCS = """\
Issues are named by key (`PROJ-123`). Lists take `limit` and return `next_cursor`: pass it back as `cursor`.
- Find: search_issues(jql), e.g. `project = PROJ AND status != Done ORDER BY updated DESC`, \
`assignee = currentUser()`; `fields` picks what comes back (custom fields by id: search_fields).
- Read: get_issue (description, comments, history); long text goes on with `offset=next_offset`.
- Create: get_create_metadata(project) names issue types and required fields, then create_issue; \
custom fields go in `fields` as Jira's JSON, e.g. {"customfield_10016": 5}.
- Work: get_transitions then transition_issue; assign_issue (search_users finds the accountId), add_comment, \
add_worklog ("1h 30m"), link_issues, and boards/sprints with list_boards_and_sprints and move_to_sprint.
Rich text is Markdown; `<!-- adf:{...} -->` markers hold what Markdown cannot say (mentions, panels, \
media): keep them as they are when editing. `raw=true` reads or writes Jira's ADF JSON instead. \
OAuth accounts covering several sites take `site` (its name, URL or cloud id)."""


class JiraSettings(ServiceSettings):
    """`[modules.settings.jira]` in mcpist.toml."""

    base_url: str = Field(
        default="https://api.atlassian.com",
        description="Atlassian's OAuth gateway; token accounts call their own `site` instead",
    )
    site_override: str | None = Field(
        default=None,
        pattern=f"^{URL_PATTERN}$",
        description="when set, every account's calls go here: Data Center behind one URL, proxies, tests",
    )


module = Module(
    "jira",
    summary="Jira issues, JQL, comments, worklogs, sprints",
    description=(
        "Work Jira Cloud or Data Center with your own accounts: JQL search, issues with Markdown descriptions "
        "and comments, transitions, assignees, worklogs, links, attachments, projects, fields, users, and Jira "
        "Software boards and sprints."
    ),
    settings=JiraSettings,
    # a Cloud API token with `email` goes out as Basic email:token; without it, a Data Center PAT as Bearer
    auth=OAuth2Auth(
        authorize_url="https://auth.atlassian.com/authorize",
        token_url="https://auth.atlassian.com/oauth/token",  # noqa: S106 - a URL, not a password
        scopes=(
            "read:jira-work",
            "write:jira-work",
            "read:jira-user",
            "read:board-scope:jira-software",
            "read:sprint:jira-software",
            "write:sprint:jira-software",
            "offline_access",
        ),
        authorize_params={"audience": "api.atlassian.com", "prompt": "consent"},
        basic_user_field="email",
    ),
    account_fields=[
        AccountField(
            "site",
            "the site's root URL, e.g. https://acme.atlassian.net (Data Center: the server's URL)",
            pattern=URL_PATTERN,
        ),
        AccountField(
            "email",
            "the Atlassian account's email, for an API token (HTTP Basic); leave out for a Data Center personal "
            "access token",
        ),
        AccountField("sites", "set by MCPist after OAuth consent", max_length=8000),
    ],
    docs=DOCS,
)

Ctx = ToolContext[JiraSettings]


@module.base_url
def _api_root(settings: JiraSettings, account: Account) -> str:
    # OAuth accounts have no `site`: they go through the gateway, under /ex/jira/{cloudId} (see _common.api)
    return (settings.site_override or account.fields.get("site") or settings.base_url).rstrip("/")


@module.on_connect
async def _accessible_sites(http: ServiceClient, account: Account) -> dict[str, str]:
    """After OAuth consent: the Jira sites the grant covers, for `site` to choose from."""
    # the gateway's own URL, whatever the client's root: under `site_override` or another `base_url` the client
    # refuses it (another origin) rather than asking that server
    return await granted_sites(http, "https://api.atlassian.com/oauth/token/accessible-resources", "Jira")
