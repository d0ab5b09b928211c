"""`mcpist serve`'s HTTP server: slow clients are cut off, and no secret reaches a log line.

Every test here runs the app under `serve`'s uvicorn configuration and records each secret it uses;
the module's fixture captures every log record of the whole module run and fails if one holds any.
"""

from __future__ import annotations

import logging
import secrets
import socket
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx2
import pytest
import uvicorn

from mcpist.auth.users import set_password
from mcpist.config import AuthSettings
from mcpist.protocol.connections import HttpImpl, timed_protocol
from mcpist.runtime import Runtime
from oauth_support import PASSWORD, compose_app, consent, exchange, pkce, query, refresh, register, sign_in, start
from support import new_token, runtime

pytestmark = pytest.mark.anyio

OWNER = "owner@localhost"
SECRETS: set[str] = set()
"""Every secret a test of this module used."""


class Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record) + (f"\n{record.exc_text}" if record.exc_text else ""))


CAPTURE = Capture()


@pytest.fixture(scope="module", autouse=True)
def no_secret_in_any_log() -> Iterator[None]:
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(CAPTURE)
    try:
        yield
    finally:
        root.removeHandler(CAPTURE)
        root.setLevel(level)
        logging.getLogger("uvicorn.access").removeHandler(CAPTURE)
    text = "\n".join(CAPTURE.lines)
    assert "GET /mcp?access_token=[redacted]" in text, "the access log was not captured"
    leaked = [line for line in CAPTURE.lines if any(s in line for s in SECRETS)]
    assert not leaked, f"secrets in the logs: {leaked[:3]}"


def secret(value: str | None = None) -> str:
    value = value or secrets.token_urlsafe(16)
    SECRETS.add(value)
    return value


