"""The `account`, `app` and `vault` commands, parsed as the CLI will parse them and run in process."""

from __future__ import annotations

import argparse
import base64
import io
from pathlib import Path

import pytest

from mcpist.errors import InvalidArgument, NotFound
from mcpist.vault import NoOAuthApp
from mcpist.vault.cli import add_parsers, read_secret, run
from vault_support import CLIENT_ID, Env, add_user, admin_of, browser_connect, vault_env, web_client

pytestmark = pytest.mark.anyio


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mcpist")
    sub = p.add_subparsers(dest="command", required=True)
    add_parsers(sub, lambda cmd: cmd.add_argument("--data-dir", type=Path))
    return p


async def cli(env: Env, *argv: str, stdin: str = "") -> str:
    out = io.StringIO()
    await run(parser().parse_args(list(argv)), admin_of(env), io.StringIO(stdin), out)
    return out.getvalue()


async def test_accounts_from_the_command_line_never_show_secrets(tmp_path: Path) -> None:
    async with vault_env(tmp_path, register_app=False) as env, web_client(env) as browser:
        out = await cli(env, "account", "add", "remote", "--name", "work", "--token-stdin", stdin="CLI-KEY-1\n")
        assert "remote:work" in out and "CLI-KEY-1" not in out
        await add_user(env.rt.engine, "b@example.com")
        out = await cli(env, "account", "add", "remote", "--user", "b@example.com", "--token-stdin", stdin="B-KEY")
        assert "user:b@example.com" in out
        out = await cli(env, "account", "add", "remote", "--name", "team", "--role", "dev", "--token-stdin", stdin="T")
        assert "role:dev" in out

        with pytest.raises(NoOAuthApp, match="register"):
            await cli(env, "account", "connect", "gh", "--name", "work")
        out = await cli(env, "app", "register", "gh", "--client-id", CLIENT_ID, "--client-secret-stdin",
                        stdin=env.provider.client_secret + "\n")  # fmt: skip
        assert out.strip().splitlines()[-1] == f"{env.rt.settings.base_url}/connect/gh/callback"
        assert env.provider.client_secret not in out
        out = await cli(env, "app", "list")
        assert CLIENT_ID in out and env.provider.client_secret not in out

        out = await cli(env, "account", "connect", "gh", "--name", "work")
        url = out.strip().splitlines()[-1]
        assert url.startswith(f"{env.rt.settings.base_url}/connect/gh?t=")
        assert (await browser_connect(browser, env.provider, url)).status_code == 200

        listing = await cli(env, "account", "list")
        lines = listing.splitlines()
        assert lines[0].split() == ["ACCOUNT", "OWNER", "KIND", "ACCESS", "STATUS", "EXPIRES", "(UTC)", "FIELDS"]
        assert any(line.startswith("gh:work") and "oauth2" in line and "connected" in line for line in lines)
        assert any(line.startswith("remote:team") and "role:dev" in line for line in lines)
        assert not any("b@example.com" in line for line in lines)  # another user's account
        everyone = await cli(env, "account", "list", "--all")
        assert "b@example.com" in everyone
        for secret in ("CLI-KEY-1", "B-KEY", *env.provider.issued):
            assert secret not in listing + everyone

        assert "Removed" in await cli(env, "account", "remove", "remote", "--name", "work")
        with pytest.raises(NotFound):
            await cli(env, "account", "remove", "remote", "--name", "work")
        with pytest.raises(NotFound, match="no service"):
            await cli(env, "account", "add", "nope", "--token-stdin", stdin="x")
        with pytest.raises(NotFound, match="no user"):
            await cli(env, "account", "add", "remote", "--user", "x@example.com", "--token-stdin", stdin="x")
        with pytest.raises(InvalidArgument, match="API keys"):
            await cli(env, "app", "register", "remote", "--client-id", "c")
        assert "Removed" in await cli(env, "app", "remove", "gh")


