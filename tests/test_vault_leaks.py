"""Known secrets, every path exercised, then the database files and every log line are scanned:
no secret appears in plaintext anywhere."""

from __future__ import annotations

import base64
import io
import logging
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError

from mcpist.errors import MCPistError
from mcpist.vault import TamperedRecord
from mcpist.vault.cli import account_add, account_list, app_register, format_accounts, rotate_key
from mcpist.vault.tables import accounts
from support import mcp_client
from vault_support import (
    CLIENT_ID,
    add_user,
    admin_of,
    browser_connect,
    dump_database,
    fast_settings,
    relative,
    vault_env,
    web_client,
)

pytestmark = pytest.mark.anyio

API_KEY = "APIKEY-7f3a9c1e55b2d4"
PASTED_KEY = "PASTEDKEY-0b8e6d2c4a91"
SHARED_KEY = "SHAREDKEY-c5d1e9a3f7b0"


class Everything(logging.Handler):
    """Every record of every logger, formatted with its traceback."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.setFormatter(logging.Formatter("%(levelname)s %(name)s %(message)s"))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))
        if record.args:
            self.lines.append(repr(record.args))


@contextmanager
def capture_all_logs() -> Iterator[Everything]:
    handler = Everything()
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def read_files(data_dir: Path) -> tuple[bytes, bytes]:
    """The SQLite database files (main, WAL, shared memory) and the master key."""
    files = b"".join(p.read_bytes() for p in sorted(data_dir.iterdir()) if p.name.startswith("mcpist.db"))
    return files, (data_dir / "master.key").read_bytes()


async def test_no_secret_in_the_database_or_the_logs(tmp_path: Path, database_url: str) -> None:
    errors: list[str] = []
    outputs: list[str] = []
    with capture_all_logs() as logs:
        async with vault_env(tmp_path, database_url, register_app=False) as env, web_client(env) as browser:
            settings = fast_settings()
            me = env.owner
            # an admin registers the OAuth app; keys added from the CLI, for a user and for a role
            await app_register(admin_of(env), "gh", CLIENT_ID, env.provider.client_secret)
            await account_add(admin_of(env), "remote", API_KEY, name="cli")
            await account_add(admin_of(env), "remote", SHARED_KEY, name="team", role="dev")
            other = await add_user(env.rt.engine, "other@example.com")

            async with mcp_client(env.rt) as client:
                # type B through URL elicitation and the browser
                try:
                    await client.call_tool("call", {"module": "gh", "tool_name": "whoami", "account": "work"})
                except MCPError as exc:
                    url = UrlElicitationRequiredError.from_error(exc.error).elicitations[0].url
                assert (await browser_connect(browser, env.provider, url)).status_code == 200
                ok = await client.call_tool("call", {"module": "gh", "tool_name": "whoami", "account": "work"})
                outputs.append(str(ok.structured_content))

                # type A through the pasted-key form
                try:
                    await client.call_tool("call", {"module": "remote", "tool_name": "whoami", "account": "pasted"})
                except MCPError as exc:
                    url = UrlElicitationRequiredError.from_error(exc.error).elicitations[0].url
                form = relative(url)
                t = form.split("t=", 1)[1]
                page = await browser.post("/connect/remote", data={"t": t, "secret": PASTED_KEY})
                outputs.append(page.text)

            # refresh (with transient failures logged), then a rejected refresh token
            async with env.rt.engine.begin() as conn:
                await conn.execute(accounts.update().where(accounts.c.service == "gh").values(expires_at=None))
            await env.seed_oauth(me.user_id, "expiring", expires_in=-1)
            env.provider.failures = [503, None]
            outputs.append(str(await env.rt.execute(me, "gh", "whoami", {}, account="expiring")))
            await env.seed_oauth(me.user_id, "revoked", expires_in=-1)
            env.provider.refresh_tokens.clear()
            for name in ("revoked", "revoked"):
                try:
                    await env.rt.execute(me, "gh", "whoami", {}, account=name)
                except MCPistError as exc:
                    errors.append(repr(exc) + str(exc.to_dict()))
            # a wrong client secret, and another user asking for these accounts
            await env.seed_oauth(me.user_id, "misconfigured", expires_in=-1)
            await env.broker.apps.put("gh", CLIENT_ID, "WRONG-CLIENT-SECRET-9d1c")
            try:
                await env.rt.execute(me, "gh", "whoami", {}, account="misconfigured")
            except MCPistError as exc:
                errors.append(repr(exc) + str(exc.to_dict()))
            await env.broker.apps.put("gh", CLIENT_ID, env.provider.client_secret)
            try:
                await env.rt.execute(type(me)(other), "remote", "whoami", {}, account="cli")
            except MCPistError as exc:
                errors.append(repr(exc))
            # an abandoned flow keeps its PKCE verifier (sealed) until it expires
            start = await browser.get(relative(await env.broker.connector.begin(me.user_id, "gh", "later")))
            assert start.status_code == 302

            # a tampered record, a rotation, and listings
            async with env.rt.engine.begin() as conn:
                row = (await conn.execute(accounts.select().where(accounts.c.name == "cli"))).one()
                broken = bytes(row.ciphertext[:-1]) + bytes([row.ciphertext[-1] ^ 1])
                await conn.execute(accounts.update().where(accounts.c.id == row.id).values(ciphertext=broken))
            with pytest.raises(TamperedRecord) as tampered:
                await env.rt.execute(me, "remote", "whoami", {}, account="cli")
            errors.append("".join(traceback.format_exception(tampered.value)))
            report = await rotate_key(env.rt.engine, tmp_path, settings)
            assert report.remaining == {}
            outputs.append(format_accounts(await account_list(admin_of(env), everyone=True)))
            outputs.append(repr(await account_list(admin_of(env), everyone=True)))
            outputs.append(repr(env.broker.keys.keyring()))

            database = await dump_database(env.rt.engine)
            known = [
                API_KEY,
                PASTED_KEY,
                SHARED_KEY,
                env.provider.client_secret,
                "WRONG-CLIENT-SECRET-9d1c",
                *env.provider.issued,
                *env.provider.verifiers,
            ]
    assert len(env.provider.issued) >= 8 and len(env.provider.verifiers) == 1

    files, kek = read_files(tmp_path)
    if database_url.startswith("sqlite"):
        assert len(files) > 10_000
    texts = {"logs": "\n".join(logs.lines), "errors": "\n".join(errors), "outputs": "\n".join(outputs)}
    assert "refreshed account gh:expiring" in texts["logs"] and "try 1/3" in texts["logs"]
    for secret in known:
        raw = secret.encode()
        assert raw not in files, f"{secret[:8]}... in the database file"
        assert raw not in database, f"{secret[:8]}... in a database row"
        for where, text in texts.items():
            assert secret not in text, f"{secret[:8]}... in {where}"
    for encoded in (kek.hex(), base64.b64encode(kek).decode()):
        assert all(encoded not in text for text in texts.values())
    assert kek not in files


def test_account_repr_hides_the_secret() -> None:
    from mcpist.modules.api import Account, ApiKeyAuth, ResolvedAccount
    from mcpist.vault.credentials import VaultCredentials
    from mcpist.vault.oauth import TokenResponse

    async def never(*args: object) -> None:
        raise AssertionError("not called")

    credentials = VaultCredentials(ApiKeyAuth(), API_KEY, {}, refresh=never, rejected=never)  # type: ignore[arg-type]
    assert API_KEY not in repr(credentials)
    assert API_KEY not in repr(ResolvedAccount(Account("s", "n"), credentials))
    assert API_KEY not in repr(TokenResponse(API_KEY, API_KEY, None, None))
    out = io.StringIO()
    print(ResolvedAccount(Account("s", "n"), credentials), credentials, file=out)
    assert API_KEY not in out.getvalue()
