"""Contract tests: pull requests, from listing to review and merge."""

from __future__ import annotations

import pytest
from github_fake import FEATURE_SHA, sha_of
from github_harness import Harness

from mcpist.modules import Conflict, InvalidArgument
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_pull_requests")
async def test_list_pull_requests(gh: Harness) -> None:
    page = await gh.call("list_pull_requests", owner="octo", repo="hello", base="main", limit=5)
    first = page.items[0]
    assert (first.number, first.head, first.base, first.author, first.labels) == (
        9,
        "feature/x",
        "main",
        "octocat",
        ["enhancement"],
    )
    assert page.next_cursor is not None
    assert gh.sent()[0].params == {
        "state": "open",
        "base": "main",
        "sort": "updated",
        "direction": "desc",
        "per_page": "30",
    }


@covers("get_pull_request")
async def test_get_pull_request_with_files_and_clipped_patches(gh: Harness) -> None:
    found = await gh.call("get_pull_request", owner="octo", repo="hello", pr_number=7, limit=25, max_patch_chars=400)
    assert (found.number, found.title, found.mergeable, found.head_sha, found.reviewers) == (
        7,
        "Add the parser",
        True,
        FEATURE_SHA,
        ["reviewer"],
    )
    assert (found.changed_files, found.comment_count, found.review_comment_count) == (45, 2, 1)
    assert len(found.files) == 25 and found.next_cursor is not None
    long = found.files[20]
    assert long.path == "src/long.py" and len(long.patch) <= 400 and long.patch_next_offset is not None
    rest = await gh.call(
        "get_pull_request", owner="octo", repo="hello", pr_number=7, limit=25, cursor=found.next_cursor
    )
    assert len(found.files) + len(rest.files) == 45 and rest.next_cursor is None


async def test_get_pull_request_reads_one_patch_on(gh: Harness) -> None:
    first = await gh.call("get_pull_request", owner="octo", repo="hello", pr_number=7, path="src/long.py")
    (diff,) = first.files
    assert diff.patch_next_offset is not None
    rest = await gh.call(
        "get_pull_request",
        owner="octo",
        repo="hello",
        pr_number=7,
        path="src/long.py",
        patch_offset=diff.patch_next_offset,
        max_patch_chars=20_000,
    )
    whole = "@@ -1,500 +1,500 @@\n" + "".join(f"+line {i}\n" for i in range(900))
    assert diff.patch + rest.files[0].patch == whole  # the file sits on page 1 of 100 files
    files = gh.sent("GET /repos/{owner}/{repo}/pulls/{pull_number}/files")
    assert [r.params for r in files] == [{"per_page": "100"}, {"per_page": "100"}]


@covers("create_pull_request")
async def test_create_pull_request(gh: Harness) -> None:
    made = await gh.call(
        "create_pull_request", owner="octo", repo="hello", title="Fix typo", head="fix/typo", base="main", draft=True
    )
    assert (made.number, made.title, made.draft) == (10, "Fix typo", True)
    assert gh.sent()[0].json == {"title": "Fix typo", "head": "fix/typo", "base": "main", "draft": True}


async def test_a_second_pull_request_for_a_branch_is_a_conflict(gh: Harness) -> None:
    with pytest.raises(Conflict, match="A pull request already exists for octo:feature/x"):
        await gh.call("create_pull_request", owner="octo", repo="hello", title="Again", head="feature/x", base="main")


@covers("update_pull_request")
async def test_update_pull_request_and_request_reviewers(gh: Harness) -> None:
    changed = await gh.call(
        "update_pull_request", owner="octo", repo="hello", pr_number=7, title="Parser v2", reviewers=["mona"]
    )
    assert changed.number == 7
    patch, ask = gh.sent()
    assert (patch.operation, patch.json) == ("PATCH /repos/{owner}/{repo}/pulls/{pull_number}", {"title": "Parser v2"})
    assert (ask.path, ask.json) == ("/repos/octo/hello/pulls/7/requested_reviewers", {"reviewers": ["mona"]})
    with pytest.raises(InvalidArgument, match="nothing to change"):
        await gh.call("update_pull_request", owner="octo", repo="hello", pr_number=7)


@covers("merge_pull_request")
async def test_merge_pull_request_guarded_by_the_head_sha(gh: Harness) -> None:
    merged = await gh.call(
        "merge_pull_request", owner="octo", repo="hello", pr_number=7, method="squash", sha=FEATURE_SHA
    )
    assert (merged.merged, merged.sha) == (True, sha_of("merged"))
    assert gh.sent()[0].json == {"merge_method": "squash", "sha": FEATURE_SHA}
    with pytest.raises(Conflict, match="Head branch was modified"):
        await gh.call("merge_pull_request", owner="octo", repo="hello", pr_number=7, sha="0" * 40)


@covers("review_pull_request")
async def test_review_pull_request_with_line_comments(gh: Harness) -> None:
    review = await gh.call(
        "review_pull_request",
        owner="octo",
        repo="hello",
        pr_number=7,
        event="REQUEST_CHANGES",
        body="Two problems.",
        comments=[
            {"path": "src/long.py", "line": 12, "body": "Off by one."},
            {"path": "src/file_01.py", "start_line": 3, "line": 5, "side": "LEFT", "body": "Why remove this?"},
        ],
    )
    assert (review.id, review.state, review.commit_id) == (80, "CHANGES_REQUESTED", FEATURE_SHA)
    assert gh.sent()[0].json == {
        "event": "REQUEST_CHANGES",
        "body": "Two problems.",
        "comments": [
            {"path": "src/long.py", "line": 12, "side": "RIGHT", "body": "Off by one."},
            {"path": "src/file_01.py", "line": 5, "start_line": 3, "side": "LEFT", "body": "Why remove this?"},
        ],
    }


async def test_a_verdict_other_than_approval_needs_a_body(gh: Harness) -> None:
    with pytest.raises(InvalidArgument, match="REQUEST_CHANGES needs a body"):
        await gh.call("review_pull_request", owner="octo", repo="hello", pr_number=7, event="REQUEST_CHANGES")
    approved = await gh.call("review_pull_request", owner="octo", repo="hello", pr_number=7, event="APPROVE")
    assert approved.state == "APPROVED" and gh.sent()[0].json == {"event": "APPROVE"}
    with pytest.raises(InvalidArgument, match="event"):
        await gh.call("review_pull_request", owner="octo", repo="hello", pr_number=7, event="MERGE")
