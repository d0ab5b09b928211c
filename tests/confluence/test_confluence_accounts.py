"""Where calls go: token accounts, OAuth grants with several sites, the site override; 401 and errors."""

from __future__ import annotations

import json

import pytest
from confluence_harness import Harness
from confluence_world import World, fakes

from mcpist.modules import Account, InvalidArgument, NotFound
from mcpist.modules.confluence import api, module
from mcpist.testing import FakeCredentials, tool_context

pytestmark = pytest.mark.anyio

SITES = [
    {"id": "cloud-1", "url": "https://acme.atlassian.net", "name": "acme"},
    {"id": "cloud-2", "url": "https://beta.atlassian.net", "name": "beta"},
]


def _oauth(sites: list[dict[str, str]]) -> Account:
    return Account(service="confluence", name="me", kind="oauth2", fields={"sites": json.dumps(sites)})


async def test_an_oauth_account_with_two_sites_chooses_by_site(world: World) -> None:
    v2, v1 = fakes(world, root="https://api.atlassian.com/ex/confluence/cloud-2")
    with v2, v1:
        harness = Harness(v2, v1, world, account=_oauth(SITES))
        page = await harness.call("get_page", page_id="200", site="beta")
        assert page.url == "https://beta.atlassian.net/wiki/spaces/ENG/pages/200/Plan"
        assert v2.requests[0].path == "/pages/200"  # matched under .../ex/confluence/cloud-2/wiki/api/v2
        by_url = await harness.call("get_page", page_id="200", site="https://beta.atlassian.net/")
        assert by_url.id == "200"
        with pytest.raises(InvalidArgument) as caught:
            await harness.call("get_page", page_id="200")
        assert "acme" in caught.value.message and "beta" in caught.value.message
        with pytest.raises(InvalidArgument):
            await harness.call("get_page", page_id="200", site="gamma")


async def test_an_oauth_account_with_one_site_needs_no_name(world: World) -> None:
    ctx = tool_context(module, credentials=FakeCredentials("t"), account=_oauth(SITES[:1]))
    assert api(ctx, None) == "/ex/confluence/cloud-1"
    await ctx.aclose()


async def test_a_token_account_without_a_site_is_told_how_to_add_one() -> None:
    ctx = tool_context(module, credentials=FakeCredentials("t"), account=Account(service="confluence", name="x"))
    with pytest.raises(InvalidArgument) as caught:
        api(ctx, None)
    assert "mcpist account add confluence --set site=" in caught.value.message
    await ctx.aclose()


async def test_site_override_sends_every_account_there(world: World) -> None:
    v2, v1 = fakes(world, root="https://wiki.internal.example")
    with v2, v1:
        harness = Harness(
            v2, v1, world, account=_oauth(SITES), settings={"site_override": "https://wiki.internal.example"}
        )
        page = await harness.call("get_page", page_id="200", site="beta")
        assert page.title == "Plan" and v2.requests[0].path == "/pages/200"  # under the override


async def test_a_401_is_refreshed_once(cf: Harness) -> None:
    cf.credentials = FakeCredentials("old", "new")
    cf.world.expire_once = True
    page = await cf.call("get_page", page_id="200")
    assert page.id == "200" and cf.credentials.refreshes == 1
    assert len(cf.v2.requests) == 2 and cf.v2.requests[-1].headers["authorization"] == "Bearer new"


async def test_a_missing_page_is_not_found(cf: Harness) -> None:
    with pytest.raises(NotFound) as caught:
        await cf.call("get_page", page_id="404")
    assert caught.value.data["status"] == 404 and caught.value.data["service"] == "confluence"


@pytest.mark.anyio
async def test_after_consent_the_sites_of_the_grant_are_kept() -> None:
    import json as _json

    import httpx

    from mcpist.modules import Account
    from mcpist.modules.confluence import module as confluence
    from mcpist.testing import FakeCredentials
    from mcpist.upstream import ServiceClient

    seen: list[httpx.Request] = []

    def gateway(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(
            200,
            json=[
                {"id": "c-1", "url": "https://acme.atlassian.net", "name": "acme", "scopes": [], "avatarUrl": ""},
                {"id": "c-2", "url": "https://beta.atlassian.net", "name": "beta", "scopes": [], "avatarUrl": ""},
            ],
        )

    assert confluence.connected is not None
    http = ServiceClient(
        "confluence",
        "https://api.atlassian.com",
        transport=httpx.MockTransport(gateway),
        credentials=FakeCredentials("t"),
    )
    async with http:
        fields = await confluence.connected(http, Account(service="confluence", name="cloud", kind="oauth2"))
    assert str(seen[0].url) == "https://api.atlassian.com/oauth/token/accessible-resources"
    assert [s["id"] for s in _json.loads(fields["sites"])] == ["c-1", "c-2"]


@pytest.mark.anyio
async def test_after_consent_a_grant_that_covers_no_site_is_refused() -> None:
    import httpx

    from mcpist.modules import Unauthenticated
    from mcpist.upstream import ServiceClient

    answers: list[object] = [[{"url": "https://broken.example"}, {"id": "c-3"}, "not a site"], {"not": "a list"}]
    http = ServiceClient(
        "confluence",
        "https://api.atlassian.com",
        transport=httpx.MockTransport(lambda request: httpx.Response(200, json=answers.pop(0))),
        credentials=FakeCredentials("t"),
    )
    assert module.connected is not None
    async with http:
        for _ in range(2):
            with pytest.raises(Unauthenticated, match="grant access to a Confluence site and connect again"):
                await module.connected(http, Account(service="confluence", name="cloud", kind="oauth2"))


@pytest.mark.anyio
async def test_after_consent_a_site_without_a_name_is_kept_with_an_empty_one() -> None:
    import json as _json

    import httpx

    from mcpist.upstream import ServiceClient

    http = ServiceClient(
        "confluence",
        "https://api.atlassian.com",
        transport=httpx.MockTransport(
            lambda request: httpx.Response(200, json=[{"id": "c-9", "url": "https://x.atlassian.net", "name": None}])
        ),
        credentials=FakeCredentials("t"),
    )
    assert module.connected is not None
    async with http:
        fields = await module.connected(http, Account(service="confluence", name="cloud", kind="oauth2"))
    assert _json.loads(fields["sites"]) == [{"id": "c-9", "url": "https://x.atlassian.net", "name": ""}]
