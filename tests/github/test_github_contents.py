"""Contract tests: reading files and trees, code search, writing several files in one commit, deleting."""

from __future__ import annotations

import base64

import pytest
from github_fake import MAIN_SHA, MAIN_TREE, sha_of
from github_harness import Harness
from github_world import BIG_TEXT, HUGE_CSV, SCRIPT

from mcpist.modules import Conflict, InvalidArgument, NotFound
from mcpist.testing import covers

pytestmark = pytest.mark.anyio


@covers("get_file_contents")
async def test_a_file_is_decoded_text(gh: Harness) -> None:
    found = await gh.call("get_file_contents", owner="octo", repo="hello", path="src/app.py", ref="main")
    assert found.type == "file" and found.content.text == "print('hello')\n" and not found.content.truncated
    assert found.html_url == "https://github.com/octo/hello/blob/main/src/app.py" and found.entries is None
    (request,) = gh.sent()
    assert (request.path, request.params) == ("/repos/octo/hello/contents/src/app.py", {"ref": "main"})


async def test_a_large_file_is_read_in_windows(gh: Harness) -> None:
    first = await gh.call("get_file_contents", owner="octo", repo="hello", path="big.txt", max_chars=50_000)
    assert first.content.truncated and first.content.total_chars == len(BIG_TEXT)
    assert first.content.text.endswith("\n") and len(first.content.text) <= 50_000  # cut on a line break
    rest = await gh.call(
        "get_file_contents",
        owner="octo",
        repo="hello",
        path="big.txt",
        offset=first.content.next_offset,
        max_chars=50_000,
    )
    assert first.content.text + rest.content.text == BIG_TEXT and rest.content.next_offset is None


async def test_a_file_over_a_megabyte_is_read_from_the_blob_api(gh: Harness) -> None:
    found = await gh.call("get_file_contents", owner="octo", repo="hello", path="data/huge.csv", max_chars=200)
    assert found.content.total_chars == len(HUGE_CSV) and found.content.text.startswith("id,value\n0,0\n")
    assert [r.operation for r in gh.sent()] == [
        "GET /repos/{owner}/{repo}/contents/{path}",
        "GET /repos/{owner}/{repo}/git/blobs/{file_sha}",
    ]


async def test_a_binary_file_has_no_text(gh: Harness) -> None:
    found = await gh.call("get_file_contents", owner="octo", repo="hello", path="logo.png")
    assert found.binary is True and found.content is None and found.size == 16


async def test_a_directory_lists_its_entries(gh: Harness) -> None:
    found = await gh.call("get_file_contents", owner="octo", repo="hello", path="src")
    assert found.type == "dir" and [(e.name, e.path, e.type) for e in found.entries] == [
        ("app.py", "src/app.py", "file")
    ]


async def test_the_root_directory_comes_from_the_tree(gh: Harness) -> None:
    found = await gh.call("get_file_contents", owner="octo", repo="hello")
    assert ("scripts", "dir") in [(e.path, e.type) for e in found.entries]
    assert ("README.md", "file") in [(e.path, e.type) for e in found.entries]
    (request,) = gh.sent()
    assert request.path == "/repos/octo/hello/git/trees/HEAD" and request.params == {}


async def test_a_missing_file_says_where_it_looked(gh: Harness) -> None:
    with pytest.raises(NotFound, match=r"nope\.md in octo/hello at dev not found, or the account cannot see it"):
        await gh.call("get_file_contents", owner="octo", repo="hello", path="nope.md", ref="dev")


@pytest.mark.parametrize("path", ["../etc/passwd", "/abs", "a//b", "a/./b", "dir/"])
async def test_a_path_that_could_leave_the_repository_is_refused(gh: Harness, path: str) -> None:
    with pytest.raises(InvalidArgument, match="path"):
        await gh.call("get_file_contents", owner="octo", repo="hello", path=path)
    assert gh.sent() == []


@covers("get_repository_tree")
async def test_the_tree_is_paged_and_pinned_to_one_tree(gh: Harness) -> None:
    first = await gh.call("get_repository_tree", owner="octo", repo="hello", limit=200)
    assert len(first.items) == 200 and first.sha == MAIN_TREE and first.next_cursor is not None
    rest = await gh.call("get_repository_tree", owner="octo", repo="hello", limit=1000, cursor=first.next_cursor)
    paths = [e.path for e in first.items + rest.items]
    assert len(paths) == len(set(paths)) == len(gh.world.tree_entries()) and rest.next_cursor is None
    assert [(r.path, r.params) for r in gh.sent()] == [
        ("/repos/octo/hello/git/trees/HEAD", {"recursive": "1"}),
        (f"/repos/octo/hello/git/trees/{MAIN_TREE}", {"recursive": "1"}),
    ]


async def test_the_tree_under_a_directory(gh: Harness) -> None:
    found = await gh.call("get_repository_tree", owner="octo", repo="hello", path="scripts", ref="main")
    assert [(e.path, e.type, e.size) for e in found.items] == [("scripts/deploy.sh", "blob", len(SCRIPT))]


