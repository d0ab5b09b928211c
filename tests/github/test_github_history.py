"""Contract tests: commits, one commit's files and patches, comparisons."""

from __future__ import annotations

import pytest
from github_fake import COMMIT_SHA, MAIN_SHA, sha_of
from github_harness import Harness

from mcpist.modules import NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("list_commits")
async def test_list_commits_is_compact_and_paged(gh: Harness) -> None:
    first = await gh.call(
        "list_commits", owner="octo", repo="hello", ref="main", path="src/app.py", since="2026-01-01T00:00:00", limit=50
    )
    head = first.items[0]
    assert (head.sha, head.title, head.author) == (sha_of("c0"), "Change 0", "octocat")
    assert head.model_dump(exclude_none=True).keys() == {"sha", "title", "author", "date", "html_url"}
    rest = await gh.call("list_commits", owner="octo", repo="hello", limit=50, cursor=first.next_cursor)
    assert [c.sha for c in first.items + rest.items] == [sha_of(f"c{i}") for i in range(75)]
    assert gh.sent()[0].params == {
        "sha": "main",
        "path": "src/app.py",
        "since": "2026-01-01T00:00:00Z",  # a time without a zone is UTC
        "per_page": "50",
    }


@covers("get_commit")
async def test_get_commit_has_the_message_stats_and_clipped_patches(gh: Harness) -> None:
    found = await gh.call("get_commit", owner="octo", repo="hello", ref=COMMIT_SHA, limit=2, max_patch_chars=500)
    assert found.message == "Add the parser\n\nIt reads the config." and found.parents == [MAIN_SHA]
    assert (found.additions, found.deletions, found.author) == (4003, 41, "octocat")
    small, big = found.files
    assert (small.path, small.patch, small.patch_next_offset) == ("src/app.py", "@@ -1 +1 @@\n-old\n+new\n", None)
    assert big.path == "BIG.md" and len(big.patch) <= 500 and big.patch_chars == len("@@ -0,0 +1,400 @@\n") + 12_000
    assert big.patch_next_offset == len(big.patch) and found.next_cursor is not None
    rest = await gh.call("get_commit", owner="octo", repo="hello", ref=COMMIT_SHA, limit=100, cursor=found.next_cursor)
    assert [f.path for f in rest.files] == [f"docs/page-{i:03d}.md" for i in range(40)] and rest.next_cursor is None


async def test_get_commit_reads_the_rest_of_one_patch(gh: Harness) -> None:
    found = await gh.call("get_commit", owner="octo", repo="hello", ref=COMMIT_SHA, path="BIG.md", patch_offset=12_000)
    (diff,) = found.files
    assert diff.patch == "+x\n" * 6 and diff.patch_next_offset is None  # 18 characters of header before
    assert gh.sent()[0].params == {"per_page": "100"}


async def test_get_commit_of_a_file_it_does_not_change(gh: Harness) -> None:
    with pytest.raises(NotFound, match=r"nope\.py is not among the changed files"):
        await gh.call("get_commit", owner="octo", repo="hello", ref=COMMIT_SHA, path="nope.py")


@covers("compare_commits")
async def test_compare_commits_counts_lists_newest_commits_and_pages_files(gh: Harness) -> None:
    found = await gh.call("compare_commits", owner="octo", repo="hello", base="main", head="feature/x", limit=30)
    assert (found.status, found.ahead_by, found.behind_by, found.total_commits) == ("ahead", 60, 0, 60)
    assert [c.title for c in found.commits] == [f"Feature step {i}" for i in range(10, 60)]
    assert len(found.files) == 30 and found.files[0].patch_next_offset is not None
    (request,) = gh.sent()
    assert request.path == "/repos/octo/hello/compare/main...feature/x"
    rest = await gh.call(
        "compare_commits", owner="octo", repo="hello", base="main", head="feature/x", cursor=found.next_cursor
    )
    assert [f.path for f in rest.files] == [f"src/mod_{i}.py" for i in range(30, 35)] and rest.next_cursor is None


async def test_compare_commits_one_file_without_patches_elsewhere(gh: Harness) -> None:
    one = await gh.call(
        "compare_commits", owner="octo", repo="hello", base="main", head="feature/x", path="src/mod_0.py"
    )
    assert len(one.files) == 1 and one.files[0].patch_chars == len("@@ -1,3 +1,3 @@\n" + "+y\n" * 1500)
    bare = await gh.call(
        "compare_commits", owner="octo", repo="hello", base="main", head="feature/x", max_patch_chars=0
    )
    assert all(f.patch is None and f.patch_chars for f in bare.files)


async def test_compare_with_an_unknown_ref(gh: Harness) -> None:
    with pytest.raises(NotFound, match="main or gone in octo/hello not found"):
        await gh.call("compare_commits", owner="octo", repo="hello", base="main", head="gone")