@asynccontextmanager
async def serve(
    rt: Runtime, auth: AuthSettings | None = None, impl: HttpImpl = "auto"
) -> AsyncIterator[tuple[str, int]]:
    """The app under `serve`'s configuration (access log on) on parser `impl`; yields its root URL and port."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    port = sock.getsockname()[1]
    rt.settings = rt.settings.model_copy(update={"port": port})
    from mcpist.protocol.serving import uvicorn_config

    limits = rt.settings.limits
    http = timed_protocol(limits.header_timeout_s, limits.body_timeout_s, limits.max_header_bytes, impl)
    config = uvicorn_config(compose_app(rt, auth or AuthSettings()), rt.settings, log_level="info", http=http)
    # uvicorn's own access handler writes to stdout; this one sees the same records, after the same filter
    if rt.settings.access_log == "all":
        logging.getLogger("uvicorn.access").addHandler(CAPTURE)
    server = uvicorn.Server(config)
    async with anyio.create_task_group() as tg:
        tg.start_soon(server.serve, [sock])
        try:
            yield f"http://127.0.0.1:{port}", port
        finally:
            server.should_exit = True


SLOW = {"header_timeout_s": 0.5, "body_timeout_s": 0.5}


@asynccontextmanager
async def slow_connection(tmp_path: Path, impl: HttpImpl) -> AsyncIterator[tuple[str, anyio.abc.SocketStream]]:
    """A server with short read deadlines on parser `impl`, and a raw connection to it."""
    async with (
        runtime(tmp_path, limits=SLOW) as rt,
        serve(rt, impl=impl) as (url, port),
        await anyio.connect_tcp("127.0.0.1", port) as stream,
    ):
        yield url, stream


async def closed_by_server(stream: anyio.abc.ByteStream) -> bytes:
    """What the server sent before closing the connection (waits at most 5 s)."""
    received = b""
    with anyio.fail_after(5):
        while True:
            try:
                received += await stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return received


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_a_client_that_never_finishes_its_headers_is_cut_off(tmp_path: Path, impl: HttpImpl) -> None:
    async with slow_connection(tmp_path, impl) as (url, stream):
        await stream.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1")
        assert await closed_by_server(stream) == b""
        async with httpx2.AsyncClient(timeout=10) as http:
            assert (await http.get(f"{url}/health")).status_code == 200


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_trickling_header_bytes_does_not_extend_the_deadline(tmp_path: Path, impl: HttpImpl) -> None:
    async with slow_connection(tmp_path, impl) as (_, stream):
        await stream.send(b"GET /health HTTP/1.1\r\n")
        closed = False
        with anyio.fail_after(5):
            while not closed:
                try:
                    await stream.send(b"X")
                except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                    break
                with anyio.move_on_after(0.05):  # waits for the close, one byte at a time
                    try:
                        await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError):
                        closed = True


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_a_client_that_never_finishes_its_body_is_cut_off(tmp_path: Path, impl: HttpImpl) -> None:
    async with slow_connection(tmp_path, impl) as (_, stream):
        head = b"POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        head += b"Content-Length: 100\r\n\r\n"
        await stream.send(head + b'{"redirect_uris":')
        answer = await closed_by_server(stream)
        assert b"201" not in answer.split(b"\r\n", 1)[0]


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_a_body_gets_the_body_deadline_once_the_headers_are_in(tmp_path: Path, impl: HttpImpl) -> None:
    limits = {"header_timeout_s": 0.3, "body_timeout_s": 5.0}
    async with (
        runtime(tmp_path, limits=limits) as rt,
        serve(rt, impl=impl) as (_, port),
        await anyio.connect_tcp("127.0.0.1", port) as stream,
    ):
        body = b'{"redirect_uris": ["http://127.0.0.1:9/cb"], "client_name": "slow body"}'
        head = b"POST /register HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        await stream.send(head + b"Content-Length: %d\r\n\r\n" % len(body) + body[:10])
        await anyio.sleep(0.9)  # three header deadlines, well within the body's
        await stream.send(body[10:])
        with anyio.fail_after(5):
            answer = await stream.receive()
        assert answer.split(b"\r\n", 1)[0].startswith(b"HTTP/1.1 201"), answer[:200]


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_a_kept_alive_connection_still_has_a_header_deadline(tmp_path: Path, impl: HttpImpl) -> None:
    async with slow_connection(tmp_path, impl) as (_, stream):
        await stream.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        with anyio.fail_after(5):
            first = await stream.receive()
        assert first.startswith(b"HTTP/1.1 200")
        await stream.send(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        await closed_by_server(stream)


@pytest.mark.parametrize("impl", ["httptools", "h11"])
async def test_oversized_headers_are_refused(tmp_path: Path, impl: HttpImpl) -> None:
    async with runtime(tmp_path, limits={"max_header_bytes": 2048}) as rt, serve(rt, impl=impl) as (url, _):
        async with httpx2.AsyncClient(timeout=10) as http:
            response = await http.get(f"{url}/health", headers={"X-Big": "x" * 4096})
        assert response.status_code == 431


@pytest.mark.parametrize("mode", ["summary", "all"])
async def test_secrets_in_query_strings_are_redacted_from_the_access_log(tmp_path: Path, mode: str) -> None:
    async with runtime(tmp_path, access_log=mode) as rt, serve(rt) as (url, _):
        token = secret(await new_token(rt))
        values = {name: secret() for name in ("code", "state", "client_secret", "refresh_token", "password")}
        async with httpx2.AsyncClient(timeout=10) as http:
            assert (await http.get(f"{url}/mcp", params={"access_token": token})).status_code == 401
            assert (await http.get(f"{url}/authorize", params=values)).status_code == 400
            assert (await http.get(f"{url}/health", params={"STATE": secret()})).status_code == 200
    lines = [line for line in CAPTURE.lines if "/authorize?" in line]
    assert lines, CAPTURE.lines[-20:]
    for name in values:
        assert f"{name}=[redacted]" in lines[-1]
    health = [line for line in CAPTURE.lines if '"GET /health?' in line]  # the server's lines, not the client's
    # a line per request in `all`; in `summary` a successful request is only counted
    assert bool(health) == (mode == "all"), health
    if health:
        assert "STATE=[redacted]" in health[-1]


async def test_a_whole_oauth_flow_leaves_no_secret_in_the_logs(tmp_path: Path) -> None:
    password = secret(PASSWORD + secrets.token_hex(4))
    async with runtime(tmp_path) as rt, serve(rt) as (url, _):
        await set_password(rt.engine, OWNER, password)
        async with httpx2.AsyncClient(base_url=url, timeout=30) as http:
            client = await register(http, token_endpoint_auth_method="client_secret_post")
            secret(client["client_secret"])
            verifier, challenge = pkce()
            state = secret()
            started = await start(http, client["client_id"], challenge, state=state, resource=f"{url}/mcp")
            request_id = secret(query(started.headers["location"])["request"])
            assert (await sign_in(http, request_id, OWNER, password)).status_code == 303
            location = (await consent(http, request_id)).headers["location"]
            code = secret(query(location)["code"])
            assert query(location)["state"] == state
            tokens = await exchange(
                http, client["client_id"], code, secret(verifier), client_secret=client["client_secret"]
            )
            assert tokens.status_code == 200, tokens.text
            access, refresh_token = secret(tokens.json()["access_token"]), secret(tokens.json()["refresh_token"])
            mcp = await http.post(
                "/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"Authorization": f"Bearer {access}", "Accept": "application/json, text/event-stream"},
            )
            assert mcp.status_code in (200, 400)
            renewed = await http.post(
                "/token",
                data={
                    "grant_type": "refresh_token",
                    "refresh_token": refresh_token,
                    "client_id": client["client_id"],
                    "client_secret": client["client_secret"],
                },
            )
            assert renewed.status_code == 200
            secret(renewed.json()["access_token"])
            secret(renewed.json()["refresh_token"])
            # a replayed refresh token is refused (and logged as such, without the token)
            assert (await refresh(http, client["client_id"], refresh_token)).status_code in (400, 401)
