"""Contract tests: search, read, create, update and delete issues, create metadata and the site's catalogue."""

from __future__ import annotations

import json

import pytest
from jira_harness import Harness
from jira_world import SITE

from mcpist.modules import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("search_issues")
async def test_search_pages_with_next_page_token_and_loses_nothing(jira: Harness) -> None:
    seen: list[str] = []
    cursor = None
    for _ in range(5):
        page = await jira.call("search_issues", jql="project = PROJ", limit=30, cursor=cursor, fields=["labels"])
        seen += [i.key for i in page.items]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [f"PROJ-{n}" for n in range(1, 76)]
    first = jira.sent("POST /rest/api/3/search/jql")[0].json
    assert first["jql"] == "project = PROJ" and "labels" in first["fields"] and "nextPageToken" not in first
    assert any("nextPageToken" in r.json for r in jira.sent("POST /rest/api/3/search/jql"))
    item = page.items[0]
    assert (item.status, item.assignee, item.url) == ("To Do", "Alice", f"{SITE}/browse/{item.key}")


async def test_bad_jql_is_invalid_argument_with_jiras_message(jira: Harness) -> None:
    with pytest.raises(InvalidArgument, match="is not a field"):
        await jira.call("search_issues", jql="bad")


@covers("get_issue")
async def test_get_issue_gives_markdown_comments_and_history(jira: Harness) -> None:
    found = await jira.call("get_issue", key="PROJ-7", comments=10, history=True, fields=["customfield_10016"])
    assert found.description.startswith("## 手順\n\nAsk <!-- adf:")
    assert "**the crash**" in found.description and '"panelType":"info"' in found.description
    assert found.fields == {"customfield_10016": 5} and found.labels == ["ui"] and found.reporter == "Bob"
    assert [c.body for c in found.comments][:2] == ["Comment 0", "Comment 1"] and found.comments_total == 25
    assert found.history[0].new == "In Progress" and found.next_cursor
    more = await jira.call("get_issue", key="PROJ-7", comments=20, cursor=found.next_cursor)
    assert [c.id for c in more.comments] == [str(100 + i) for i in range(10, 25)] and more.next_cursor is None
    window = await jira.call("get_issue", key="PROJ-7", comments=0, max_chars=200, offset=5, raw=True)
    assert json.loads(json.dumps(window.description_chars)) > 200 and window.comments == []


async def test_a_missing_issue_is_not_found(jira: Harness) -> None:
    with pytest.raises(NotFound, match="PROJ-404 not found"):
        await jira.call("get_issue", key="PROJ-404")


@covers("create_issue", "get_create_metadata")
async def test_create_checks_the_metadata_first(jira: Harness) -> None:
    meta = await jira.call("get_create_metadata", project="PROJ")
    assert [t.name for t in meta.issue_types] == ["Task", "Bug"] and meta.issue_types[0].fields is None
    bug = await jira.call("get_create_metadata", project="PROJ", issue_type="bug")
    summary, severity = [f for f in bug.issue_types[0].fields if f.required]  # the reporter has a default
    assert summary.id == "summary"
    assert severity.id == "customfield_10100" and severity.allowed == ["S1", "S2"]
    with pytest.raises(InvalidArgument, match="no issue type 'Story'; it has Task, Bug"):
        await jira.call("create_issue", project="PROJ", issue_type="Story", summary="x")
    with pytest.raises(InvalidArgument, match=r"requires Severity \(customfield_10100\)"):
        await jira.call("create_issue", project="PROJ", issue_type="Bug", summary="x")
    assert jira.sent("POST /rest/api/3/issue") == []
    made = await jira.call(
        "create_issue",
        project="PROJ",
        issue_type="Bug",
        summary="Crash",
        description="Steps:\n\n1. open\n2. crash",
        labels=["ui"],
        fields={"customfield_10100": {"value": "S1"}},
    )
    assert (made.key, made.url) == ("PROJ-100", f"{SITE}/browse/PROJ-100")
    sent = jira.sent("POST /rest/api/3/issue")[0].json["fields"]
    assert sent["issuetype"] == {"id": "10002"} and sent["project"] == {"key": "PROJ"}
    assert sent["description"]["content"][1]["type"] == "orderedList"


@covers("update_issue", "delete_issue")
async def test_update_and_delete(jira: Harness) -> None:
    done = await jira.call("update_issue", key="PROJ-7", summary="New", description="*now*", notify=False)
    assert done.done == "updated description, summary"
    (sent,) = jira.sent("PUT /rest/api/3/issue/{issueIdOrKey}")
    assert sent.params == {"notifyUsers": "false"}
    assert sent.json["fields"]["description"]["content"][0]["content"][0]["marks"] == [{"type": "em"}]
    with pytest.raises(InvalidArgument, match="nothing to change"):
        await jira.call("update_issue", key="PROJ-7")
    gone = await jira.call("delete_issue", key="PROJ-7", subtasks=True)
    assert gone.done == "deleted"
    assert jira.sent("DELETE /rest/api/3/issue/{issueIdOrKey}")[0].params == {"deleteSubtasks": "true"}


@covers("get_myself", "list_projects", "search_fields", "search_users")
async def test_the_sites_catalogue(jira: Harness) -> None:
    me = await jira.call("get_myself")
    assert (me.account_id, me.time_zone) == ("me-1", "Asia/Tokyo")
    projects = await jira.call("list_projects", query="pro")
    assert [(p.key, p.lead, p.url) for p in projects.items] == [("PROJ", "Alice", f"{SITE}/browse/PROJ")]
    fields = await jira.call("search_fields", query="story")
    assert [(f.id, f.custom) for f in fields.items] == [("customfield_10016", True)]
    users = await jira.call("search_users", query="ali", limit=5)
    assert [u.account_id for u in users.items] == ["5b10ac8d", "a2"]
    assert jira.sent("GET /rest/api/3/user/search")[0].params == {"query": "ali", "maxResults": "5"}


async def test_an_issue_answered_without_its_key_is_a_clear_upstream_error(jira: Harness) -> None:
    from mcpist.modules import Unavailable

    del jira.world.issues[0]["key"]  # the description does not require it; Jira always sends it
    with pytest.raises(Unavailable) as caught:
        await jira.call("search_issues", jql="project = ENG", limit=5)
    assert caught.value.message == "jira answered an issue without its key"  # was a KeyError: INTERNAL
