"""MCP resources: a repository's README, an issue and a pull request, as Markdown."""

from __future__ import annotations

import base64
import binascii

from pydantic import BaseModel

from mcpist.modules import InvalidArgument, Unavailable

from ._common import SERVICE, is_repo, not_found, repo_url
from ._issues import get_issue
from ._markdown import render_issue, render_pull
from ._module import Ctx, module
from ._pulls import get_pull_request

MAX_README_CHARS = 100_000


class _Readme(BaseModel):
    content: str = ""
    encoding: str | None = None


def _checked(owner: str, repo: str, number: str | None = None) -> int:
    if not is_repo(owner, repo):
        raise InvalidArgument(f"{SERVICE}: {owner}/{repo} is not a repository name", {"service": SERVICE})
    if number is None:
        return 0
    if not (number.isascii() and number.isdigit() and 0 < int(number) < 2**31):
        raise InvalidArgument(f"{SERVICE}: {number!r} is not an issue number", {"service": SERVICE})
    return int(number)


@module.resource(
    "github://repos/{owner}/{repo}/readme", tool="get_file_contents", name="readme", mime_type="text/markdown"
)
async def readme(ctx: Ctx, owner: str, repo: str) -> str:
    """A repository's README on its default branch."""
    _checked(owner, repo)
    with not_found(f"a README in {owner}/{repo}"):
        found = ctx.http.parse(_Readme, await ctx.http.get_json(repo_url(owner, repo, "readme")))
    try:
        raw = base64.b64decode(found.content) if found.encoding == "base64" else found.content.encode()
    except (binascii.Error, ValueError):
        raise Unavailable(f"{SERVICE} answered a README that is not valid base64", {"service": SERVICE}) from None
    text = raw.decode("utf-8-sig", "replace")
    if len(text) > MAX_README_CHARS:
        text = text[:MAX_README_CHARS] + f"\n\n…[cut: {MAX_README_CHARS} of {len(text)} characters shown]\n"
    return text


@module.resource(
    "github://repos/{owner}/{repo}/issues/{number}", tool="get_issue", name="issue", mime_type="text/markdown"
)
async def issue(ctx: Ctx, owner: str, repo: str, number: str) -> str:
    """An issue with its first comments."""
    found = await get_issue(ctx, owner=owner, repo=repo, issue_number=_checked(owner, repo, number), limit=20)
    return render_issue(found)


@module.resource(
    "github://repos/{owner}/{repo}/pulls/{number}", tool="get_pull_request", name="pull", mime_type="text/markdown"
)
async def pull(ctx: Ctx, owner: str, repo: str, number: str) -> str:
    """A pull request with its first changed files and their patches."""
    found = await get_pull_request(
        ctx, owner=owner, repo=repo, pr_number=_checked(owner, repo, number), limit=30, max_patch_chars=3000
    )
    return render_pull(found)