async def test_vault_key_commands(tmp_path: Path) -> None:
    async with vault_env(tmp_path) as env:
        await cli(env, "account", "add", "remote", "--token-stdin", stdin="K")
        status = await cli(env, "vault", "status")
        active = status.splitlines()[0].split()[-1]
        assert "retired keys: (none)" in status and f"{active}: 2 records" in status
        rotated = await cli(env, "vault", "rotate-key")
        assert f"key {active} moved to the keyring file" in rotated and "Re-wrapped 2 records" in rotated
        assert "Re-wrapped 0 records" in await cli(env, "vault", "rewrap")
        assert f"Forgot 1 retired keys: {active}" in await cli(env, "vault", "prune-keys")
        assert "No unused retired keys" in await cli(env, "vault", "prune-keys")
        status = await cli(env, "vault", "status")
        assert active not in status
        master = (tmp_path / "master.key").read_bytes()
        assert master.hex() not in status + rotated


def test_read_secret_takes_one_line() -> None:
    assert read_secret(io.StringIO("  abc \nignored\n")) == "abc"
    for bad in ("", "\n", "x" * 9000):
        with pytest.raises(InvalidArgument):
            read_secret(io.StringIO(bad))


def test_token_stdin_is_required_so_no_secret_lands_in_shell_history() -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(["account", "add", "remote"])


async def test_account_fields_are_set_checked_and_used_for_the_credential(tmp_path: Path) -> None:
    async with vault_env(tmp_path, register_app=False) as env:
        with pytest.raises(InvalidArgument, match=r"atl accounts need site \(--set site=\.\.\.\)"):
            await cli(env, "account", "add", "atl", "--token-stdin", stdin="K")
        with pytest.raises(InvalidArgument, match="atl accounts have no field 'colour'; fields: email, site"):
            await cli(
                env, "account", "add", "atl", "--set", "site=https://a.test", "--set", "colour=red", "--token-stdin"
            )
        with pytest.raises(InvalidArgument, match="field 'site' must match"):
            await cli(env, "account", "add", "atl", "--set", "site=ftp://a.test", "--token-stdin", stdin="K")
        with pytest.raises(InvalidArgument, match="--set takes NAME=VALUE"):
            await cli(env, "account", "add", "atl", "--set", "site", "--token-stdin", stdin="K")
        out = await cli(
            env,
            "account", "add", "atl", "--name", "cloud",
            "--set", "site=https://acme.atl.test", "--set", "email=me@acme.test",
            "--token-stdin", stdin="API-TOKEN",
        )  # fmt: skip
        assert "atl:cloud" in out and "API-TOKEN" not in out
        await cli(
            env, "account", "add", "atl", "--name", "dc", "--set", "site=https://dc.test", "--token-stdin", stdin="PAT"
        )
        atl = env.module("atl")
        cloud = await env.broker.resolve(env.owner, atl, "cloud")
        dc = await env.broker.resolve(env.owner, atl, "dc")
        assert cloud is not None and dc is not None
        assert cloud.account.fields == {"email": "me@acme.test", "site": "https://acme.atl.test"}
        basic = base64.b64encode(b"me@acme.test:API-TOKEN").decode()
        assert (await cloud.credentials.current()).headers == {"Authorization": f"Basic {basic}"}
        assert (await dc.credentials.current()).headers == {"Authorization": "Bearer PAT"}
        listing = await cli(env, "account", "list")
        assert "site=https://acme.atl.test" in listing and "API-TOKEN" not in listing


def test_an_oauth_module_may_take_keys_with_basic_authentication() -> None:
    from mcpist.modules.api import OAuth2Auth
    from mcpist.vault.credentials import credential_for

    auth = OAuth2Auth(authorize_url="https://a.test/authorize", token_url="https://a.test/t", basic_user_field="email")
    basic = base64.b64encode(b"me@a.test:KEY").decode()
    assert credential_for(auth, "KEY", {"email": "me@a.test"}).headers == {"Authorization": f"Basic {basic}"}
    assert credential_for(auth, "ACCESS", {}).headers == {"Authorization": "Bearer ACCESS"}
