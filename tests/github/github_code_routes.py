"""Handlers for the code side of the fake GitHub: repositories, branches, files, git data, history, releases."""

from __future__ import annotations

import base64
import json
from typing import TYPE_CHECKING, Any

import httpx
from github_fake import (
    API,
    COMMIT_SHA,
    FEATURE_SHA,
    FULL,
    MAIN_SHA,
    MAIN_TREE,
    OWNER,
    REPO,
    WEB,
    WHEN,
    commit,
    content_file,
    diff,
    dir_entry,
    paginate,
    release,
    repository,
    sha_of,
    user,
)

from mcpist.testing import FakeUpstream

if TYPE_CHECKING:
    from github_world import World


def install_code(fake: FakeUpstream, world: World) -> None:
    """Register the handlers of repositories, branches, contents, the git data API, commits and releases."""
    repo_names = [f"repo-{i:02d}" for i in range(45)]

    def own(owner: str, repo: str) -> tuple[int, Any] | None:
        return None if (owner, repo) == (OWNER, REPO) else (404, {"message": "Not Found"})

    @fake.route("GET", "/user")
    def _me(request: httpx.Request) -> Any:
        body = {**user(), "name": "The Octocat", "email": "octocat@github.com", "company": "GitHub"}
        body.update(public_repos=8, total_private_repos=2, created_at="2011-01-25T18:44:36Z")
        return 200, body, {"X-OAuth-Scopes": "repo, read:org, workflow"}

    @fake.route("GET", "/user/repos")
    def _my_repos(request: httpx.Request) -> Any:
        return (200, *paginate(request, [repository(n) for n in repo_names]))

    @fake.route("GET", "/orgs/{org}/repos")
    def _org_repos(request: httpx.Request, org: str) -> Any:
        if org != "acme":
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}
        return (200, *paginate(request, [repository("api", "acme", private=True)]))

    @fake.route("GET", "/users/{username}/repos")
    def _user_repos(request: httpx.Request, username: str) -> Any:
        return (200, *paginate(request, [repository("dotfiles", username)]))

    @fake.route("GET", "/repos/{owner}/{repo}")
    def _repo(request: httpx.Request, owner: str, repo: str) -> Any:
        mit = {"key": "mit", "name": "MIT License", "spdx_id": "MIT", "url": None, "node_id": "L"}
        extra: dict[str, Any] = {"license": mit}
        extra["permissions"] = {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True}
        return own(owner, repo) or repository(**extra)

    @fake.route("GET", "/search/repositories")
    def _search_repos(request: httpx.Request) -> Any:
        found = [{**repository(n), "score": 1.0} for n in repo_names[:3]]
        return {"total_count": 3, "incomplete_results": False, "items": found}

    @fake.route("GET", "/repos/{owner}/{repo}/branches")
    def _branches(request: httpx.Request, owner: str, repo: str) -> Any:
        branches = [
            {
                "name": name,
                "commit": {"sha": sha, "url": f"{API}/repos/{FULL}/commits/{sha}"},
                "protected": name == "main",
            }
            for name, sha in world.heads.items()
        ]
        return own(owner, repo) or branches

    @fake.route("GET", "/repos/{owner}/{repo}/commits/{ref}")
    def _commit(request: httpx.Request, owner: str, repo: str, ref: str) -> Any:
        if ref not in ("HEAD", "main", "v1.0", COMMIT_SHA, *world.heads):
            return 422, {"message": f"No commit found for SHA: {ref}", "documentation_url": "https://docs.github.com"}
        files = [diff("src/app.py"), diff("BIG.md", "@@ -0,0 +1,400 @@\n" + "+x\n" * 4000, "added")]
        files += [diff(f"docs/page-{i:03d}.md") for i in range(40)]
        chunk, headers = paginate(request, files, per_page=300)
        sha = world.heads.get(ref, MAIN_SHA if ref in ("HEAD", "v1.0") else COMMIT_SHA)
        body = commit(sha, "Add the parser\n\nIt reads the config.", stats={"additions": 4003, "deletions": 41})
        return 200, {**body, "files": chunk}, headers

    @fake.route("POST", "/repos/{owner}/{repo}/git/refs")
    def _create_ref(request: httpx.Request, owner: str, repo: str) -> Any:
        wanted = json.loads(request.content)
        name = wanted["ref"].removeprefix("refs/heads/")
        if name in world.heads:
            return 422, {"message": "Reference already exists", "documentation_url": "https://docs.github.com"}
        world.heads[name] = wanted["sha"]
        world.refs_created.append(wanted)
        return 201, git_ref(wanted["ref"], wanted["sha"])

    @fake.route("GET", "/repos/{owner}/{repo}/git/ref/{ref}")
    def _get_ref(request: httpx.Request, owner: str, repo: str, ref: str) -> Any:
        name = ref.removeprefix("heads/")
        if name not in world.heads:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
        return git_ref(f"refs/{ref}", world.heads[name])

    @fake.route("PATCH", "/repos/{owner}/{repo}/git/refs/{ref}")
    def _update_ref(request: httpx.Request, owner: str, repo: str, ref: str) -> Any:
        if world.moved_meanwhile:
            return 422, {"message": "Update is not a fast forward", "documentation_url": "https://docs.github.com"}
        sha = json.loads(request.content)["sha"]
        world.heads[ref.removeprefix("heads/")] = sha
        return git_ref(f"refs/{ref}", sha)

    @fake.route("GET", "/repos/{owner}/{repo}/git/commits/{commit_sha}")
    def _git_commit(request: httpx.Request, owner: str, repo: str, commit_sha: str) -> Any:
        return git_commit(commit_sha, MAIN_TREE, "Base", [])

    @fake.route("GET", "/repos/{owner}/{repo}/git/trees/{tree_sha}")
    def _tree(request: httpx.Request, owner: str, repo: str, tree_sha: str) -> Any:
        entries = world.tree_entries()
        if request.url.params.get("recursive") is None:
            entries = [e for e in entries if "/" not in e["path"]]
        return {
            "sha": MAIN_TREE,
            "url": f"{API}/repos/{FULL}/git/trees/{MAIN_TREE}",
            "tree": entries,
            "truncated": False,
        }

    @fake.route("POST", "/repos/{owner}/{repo}/git/blobs")
    def _create_blob(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        raw = base64.b64decode(sent["content"]) if sent.get("encoding") == "base64" else sent["content"].encode()
        sha = sha_of(raw)
        world.blobs[sha] = raw.decode("utf-8", "replace")
        return 201, {"url": f"{API}/repos/{FULL}/git/blobs/{sha}", "sha": sha}

    @fake.route("GET", "/repos/{owner}/{repo}/git/blobs/{file_sha}")
    def _blob(request: httpx.Request, owner: str, repo: str, file_sha: str) -> Any:
        data = next(d for d in world.files.values() if sha_of(d) == file_sha)
        content = base64.encodebytes(data).decode()
        url = f"{API}/repos/{FULL}/git/blobs/{file_sha}"
        return {
            "content": content,
            "encoding": "base64",
            "url": url,
            "sha": file_sha,
            "size": len(data),
            "node_id": "B",
        }

    @fake.route("POST", "/repos/{owner}/{repo}/git/trees")
    def _create_tree(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        current = {sha_of(d): p for p, d in world.files.items()}
        if all(current.get(entry["sha"]) == entry["path"] for entry in sent["tree"]):
            sha = sent["base_tree"]  # git gives the same tree for the same content
        else:
            sha = sha_of(json.dumps(sent, sort_keys=True))
        world.trees[sha] = sent["tree"]
        return 201, {"sha": sha, "url": f"{API}/repos/{FULL}/git/trees/{sha}", "tree": [], "truncated": False}

    @fake.route("POST", "/repos/{owner}/{repo}/git/commits")
    def _create_commit(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        sha = sha_of(json.dumps(sent, sort_keys=True))
        world.commits[sha] = sent
        return 201, git_commit(sha, sent["tree"], sent["message"], sent["parents"])

    @fake.route("GET", "/repos/{owner}/{repo}/releases")
    def _releases(request: httpx.Request, owner: str, repo: str) -> Any:
        notes = release(3, "v3.0", body="x" * 5000)
        return (200, *paginate(request, [notes, release(2, "v2.0"), release(1, "v1.0")]))

    @fake.route("POST", "/repos/{owner}/{repo}/releases")
    def _create_release(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        if sent["tag_name"] == "v1.0":
            failed = {
                "message": "Validation Failed",
                "errors": [{"resource": "Release", "code": "already_exists", "field": "tag_name"}],
            }
            return 422, failed
        extra = {k: sent[k] for k in ("name", "body", "draft", "prerelease") if k in sent}
        return 201, release(9, sent["tag_name"], **extra)

    @fake.route("GET", "/repos/{owner}/{repo}/readme")
    def _readme(request: httpx.Request, owner: str, repo: str) -> Any:
        return own(owner, repo) or content_file("README.md", world.files["README.md"])

    @fake.route("GET", "/repos/{owner}/{repo}/contents/{path}")
    def _contents(request: httpx.Request, owner: str, repo: str, path: str) -> Any:
        if path in world.files:
            return content_file(path, world.files[path], inline=len(world.files[path]) < 1_000_000)
        children = sorted({p[len(path) + 1 :].split("/")[0] for p in world.files if p.startswith(path + "/")})
        if not children:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
        return [dir_entry(f"{path}/{name}", "file", 15) for name in children]

    @fake.route("DELETE", "/repos/{owner}/{repo}/contents/{path}")
    def _delete(request: httpx.Request, owner: str, repo: str, path: str) -> Any:
        sent = json.loads(request.content)
        if sha_of(world.files[path]) != sent["sha"]:
            return 409, {"message": f"{path} does not match {sent['sha']}"}
        del world.files[path]
        sha = sha_of("deleted " + path)
        return {
            "content": None,
            "commit": {"sha": sha, "html_url": f"{WEB}/{FULL}/commit/{sha}", "message": sent["message"]},
        }

    @fake.route("GET", "/search/code")
    def _search_code(request: httpx.Request) -> Any:
        hit = {
            "name": "app.py",
            "path": "src/app.py",
            "sha": sha_of("src/app.py"),
            "url": f"{API}/repositories/1/contents/src/app.py",
            "git_url": f"{API}/repositories/1/git/blobs/x",
            "html_url": f"{WEB}/{FULL}/blob/main/src/app.py",
            "repository": repository(),
            "score": 1.0,
            "text_matches": [
                {"object_type": "FileContent", "property": "content", "fragment": "print('hello')", "matches": []}
            ],
        }
        return {"total_count": 1, "incomplete_results": False, "items": [hit]}

    @fake.route("GET", "/repos/{owner}/{repo}/commits")
    def _commits(request: httpx.Request, owner: str, repo: str) -> Any:
        history = [commit(sha_of(f"c{i}"), f"Change {i}\n\nDetails of {i}.") for i in range(75)]
        return (200, *paginate(request, history))

    @fake.route("GET", "/repos/{owner}/{repo}/compare/{basehead}")
    def _compare(request: httpx.Request, owner: str, repo: str, basehead: str) -> Any:
        base, head = basehead.split("...")
        if head not in world.heads:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
        commits = [commit(sha_of(f"f{i}"), f"Feature step {i}") for i in range(60)]
        files = [
            diff(f"src/mod_{i}.py", "@@ -1,3 +1,3 @@\n" + "+y\n" * 1500 if i == 0 else "@@ -1 +1 @@\n-a\n+b\n")
            for i in range(35)
        ]
        return {
            "url": f"{API}/repos/{FULL}/compare/{basehead}",
            "html_url": f"{WEB}/{FULL}/compare/{basehead}",
            "permalink_url": f"{WEB}/{FULL}/compare/{base}...{FEATURE_SHA}",
            "diff_url": f"{WEB}/{FULL}/compare/{basehead}.diff",
            "patch_url": f"{WEB}/{FULL}/compare/{basehead}.patch",
            "base_commit": commit(MAIN_SHA, "Base"),
            "merge_base_commit": commit(MAIN_SHA, "Base"),
            "status": "ahead",
            "ahead_by": 60,
            "behind_by": 0,
            "total_commits": 60,
            "commits": commits,
            "files": files,
        }


def git_ref(ref: str, sha: str) -> dict[str, Any]:
    obj = {"type": "commit", "sha": sha, "url": f"{API}/repos/{FULL}/git/commits/{sha}"}
    return {"ref": ref, "node_id": "REF_1", "url": f"{API}/repos/{FULL}/git/{ref}", "object": obj}


def git_commit(sha: str, tree: str, message: str, parents: list[str]) -> dict[str, Any]:
    person = {"name": "Mona Octocat", "email": "mona@github.com", "date": WHEN}
    return {
        "sha": sha,
        "node_id": f"C_{sha[:8]}",
        "url": f"{API}/repos/{FULL}/git/commits/{sha}",
        "html_url": f"{WEB}/{FULL}/commit/{sha}",
        "author": person,
        "committer": person,
        "message": message,
        "tree": {"sha": tree, "url": f"{API}/repos/{FULL}/git/trees/{tree}"},
        "parents": [
            {"sha": p, "url": f"{API}/repos/{FULL}/git/commits/{p}", "html_url": f"{WEB}/{FULL}/commit/{p}"}
            for p in parents
        ],
        "verification": {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        },
    }
