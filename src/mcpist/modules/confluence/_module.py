"""The `confluence` module object: settings, auth, the account's API root and the guide the LLM reads."""

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
Pages are named by numeric `page_id`; spaces by key (ENG) or id. Bodies are Markdown by default \
(`format="storage"` for Confluence's XHTML). What Markdown cannot show (panels, mentions, status, layouts, \
tasks) comes as `<!-- confluence:<xml> -->` markers: keep them as they are when you edit, and they are written back.
- Find: search(text or cql), list_spaces, list_pages_in_space, get_page_tree (parents, children).
- Read: get_page (long bodies in windows: `offset=next_offset`), get_comments, list_attachments, get_page_history.
- Write: create_page; update_page needs the `version` you read (a stale one is CONFLICT: read again, merge); \
update_page_section replaces the text under one heading; move_page, manage_labels, add_comment, \
upload_attachment; delete_page moves a page to the trash.
Lists take `limit` and return `next_cursor`: pass it back as `cursor`. An OAuth account that covers several \
sites needs `site` (its name, URL or cloud id)."""


class ConfluenceSettings(ServiceSettings):
    """`[modules.settings.confluence]` in mcpist.toml."""

    base_url: str = Field(default="https://api.atlassian.com", description="Atlassian's OAuth API gateway")
    site_override: str | None = Field(
        default=None,
        pattern=r"^https?://[^\s?#]+$",
        description="when set, every account's calls go here: Data Center behind one URL, proxies, tests",
    )


module = Module(
    "confluence",
    summary="Confluence pages as Markdown, comments, labels, attachments",
    description=(
        "Work in Confluence Cloud with your own account: search with text or CQL, browse spaces and page trees, "
        "read and write pages as Markdown (macros kept), edit one section, move and delete pages, comment, "
        "label, attach files and read a page's history."
    ),
    settings=ConfluenceSettings,
    # an API token with the account's email (HTTP Basic), a Data Center personal access token (Bearer), or an
    # OAuth grant whose sites the post-consent hook stores in `sites`
    auth=OAuth2Auth(
        authorize_url="https://auth.atlassian.com/authorize",
        token_url="https://auth.atlassian.com/oauth/token",  # noqa: S106 - a URL, not a password
        scopes=(
            "read:confluence-content.all",
            "write:confluence-content",
            "read:confluence-space.summary",
            "search:confluence",
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

Ctx = ToolContext[ConfluenceSettings]


@module.base_url
def _api_root(settings: ConfluenceSettings, account: Account) -> str:
    # OAuth accounts (no `site`) go through the gateway, under /ex/confluence/{cloudId} (see `api`)
    root = settings.site_override or account.fields.get("site") or settings.base_url
    return root.rstrip("/")


@module.on_connect
async def _sites(http: ServiceClient, account: Account) -> dict[str, str]:
    """After consent: the sites (cloud ids) the grant covers, kept with the account as `sites`."""
    # under the client's root: the gateway (`base_url`), or `site_override` (a proxy, tests) when that is set
    return await granted_sites(http, "/oauth/token/accessible-resources", "Confluence")
