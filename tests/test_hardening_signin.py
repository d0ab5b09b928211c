"""Sign-in limits slow guessing without locking out who knows the password; forwarded headers only from proxies."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from mcpist.auth.users import set_password
from mcpist.config import AuthSettings
from mcpist.protocol.serving import uvicorn_config
from mcpist.runtime import Runtime
from oauth_support import PASSWORD, FakeClock, compose_app, csrf, pkce, query, register, start
from support import BASE, runtime

pytestmark = pytest.mark.anyio

OWNER = "owner@localhost"


@asynccontextmanager
async def browser_at(app: Starlette, address: str) -> AsyncIterator[httpx2.AsyncClient]:
    """A browser (own cookie jar) at a client address."""
    transport = httpx2.ASGITransport(app=app, client=(address, 40000))
    async with httpx2.AsyncClient(transport=transport, base_url=BASE, timeout=30) as client:
        yield client


async def request_id(http: httpx2.AsyncClient) -> str:
    client = await register(http)
    _, challenge = pkce()
    return query((await start(http, client["client_id"], challenge)).headers["location"])["request"]


async def sign_in(http: httpx2.AsyncClient, email: str, password: str) -> httpx2.Response:
    page = await http.get("/oauth/login")
    return await http.post("/oauth/login", data={"email": email, "password": password, "csrf": csrf(page.text)})


@asynccontextmanager
async def app_for(rt: Runtime, auth: AuthSettings, clock: FakeClock) -> AsyncIterator[Starlette]:
    app = compose_app(rt, auth, clock)
    async with app.router.lifespan_context(app):
        yield app


async def test_failures_back_off_per_address_and_email_doubling(tmp_path: Path) -> None:
    clock = FakeClock()
    auth = AuthSettings(login_max_failures=2, login_backoff_s=2, login_window_s=900)
    async with runtime(tmp_path) as rt, app_for(rt, auth, clock) as app, browser_at(app, "10.0.0.66") as guesser:
        await set_password(rt.engine, OWNER, PASSWORD)
        for _ in range(2):
            assert (await sign_in(guesser, OWNER, "guess")).status_code == 403
        waits = []
        for _ in range(3):
            refused = await sign_in(guesser, OWNER, "guess")
            assert refused.status_code == 429
            waits.append(int(refused.headers["retry-after"]))
            clock.advance(waits[-1])
            assert (await sign_in(guesser, OWNER, "guess")).status_code == 403
        assert waits == [2, 4, 8]


async def test_someone_guessing_from_elsewhere_never_slows_the_owner(tmp_path: Path) -> None:
    clock = FakeClock()
    auth = AuthSettings(login_max_failures=3, login_max_failures_per_ip=1000)
    async with (
        runtime(tmp_path) as rt,
        app_for(rt, auth, clock) as app,
        browser_at(app, "10.0.0.66") as attacker,
        browser_at(app, "10.0.0.1") as owner,
    ):
        await set_password(rt.engine, OWNER, PASSWORD)
        for _ in range(50):
            await sign_in(attacker, OWNER, "guess")
        assert (await sign_in(attacker, OWNER, PASSWORD)).status_code == 429  # right, but refused: it taught nothing
        assert (await sign_in(owner, OWNER, PASSWORD)).status_code == 200


async def test_one_address_has_a_ceiling_but_a_browser_that_signed_in_before_is_counted_apart(tmp_path: Path) -> None:
    clock = FakeClock()
    auth = AuthSettings(login_max_failures=100, login_max_failures_per_ip=4, login_window_s=600)
    async with (
        runtime(tmp_path) as rt,
        app_for(rt, auth, clock) as app,
        browser_at(app, "192.168.1.20") as owner,
        browser_at(app, "192.168.1.20") as sprayer,  # the same address: a shared NAT, or loopback
    ):
        await set_password(rt.engine, OWNER, PASSWORD)
        assert (await sign_in(owner, OWNER, PASSWORD)).status_code == 200  # this browser is now known
        for n in range(4):
            assert (await sign_in(sprayer, f"user{n}@example.com", "guess")).status_code == 403
        refused = await sign_in(sprayer, OWNER, PASSWORD)
        assert refused.status_code == 429
        assert refused.headers["retry-after"] == "600"
        assert (await sign_in(owner, OWNER, PASSWORD)).status_code == 200
        # the known browser's own mistakes back off on their own key
        for _ in range(3):
            assert (await sign_in(owner, OWNER, "typo")).status_code == 403
        assert (await sign_in(owner, OWNER, PASSWORD)).status_code == 200


async def test_a_device_cookie_is_bound_to_its_email(tmp_path: Path) -> None:
    clock = FakeClock()
    auth = AuthSettings(login_max_failures=1, login_max_failures_per_ip=1000)
    async with runtime(tmp_path) as rt, app_for(rt, auth, clock) as app, browser_at(app, "10.0.0.1") as http:
        await set_password(rt.engine, OWNER, PASSWORD)
        assert (await sign_in(http, OWNER, PASSWORD)).status_code == 200
        assert (await sign_in(http, "bob@example.com", "guess")).status_code == 403
        assert (await sign_in(http, "bob@example.com", "guess")).status_code == 429


# forwarded headers


@asynccontextmanager
async def serve(rt: Runtime) -> AsyncIterator[str]:
    """The app under `mcpist serve`'s uvicorn configuration, with a route echoing the client address."""

    async def whoami(request: Request) -> PlainTextResponse:
        return PlainTextResponse(f"{request.client.host if request.client else '-'} {request.url.scheme}")

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    rt.settings = rt.settings.model_copy(update={"port": port})
    app = compose_app(rt, AuthSettings())
    app.router.routes.insert(0, Route("/whoami", whoami))
    server = uvicorn.Server(uvicorn_config(app, rt.settings, log_level="warning"))
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            server.should_exit = True


FORWARDING = [([], "127.0.0.1 http"), (["10.0.0.0/8"], "127.0.0.1 http"), (["127.0.0.1"], "203.0.113.9 https")]


@pytest.mark.parametrize(("proxies", "seen"), FORWARDING)
async def test_forwarded_headers_count_only_from_trusted_proxies(tmp_path: Path, proxies: list[str], seen: str) -> None:
    async with runtime(tmp_path, trusted_proxies=proxies) as rt, serve(rt) as url:
        forwarded = {"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "https"}
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.get(f"{url}/whoami", headers=forwarded)
        assert response.text == seen


def test_trusted_proxies_must_be_addresses(tmp_path: Path) -> None:
    from mcpist.config import load_settings
    from mcpist.errors import ConfigError

    assert load_settings(data_dir=tmp_path, trusted_proxies=["10.0.0.0/8", " ::1 "]).trusted_proxies == [
        "10.0.0.0/8",
        "::1",
    ]
    with pytest.raises(ConfigError, match="trusted_proxies"):
        load_settings(data_dir=tmp_path, trusted_proxies=["proxy.internal"])
