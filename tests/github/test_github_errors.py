"""How GitHub's failures reach the caller, and accounts on GitHub Enterprise Server."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from github_fake import paginate, repository, user
from github_world import fake_upstream

from mcpist.modules import Account, InvalidArgument, NotFound, ResolvedAccount, Unauthenticated, Unavailable
from mcpist.modules.github import GitHubSettings, module
from mcpist.runtime import service_client
from mcpist.testing import FakeCredentials, RecordedSleep, tool_context

pytestmark = pytest.mark.anyio

get_me = module.tools["get_me"].fn
search_issues = module.tools["search_issues"].fn
list_repositories = module.tools["list_repositories"].fn


async def test_a_401_is_refreshed_once_and_the_call_goes_on() -> None:
    with fake_upstream() as fake:

        @fake.route("GET", "/user")
        def _me(request: httpx.Request) -> Any:
            if request.headers["Authorization"] != "Bearer new":
                return 401, {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
            return user()

        credentials = FakeCredentials("old", "new")
        me = await get_me(tool_context(module, transport=fake.transport(), credentials=credentials))
        assert me.login == "octocat" and credentials.refreshes == 1 and len(fake.requests) == 2
        with pytest.raises(Unauthenticated):
            await get_me(tool_context(module, transport=fake.transport(), credentials=FakeCredentials("revoked")))


def _rate_limited(reset_in: float) -> tuple[int, Any, dict[str, str]]:
    headers = {"x-ratelimit-limit": "5000", "x-ratelimit-remaining": "0"}
    headers["x-ratelimit-reset"] = str(int(time.time() + reset_in))
    return 403, {"message": "API rate limit exceeded for user ID 1."}, headers


async def test_a_rate_limit_is_unavailable_with_the_wait() -> None:
    with fake_upstream() as fake:
        fake.route("GET", "/user")(lambda request: _rate_limited(3600))
        sleep = RecordedSleep()
        ctx = tool_context(module, transport=fake.transport(), credentials=FakeCredentials("t"), sleep=sleep)
        with pytest.raises(Unavailable, match="github is rate limiting requests; retry in") as caught:
            await get_me(ctx)
        assert 3500 < caught.value.data["retry_after_s"] <= 3600 and caught.value.data["status"] == 403
        assert sleep.waits == []  # an hour is past the call's deadline: no wait, an answer


async def test_a_short_rate_limit_is_waited_out() -> None:
    answers = iter([_rate_limited(2)])
    with fake_upstream() as fake:
        fake.route("GET", "/user")(lambda request: next(answers, None) or user())
        sleep = RecordedSleep()
        ctx = tool_context(module, transport=fake.transport(), credentials=FakeCredentials("t"), sleep=sleep)
        assert (await get_me(ctx)).login == "octocat"
        assert len(sleep.waits) == 1 and 0 < sleep.waits[0] <= 2


async def test_a_404_is_not_found_and_a_422_carries_githubs_message() -> None:
    with fake_upstream() as fake:

        @fake.route("GET", "/search/issues")
        def _search(request: httpx.Request) -> Any:
            error = {
                "message": "Query must include 'is:issue' or 'is:pull-request'",
                "resource": "Search",
                "code": "invalid",
            }
            return 422, {"message": "Validation Failed", "errors": [error]}

        @fake.route("GET", "/orgs/{org}/repos")
        def _org(request: httpx.Request, org: str) -> Any:
            return 404, {"message": "Not Found"}

        @fake.route("GET", "/users/{username}/repos")
        def _user(request: httpx.Request, username: str) -> Any:
            return 404, {"message": "Not Found"}

        ctx = tool_context(module, transport=fake.transport(), credentials=FakeCredentials("t"))
        with pytest.raises(InvalidArgument, match="Validation Failed; Query must include 'is:issue'") as caught:
            await search_issues(ctx, query="crash", limit=5, cursor=None)
        assert caught.value.data == {"service": "github", "status": 422}
        with pytest.raises(NotFound, match="user or organization ghost not found, or the account cannot see it"):
            await list_repositories(ctx, owner="ghost", limit=5, cursor=None)


ENTERPRISE = Account(service="github", name="ent", fields={"base_url": "https://ghe.test/api/v3/"})


async def test_an_enterprise_account_sends_to_its_own_api_root_and_pages_there() -> None:
    with fake_upstream("https://ghe.test/api/v3") as fake:

        @fake.route("GET", "/user/repos")
        def _repos(request: httpx.Request) -> Any:
            return (200, *paginate(request, [repository(f"r{i}") for i in range(40)]))

        ctx = tool_context(module, transport=fake.transport(), credentials=FakeCredentials("ghe"), account=ENTERPRISE)
        first = await list_repositories(ctx, limit=30, cursor=None)
        rest = await list_repositories(ctx, limit=30, cursor=first.next_cursor)
        assert len(first.items) + len(rest.items) == 40
        assert {str(r.headers["host"]) for r in fake.requests} == {"ghe.test"}
        assert [r.path for r in fake.requests] == ["/user/repos", "/user/repos"]


def test_the_server_and_the_module_agree_on_an_enterprise_root() -> None:
    settings = GitHubSettings()
    assert module.base_url_for is not None
    assert module.base_url_for(settings, ENTERPRISE) == "https://ghe.test/api/v3"
    assert module.base_url_for(settings, Account(service="github", name="cloud")) == "https://api.github.com"
    resolved = ResolvedAccount(ENTERPRISE, FakeCredentials("ghe"))
    client = service_client(
        module, settings, httpx.MockTransport(lambda r: httpx.Response(200)), resolved, user_agent="t"
    )
    assert client.base_url == "https://ghe.test/api/v3"


async def test_a_cursor_of_another_host_is_refused_before_anything_is_sent() -> None:
    with fake_upstream("https://ghe.test/api/v3") as ghe:

        @ghe.route("GET", "/user/repos")
        def _repos(request: httpx.Request) -> Any:
            return (200, *paginate(request, [repository(f"r{i}") for i in range(40)]))

        ctx = tool_context(module, transport=ghe.transport(), credentials=FakeCredentials("ghe"), account=ENTERPRISE)
        cursor = (await list_repositories(ctx, limit=30, cursor=None)).next_cursor
    cloud = tool_context(
        module, transport=httpx.MockTransport(lambda r: httpx.Response(500)), credentials=FakeCredentials("c")
    )
    with pytest.raises(Unavailable, match="pointed to another host"):
        await list_repositories(cloud, limit=30, cursor=cursor)
