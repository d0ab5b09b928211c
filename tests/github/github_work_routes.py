"""Handlers for the work side of the fake GitHub: issues, pull requests, Actions, notifications."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import httpx
from github_fake import (
    API,
    FEATURE_SHA,
    FULL,
    WEB,
    WHEN,
    comment,
    diff,
    issue,
    job,
    paginate,
    pull,
    pull_detail,
    run,
    sha_of,
    thread,
    user,
)

from mcpist.testing import FakeUpstream

if TYPE_CHECKING:
    from github_world import World

LOG_HOST = "results-receiver.actions.githubusercontent.com"
LOG_URL = f"https://{LOG_HOST}/logs/job-500.txt?sig=signed"


def install_work(fake: FakeUpstream, world: World) -> None:
    """Register the handlers of issues, comments, pull requests and reviews, Actions and notifications."""

    def own(owner: str, repo: str) -> tuple[int, Any] | None:
        return None if (owner, repo) == ("octo", "hello") else (404, {"message": "Not Found"})

    issues = [issue(n, pull=n % 5 == 0) for n in range(40, 0, -1)]

    @fake.route("GET", "/search/issues")
    def _search_issues(request: httpx.Request) -> Any:
        found = [{**issue(3, "Crash on start"), "score": 1.0}, {**issue(5, "Fix crash", pull=True), "score": 0.5}]
        return {"total_count": 2, "incomplete_results": False, "items": found}

    @fake.route("GET", "/repos/{owner}/{repo}/issues")
    def _issues(request: httpx.Request, owner: str, repo: str) -> Any:
        return own(owner, repo) or (200, *paginate(request, issues))

    @fake.route("GET", "/repos/{owner}/{repo}/issues/{issue_number}")
    def _issue(request: httpx.Request, owner: str, repo: str, issue_number: str) -> Any:
        number = int(issue_number)
        if number > 40:
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
        extra: dict[str, Any] = {"milestone": milestone(), "comments": 35} if number == 12 else {}
        return issue(number, "Crash on start", **extra)

    @fake.route("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments")
    def _comments(request: httpx.Request, owner: str, repo: str, issue_number: str) -> Any:
        thread_ = [comment(i) for i in range(35 if issue_number == "12" else 0)]
        return (200, *paginate(request, thread_))

    @fake.route("POST", "/repos/{owner}/{repo}/issues")
    def _create_issue(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        labels = [{"id": 1, "name": name} for name in sent.get("labels", [])]
        return 201, issue(41, sent["title"], body=sent.get("body"), labels=labels)

    @fake.route("PATCH", "/repos/{owner}/{repo}/issues/{issue_number}")
    def _update_issue(request: httpx.Request, owner: str, repo: str, issue_number: str) -> Any:
        sent = json.loads(request.content)
        extra = {"state": sent.get("state", "open"), "state_reason": sent.get("state_reason")}
        if "labels" in sent:
            extra["labels"] = [{"id": 1, "name": name} for name in sent["labels"]]
        return issue(int(issue_number), sent.get("title", ""), **extra)

    @fake.route("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments")
    def _create_comment(request: httpx.Request, owner: str, repo: str, issue_number: str) -> Any:
        return 201, {**comment(99), "body": json.loads(request.content)["body"]}

    @fake.route("GET", "/repos/{owner}/{repo}/pulls")
    def _pulls(request: httpx.Request, owner: str, repo: str) -> Any:
        return (200, *paginate(request, [pull(n) for n in range(9, 0, -1)]))

    @fake.route("GET", "/repos/{owner}/{repo}/pulls/{pull_number}")
    def _pull(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        return pull_detail(int(pull_number))

    @fake.route("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/files")
    def _pull_files(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        files = [diff(f"src/file_{i:02d}.py") for i in range(44)]
        files.insert(20, diff("src/long.py", "@@ -1,500 +1,500 @@\n" + "".join(f"+line {i}\n" for i in range(900))))
        return (200, *paginate(request, files))

    @fake.route("POST", "/repos/{owner}/{repo}/pulls")
    def _create_pull(request: httpx.Request, owner: str, repo: str) -> Any:
        sent = json.loads(request.content)
        if sent["head"] == "feature/x":
            failed = {
                "message": "Validation Failed",
                "errors": [
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": "A pull request already exists for octo:feature/x.",
                    }
                ],
            }
            return 422, failed
        return 201, pull(10, sent["title"], draft=sent.get("draft", False))

    @fake.route("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}")
    def _update_pull(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        sent = json.loads(request.content)
        return pull(int(pull_number), sent.get("title", ""), state=sent.get("state", "open"))

    @fake.route("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/requested_reviewers")
    def _request_reviewers(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        sent = json.loads(request.content)
        return 201, pull(int(pull_number), requested_reviewers=[user(login) for login in sent["reviewers"]])

    @fake.route("PUT", "/repos/{owner}/{repo}/pulls/{pull_number}/merge")
    def _merge(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        sent = json.loads(request.content or b"{}")
        if sent.get("sha") not in (None, FEATURE_SHA):
            return 409, {"message": "Head branch was modified. Review and try the merge again."}
        return {"sha": sha_of("merged"), "merged": True, "message": "Pull Request successfully merged"}

    @fake.route("POST", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews")
    def _review(request: httpx.Request, owner: str, repo: str, pull_number: str) -> Any:
        sent = json.loads(request.content)
        state = {"APPROVE": "APPROVED", "REQUEST_CHANGES": "CHANGES_REQUESTED"}.get(sent.get("event", ""), "COMMENTED")
        return {
            "id": 80,
            "node_id": "PRR_80",
            "user": user(),
            "body": sent.get("body", ""),
            "state": state,
            "html_url": f"{WEB}/{FULL}/pull/{pull_number}#pullrequestreview-80",
            "pull_request_url": f"{API}/repos/{FULL}/pulls/{pull_number}",
            "_links": {
                "html": {"href": f"{WEB}/{FULL}/pull/{pull_number}"},
                "pull_request": {"href": f"{API}/repos/{FULL}/pulls/{pull_number}"},
            },
            "submitted_at": WHEN,
            "commit_id": FEATURE_SHA,
            "author_association": "OWNER",
        }

    runs = [run(i) for i in range(125, 100, -1)]

    @fake.route("GET", "/repos/{owner}/{repo}/actions/runs")
    def _runs(request: httpx.Request, owner: str, repo: str) -> Any:
        chunk, headers = paginate(request, runs)
        return 200, {"total_count": len(runs), "workflow_runs": chunk}, headers

    @fake.route("GET", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs")
    def _workflow_runs(request: httpx.Request, owner: str, repo: str, workflow_id: str) -> Any:
        if workflow_id != "ci.yml":
            return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}
        return {"total_count": 1, "workflow_runs": runs[:1]}

    @fake.route("GET", "/repos/{owner}/{repo}/actions/runs/{run_id}/jobs")
    def _jobs(request: httpx.Request, owner: str, repo: str, run_id: str) -> Any:
        jobs = [job(500, int(run_id), "test", "failure"), job(501, int(run_id), "lint", "success")]
        return {"total_count": 2, "jobs": jobs}

    @fake.route("GET", "/repos/{owner}/{repo}/actions/jobs/{job_id}/logs")
    def _logs(request: httpx.Request, owner: str, repo: str, job_id: str) -> Any:
        return httpx.Response(302, headers={"Location": LOG_URL})

    @fake.route("POST", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches")
    def _dispatch(request: httpx.Request, owner: str, repo: str, workflow_id: str) -> Any:
        if workflow_id == "release.yml":
            return httpx.Response(204)
        return {
            "workflow_run_id": 126,
            "run_url": f"{API}/repos/{FULL}/actions/runs/126",
            "html_url": f"{WEB}/{FULL}/actions/runs/126",
        }

    @fake.route("GET", "/notifications")
    def _notifications(request: httpx.Request) -> Any:
        threads = [thread("301", 3), thread("302", 7, "PullRequest"), thread("303", 12)]
        return (200, *paginate(request, threads, per_page=50))

    @fake.route("PUT", "/notifications")
    def _mark_all(request: httpx.Request) -> Any:
        said = "Unread notifications couldn't be marked in a single request. Notifications are being marked as read"
        return 202, {"message": said + " in the background."}

    @fake.route("PATCH", "/notifications/threads/{thread_id}")
    def _mark_thread(request: httpx.Request, thread_id: str) -> Any:
        return httpx.Response(205)


def milestone() -> dict[str, Any]:
    return {
        "url": f"{API}/repos/{FULL}/milestones/1",
        "html_url": f"{WEB}/{FULL}/milestones/v1.0",
        "labels_url": f"{API}/repos/{FULL}/milestones/1/labels",
        "id": 1002604,
        "node_id": "MI_1",
        "number": 1,
        "state": "open",
        "title": "v1.0",
        "description": None,
        "creator": user(),
        "open_issues": 4,
        "closed_issues": 8,
        "created_at": WHEN,
        "updated_at": WHEN,
        "closed_at": None,
        "due_on": None,
    }
