"""Tools for GitHub Actions: runs, their jobs, a job's log, starting a workflow."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from mcpist.modules import Unavailable
from mcpist.upstream import Cursor, Limit, MaxChars, Page, clip

from ._common import SERVICE, BranchName, Owner, Ref, Repo, drop_none, not_found, paged, repo_url, seg
from ._models import Dispatched, Job, JobLog, WorkflowRun
from ._module import Ctx, module

MAX_LOG_BYTES = 8_000_000
Workflow = Annotated[
    str,
    Field(pattern=r"^([0-9]+|[A-Za-z0-9_.-]+\.ya?ml)$", max_length=255, description="workflow file name or id"),
]
RunStatus = Literal[
    "queued", "in_progress", "completed", "success", "failure", "cancelled", "skipped", "timed_out", "action_required"
]
RunId = Annotated[int, Field(ge=1, description="workflow run id")]
# each log line starts with an ISO timestamp, and runners colour their output: both cost characters, say nothing
_STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ", re.MULTILINE)
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class _Dispatch(BaseModel):
    workflow_run_id: int | None = None
    html_url: str | None = None


@module.tool(read_only=True)
async def list_workflow_runs(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    workflow: Annotated[Workflow | None, Field(description="only this workflow (file name or id)")] = None,
    branch: BranchName | None = None,
    status: RunStatus | None = None,
    event: Annotated[str | None, Field(max_length=50, description="push, pull_request, schedule...")] = None,
    limit: Limit = 20,
    cursor: Cursor = None,
) -> Page[WorkflowRun]:
    """Actions workflow runs, newest first: status, conclusion, branch, commit, event and link."""
    base = repo_url(owner, repo, "actions")
    url = f"{base}/workflows/{seg(workflow)}/runs" if workflow else f"{base}/runs"
    params = drop_none(branch=branch, status=status, event=event)
    with not_found(f"{f'workflow {workflow} of ' if workflow else ''}repository {owner}/{repo}"):
        page, _ = await paged(ctx, url, WorkflowRun, limit=limit, cursor=cursor, params=params, key="workflow_runs")
    return page


@module.tool(read_only=True)
async def list_workflow_jobs(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    run_id: RunId,
    attempts: Annotated[
        Literal["latest", "all"], Field(description="jobs of the latest attempt, or of all")
    ] = "latest",
    limit: Limit = 30,
    cursor: Cursor = None,
) -> Page[Job]:
    """The jobs of a workflow run with their steps' outcomes; a job's id reads its log with get_job_logs."""
    with not_found(f"run {run_id} of {owner}/{repo}"):
        page, _ = await paged(
            ctx,
            repo_url(owner, repo, "actions", "runs", str(run_id), "jobs"),
            Job,
            limit=limit,
            cursor=cursor,
            params={"filter": attempts},
            key="jobs",
        )
    return page


@module.tool(read_only=True)
async def get_job_logs(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    job_id: Annotated[int, Field(ge=1, description="job id from list_workflow_jobs")],
    max_chars: MaxChars = 20_000,
    offset: Annotated[int | None, Field(ge=0, description="read from here instead of the tail")] = None,
) -> JobLog:
    """A job's log, its last `max_chars` by default (where failures show), without timestamps or colours."""
    with not_found(f"job {job_id} of {owner}/{repo}"):
        answer = await ctx.http.request("GET", repo_url(owner, repo, "actions", "jobs", str(job_id), "logs"), ok=(302,))
    if answer.status_code == 302:
        location = answer.headers.get("location")
        if not location:
            raise Unavailable(f"{SERVICE} redirected the log download nowhere", {"service": SERVICE})
        # a signed URL on GitHub's blob storage: fetched without the account's credential
        data, cut = await ctx.http.download(location, max_bytes=MAX_LOG_BYTES)
    else:
        data, cut = answer.content[:MAX_LOG_BYTES], len(answer.content) > MAX_LOG_BYTES
    text = _ANSI.sub("", _STAMP.sub("", data.decode("utf-8", "replace")))
    window = (
        clip(text, max_chars=max_chars, tail=True) if offset is None else clip(text, offset=offset, max_chars=max_chars)
    )
    return JobLog(job_id=job_id, log=window, download_truncated=cut)


@module.tool()
async def run_workflow(
    ctx: Ctx,
    owner: Owner,
    repo: Repo,
    workflow: Workflow,
    ref: Annotated[Ref, Field(description="branch or tag to run on")],
    inputs: Annotated[
        dict[str, str | int | float | bool] | None,
        Field(max_length=25, description="the workflow_dispatch inputs"),
    ] = None,
) -> Dispatched:
    """Start a workflow that has a `workflow_dispatch` trigger, on a branch or tag, with its inputs."""
    payload = {"ref": ref, "return_run_details": True, **({"inputs": inputs} if inputs else {})}
    with not_found(f"workflow {workflow} of {owner}/{repo}"):
        answer = await ctx.http.request(
            "POST", repo_url(owner, repo, "actions", "workflows", seg(workflow), "dispatches"), json=payload
        )
    # 204 without a body from servers that do not report the run (GitHub Enterprise Server, older API versions)
    details = ctx.http.parse(_Dispatch, ctx.http.json(answer) or {})
    return Dispatched(workflow=workflow, ref=ref, run_id=details.workflow_run_id, html_url=details.html_url)
