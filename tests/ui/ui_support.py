"""The admin UI in process: a runtime with the demo modules and an OAuth service, users who sign in,
a browser-like HTTP client (cookie jar, CSRF tokens read from the pages), and an OAuth provider on a
loopback socket for the real browser."""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import httpx2
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from demo_module import demo, remote
from mcpist.auth.users import add_user
from mcpist.modules.api import Module, OAuth2Auth, ToolContext
from mcpist.runtime import Runtime
from mcpist.sieve import create_role, grant_role
from mcpist.web.app import create_app
from support import BASE, runtime

PASSWORD = "correct horse battery staple"
ADMIN = "admin@example.com"
ALICE = "alice@example.com"
COMMAND = ".venv/bin/mcpist"

calendar = Module(
    "calendar",
    summary="A service connected through OAuth",
    auth=OAuth2Auth(
        "https://provider.test/authorize",
        "https://provider.test/token",
        ("cal.read", "cal.write"),
        read_only_scopes=("cal.read",),
    ),
)


@calendar.tool(read_only=True)
async def agenda(ctx: ToolContext[Any]) -> dict[str, str]:
    """Today's agenda."""
    return {"account": ctx.account.name if ctx.account else ""}


MODULES = [demo, remote, calendar]


@dataclass
class Ui:
    rt: Runtime
    app: Starlette
    sessions: dict[str, dict[str, str]] = field(default_factory=dict)
    """Cookies of a signed-in browser per email, reused by `signed_in`."""


@asynccontextmanager
async def ui_app(data_dir: Path, **settings: Any) -> AsyncIterator[Ui]:
    """A started runtime and its app with the UI, lifespan entered (the UI's tables migrated)."""
    async with runtime(data_dir, MODULES, **settings) as rt:
        app = create_app(rt, command=COMMAND)
        async with app.router.lifespan_context(app):
            yield Ui(rt, app)


@asynccontextmanager
async def browser(ui: Ui, base: str = BASE, **headers: str) -> AsyncIterator[httpx2.AsyncClient]:
    async with httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=ui.app), base_url=base, headers=headers, timeout=30
    ) as client:
        yield client


async def people(rt: Runtime) -> None:
    """The admin (who took over the owner) and Alice, a plain user holding role `basic` (demo.echo, demo.add,
    remote.*)."""
    await add_user(rt.engine, ADMIN, "admin", PASSWORD)
    await add_user(rt.engine, ALICE, "user", PASSWORD)
    await create_role(rt.engine, "basic", ["demo.echo", "demo.add", "remote.*"], registry=rt.registry)
    await grant_role(rt.engine, ALICE, "basic")


def csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', html)
    assert found, html[:2000]
    return found.group(1)


async def sign_in(client: httpx2.AsyncClient, email: str, password: str = PASSWORD) -> httpx2.Response:
    page = await client.get("/login")
    response = await client.post(
        "/login", data={"csrf": csrf(page.text), "email": email, "password": password, "next": "/"}
    )
    return response


async def submit(client: httpx2.AsyncClient, page: str, action: str, data: dict[str, Any]) -> httpx2.Response:
    """Open `page`, then post `data` to `action` with the page's CSRF token, as the page's form would."""
    shown = await client.get(page)
    assert shown.status_code == 200, shown.text[:500]
    return await client.post(action, data={"csrf": csrf(shown.text), **data})


@asynccontextmanager
async def signed_in(ui: Ui, email: str, **headers: str) -> AsyncIterator[httpx2.AsyncClient]:
    async with browser(ui, **headers) as client:
        cached = ui.sessions.get(email)
        if cached is not None:
            client.cookies.update(cached)
        else:
            response = await sign_in(client, email)
            assert response.status_code == 303, response.text[:500]
            ui.sessions[email] = dict(client.cookies)
        yield client


@asynccontextmanager
async def shared_ui(data_dir: Path, **settings: Any) -> AsyncIterator[Ui]:
    """One app with its people for a whole test module: passwords are slow to hash and check on purpose,
    so each person signs in once and their browser's cookies are reused by every test."""
    async with ui_app(data_dir, **settings) as ui:
        await people(ui.rt)
        yield ui


class LoopbackProvider:
    """An OAuth 2 provider on a loopback socket, for the browser: `/authorize` consents at once (PKCE
    S256 required) and redirects back with a code; `/token` checks the client, the code and its verifier."""

    client_id = "loop-client"
    client_secret = "loop-client-secret"
    access_token = "LOOP-ACCESS-TOKEN-0451"

    def __init__(self) -> None:
        self.base = ""
        self.codes: dict[str, tuple[str, str]] = {}
        self.exchanged: list[str] = []

    async def authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("client_id") != self.client_id or q.get("code_challenge_method") != "S256":
            return JSONResponse({"error": "invalid_request"}, status_code=400)
        code = secrets.token_urlsafe(16)
        self.codes[code] = (q["code_challenge"], q["redirect_uri"])
        return RedirectResponse(f"{q['redirect_uri']}?{urlencode({'code': code, 'state': q['state']})}", 302)

    async def token(self, request: Request) -> Response:
        form = await request.form()
        found = self.codes.pop(str(form.get("code", "")), None)
        verifier = str(form.get("code_verifier", ""))
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        client_ok = (form.get("client_id"), form.get("client_secret")) == (self.client_id, self.client_secret)
        if found is None or found != (challenge, form.get("redirect_uri")) or not client_ok:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        self.exchanged.append(verifier)
        body = {"access_token": self.access_token, "token_type": "Bearer", "expires_in": 3600, "scope": "cal.read"}
        return JSONResponse(body)

    def module(self) -> Module:
        """A service whose provider is this one (made once the port is known)."""
        loopcal = Module(
            "loopcal",
            summary="A service whose OAuth provider runs on this machine",
            auth=OAuth2Auth(f"{self.base}/authorize", f"{self.base}/token", ("cal.read",)),
        )

        @loopcal.tool(read_only=True)
        async def today(ctx: ToolContext[Any]) -> dict[str, str]:
            """The account the call runs with."""
            return {"account": ctx.account.name if ctx.account else ""}

        return loopcal

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[LoopbackProvider]:
        app = Starlette(routes=[Route("/authorize", self.authorize), Route("/token", self.token, methods=["POST"])])
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(16)
        self.base = f"http://127.0.0.1:{sock.getsockname()[1]}"
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        async with anyio.create_task_group() as tg:
            tg.start_soon(server.serve, [sock])
            try:
                yield self
            finally:
                server.should_exit = True
