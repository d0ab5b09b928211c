"""Where calls go: a token account's site, OAuth accounts' sites through the gateway, the override; refresh."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from jira_harness import WORK, Harness
from jira_world import World, fake_upstream

from mcpist.modules import Account, InvalidArgument, Unauthenticated
from mcpist.modules.jira import module
from mcpist.testing import FakeCredentials, tool_context

pytestmark = pytest.mark.anyio
GATEWAY = "https://api.atlassian.com"
SITES = [
    {"id": "c1d2-aaaa", "url": "https://acme.atlassian.net", "name": "acme"},
    {"id": "c1d2-bbbb", "url": "https://beta.atlassian.net", "name": "beta"},
]


def oauth(sites: list[dict[str, str]]) -> Account:
    return Account(service="jira", name="me", kind="oauth2", fields={"sites": json.dumps(sites)})


class ByPrefix(httpx.AsyncBaseTransport):
    """One fake a cloud id, as the gateway routes `/ex/jira/{cloudId}/...`."""

    def __init__(self, routes: dict[str, httpx.AsyncBaseTransport]) -> None:
        self.routes = routes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        cloud = request.url.path.split("/")[3]
        return await self.routes[cloud].handle_async_request(request)


async def test_an_oauth_account_with_two_sites_chooses_by_site() -> None:
    fakes = {s["id"]: fake_upstream(f"{GATEWAY}/ex/jira/{s['id']}") for s in SITES}
    for fake in fakes.values():
        World().install(fake)
    transport = ByPrefix({k: f.transport() for k, f in fakes.items()})
    tools = module.tools

    def ctx() -> Any:
        return tool_context(module, transport=transport, credentials=FakeCredentials("at"), account=oauth(SITES))

    with pytest.raises(InvalidArgument, match="several sites; pass `site`, one of acme, beta"):
        await tools["get_myself"].fn(ctx(), site=None)
    for choice in ("beta", "https://beta.atlassian.net/", "c1d2-bbbb"):
        c = ctx()
        found = await tools["get_issue"].fn(c, key="PROJ-7", comments=0, site=choice)
        await c.aclose()
        assert found.url == "https://beta.atlassian.net/browse/PROJ-7"
    assert len(fakes["c1d2-bbbb"].requests) == 3 and fakes["c1d2-aaaa"].requests == []
    with pytest.raises(InvalidArgument, match="no site 'gamma'"):
        await tools["get_myself"].fn(ctx(), site="gamma")
    only = tool_context(module, transport=transport, credentials=FakeCredentials("at"), account=oauth(SITES[:1]))
    assert (await tools["get_myself"].fn(only)).account_id == "me-1"  # one site: no need to name it
    await only.aclose()
    for fake in fakes.values():
        fake.assert_clean()


async def test_site_override_sends_every_account_there() -> None:
    fake = fake_upstream("https://jira.internal.example")
    World().install(fake)
    dc = Account(service="jira", name="dc", fields={})  # a Data Center PAT: no email, no site
    ctx = tool_context(
        module,
        transport=fake.transport(),
        credentials=FakeCredentials("pat"),
        account=dc,
        settings={"site_override": "https://jira.internal.example"},
    )
    found = await module.tools["search_issues"].fn(ctx, jql="project = PROJ", limit=1)
    await ctx.aclose()
    assert found.items[0].url == "https://jira.internal.example/browse/PROJ-1"
    assert fake.requests[0].headers["authorization"] == "Bearer pat"
    fake.assert_clean()


async def test_a_token_account_without_a_site_is_told_how_to_add_one() -> None:
    ctx = tool_context(module, credentials=FakeCredentials("t"), account=Account(service="jira", name="x"))
    with pytest.raises(InvalidArgument, match="mcpist account add jira --set site="):
        await module.tools["get_myself"].fn(ctx)


async def test_a_401_is_refreshed_once(jira: Harness) -> None:
    answers = iter([httpx.Response(401), None])
    inner = jira.fake.transport()

    class Once(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            answer = next(answers)
            return answer if answer is not None else await inner.handle_async_request(request)

    credentials = FakeCredentials("old", "new")
    ctx = tool_context(module, transport=Once(), credentials=credentials, account=WORK)
    assert (await module.tools["get_myself"].fn(ctx)).account_id == "me-1"
    await ctx.aclose()
    assert credentials.refreshes == 1
    ctx = tool_context(
        module,
        transport=httpx.MockTransport(lambda r: httpx.Response(401)),
        credentials=FakeCredentials("old", "new"),
        account=WORK,
    )
    with pytest.raises(Unauthenticated):
        await module.tools["get_myself"].fn(ctx)
    await ctx.aclose()


async def test_after_consent_the_sites_of_the_grant_are_kept_and_a_grant_without_one_is_refused() -> None:
    from mcpist.upstream import ServiceClient

    answers: list[Any] = [
        [
            {"id": "c-1", "url": "https://acme.atlassian.net", "name": "acme", "scopes": []},
            {"id": "c-2", "url": "https://beta.atlassian.net", "scopes": []},  # no name: still a site
            {"url": "https://broken.example"},  # no id: not one
        ],
        [],
    ]
    seen: list[httpx.Request] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answers.pop(0))

    assert module.connected is not None
    http = ServiceClient(
        "jira", "https://api.atlassian.com", transport=httpx.MockTransport(gateway), credentials=FakeCredentials("t")
    )
    async with http:
        fields = await module.connected(http, Account(service="jira", name="cloud", kind="oauth2"))
        assert str(seen[0].url) == "https://api.atlassian.com/oauth/token/accessible-resources"
        assert json.loads(fields["sites"]) == [
            {"id": "c-1", "url": "https://acme.atlassian.net", "name": "acme"},
            {"id": "c-2", "url": "https://beta.atlassian.net", "name": ""},
        ]
        with pytest.raises(Unauthenticated, match="covers no site"):
            await module.connected(http, Account(service="jira", name="cloud", kind="oauth2"))
