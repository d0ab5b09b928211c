"""Contract tests: issues and their comments."""

from __future__ import annotations

import pytest
from github_harness import Harness

from mcpist.modules import InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("search_issues")
async def test_search_issues_names_the_repository_and_the_kind(gh: Harness) -> None:
    found = await gh.call("search_issues", query="is:open crash repo:octo/hello", sort="updated")
    assert [(i.number, i.repo, i.is_pull_request) for i in found.items] == [
        (3, "octo/hello", False),
        (5, "octo/hello", True),
    ]
    assert found.total_count == 2
    assert gh.sent()[0].params == {
        "q": "is:open crash repo:octo/hello",
        "sort": "updated",
        "order": "desc",
        "per_page": "30",
    }


@covers("list_issues")
async def test_list_issues_leaves_pull_requests_out_and_pages(gh: Harness) -> None:
    first = await gh.call("list_issues", owner="octo", repo="hello", labels=["bug", "ui"], assignee="*", limit=25)
    rest = await gh.call(
        "list_issues", owner="octo", repo="hello", labels=["bug", "ui"], assignee="*", cursor=first.next_cursor
    )
    numbers = [i.number for i in first.items + rest.items]
    assert numbers == [n for n in range(40, 0, -1) if n % 5] and rest.next_cursor is None
    assert gh.sent()[0].params == {
        "state": "open",
        "labels": "bug,ui",
        "assignee": "*",
        "sort": "updated",
        "direction": "desc",
        "per_page": "30",
    }
    one = first.items[0]
    assert (one.title, one.author, one.labels, one.assignees, one.comment_count) == (
        "Issue 39",
        "octocat",
        ["bug"],
        ["hubot"],
        0,
    )


@covers("get_issue")
async def test_get_issue_with_its_comments_page_by_page(gh: Harness) -> None:
    found = await gh.call("get_issue", owner="octo", repo="hello", issue_number=12, limit=20)
    assert (found.number, found.title, found.milestone, found.comment_count) == (12, "Crash on start", "v1.0", 35)
    assert [c.body for c in found.thread] == [f"Comment {i}" for i in range(20)] and found.thread[0].author == "hubot"
    more = await gh.call("get_issue", owner="octo", repo="hello", issue_number=12, cursor=found.next_cursor)
    assert [c.id for c in more.thread] == [5000 + i for i in range(20, 35)] and more.next_cursor is None


async def test_a_missing_issue(gh: Harness) -> None:
    with pytest.raises(NotFound, match="issue #99 in octo/hello not found, or the account cannot see it"):
        await gh.call("get_issue", owner="octo", repo="hello", issue_number=99)


@covers("create_issue")
async def test_create_issue_sends_only_what_was_given(gh: Harness) -> None:
    made = await gh.call("create_issue", owner="octo", repo="hello", title="It breaks", body="Steps...", labels=["bug"])
    assert (made.number, made.title, made.labels, made.html_url) == (
        41,
        "It breaks",
        ["bug"],
        "https://github.com/octo/hello/issues/41",
    )
    assert gh.sent()[0].json == {"title": "It breaks", "body": "Steps...", "labels": ["bug"]}


@covers("update_issue")
async def test_update_issue_closes_relabels_and_removes_the_milestone(gh: Harness) -> None:
    changed = await gh.call(
        "update_issue",
        owner="octo",
        repo="hello",
        issue_number=3,
        state="closed",
        state_reason="not_planned",
        labels=[],
        milestone=0,
    )
    assert (changed.state, changed.state_reason, changed.labels) == ("closed", "not_planned", [])
    assert gh.sent()[0].json == {"state": "closed", "state_reason": "not_planned", "labels": [], "milestone": None}


async def test_update_issue_with_nothing_to_change_sends_nothing(gh: Harness) -> None:
    with pytest.raises(InvalidArgument, match="nothing to change"):
        await gh.call("update_issue", owner="octo", repo="hello", issue_number=3)
    assert gh.sent() == []


@covers("add_issue_comment")
async def test_add_issue_comment(gh: Harness) -> None:
    made = await gh.call("add_issue_comment", owner="octo", repo="hello", issue_number=12, body="Fixed in #7.")
    assert (made.id, made.body, made.author) == (5099, "Fixed in #7.", "hubot")
    assert gh.sent()[0].json == {"body": "Fixed in #7."}
