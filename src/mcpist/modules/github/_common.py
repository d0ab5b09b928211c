"""What every group of tools shares: parameter types, URL building, paging and GitHub-specific error wording."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Annotated, Any, Generic, TypeVar
from urllib.parse import quote

from pydantic import AfterValidator, Field

from mcpist.modules import Conflict, InvalidArgument, NotFound
from mcpist.upstream import Page, collect, link_next

from ._module import Ctx

T = TypeVar("T")

SERVICE = "github"
# GitHub's own default page: a small `limit` still fetches this many, so that a cursor that asks for more later
# does not walk the upstream in tiny pages
PER_PAGE = 30


def _check_ref(value: str) -> str:
    # git itself refuses these (git-check-ref-format), and ".." would climb out of a URL path
    if ".." in value or "//" in value or "@{" in value or value.startswith(("/", "-")) or value.endswith(("/", ".")):
        raise ValueError("not a valid git ref name")
    return value


def _check_path(value: str) -> str:
    parts = value.split("/")
    if any(part in ("", ".", "..") for part in parts) or any(ord(c) < 32 for c in value):
        raise ValueError("a repository path: segments joined by '/', no leading or trailing '/', no '.' or '..'")
    return value


OWNER_PATTERN = r"^[A-Za-z0-9_-]+$"
REPO_PATTERN = r"^[A-Za-z0-9_.-]+$"
Owner = Annotated[str, Field(max_length=100, pattern=OWNER_PATTERN, description="user or org login")]
Repo = Annotated[str, Field(max_length=100, pattern=REPO_PATTERN, description="repo name")]
Number = Annotated[int, Field(ge=1, description="issue or pull request number")]
Ref = Annotated[
    str,
    Field(min_length=1, max_length=255, pattern=r"^[^\s~^:?*\[\\]+$", description="branch, tag or commit SHA"),
    AfterValidator(_check_ref),
]
BranchName = Annotated[
    str,
    Field(min_length=1, max_length=255, pattern=r"^[^\s~^:?*\[\\]+$", description="branch name"),
    AfterValidator(_check_ref),
]
FilePath = Annotated[
    str,
    Field(min_length=1, max_length=1024, description="path in the repository, e.g. src/app.py"),
    AfterValidator(_check_path),
]
Query = Annotated[str, Field(min_length=1, max_length=256, description="GitHub search syntax")]
PatchChars = Annotated[int, Field(ge=0, le=20_000, description="characters of each patch to show; 0 omits patches")]
PatchOffset = Annotated[int, Field(ge=0, description="with `path`: where that file's patch continues")]


def seg(value: str | int) -> str:
    """One URL path segment, percent-encoded ('/' too, as GitHub's own clients send refs).

    Raises:
        InvalidArgument: an empty, '.' or '..' segment, which would change the URL's path.
    """
    text = str(value)
    if text in ("", ".", ".."):
        raise InvalidArgument(f"{SERVICE}: {text!r} cannot be part of a URL path", {"service": SERVICE})
    return quote(text, safe="")


def slashed(path: str) -> str:
    """A repository file path for `/contents/{path}`, whose slashes GitHub reads literally."""
    return "/".join(seg(part) for part in path.split("/"))


def is_repo(owner: str, repo: str) -> bool:
    """What the schema checks of `owner` and `repo`, for a resource URI that reaches a function unchecked."""
    shaped = re.fullmatch(OWNER_PATTERN, owner) and re.fullmatch(REPO_PATTERN, repo)
    return bool(shaped) and repo not in (".", "..") and len(owner) <= 100 and len(repo) <= 100


def repo_url(owner: str, repo: str, *rest: str) -> str:
    """`/repos/{owner}/{repo}/...`; the caller encodes variable parts of `rest` with `seg`."""
    return "/".join((f"/repos/{seg(owner)}/{seg(repo)}", *rest))


@contextmanager
def not_found(what: str) -> Iterator[None]:
    """GitHub answers 404 both for what does not exist and for what the token may not see: say both."""
    try:
        yield
    except NotFound as exc:
        if exc.data.get("status") != 404:
            raise  # not GitHub's answer, but a tool's own finding
        raise NotFound(f"{SERVICE}: {what} not found, or the account cannot see it", exc.data) from None


@contextmanager
def conflict_if_exists() -> Iterator[None]:
    """GitHub refuses a duplicate (branch, pull request, release tag) with a 422; it is a conflict."""
    try:
        yield
    except InvalidArgument as exc:
        # "Reference already exists", or a validation error's code `already_exists`
        if "already exist" in exc.message.lower().replace("_", " "):
            raise Conflict(exc.message, exc.data) from None
        raise


class SearchPage(Page[T], Generic[T]):
    total_count: int | None = Field(None, description="matches in all; GitHub serves the first 1000")


async def paged(
    ctx: Ctx,
    path: str,
    item: type[T],
    *,
    limit: int,
    cursor: str | None,
    params: Mapping[str, Any] | None = None,
    key: str | None = None,
    per_page: int | None = None,
    keep: Callable[[T], bool] | None = None,
    headers: Mapping[str, str] | None = None,
) -> tuple[Page[T], int | None]:
    """Up to `limit` items of a GitHub list, following its `Link: rel="next"`; the total when the body has one.

    Pages are `max(limit, 30)` items unless `per_page` says otherwise. `key` names the array in an enveloped
    body (`items` for search, `workflow_runs` for Actions); `keep` drops items, e.g. pull requests from issues.

    Raises:
        MCPistError: the mapped upstream status; InvalidArgument for a cursor this tool did not make.
    """
    total: list[int | None] = [None]

    async def fetch(url: str | None) -> tuple[list[T], str | None]:
        first = None if url else {**(params or {}), "per_page": per_page or max(limit, PER_PAGE)}
        response = await ctx.http.request("GET", url or path, params=first, headers=headers)
        body = ctx.http.json(response)
        if key is not None:
            envelope = ctx.http.parse(dict[str, Any], body)
            count = envelope.get("total_count")
            total[0] = count if isinstance(count, int) else None
            body = envelope.get(key)
        items = ctx.http.parse_list(item, body)
        return [i for i in items if keep is None or keep(i)], link_next(response)

    page = await collect(fetch, limit, cursor=cursor, service=SERVICE)
    return page, total[0]


def iso(when: datetime | None) -> str | None:
    """An RFC 3339 time as GitHub writes them; a time without a zone is taken as UTC."""
    if when is None:
        return None
    when = when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def drop_none(**values: Any) -> dict[str, Any]:
    """The request parameters that were given."""
    return {name: value for name, value in values.items() if value is not None}


_SHA = re.compile(r"^[0-9a-f]{40}$")


def is_sha(value: str) -> bool:
    return bool(_SHA.fullmatch(value))
