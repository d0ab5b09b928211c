"""Two Jira accounts on two sites in one batch, through a running MCPist: each task goes to its account's
site with its own credential (HTTP Basic email:token, built by the server), and no token reaches an answer."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from jira_world import fake_upstream, person

from mcpist.modules.jira import module
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio

SITES = {
    "acme.atlassian.net": ("me@acme.test", "ATATT-acme-1", "Acme Me"),
    "beta.atlassian.net": ("me@beta.test", "ATATT-beta-2", "Beta Me"),
}


def site_fake(host: str) -> Any:
    email, token, name = SITES[host]
    fake = fake_upstream(f"https://{host}")

    @fake.route("GET", "/rest/api/3/myself")
    def _myself(request: httpx.Request) -> Any:
        expected = "Basic " + base64.b64encode(f"{email}:{token}".encode()).decode()
        if request.headers.get("Authorization") != expected:
            return 401, {"errorMessages": ["Client must be authenticated to access this resource."], "errors": {}}
        return {**person(name, f"id-{host[:4]}"), "timeZone": "Asia/Tokyo"}

    return fake


class BySite(httpx.AsyncBaseTransport):
    def __init__(self, fakes: dict[str, Any]) -> None:
        self.transports = {host: fake.transport() for host, fake in fakes.items()}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self.transports[request.url.host].handle_async_request(request)


async def test_one_batch_two_accounts_on_two_sites(tmp_path: Path) -> None:
    fakes = {host: site_fake(host) for host in SITES}
    async with running([module], tmp_path, upstream=BySite(fakes)) as rt:
        broker: Any = rt.accounts
        for (host, (email, token, _)), name in zip(SITES.items(), ("acme", "beta"), strict=True):
            await broker.accounts.put(
                service="jira",
                name=name,
                kind="api_key",
                secrets={"api_key": token},
                user_id=rt.owner.id,
                fields={"site": f"https://{host}", "email": email},
            )
        async with in_process_client(rt) as client:
            tasks = "\n".join(
                json.dumps({"id": n, "module": "jira", "tool": "get_myself", "account": n, "output": True})
                for n in ("acme", "beta")
            )
            result = await client.call_tool("batch", {"tasks": tasks})
    for fake in fakes.values():
        fake.assert_clean()
    assert not result.is_error, result.content
    body = result.structured_content
    assert "Acme Me" in json.dumps(body["results"]["acme"]) and "Beta Me" not in json.dumps(body["results"]["acme"])
    assert "Beta Me" in json.dumps(body["results"]["beta"])
    assert "ATATT" not in json.dumps(body)
