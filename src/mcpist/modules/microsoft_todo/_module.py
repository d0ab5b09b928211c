"""The `microsoft_todo` module object: settings, OAuth through the Microsoft identity platform, the LLM's guide."""

from __future__ import annotations

from pydantic import Field, field_validator

from mcpist.modules import Module, OAuth2Auth, ServiceSettings, ToolContext

from ._time import lookup

DOCS = """\
Tasks live in lists: list_task_lists gives list ids, every task tool takes `list_id` and `task_id`. Lists take \
`limit` and return `next_cursor`: pass it back as `cursor`.
- Read: list_tasks (status open/completed/any, due_from/due_to days, importance, order_by), get_task (body, \
checklist, linked resources), search_tasks (words in titles and bodies, across lists; Graph has no full-text \
search for To Do, so it scans at most `max_scanned` tasks a call and says how far it got).
- Write: create_task (due_date, reminder, importance, recurrence, categories), update_task (`clear` removes a \
due date, reminder, recurrence, body or categories), complete_task (reopen=true undoes), delete_task, \
manage_checklist_items and manage_linked_resources (several edits in one call).
- Sync: get_task_changes returns every task and a sync_token; later calls with it return only what changed, \
with removed ids. has_more=true: call again at once with the new token.
Time: pass the user's own `time_zone` (IANA or Windows name; default the setting). Due dates are days \
(YYYY-MM-DD) and come back as set, for any zone within 12 hours of the one they were set in. Reminders are \
instants: a time without an offset is read in `time_zone`; results give them with their offset."""


class MicrosoftTodoSettings(ServiceSettings):
    """`[modules.settings.microsoft_todo]` in mcpist.toml."""

    base_url: str = Field(default="https://graph.microsoft.com/v1.0", description="Microsoft Graph's API root")
    tenant: str = Field(
        default="common",
        pattern=r"^[A-Za-z0-9][A-Za-z0-9.-]{0,99}$",
        description=(
            "the sign-in authority: common (personal and work accounts), consumers, organizations, or a tenant "
            "id or domain for an app registered in one directory only"
        ),
    )
    time_zone: str = Field(
        default="UTC",
        max_length=64,
        description="IANA or Windows zone for due dates and reminders when a tool is given none",
    )

    @field_validator("time_zone", mode="after")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        if lookup(value) is None:
            raise ValueError("not an IANA or Windows time zone, e.g. Europe/Berlin or W. Europe Standard Time")
        return value


module = Module(
    "microsoft_todo",
    summary="Microsoft To Do lists, tasks, due dates, reminders",
    description=(
        "Work Microsoft To Do through Microsoft Graph with personal or work accounts: task lists, tasks with "
        "due dates that stay on their day in every time zone, reminders across DST changes, recurrence, "
        "importance and categories, checklist steps, linked resources, text search across lists, and delta "
        "sync with a token."
    ),
    settings=MicrosoftTodoSettings,
    auth=OAuth2Auth(
        authorize_url="https://login.microsoftonline.com/{tenant}/oauth2/v2.0/authorize",
        token_url="https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token",  # noqa: S106 - a URL
        scopes=("offline_access", "Tasks.ReadWrite"),
        read_only_scopes=("offline_access", "Tasks.Read"),
        pkce=True,
        refresh_scopes=True,  # the v2.0 token endpoint asks for the scopes again on a refresh
        # someone with both a personal and a work account picks one, instead of the browser's last session
        authorize_params={"prompt": "select_account"},
        reauth_hint=(
            "Microsoft refresh tokens lapse after 90 days unused, and when the password changes or an "
            "administrator revokes sessions."
        ),
    ),
    docs=DOCS,
)

Ctx = ToolContext[MicrosoftTodoSettings]
