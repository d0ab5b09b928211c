"""Contract tests: the account, repositories, branches and releases."""

from __future__ import annotations

import pytest
from github_fake import MAIN_SHA
from github_harness import Harness

from mcpist.modules import Conflict, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("get_me")
async def test_get_me_reports_the_user_the_token_scopes_and_the_account(gh: Harness) -> None:
    me = await gh.call("get_me")
    assert (me.login, me.name, me.email, me.private_repos) == ("octocat", "The Octocat", "octocat@github.com", 2)
    assert me.scopes == ["repo", "read:org", "workflow"] and me.account == "work"
    (request,) = gh.sent("GET /user")
    assert request.headers["Authorization"] == "Bearer ghp_test"
    assert request.headers["Accept"] == "application/vnd.github+json"
    assert request.headers["X-GitHub-Api-Version"] == "2022-11-28"


@covers("list_repositories")
async def test_list_repositories_pages_through_the_link_header(gh: Harness) -> None:
    first = await gh.call("list_repositories", limit=20)
    assert [r.full_name for r in first.items][:2] == ["octo/repo-00", "octo/repo-01"] and len(first.items) == 20
    assert first.next_cursor is not None
    second = await gh.call("list_repositories", limit=20, cursor=first.next_cursor)
    third = await gh.call("list_repositories", limit=20, cursor=second.next_cursor)
    names = [r.full_name for page in (first, second, third) for r in page.items]
    assert names == [f"octo/repo-{i:02d}" for i in range(45)] and third.next_cursor is None
    requests = gh.sent("GET /user/repos")
    assert requests[0].params == {"sort": "pushed", "direction": "desc", "per_page": "30"}
    # GitHub's pages of 30 hold the 20s: a cursor inside a page reads it again, then follows its Link header
    assert [r.params.get("page") for r in requests] == [None, None, "2", "2"]


async def test_a_repository_summary_is_compact(gh: Harness) -> None:
    page = await gh.call("list_repositories", limit=1)
    assert page.items[0].model_dump(exclude_none=True) == {
        "full_name": "octo/repo-00",
        "description": "The repo-00 repository",
        "private": False,
        "fork": False,
        "archived": False,
        "default_branch": "main",
        "language": "Python",
        "stars": 80,
        "pushed_at": page.items[0].pushed_at,
        "html_url": "https://github.com/octo/repo-00",
    }


async def test_list_repositories_of_an_org_then_of_a_user(gh: Harness) -> None:
    org = await gh.call("list_repositories", owner="acme")
    assert [(r.full_name, r.private) for r in org.items] == [("acme/api", True)]
    someone = await gh.call("list_repositories", owner="mona")
    assert [r.full_name for r in someone.items] == ["mona/dotfiles"]
    assert [r.operation for r in gh.sent()] == [
        "GET /orgs/{org}/repos",
        "GET /orgs/{org}/repos",  # mona is no org: GitHub answers 404, the user's list follows
        "GET /users/{username}/repos",
    ]


@covers("get_repository")
async def test_get_repository_flattens_license_permissions_and_counts(gh: Harness) -> None:
    repo = await gh.call("get_repository", owner="octo", repo="hello")
    assert (repo.full_name, repo.license, repo.can_push, repo.forks, repo.open_issues) == (
        "octo/hello",
        "MIT",
        True,
        9,
        4,
    )
    assert repo.topics == ["mcp", "github"] and repo.visibility == "public"


async def test_an_unknown_repository_says_it_may_be_hidden(gh: Harness) -> None:
    with pytest.raises(NotFound, match="repository octo/nope not found, or the account cannot see it") as caught:
        await gh.call("get_repository", owner="octo", repo="nope")
    assert caught.value.data["status"] == 404


@covers("search_repositories")
async def test_search_repositories_reports_the_total(gh: Harness) -> None:
    found = await gh.call("search_repositories", query="topic:mcp language:python", sort="stars", limit=2)
    assert [r.full_name for r in found.items] == ["octo/repo-00", "octo/repo-01"] and found.total_count == 3
    assert found.next_cursor is not None  # the third is on the same upstream page
    (request,) = gh.sent("GET /search/repositories")
    assert request.params == {"q": "topic:mcp language:python", "sort": "stars", "per_page": "30"}


@covers("list_branches")
async def test_list_branches(gh: Harness) -> None:
    page = await gh.call("list_branches", owner="octo", repo="hello")
    assert [(b.name, b.sha, b.protected) for b in page.items] == [
        ("main", MAIN_SHA, True),
        ("feature/x", gh.world.heads["feature/x"], False),
    ]


@covers("create_branch")
async def test_create_branch_resolves_the_start_and_creates_the_ref(gh: Harness) -> None:
    made = await gh.call("create_branch", owner="octo", repo="hello", branch="fix/typo", from_ref="v1.0")
    assert (made.branch, made.sha, made.from_ref) == ("fix/typo", MAIN_SHA, "v1.0")
    resolve, create = gh.sent()
    assert (resolve.operation, resolve.path, resolve.params) == (
        "GET /repos/{owner}/{repo}/commits/{ref}",
        "/repos/octo/hello/commits/v1.0",
        {"per_page": "1"},
    )
    assert create.json == {"ref": "refs/heads/fix/typo", "sha": MAIN_SHA}


async def test_create_branch_from_the_default_branch_and_a_duplicate_is_a_conflict(gh: Harness) -> None:
    made = await gh.call("create_branch", owner="octo", repo="hello", branch="next")
    assert made.from_ref == "HEAD" and gh.sent()[0].path == "/repos/octo/hello/commits/HEAD"
    with pytest.raises(Conflict, match="Reference already exists"):
        await gh.call("create_branch", owner="octo", repo="hello", branch="main")


async def test_a_branch_name_with_a_slash_is_sent_as_one_path_segment(gh: Harness) -> None:
    await gh.call("create_branch", owner="octo", repo="hello", branch="copy", from_ref="feature/x")
    # sent as feature%2Fx, as GitHub's own clients do: it matched the one-segment {ref}
    (request,) = gh.sent("GET /repos/{owner}/{repo}/commits/{ref}")
    assert request.path == "/repos/octo/hello/commits/feature/x"


@covers("list_releases")
async def test_list_releases_cuts_long_notes(gh: Harness) -> None:
    page = await gh.call("list_releases", owner="octo", repo="hello", limit=2)
    assert [r.tag for r in page.items] == ["v3.0", "v2.0"] and page.next_cursor is not None
    assert page.items[0].body is not None and page.items[0].body.endswith("[cut: 2000 of 5000 characters shown]")
    assert page.items[0].author == "octocat"


@covers("create_release")
async def test_create_release_sends_the_notes_and_flags(gh: Harness) -> None:
    made = await gh.call(
        "create_release", owner="octo", repo="hello", tag="v4.0", name="Four", body="Notes", prerelease=True
    )
    assert (made.tag, made.name, made.prerelease, made.html_url) == (
        "v4.0",
        "Four",
        True,
        "https://github.com/octo/hello/releases/tag/v4.0",
    )
    assert gh.sent("POST /repos/{owner}/{repo}/releases")[0].json == {
        "tag_name": "v4.0",
        "name": "Four",
        "body": "Notes",
        "draft": False,
        "prerelease": True,
        "generate_release_notes": False,
    }


async def test_a_release_for_an_existing_tag_is_a_conflict(gh: Harness) -> None:
    with pytest.raises(Conflict, match="Release tag_name already_exists"):
        await gh.call("create_release", owner="octo", repo="hello", tag="v1.0")