async def test_a_forged_tree_cursor_is_refused(gh: Harness) -> None:
    with pytest.raises(InvalidArgument, match="cursor"):
        await gh.call("get_repository_tree", owner="octo", repo="hello", cursor="eyJ2IjoxLCJzIjp7fX0")


@covers("search_code")
async def test_search_code_asks_for_text_matches(gh: Harness) -> None:
    found = await gh.call("search_code", query="print repo:octo/hello")
    (hit,) = found.items
    assert (hit.repo, hit.path, hit.fragments, found.total_count) == ("octo/hello", "src/app.py", ["print('hello')"], 1)
    (request,) = gh.sent()
    assert request.headers["Accept"] == "application/vnd.github.text-match+json"


@covers("write_files")
async def test_write_files_makes_one_commit_through_the_git_data_api(gh: Harness) -> None:
    written = await gh.call(
        "write_files",
        owner="octo",
        repo="hello",
        branch="feature/x",
        message="Update app and deploy script",
        files=[
            {"path": "src/app.py", "content": "print('hi')\n"},
            {"path": "scripts/deploy.sh", "content": "#!/bin/sh\necho v2\n"},
            {"path": "assets/dot.bin", "content": base64.b64encode(b"\x00\x01").decode(), "encoding": "base64"},
        ],
    )
    feature = sha_of("feature head")
    assert [r.operation for r in gh.sent()] == [
        "GET /repos/{owner}/{repo}/git/ref/{ref}",
        "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
        "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
        "POST /repos/{owner}/{repo}/git/blobs",
        "POST /repos/{owner}/{repo}/git/blobs",
        "POST /repos/{owner}/{repo}/git/blobs",
        "POST /repos/{owner}/{repo}/git/trees",
        "POST /repos/{owner}/{repo}/git/commits",
        "PATCH /repos/{owner}/{repo}/git/refs/{ref}",
    ]
    requests = gh.sent()
    assert requests[0].path == "/repos/octo/hello/git/ref/heads/feature/x"
    assert requests[3].json == {"content": "print('hi')\n", "encoding": "utf-8"}
    assert requests[5].json == {"content": "AAE=", "encoding": "base64"}
    tree = requests[6].json
    assert tree["base_tree"] == MAIN_TREE
    assert [(e["path"], e["mode"], e["type"]) for e in tree["tree"]] == [
        ("src/app.py", "100644", "blob"),
        ("scripts/deploy.sh", "100755", "blob"),  # the executable bit survives
        ("assets/dot.bin", "100644", "blob"),
    ]
    assert requests[7].json["parents"] == [feature] and requests[7].json["message"] == "Update app and deploy script"
    assert requests[8].json == {"sha": written.commit_sha, "force": False}
    assert gh.world.heads["feature/x"] == written.commit_sha and written.parent_sha == feature
    assert written.paths == ["src/app.py", "scripts/deploy.sh", "assets/dot.bin"]


async def test_write_files_refuses_nothing_to_write(gh: Harness) -> None:
    with pytest.raises(InvalidArgument, match="nothing to write"):
        await gh.call(
            "write_files",
            owner="octo",
            repo="hello",
            branch="main",
            message="noop",
            files=[{"path": "src/app.py", "content": "print('hello')\n"}],
        )
    assert gh.sent("POST /repos/{owner}/{repo}/git/commits") == [] and gh.world.heads["main"] == MAIN_SHA
    with pytest.raises(InvalidArgument, match="files"):
        await gh.call("write_files", owner="octo", repo="hello", branch="main", message="empty", files=[])
    with pytest.raises(InvalidArgument, match="each file once"):
        twice = [{"path": "a.txt", "content": "1"}, {"path": "a.txt", "content": "2"}]
        await gh.call("write_files", owner="octo", repo="hello", branch="main", message="dup", files=twice)


async def test_write_files_on_a_missing_branch_or_a_moved_one(gh: Harness) -> None:
    one = [{"path": "a.txt", "content": "a"}]
    with pytest.raises(NotFound, match="branch nope of octo/hello not found"):
        await gh.call("write_files", owner="octo", repo="hello", branch="nope", message="m", files=one)
    gh.world.moved_meanwhile = True
    with pytest.raises(Conflict, match="main moved while the files were written"):
        await gh.call("write_files", owner="octo", repo="hello", branch="main", message="m", files=one)


@covers("delete_file")
async def test_delete_file_looks_up_the_blob_and_deletes_it(gh: Harness) -> None:
    deleted = await gh.call(
        "delete_file", owner="octo", repo="hello", path="src/app.py", message="Remove app", branch="main"
    )
    assert deleted.path == "src/app.py" and deleted.commit_sha == sha_of("deleted src/app.py")
    look, delete = gh.sent()
    assert look.params == {"ref": "main"}
    assert delete.json == {"message": "Remove app", "sha": sha_of(b"print('hello')\n"), "branch": "main"}
    assert "src/app.py" not in gh.world.files


async def test_delete_file_refuses_a_directory(gh: Harness) -> None:
    with pytest.raises(InvalidArgument, match="is a directory"):
        await gh.call("delete_file", owner="octo", repo="hello", path="src", message="Remove src")
