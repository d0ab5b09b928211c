"""Contract tests: Actions runs, jobs and logs, starting a workflow, notifications."""

from __future__ import annotations

import httpx
import pytest
from github_fake import MAIN_SHA
from github_harness import Harness
from github_world import LOG_HOST, LOG_URL

from mcpist.modules import NotFound, Unavailable
from mcpist.modules.github import module
from mcpist.testing import FakeCredentials, covers, tool_context

pytestmark = pytest.mark.anyio


@covers("list_workflow_runs")
async def test_list_workflow_runs_of_a_repository_and_of_one_workflow(gh: Harness) -> None:
    page = await gh.call("list_workflow_runs", owner="octo", repo="hello", branch="main", status="failure", limit=20)
    run = page.items[0]
    assert (run.id, run.title, run.conclusion, run.branch, run.head_sha, run.actor) == (
        125,
        "Run 125",
        "failure",
        "main",
        MAIN_SHA,
        "octocat",
    )
    assert len(page.items) == 20 and page.next_cursor is not None
    assert gh.sent()[0].params == {"branch": "main", "status": "failure", "per_page": "30"}
    one = await gh.call("list_workflow_runs", owner="octo", repo="hello", workflow="ci.yml")
    assert [r.id for r in one.items] == [125]
    assert gh.sent()[-1].path == "/repos/octo/hello/actions/workflows/ci.yml/runs"


async def test_an_unknown_workflow(gh: Harness) -> None:
    with pytest.raises(NotFound, match=r"workflow deploy\.yml of repository octo/hello not found"):
        await gh.call("list_workflow_runs", owner="octo", repo="hello", workflow="deploy.yml")


@covers("list_workflow_jobs")
async def test_list_workflow_jobs_with_their_steps(gh: Harness) -> None:
    page = await gh.call("list_workflow_jobs", owner="octo", repo="hello", run_id=125)
    test, lint = page.items
    assert (test.id, test.name, test.conclusion, lint.conclusion) == (500, "test", "failure", "success")
    assert [(s.name, s.conclusion) for s in test.steps] == [("Set up job", "success"), ("Run tests", "failure")]
    assert gh.sent()[0].params == {"filter": "latest", "per_page": "30"}


@covers("get_job_logs")
async def test_get_job_logs_follows_the_redirect_without_the_credential(gh: Harness) -> None:
    found = await gh.call("get_job_logs", owner="octo", repo="hello", job_id=500, max_chars=1000)
    log = found.log
    assert log.text.endswith("step 1999\n") and not log.truncated and log.offset > 0 and len(log.text) <= 1000
    assert "\x1b" not in log.text and "2026-03-01T" not in log.text  # colours and timestamps stripped
    (redirect,) = gh.sent()
    assert redirect.headers["Authorization"] == "Bearer ghp_test"
    (download,) = gh.downloads
    assert str(download.url) == LOG_URL and "Authorization" not in download.headers and not found.download_truncated


async def test_get_job_logs_from_an_offset(gh: Harness) -> None:
    found = await gh.call("get_job_logs", owner="octo", repo="hello", job_id=500, offset=0, max_chars=200)
    assert found.log.text.startswith("step 0\nstep 1\n") and found.log.truncated and found.log.next_offset


async def test_a_log_redirect_is_the_only_way_to_another_host(gh: Harness) -> None:
    """The kit refuses to send the account's credential to the storage host: only `download` may go there."""
    ctx = gh.context()
    with pytest.raises(Unavailable, match=f"pointed to another host \\({LOG_HOST}\\)"):
        await ctx.http.get_json(LOG_URL)
    await ctx.aclose()
    assert gh.downloads == []


@covers("run_workflow")
async def test_run_workflow_reports_the_run(gh: Harness) -> None:
    started = await gh.call(
        "run_workflow", owner="octo", repo="hello", workflow="ci.yml", ref="main", inputs={"debug": True, "level": 2}
    )
    assert (started.run_id, started.html_url) == (126, "https://github.com/octo/hello/actions/runs/126")
    assert gh.sent()[0].json == {"ref": "main", "return_run_details": True, "inputs": {"debug": True, "level": 2}}


async def test_run_workflow_when_the_server_does_not_report_the_run(gh: Harness) -> None:
    started = await gh.call("run_workflow", owner="octo", repo="hello", workflow="release.yml", ref="v1.0")
    assert started.run_id is None and started.workflow == "release.yml"


@covers("list_notifications")
async def test_list_notifications_give_repository_kind_and_number(gh: Harness) -> None:
    page = await gh.call("list_notifications", participating=True, since="2026-02-01T00:00:00+09:00")
    assert [(n.id, n.repo, n.type, n.number, n.reason) for n in page.items] == [
        ("301", "octo/hello", "Issue", 3, "mention"),
        ("302", "octo/hello", "PullRequest", 7, "mention"),
        ("303", "octo/hello", "Issue", 12, "mention"),
    ]
    assert gh.sent()[0].params == {
        "all": "false",
        "participating": "true",
        "since": "2026-01-31T15:00:00Z",
        "per_page": "30",
    }


@covers("mark_notifications_read")
async def test_mark_notifications_read_all_or_one_thread(gh: Harness) -> None:
    everything = await gh.call("mark_notifications_read", before="2026-03-01T00:00:00Z")
    assert (everything.scope, everything.pending) == ("all", True)
    one = await gh.call("mark_notifications_read", thread_id=301)
    assert (one.scope, one.pending) == ("301", False)
    put, patch = gh.sent()
    assert put.json == {"read": True, "last_read_at": "2026-03-01T00:00:00Z"}
    assert patch.path == "/notifications/threads/301"


async def test_a_log_that_is_not_redirected_is_read_as_it_is() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, text="2026-01-01T00:00:00Z done\n")

    ctx = tool_context(module, transport=httpx.MockTransport(answer), credentials=FakeCredentials("t"))
    found = await module.tools["get_job_logs"].fn(ctx, owner="o", repo="r", job_id=1)
    assert found.log.text == "done\n"
