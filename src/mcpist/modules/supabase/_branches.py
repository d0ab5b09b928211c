"""Database branches of a project: list them; create, update or delete one."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from mcpist.modules import NotFound

from ._common import SERVICE, Project, api, invalid, seg, target
from ._models import Branch, Branches, BranchResult
from ._module import Ctx, module

BranchName = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9._/-]*$")]


async def _branches(ctx: Ctx, ref: str) -> list[Branch]:
    return ctx.http.parse(list[Branch], await ctx.http.get_json(api(ref, "/branches")))


@module.tool(read_only=True)
async def list_branches(ctx: Ctx, project: Project = None) -> Branches:
    """The project's database branches: name, own project ref, git branch, status, persistence."""
    ref = target(ctx, project)
    return Branches(project=ref, branches=(await _branches(ctx, ref))[:100])


@module.tool(destructive=True)
async def manage_branch(
    ctx: Ctx,
    action: Annotated[Literal["create", "update", "delete"], Field(description="what to do with the branch")],
    branch: Annotated[BranchName, Field(description="the branch's name (create: the new branch's name)")],
    project: Project = None,
    new_name: Annotated[BranchName | None, Field(description="update: rename the branch")] = None,
    git_branch: Annotated[
        str | None, Field(min_length=1, max_length=255, description="the git branch it follows")
    ] = None,
    persistent: Annotated[bool | None, Field(description="keep it rather than deleting it when merged")] = None,
    with_data: Annotated[bool | None, Field(description="create: copy the parent's data")] = None,
) -> BranchResult:
    """Create a database branch of the project, or update or delete one of its branches by name."""
    ref = target(ctx, project)
    if action == "create":
        body: dict[str, Any] = {"branch_name": branch}
        for name, value in (("git_branch", git_branch), ("persistent", persistent), ("with_data", with_data)):
            if value is not None:
                body[name] = value
        created = ctx.http.parse(Branch, await ctx.http.post_json(api(ref, "/branches"), body))
        return BranchResult(project=ref, action=action, branch=created)
    # a branch is addressed by its id: finding it among this project's branches keeps the call inside the project
    found = next((b for b in await _branches(ctx, ref) if b.name == branch), None)
    if found is None:
        raise NotFound(f"{SERVICE}: project {ref} has no branch named {branch!r}", {"service": SERVICE})
    if action == "delete":
        if found.is_default:
            raise invalid(f"{branch!r} is the project's default branch and cannot be deleted", field="branch")
        await ctx.http.request("DELETE", f"/v1/branches/{seg(found.id)}")
        return BranchResult(project=ref, action=action, deleted=found.name)
    changes: dict[str, Any] = {}
    for name, value in (("branch_name", new_name), ("git_branch", git_branch), ("persistent", persistent)):
        if value is not None:
            changes[name] = value
    if not changes:
        raise invalid("update: give new_name, git_branch or persistent", field="action")
    updated = ctx.http.parse(Branch, await ctx.http.patch_json(f"/v1/branches/{seg(found.id)}", changes))
    return BranchResult(project=ref, action=action, branch=updated)
