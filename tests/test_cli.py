"""The command line, called in process through `mcpist.cli.main`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcpist.cli import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_token_create_prints_token_alone_on_last_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "token", "create", "--name", "laptop", "--data-dir", str(tmp_path))
    assert code == 0
    token = out.strip().splitlines()[-1]
    assert token.startswith("mcpist_") and " " not in token and len(token) > 40
    assert token not in (tmp_path / "mcpist.db").read_bytes().decode("latin-1")

    code, out, _ = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 0
    assert "laptop" in out and "active" in out and token not in out

    code, _, err = run(capsys, "token", "create", "--name", "laptop", "--data-dir", str(tmp_path))
    assert code == 1 and "already exists" in err

    code, out, _ = run(capsys, "token", "revoke", "laptop", "--data-dir", str(tmp_path))
    assert code == 0 and "Revoked" in out
    code, out, _ = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert "revoked" in out

    code, _, err = run(capsys, "token", "revoke", "laptop", "--data-dir", str(tmp_path))
    assert code == 1 and "no active token named 'laptop'" in err


def test_token_name_is_validated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "token", "create", "--name", "bad name!", "--data-dir", str(tmp_path))
    assert code == 1 and "invalid token name" in err


def test_bad_setting_stops_with_one_message_naming_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPIST_BATCH__MAX_CONCURRENCY", "0")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2
    assert err.strip().count("\n") == 0
    assert "batch.max_concurrency" in err and "MCPIST_BATCH__MAX_CONCURRENCY" in err


def test_unknown_toml_setting_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mcpist.toml").write_text("prot = 1\n[batch]\nmax_tasks = 5\n", encoding="utf-8")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "unknown setting 'prot'" in err


def test_bad_database_url(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPIST_DATABASE_URL", "mysql://x@localhost/db")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "database_url" in err


def test_unknown_module_in_settings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCPIST_MODULES__DISABLED", '["nosuch"]')
    code, _, err = run(capsys, "modules", "--data-dir", str(tmp_path))
    assert code == 2 and "nosuch" in err


def test_modules_lists_tools_with_sizes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "modules", "--json", "--data-dir", str(tmp_path))
    assert code == 0
    rows = json.loads(out)
    assert {"module": "context", "tool": "add_turn"}.items() <= next(r for r in rows if r["tool"] == "add_turn").items()
    assert all(r["bytes"] > 0 and r["tokens"] == (r["bytes"] + 3) // 4 for r in rows)
    code, out, _ = run(capsys, "modules", "--data-dir", str(tmp_path))
    assert "context —" in out and "bytes" in out


def test_master_key_readable_by_others_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "token", "list", "--data-dir", str(tmp_path))[0] == 0
    (tmp_path / "master.key").chmod(0o644)
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "chmod 600" in err


def test_bad_module_setting_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "mcpist.toml").write_text("[modules.settings.context]\nbogus = 1\n", encoding="utf-8")
    code, _, err = run(capsys, "token", "list", "--data-dir", str(tmp_path))
    assert code == 2 and "modules.settings.context.bogus" in err


def test_user_add_list_passwd(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    d = str(tmp_path)
    assert run(capsys, "role", "create", "reader", "--allow-read", "context", "--data-dir", d)[0] == 0
    code, out, _ = run(capsys, "user", "add", "ada@example.com", "--data-dir", d)
    assert code == 0 and "Added admin ada@example.com" in out  # the first user takes over the owner
    monkeypatch.setattr("sys.stdin", io.StringIO("correct horse battery staple\n"))
    code, out, _ = run(
        capsys, "user", "add", "bob@example.com", "--role", "reader", "--password-stdin", "--data-dir", d
    )
    assert code == 0 and "Added user bob@example.com with roles reader." in out
    code, out, _ = run(capsys, "user", "list", "--data-dir", d)
    bob = next(line for line in out.splitlines() if line.startswith("bob@"))
    assert "user" in bob and "yes" in bob and "reader" in bob
    ada = next(line for line in out.splitlines() if line.startswith("ada@"))
    assert "admin" in ada and "no " in ada
    code, _, err = run(capsys, "user", "add", "bob@example.com", "--data-dir", d)
    assert code == 1 and "exists" in err
    monkeypatch.setattr("sys.stdin", io.StringIO("another long passphrase\n"))
    code, out, _ = run(capsys, "user", "passwd", "ada@example.com", "--data-dir", d)
    assert code == 0 and "Password set for ada@example.com." in out
    assert "correct horse" not in (tmp_path / "mcpist.db").read_bytes().decode("latin-1")


def test_memory_export_import_reembed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "in.jsonl"
    source.write_text(
        '{"type": "header", "format": "mcpist-memory", "version": 1, "namespace": "notes"}\n'
        '{"type": "memo", "memo_id": "0b9e2a52-55c8-4d7a-9c37-1c2f2bd1e8a1", "title": "t",'
        ' "content": "提出期限は金曜日", "metadata": {"k": 1}}\n',
        encoding="utf-8",
    )
    d = str(tmp_path / "data")
    code, out, _ = run(capsys, "memory", "import", str(source), "--data-dir", d)
    assert code == 0 and "Imported 1 new" in out
    exported = tmp_path / "out.jsonl"
    code, out, _ = run(capsys, "memory", "export", "--namespace", "notes", "--output", str(exported), "--data-dir", d)
    assert code == 0 and "Exported 1 memos" in out
    lines = [json.loads(line) for line in exported.read_text(encoding="utf-8").splitlines()]
    assert lines[1]["content"] == "提出期限は金曜日" and lines[1]["metadata"] == {"k": 1}
    code, out, _ = run(capsys, "memory", "reembed", "--all", "--data-dir", d)
    assert code == 0 and "Re-embedded 1 memos" in out
    code, _, err = run(capsys, "memory", "import", str(tmp_path / "missing.jsonl"), "--data-dir", d)
    assert code == 1 and "No such file or directory" in err and "missing.jsonl" in err


def test_user_disable_enable_and_system_role_do_what_the_ui_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = str(tmp_path)
    assert run(capsys, "role", "create", "reader", "--allow-read", "context", "--data-dir", d)[0] == 0
    assert run(capsys, "user", "add", "ada@example.com", "--data-dir", d)[0] == 0  # the owner
    assert run(capsys, "user", "add", "bob@example.com", "--role", "reader", "--data-dir", d)[0] == 0
    assert run(capsys, "token", "create", "--name", "bobs", "--user", "bob@example.com", "--data-dir", d)[0] == 0

    code, out, _ = run(capsys, "user", "disable", "bob@example.com", "--data-dir", d)
    assert code == 0 and "Disabled bob@example.com; roles taken (kept to give back): reader." in out
    code, out, _ = run(capsys, "user", "list", "--data-dir", d)
    bob = next(line for line in out.splitlines() if line.startswith("bob@"))
    assert "disabled" in bob and "reader" not in bob
    _, out, _ = run(capsys, "token", "list", "--data-dir", d)
    assert "revoked" in next(line for line in out.splitlines() if line.startswith("bobs"))
    # a second disable keeps the roles the first one took
    assert run(capsys, "user", "disable", "bob@example.com", "--data-dir", d)[0] == 0
    code, out, _ = run(capsys, "user", "enable", "bob@example.com", "--data-dir", d)
    assert code == 0 and "Enabled bob@example.com with roles reader." in out
    _, out, _ = run(capsys, "user", "list", "--data-dir", d)
    bob = next(line for line in out.splitlines() if line.startswith("bob@"))
    assert "active" in bob and "reader" in bob

    code, out, _ = run(capsys, "user", "system-role", "bob@example.com", "admin", "--data-dir", d)
    assert code == 0 and "bob@example.com is now an admin." in out
    _, out, _ = run(capsys, "user", "list", "--data-dir", d)
    assert "admin" in next(line for line in out.splitlines() if line.startswith("bob@"))

    code, _, err = run(capsys, "user", "disable", "ada@example.com", "--data-dir", d)
    assert code == 1 and "owner cannot be disabled" in err
    code, _, err = run(capsys, "user", "system-role", "ada@example.com", "user", "--data-dir", d)
    assert code == 1 and "owner is always an admin" in err
    code, _, err = run(capsys, "user", "enable", "nobody@example.com", "--data-dir", d)
    assert code == 1 and "no user with email 'nobody@example.com'" in err


def test_modules_off_and_on_for_everyone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from sqlalchemy.ext.asyncio import create_async_engine

    from mcpist.sieve import list_disabled_modules

    d = str(tmp_path)

    async def disabled() -> frozenset[str]:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'mcpist.db'}")
        try:
            return await list_disabled_modules(engine)
        finally:
            await engine.dispose()

    code, out, _ = run(capsys, "modules", "--data-dir", d, "off", "context")  # options before the action too
    assert code == 0 and "Module 'context' is off for everyone" in out
    assert asyncio.run(disabled()) == {"context"}
    code, out, _ = run(capsys, "modules", "off", "context", "--data-dir", d)
    assert code == 0 and "was already off" in out
    code, out, _ = run(capsys, "modules", "on", "context", "--data-dir", d)
    assert code == 0 and "Module 'context' is on for everyone" in out
    assert asyncio.run(disabled()) == frozenset()
    code, _, err = run(capsys, "modules", "off", "nosuch", "--data-dir", d)
    assert code == 1 and "no module named 'nosuch' is loaded" in err
    code, out, _ = run(capsys, "modules", "--data-dir", d)  # without an action: the listing, as before
    assert code == 0 and "context" in out


def test_role_update_replaces_the_patterns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = str(tmp_path)
    created = run(
        capsys, "role", "create", "notes", "--allow", "memory.search", "--description", "Notes", "--data-dir", d
    )
    assert created[0] == 0
    code, out, _ = run(
        capsys, "role", "update", "notes", "--allow-read", "memory", "--deny", "memory.search", "--data-dir", d
    )
    assert code == 0 and "Updated role 'notes'" in out
    _, out, _ = run(capsys, "role", "list", "--data-dir", d)
    notes = out.split("notes", 1)[1].splitlines()
    assert "Notes" in notes[0]  # the description is kept when not given
    assert notes[1:3] == ["  allow: memory.@read", "  deny:  memory.search"]
    code, _, err = run(capsys, "role", "update", "notes", "--allow", "nosuch.tool", "--data-dir", d)
    assert code == 1 and "nosuch" in err
    code, _, err = run(capsys, "role", "update", "ghost", "--allow", "memory.search", "--data-dir", d)
    assert code == 1 and "no role named 'ghost'" in err


def test_calls_lists_the_audit_newest_first_and_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio
    from datetime import UTC, datetime, timedelta

    from sqlalchemy.ext.asyncio import create_async_engine

    from mcpist.observe import tool_calls

    d = str(tmp_path)
    code, out, _ = run(capsys, "calls", "--data-dir", d)
    assert code == 0 and "No tool calls recorded." in out
    base = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
    rows = [
        {"at": base + timedelta(minutes=i), "user_id": None, "token_id": None, "module": module, "tool": tool,
         "account": None, "via": "call", "outcome": outcome, "duration_ms": 5 + i, "request_id": f"r{i}"}
        for i, (module, tool, outcome) in enumerate(
            [("memory", "search", "ok"), ("context", "add_turn", "INVALID_ARGUMENT"), ("memory", "save", "ok")]
        )
    ]  # fmt: skip

    async def seed() -> None:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'mcpist.db'}")
        async with engine.begin() as conn:
            await conn.execute(tool_calls.insert(), rows)
        await engine.dispose()

    asyncio.run(seed())
    _, out, _ = run(capsys, "calls", "--data-dir", d)
    lines = out.splitlines()
    assert lines[0].startswith("AT (UTC)") and [line.split()[3] for line in lines[1:]] == [
        "memory.save", "context.add_turn", "memory.search",
    ]  # fmt: skip
    _, out, _ = run(capsys, "calls", "--module", "memory", "--limit", "1", "--data-dir", d)
    assert len(out.splitlines()) == 2 and "memory.save" in out
    _, out, _ = run(capsys, "calls", "--outcome", "errors", "--data-dir", d)
    assert len(out.splitlines()) == 2 and "INVALID_ARGUMENT" in out
    code, _, err = run(capsys, "calls", "--outcome", "boom", "--data-dir", d)
    assert code == 1 and "unknown outcome 'boom'" in err
    with pytest.raises(SystemExit):
        main(["calls", "--limit", "0", "--data-dir", d])
    assert "out of range 1-1000" in capsys.readouterr().err


def test_actions_lists_the_uis_record_of_admin_actions_newest_first_and_filters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    from sqlalchemy.ext.asyncio import create_async_engine

    from mcpist.web.ui._store import record

    d = str(tmp_path)
    code, out, _ = run(capsys, "actions", "--data-dir", d)  # creates the UI's tables on an empty data dir
    assert code == 0 and "No admin actions recorded." in out

    async def seed() -> None:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'mcpist.db'}")
        await record(engine, "u1", "ann@example.com", "role_create", "notes", "allow=memory.@read deny=")
        await record(engine, "u2", "bob@example.com", "access_request", "github.*", "need it\x1b[31m for\nreviews")
        await record(engine, "u1", "ann@example.com", "token_revoke", "laptop")
        await engine.dispose()

    asyncio.run(seed())
    _, out, _ = run(capsys, "actions", "--data-dir", d)
    lines = out.splitlines()
    assert lines[0].startswith("AT (UTC)") and [line.split()[3] for line in lines[1:]] == [
        "token_revoke", "access_request", "role_create",
    ]  # fmt: skip
    assert "\x1b" not in out and "need it [31m for reviews" in out  # no control character reaches the terminal
    _, out, _ = run(capsys, "actions", "--user", "ANN@example.com", "--limit", "1", "--data-dir", d)
    assert len(out.splitlines()) == 2 and "token_revoke" in out
    _, out, _ = run(capsys, "actions", "--action", "role_create", "--data-dir", d)
    assert len(out.splitlines()) == 2 and "allow=memory.@read" in out
    _, out, _ = run(capsys, "actions", "--action", "nosuch", "--data-dir", d)
    assert "No admin actions recorded that match." in out
    code, _, err = run(capsys, "actions", "--user", "not-an-email", "--data-dir", d)
    assert code == 1 and "not an email address" in err


def test_vault_rotate_key_rewraps_the_uis_smtp_password_and_prune_keeps_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    from sqlalchemy.ext.asyncio import create_async_engine

    from mcpist.config import VaultSettings
    from mcpist.vault.keys import KeySource
    from mcpist.vault.store import Sealer
    from mcpist.web.ui import upgrade_ui
    from mcpist.web.ui._notify import MailSettings, MailStore

    d = str(tmp_path)
    assert run(capsys, "user", "list", "--data-dir", d)[0] == 0  # the database and the master key

    async def with_store(action: str) -> str | None:
        engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'mcpist.db'}")
        try:
            await upgrade_ui(engine)
            store = MailStore(engine, Sealer(KeySource(VaultSettings(), tmp_path)))
            if action == "save":
                await store.save(MailSettings(host="smtp.example.com", sender="a@example.com"), password="s3cret-pw")
            return await store.password()
        finally:
            await engine.dispose()

    assert asyncio.run(with_store("save")) == "s3cret-pw"
    code, out, _ = run(capsys, "vault", "rotate-key", "--data-dir", d)
    assert code == 0 and "Re-wrapped 1 records" in out and "Every record is under the active key" in out
    code, out, _ = run(capsys, "vault", "prune-keys", "--data-dir", d)
    assert code == 0 and "Forgot 1 retired keys" in out
    assert asyncio.run(with_store("read")) == "s3cret-pw"  # opens under the new key; the old one is gone


def test_mail_settings_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io
    import socket
    from email import message_from_bytes
    from email.message import Message
    from typing import Any

    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword

    class Sink:
        def __init__(self) -> None:
            self.messages: list[Message] = []
            self.logins: list[tuple[str, str]] = []

        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            self.messages.append(message_from_bytes(envelope.content))
            return "250 OK"

        def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
            assert isinstance(data, LoginPassword)
            self.logins.append((data.login.decode(), data.password.decode()))
            return AuthResult(success=True)

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    d = str(tmp_path)
    code, out, _ = run(capsys, "mail", "show", "--data-dir", d)
    assert code == 0 and "(none: nothing is sent)" in out and "password not set" in out

    monkeypatch.setattr("sys.stdin", io.StringIO("smtp-secret-0451\n"))
    argv = ["mail", "set", "--host", "127.0.0.1", "--port", str(port), "--security", "none", "--user", "mailer"]
    argv += ["--password-stdin", "--from", "mcpist@example.com", "--to", "ops@example.com", "--alert", "reauth"]
    code, out, _ = run(capsys, *argv, "--data-dir", d)
    assert code == 0 and "Mail settings saved." in out and "password set" in out and "smtp-secret" not in out
    assert "alerts:     reauth (" in out
    # what is not given stays; bad values are named
    code, out, _ = run(capsys, "mail", "set", "--alert", "none", "--data-dir", d)
    assert code == 0 and "alerts:     none (" in out and f"127.0.0.1:{port}" in out and "password set" in out
    code, _, err = run(capsys, "mail", "set", "--port", "70000", "--data-dir", d)
    assert code == 1 and "port must be 1-65535" in err
    code, _, err = run(capsys, "mail", "set", "--host", "smtp.example.com", "--data-dir", d)
    assert code == 1 and "only over TLS" in err  # the stored password would go in clear to another machine
    assert "smtp-secret" not in (tmp_path / "mcpist.db").read_bytes().decode("latin-1")

    sink = Sink()
    controller = Controller(
        sink, hostname="127.0.0.1", port=port, authenticator=sink.authenticate, auth_require_tls=False
    )
    controller.start()
    try:
        code, out, _ = run(capsys, "mail", "test", "--data-dir", d)
    finally:
        controller.stop()
    assert code == 0 and "Sent a test message to ops@example.com." in out
    assert sink.logins == [("mailer", "smtp-secret-0451")] and sink.messages[0]["To"] == "ops@example.com"
