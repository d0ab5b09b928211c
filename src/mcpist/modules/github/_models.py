"""Compact results, read straight from GitHub's JSON.

Each model takes only what an LLM acts on (ids, numbers, titles, states, urls, dates, text) and reads it
through `validation_alias`, so the published output schema shows the short names while GitHub's bulky
objects (`user`, `head`, `commit.author`) are flattened on the way in. Models built by the tools themselves
(results of writes) have no aliases.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Annotated, Any

from pydantic import AliasChoices, AliasPath, BaseModel, BeforeValidator, Field

from mcpist.upstream import Clipped

BODY_CHARS = 8000  # an issue's or pull request's description
COMMENT_CHARS = 4000  # each of up to 100 comments a page


def _login(value: Any) -> Any:
    return value.get("login") if isinstance(value, dict) else value


def _names(value: Any) -> Any:
    """Labels, users or commits as their names, logins or SHAs."""
    if not isinstance(value, list):
        return [] if value is None else value
    out = []
    for item in value:
        if isinstance(item, dict):
            item = item.get("name") or item.get("login") or item.get("sha")
        if item is not None:
            out.append(item)
    return out


def _first_line(value: Any) -> Any:
    return value.split("\n", 1)[0].strip() if isinstance(value, str) else value


def _cut(limit: int) -> Any:
    def cut(value: Any) -> Any:
        if isinstance(value, str) and len(value) > limit:
            return value[:limit] + f"\n…[cut: {limit} of {len(value)} characters shown]"
        return value

    return BeforeValidator(cut)


def _repo_of(value: Any) -> Any:
    # "https://api.github.com/repos/octo/hello" -> "octo/hello"
    if isinstance(value, str) and "/repos/" in value:
        return "/".join(value.rsplit("/repos/", 1)[1].split("/")[:2])
    return value


def _number_of(value: Any) -> Any:
    found = re.search(r"/(?:issues|pulls)/(\d+)$", value) if isinstance(value, str) else None
    return int(found.group(1)) if found else None


def _fragments(value: Any) -> Any:
    if not isinstance(value, list):
        return []
    return [m["fragment"][:400] for m in value if isinstance(m, dict) and isinstance(m.get("fragment"), str)]


Login = Annotated[str | None, BeforeValidator(_login)]
Names = Annotated[list[str], BeforeValidator(_names)]
Body = Annotated[str | None, _cut(BODY_CHARS)]
CommentBody = Annotated[str | None, _cut(COMMENT_CHARS)]


class Sha(BaseModel):
    sha: str


class Me(BaseModel):
    login: str
    name: str | None = None
    email: str | None = None
    type: str | None = Field(None, description="User or Organization")
    company: str | None = None
    html_url: str
    public_repos: int | None = None
    private_repos: int | None = Field(None, validation_alias="total_private_repos")
    created_at: datetime | None = None
    scopes: list[str] | None = Field(None, description="OAuth scopes of the token (none listed: fine-grained)")
    account: str | None = Field(None, description="the MCPist account used")


class Repository(BaseModel):
    full_name: str
    description: str | None = None
    private: bool = False
    fork: bool = False
    archived: bool = False
    default_branch: str | None = None
    language: str | None = None
    stars: int | None = Field(None, validation_alias="stargazers_count")
    pushed_at: datetime | None = None
    html_url: str


class RepositoryDetail(Repository):
    visibility: str | None = None
    topics: list[str] = []
    homepage: str | None = None
    license: str | None = Field(None, validation_alias=AliasPath("license", "spdx_id"))
    forks: int | None = Field(None, validation_alias="forks_count")
    open_issues: int | None = Field(None, validation_alias="open_issues_count", description="issues and PRs")
    parent: str | None = Field(None, validation_alias=AliasPath("parent", "full_name"), description="forked from")
    can_push: bool | None = Field(None, validation_alias=AliasPath("permissions", "push"))
    created_at: datetime | None = None
    updated_at: datetime | None = None


class Branch(BaseModel):
    name: str
    sha: str = Field(validation_alias=AliasPath("commit", "sha"))
    protected: bool = False


class NewBranch(BaseModel):
    branch: str
    sha: str
    from_ref: str


class TreeEntry(BaseModel):
    path: str
    type: str = Field(description="blob (file), tree (directory) or commit (submodule)")
    size: int | None = None


class Tree(BaseModel):
    sha: str
    items: list[TreeEntry]
    next_cursor: str | None = None
    upstream_truncated: bool = Field(False, description="GitHub cut the tree short; list a subdirectory instead")


class DirEntry(BaseModel):
    name: str
    path: str
    type: str = Field(description="file, dir, symlink or submodule")
    size: int | None = None


class FileContent(BaseModel):
    path: str
    type: str = Field(description="file, dir, symlink or submodule")
    sha: str | None = None
    size: int | None = None
    html_url: str | None = None
    content: Clipped | None = Field(None, description="the decoded text of a file")
    binary: bool | None = Field(None, description="a file that is not UTF-8 text: no content")
    entries: list[DirEntry] | None = Field(None, description="a directory's entries")
    target: str | None = Field(None, description="a symlink's target")


class CodeHit(BaseModel):
    repo: str = Field(validation_alias=AliasPath("repository", "full_name"))
    path: str
    sha: str
    html_url: str
    fragments: Annotated[list[str], BeforeValidator(_fragments)] = Field(
        [], validation_alias="text_matches", description="matching text"
    )


class CommitSummary(BaseModel):
    sha: str
    title: Annotated[str, BeforeValidator(_first_line)] = Field(validation_alias=AliasPath("commit", "message"))
    author: str | None = Field(
        None, validation_alias=AliasChoices(AliasPath("author", "login"), AliasPath("commit", "author", "name"))
    )
    date: datetime | None = Field(None, validation_alias=AliasPath("commit", "author", "date"))
    html_url: str | None = None


class FileDiff(BaseModel):
    path: str = Field(validation_alias="filename")
    status: str = Field(description="added, removed, modified, renamed, copied, changed or unchanged")
    additions: int = 0
    deletions: int = 0
    previous_path: str | None = Field(None, validation_alias="previous_filename")
    patch: str | None = Field(None, description="unified diff; none for binary or very large files")
    patch_chars: int | None = Field(None, description="the whole patch's length")
    patch_next_offset: int | None = Field(None, description="more patch: call again with path and patch_offset")


class CommitDetail(BaseModel):
    sha: str
    message: str = Field(validation_alias=AliasPath("commit", "message"))
    author: str | None = Field(
        None, validation_alias=AliasChoices(AliasPath("author", "login"), AliasPath("commit", "author", "name"))
    )
    date: datetime | None = Field(None, validation_alias=AliasPath("commit", "author", "date"))
    parents: Names = []
    additions: int | None = Field(None, validation_alias=AliasPath("stats", "additions"))
    deletions: int | None = Field(None, validation_alias=AliasPath("stats", "deletions"))
    html_url: str | None = None
    files: list[FileDiff] = []
    next_cursor: str | None = Field(None, description="more files")


class Comparison(BaseModel):
    status: str = Field(description="ahead, behind, identical or diverged")
    ahead_by: int
    behind_by: int
    total_commits: int
    html_url: str | None = None
    commits: list[CommitSummary] = Field([], description="up to 50, oldest first")
    files: list[FileDiff] = []
    next_cursor: str | None = Field(None, description="more files")


class IssueSummary(BaseModel):
    number: int
    title: str
    state: str
    state_reason: str | None = None
    repo: Annotated[str | None, BeforeValidator(_repo_of)] = Field(None, validation_alias="repository_url")
    author: Login = Field(None, validation_alias="user")
    labels: Names = []
    assignees: Names = []
    comment_count: int = Field(0, validation_alias="comments")
    is_pull_request: Annotated[bool, BeforeValidator(lambda v: bool(v))] = Field(False, validation_alias="pull_request")
    html_url: str
    created_at: datetime | None = None
    updated_at: datetime | None = None
    closed_at: datetime | None = None


class Comment(BaseModel):
    id: int
    author: Login = Field(None, validation_alias="user")
    body: CommentBody = None
    created_at: datetime | None = None
    html_url: str | None = None


class IssueDetail(IssueSummary):
    body: Body = None
    milestone: str | None = Field(None, validation_alias=AliasPath("milestone", "title"))
    locked: bool = False
    thread: list[Comment] = Field([], description="comments, oldest first")
    next_cursor: str | None = Field(None, description="more comments")


class PullSummary(BaseModel):
    number: int
    title: str
    state: str
    draft: bool = False
    author: Login = Field(None, validation_alias="user")
    head: str = Field(validation_alias=AliasPath("head", "ref"))
    base: str = Field(validation_alias=AliasPath("base", "ref"))
    labels: Names = []
    html_url: str
    created_at: datetime | None = None
    updated_at: datetime | None = None
    merged_at: datetime | None = None


class PullDetail(PullSummary):
    body: Body = None
    head_sha: str | None = Field(None, validation_alias=AliasPath("head", "sha"))
    head_repo: str | None = Field(None, validation_alias=AliasPath("head", "repo", "full_name"))
    merged: bool | None = None
    mergeable: bool | None = Field(None, description="null while GitHub is still computing it")
    mergeable_state: str | None = None
    assignees: Names = []
    reviewers: Names = Field([], validation_alias="requested_reviewers")
    commits: int | None = None
    additions: int | None = None
    deletions: int | None = None
    changed_files: int | None = None
    comment_count: int | None = Field(None, validation_alias="comments")
    review_comment_count: int | None = Field(None, validation_alias="review_comments")
    closed_at: datetime | None = None
    files: list[FileDiff] = []
    next_cursor: str | None = Field(None, description="more files")


class Review(BaseModel):
    id: int
    state: str
    author: Login = Field(None, validation_alias="user")
    commit_id: str | None = None
    html_url: str
    submitted_at: datetime | None = None


class MergeResult(BaseModel):
    merged: bool
    sha: str
    message: str


class WorkflowRun(BaseModel):
    id: int
    name: str | None = None
    title: str | None = Field(None, validation_alias="display_title")
    status: str | None = None
    conclusion: str | None = None
    event: str
    branch: str | None = Field(None, validation_alias="head_branch")
    head_sha: str
    run_number: int
    attempt: int | None = Field(None, validation_alias="run_attempt")
    actor: str | None = Field(None, validation_alias=AliasPath("actor", "login"))
    html_url: str
    created_at: datetime
    updated_at: datetime


class Step(BaseModel):
    number: int
    name: str
    status: str
    conclusion: str | None = None


class Job(BaseModel):
    id: int
    run_id: int
    name: str
    status: str
    conclusion: str | None = None
    started_at: datetime | None = None
    completed_at: datetime | None = None
    html_url: str | None = None
    steps: list[Step] = []


class JobLog(BaseModel):
    job_id: int
    log: Clipped
    download_truncated: bool = Field(False, description="the log was larger than MCPist reads; its end is missing")


class Dispatched(BaseModel):
    workflow: str
    ref: str
    run_id: int | None = Field(None, description="absent when the server does not report it")
    html_url: str | None = None


class Notification(BaseModel):
    id: str
    repo: str = Field(validation_alias=AliasPath("repository", "full_name"))
    type: str = Field(validation_alias=AliasPath("subject", "type"), description="Issue, PullRequest, Release...")
    title: str = Field(validation_alias=AliasPath("subject", "title"))
    number: Annotated[int | None, BeforeValidator(_number_of)] = Field(
        None, validation_alias=AliasPath("subject", "url")
    )
    reason: str
    unread: bool
    updated_at: datetime


class MarkedRead(BaseModel):
    scope: str = Field(description="all, or the thread id")
    pending: bool = Field(description="GitHub finishes marking in the background")


class Release(BaseModel):
    id: int
    tag: str = Field(validation_alias="tag_name")
    name: str | None = None
    draft: bool = False
    prerelease: bool = False
    target: str | None = Field(None, validation_alias="target_commitish")
    author: Login = None
    body: Annotated[str | None, _cut(2000)] = None
    published_at: datetime | None = None
    html_url: str


class Written(BaseModel):
    branch: str
    commit_sha: str
    parent_sha: str
    html_url: str | None = None
    paths: list[str]


class Deleted(BaseModel):
    path: str
    commit_sha: str | None = None
    html_url: str | None = None
