"""Contract tests: transitions, comments, assignee, worklogs, links, attachments, boards and sprints."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import httpx
import pytest
from jira_harness import WORK, Harness

from mcpist.modules import InvalidArgument, NotFound
from mcpist.modules.jira import module
from mcpist.testing import FakeCredentials, covers, tool_context

pytestmark = pytest.mark.anyio


@covers("get_transitions", "transition_issue")
async def test_transitions_by_name_or_status(jira: Harness) -> None:
    found = await jira.call("get_transitions", key="PROJ-7")
    assert [(t.id, t.to, t.fields_required) for t in found.transitions] == [
        ("11", "In Progress", []),
        ("31", "Done", ["resolution"]),
    ]
    done = await jira.call(
        "transition_issue", key="PROJ-7", transition="done", comment="fixed", fields={"resolution": {"name": "Done"}}
    )
    assert done.done == "Finish → Done"
    body = jira.sent("POST /rest/api/3/issue/{issueIdOrKey}/transitions")[0].json
    assert body["transition"] == {"id": "31"} and body["update"]["comment"][0]["add"]["body"]["type"] == "doc"
    with pytest.raises(InvalidArgument, match=r"cannot take 'Reopen' now; it can take Start \(→ In Progress\)"):
        await jira.call("transition_issue", key="PROJ-7", transition="Reopen")


@covers("add_comment", "edit_comment")
async def test_comments_in_markdown_and_raw(jira: Harness) -> None:
    made = await jira.call("add_comment", key="PROJ-7", body="Thanks **a lot** 🎉")
    assert made.body == "Thanks **a lot** 🎉" and made.id == "200"
    raw = '{"type":"doc","version":1,"content":[{"type":"rule"}]}'
    edited = await jira.call("edit_comment", key="PROJ-7", comment_id="200", body=raw, raw=True)
    assert edited.body == raw
    assert jira.sent("PUT /rest/api/3/issue/{issueIdOrKey}/comment/{id}")[0].json["body"]["content"] == [
        {"type": "rule"}
    ]
    with pytest.raises(InvalidArgument, match="raw=true takes ADF JSON"):
        await jira.call("add_comment", key="PROJ-7", body="not json", raw=True)


@covers("assign_issue")
async def test_assign_and_unassign(jira: Harness) -> None:
    assert (await jira.call("assign_issue", key="PROJ-7", account_id="5b10ac8d")).done == "assigned to 5b10ac8d"
    assert (await jira.call("assign_issue", key="PROJ-7")).done == "unassigned"
    assert [r.json for r in jira.sent("PUT /rest/api/3/issue/{issueIdOrKey}/assignee")] == [{"accountId": "5b10ac8d"}]
    # the description's assignee body takes no null, so unassigning edits the field instead
    assert jira.sent("PUT /rest/api/3/issue/{issueIdOrKey}")[0].json == {"fields": {"assignee": None}}


@covers("list_worklogs", "add_worklog")
async def test_worklogs(jira: Harness) -> None:
    logs = await jira.call("list_worklogs", key="PROJ-7")
    assert [(w.time_spent, w.seconds) for w in logs.items] == [("1h", 3600)] and logs.next_cursor is None
    added = await jira.call("add_worklog", key="PROJ-7", time_spent="1h 30m", comment="review")
    assert added.time_spent == "1h 30m" and added.comment == "review"
    assert "started" not in jira.sent("POST /rest/api/3/issue/{issueIdOrKey}/worklog")[0].json
    with pytest.raises(InvalidArgument):
        await jira.call("add_worklog", key="PROJ-7", time_spent="an hour")


@covers("link_issues", "list_attachments")
async def test_links_and_attachments(jira: Harness) -> None:
    linked = await jira.call("link_issues", key="PROJ-1", other="PROJ-2", link_type="Blocks")
    assert linked.done == "PROJ-1 Blocks PROJ-2"
    body = jira.sent("POST /rest/api/3/issueLink")[0].json
    assert body == {"type": {"name": "Blocks"}, "outwardIssue": {"key": "PROJ-2"}, "inwardIssue": {"key": "PROJ-1"}}
    found = await jira.call("list_attachments", key="PROJ-7")
    assert [(a.filename, a.size, a.author) for a in found.attachments] == [("log.txt", 12, "Alice")]
    assert jira.sent("GET /rest/api/3/issue/{issueIdOrKey}")[0].params == {"fields": "attachment"}


@covers("list_boards_and_sprints", "move_to_sprint")
async def test_boards_sprints_and_moving_issues(jira: Harness) -> None:
    boards = await jira.call("list_boards_and_sprints", project="PROJ")
    assert [(b.id, b.type, b.project) for b in boards.boards] == [(1, "scrum", "PROJ")]
    sprints = await jira.call("list_boards_and_sprints", board_id=1)
    assert [(s.id, s.state, s.goal) for s in sprints.sprints] == [(5, "active", "ship")]
    moved = await jira.call("move_to_sprint", sprint_id=5, keys=["PROJ-1", "PROJ-2"])
    assert moved.done == "moved PROJ-1, PROJ-2 to sprint 5"
    board, sprint, move = jira.world.agile
    assert board.url.params["projectKeyOrId"] == "PROJ" and sprint.url.params["state"] == "active,future"
    assert move.method == "POST" and move.content == b'{"issues":["PROJ-1","PROJ-2"]}'
    with pytest.raises(NotFound, match="sprint 9"):
        await jira.call("move_to_sprint", sprint_id=9, keys=["PROJ-1"])


async def test_a_worklogs_start_goes_in_jiras_own_format() -> None:
    # Jira parses `started` only as yyyy-MM-dd'T'HH:mm:ss.SSSZ (+0000), which the reduced description's
    # `date-time` format refuses, so this request is checked here rather than by the fake
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(201, json={"id": "1", "timeSpent": "2h", "started": "2026-03-02T09:30:00.000+0000"})

    ctx = tool_context(module, transport=httpx.MockTransport(answer), credentials=FakeCredentials("t"), account=WORK)
    started = datetime(2026, 3, 2, 9, 30, tzinfo=UTC)
    await module.tools["add_worklog"].fn(ctx, key="PROJ-7", time_spent="2h", started=started)
    await ctx.aclose()
    assert json.loads(sent[0].content)["started"] == "2026-03-02T09:30:00.000+0000"
