"""Canned GitHub answers, shaped as GitHub documents them (the fake checks each against the description)."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import httpx

API = "https://api.github.com"
WEB = "https://github.com"
OWNER, REPO = "octo", "hello"
FULL = f"{OWNER}/{REPO}"
WHEN = "2026-03-01T12:00:00Z"


def sha_of(text: str | bytes) -> str:
    return hashlib.sha1(text.encode() if isinstance(text, str) else text).hexdigest()


MAIN_SHA = sha_of("main head")
MAIN_TREE = sha_of("main tree")
FEATURE_SHA = sha_of("feature head")
COMMIT_SHA = sha_of("a commit")


def user(login: str = "octocat") -> dict[str, Any]:
    return {
        "login": login,
        "id": 583231,
        "node_id": "MDQ6VXNlcjU4MzIzMQ==",
        "avatar_url": f"https://avatars.githubusercontent.com/{login}",
        "gravatar_id": "",
        "url": f"{API}/users/{login}",
        "html_url": f"{WEB}/{login}",
        "type": "User",
        "site_admin": False,
    }


def repository(name: str = REPO, owner: str = OWNER, **extra: Any) -> dict[str, Any]:
    return {
        "id": 1296269,
        "node_id": "MDEwOlJlcG9zaXRvcnkxMjk2MjY5",
        "name": name,
        "full_name": f"{owner}/{name}",
        "owner": user(owner),
        "private": False,
        "html_url": f"{WEB}/{owner}/{name}",
        "description": f"The {name} repository",
        "fork": False,
        "url": f"{API}/repos/{owner}/{name}",
        "language": "Python",
        "stargazers_count": 80,
        "forks_count": 9,
        "open_issues_count": 4,
        "default_branch": "main",
        "archived": False,
        "visibility": "public",
        "topics": ["mcp", "github"],
        "pushed_at": WHEN,
        "created_at": "2020-01-26T19:01:12Z",
        "updated_at": WHEN,
        **extra,
    }


def label(name: str) -> dict[str, Any]:
    return {"id": 208045946, "node_id": "MDU6TGFiZWwyMDgwNDU5NDY=", "name": name, "color": "f29513", "default": False}


def issue(number: int, title: str = "", *, pull: bool = False, state: str = "open", **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": 1_000_000 + number,
        "node_id": f"I_{number}",
        "url": f"{API}/repos/{FULL}/issues/{number}",
        "repository_url": f"{API}/repos/{FULL}",
        "html_url": f"{WEB}/{FULL}/{'pull' if pull else 'issues'}/{number}",
        "number": number,
        "state": state,
        "title": title or f"Issue {number}",
        "body": f"Body of {number}",
        "user": user(),
        "labels": [label("bug")],
        "assignee": None,
        "assignees": [user("hubot")],
        "milestone": None,
        "locked": False,
        "comments": 0,
        "closed_at": None,
        "created_at": WHEN,
        "updated_at": WHEN,
        "author_association": "OWNER",
        **extra,
    }
    if pull:
        body["pull_request"] = {"url": f"{API}/repos/{FULL}/pulls/{number}", "html_url": body["html_url"]}
    return body


def comment(index: int) -> dict[str, Any]:
    return {
        "id": 5000 + index,
        "node_id": f"IC_{index}",
        "url": f"{API}/repos/{FULL}/issues/comments/{5000 + index}",
        "html_url": f"{WEB}/{FULL}/issues/12#issuecomment-{5000 + index}",
        "issue_url": f"{API}/repos/{FULL}/issues/12",
        "body": f"Comment {index}",
        "user": user("hubot"),
        "created_at": WHEN,
        "updated_at": WHEN,
        "author_association": "MEMBER",
    }


def branch_ref(name: str, sha: str) -> dict[str, Any]:
    return {"ref": name, "sha": sha, "label": f"{OWNER}:{name}", "user": user(OWNER), "repo": repository()}


def pull(number: int, title: str = "", **extra: Any) -> dict[str, Any]:
    return {
        "url": f"{API}/repos/{FULL}/pulls/{number}",
        "id": 2_000_000 + number,
        "node_id": f"PR_{number}",
        "html_url": f"{WEB}/{FULL}/pull/{number}",
        "number": number,
        "state": "open",
        "locked": False,
        "title": title or f"Pull {number}",
        "user": user(),
        "body": "Please pull these changes",
        "labels": [label("enhancement")],
        "milestone": None,
        "created_at": WHEN,
        "updated_at": WHEN,
        "closed_at": None,
        "merged_at": None,
        "merge_commit_sha": None,
        "assignee": None,
        "assignees": [],
        "requested_reviewers": [user("reviewer")],
        "head": branch_ref("feature/x", FEATURE_SHA),
        "base": branch_ref("main", MAIN_SHA),
        "author_association": "OWNER",
        "auto_merge": None,
        "draft": False,
        **extra,
    }


def pull_detail(number: int) -> dict[str, Any]:
    return pull(
        number,
        "Add the parser",
        merged=False,
        mergeable=True,
        mergeable_state="clean",
        merged_by=None,
        comments=2,
        review_comments=1,
        maintainer_can_modify=True,
        commits=3,
        additions=120,
        deletions=4,
        changed_files=45,
    )


def diff(filename: str, patch: str | None = "@@ -1 +1 @@\n-old\n+new\n", status: str = "modified") -> dict[str, Any]:
    out: dict[str, Any] = {
        "sha": sha_of(filename),
        "filename": filename,
        "status": status,
        "additions": 1,
        "deletions": 1,
        "changes": 2,
        "blob_url": f"{WEB}/{FULL}/blob/{FEATURE_SHA}/{filename}",
        "raw_url": f"{WEB}/{FULL}/raw/{FEATURE_SHA}/{filename}",
        "contents_url": f"{API}/repos/{FULL}/contents/{filename}",
    }
    if patch is not None:
        out["patch"] = patch
    return out


def commit(sha: str, message: str, **extra: Any) -> dict[str, Any]:
    return {
        "url": f"{API}/repos/{FULL}/commits/{sha}",
        "sha": sha,
        "node_id": f"C_{sha[:8]}",
        "html_url": f"{WEB}/{FULL}/commit/{sha}",
        "comments_url": f"{API}/repos/{FULL}/commits/{sha}/comments",
        "commit": {
            "url": f"{API}/repos/{FULL}/git/commits/{sha}",
            "author": {"name": "Mona Octocat", "email": "mona@github.com", "date": WHEN},
            "committer": {"name": "Mona Octocat", "email": "mona@github.com", "date": WHEN},
            "message": message,
            "tree": {"url": f"{API}/repos/{FULL}/git/trees/{MAIN_TREE}", "sha": MAIN_TREE},
            "comment_count": 0,
        },
        "author": user(),
        "committer": user(),
        "parents": [{"url": f"{API}/repos/{FULL}/commits/{MAIN_SHA}", "sha": MAIN_SHA}],
        **extra,
    }


def release(release_id: int, tag: str, **extra: Any) -> dict[str, Any]:
    return {
        "url": f"{API}/repos/{FULL}/releases/{release_id}",
        "html_url": f"{WEB}/{FULL}/releases/tag/{tag}",
        "assets_url": f"{API}/repos/{FULL}/releases/{release_id}/assets",
        "upload_url": f"https://uploads.github.com/repos/{FULL}/releases/{release_id}/assets{{?name,label}}",
        "tarball_url": f"{API}/repos/{FULL}/tarball/{tag}",
        "zipball_url": f"{API}/repos/{FULL}/zipball/{tag}",
        "id": release_id,
        "node_id": f"RE_{release_id}",
        "tag_name": tag,
        "target_commitish": "main",
        "name": f"Release {tag}",
        "body": f"Notes for {tag}",
        "draft": False,
        "prerelease": False,
        "created_at": WHEN,
        "published_at": WHEN,
        "author": user(),
        "assets": [],
        **extra,
    }


def run(run_id: int) -> dict[str, Any]:
    return {
        "id": run_id,
        "name": "CI",
        "node_id": f"WFR_{run_id}",
        "head_branch": "main",
        "head_sha": MAIN_SHA,
        "path": ".github/workflows/ci.yml",
        "display_title": f"Run {run_id}",
        "run_number": run_id - 99,
        "run_attempt": 1,
        "event": "push",
        "status": "completed",
        "conclusion": "failure" if run_id % 2 else "success",
        "workflow_id": 159038,
        "url": f"{API}/repos/{FULL}/actions/runs/{run_id}",
        "html_url": f"{WEB}/{FULL}/actions/runs/{run_id}",
        "pull_requests": [],
        "created_at": WHEN,
        "updated_at": WHEN,
        "actor": user(),
        "jobs_url": f"{API}/repos/{FULL}/actions/runs/{run_id}/jobs",
        "logs_url": f"{API}/repos/{FULL}/actions/runs/{run_id}/logs",
    }


def job(job_id: int, run_id: int, name: str, conclusion: str) -> dict[str, Any]:
    return {
        "id": job_id,
        "run_id": run_id,
        "run_url": f"{API}/repos/{FULL}/actions/runs/{run_id}",
        "node_id": f"J_{job_id}",
        "head_sha": MAIN_SHA,
        "url": f"{API}/repos/{FULL}/actions/jobs/{job_id}",
        "html_url": f"{WEB}/{FULL}/actions/runs/{run_id}/job/{job_id}",
        "status": "completed",
        "conclusion": conclusion,
        "created_at": WHEN,
        "started_at": WHEN,
        "completed_at": WHEN,
        "name": name,
        "steps": [
            {"name": "Set up job", "status": "completed", "conclusion": "success", "number": 1},
            {"name": "Run tests", "status": "completed", "conclusion": conclusion, "number": 2},
        ],
        "check_run_url": f"{API}/repos/{FULL}/check-runs/{job_id}",
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 2,
        "runner_group_name": "GitHub Actions",
        "workflow_name": "CI",
        "head_branch": "main",
    }


def thread(thread_id: str, number: int, kind: str = "Issue") -> dict[str, Any]:
    segment = "pulls" if kind == "PullRequest" else "issues"
    return {
        "id": thread_id,
        "repository": repository(),
        "subject": {
            "title": f"Subject {thread_id}",
            "url": f"{API}/repos/{FULL}/{segment}/{number}",
            "latest_comment_url": f"{API}/repos/{FULL}/issues/comments/1",
            "type": kind,
        },
        "reason": "mention",
        "unread": True,
        "updated_at": WHEN,
        "last_read_at": None,
        "url": f"{API}/notifications/threads/{thread_id}",
        "subscription_url": f"{API}/notifications/threads/{thread_id}/subscription",
    }


def content_file(path: str, data: bytes, *, inline: bool = True) -> dict[str, Any]:
    sha = sha_of(data)
    return {
        "type": "file",
        "encoding": "base64" if inline else "none",
        "size": len(data),
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "content": base64.encodebytes(data).decode() if inline else "",
        "sha": sha,
        "url": f"{API}/repos/{FULL}/contents/{path}?ref=main",
        "git_url": f"{API}/repos/{FULL}/git/blobs/{sha}",
        "html_url": f"{WEB}/{FULL}/blob/main/{path}",
        "download_url": f"https://raw.githubusercontent.com/{FULL}/main/{path}",
        "_links": {"self": f"{API}/repos/{FULL}/contents/{path}", "git": None, "html": None},
    }


def dir_entry(path: str, kind: str, size: int = 0) -> dict[str, Any]:
    return {
        "type": kind,
        "size": size,
        "name": path.rsplit("/", 1)[-1],
        "path": path,
        "sha": sha_of(path),
        "url": f"{API}/repos/{FULL}/contents/{path}",
        "git_url": None,
        "html_url": None,
        "download_url": None,
        "_links": {"self": f"{API}/repos/{FULL}/contents/{path}", "git": None, "html": None},
    }


def paginate(request: httpx.Request, items: list[Any], per_page: int = 30) -> tuple[list[Any], dict[str, str]]:
    """GitHub's page/per_page paging with a `Link` header naming the next page."""
    size = int(request.url.params.get("per_page", per_page))
    number = int(request.url.params.get("page", "1"))
    chunk = items[(number - 1) * size : number * size]
    headers: dict[str, str] = {}
    if number * size < len(items):
        following = request.url.copy_merge_params({"page": number + 1})
        last = request.url.copy_merge_params({"page": -(-len(items) // size)})
        headers["Link"] = f'<{following}>; rel="next", <{last}>; rel="last"'
    return chunk, headers
