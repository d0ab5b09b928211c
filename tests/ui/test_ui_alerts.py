"""E-mail alerts (seed 001 §2.4.3) against a local SMTP sink (aiosmtpd on loopback): an admin sets the
server in `/settings` (the password write-only and sealed), sends a test message, and the watch mails
an alert for a burst of refused tool calls and for an account its service refused, once per quiet
period. Plain users get 403; every change is in the audit log, never the password."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from ui_support import ADMIN, ALICE, Ui, shared_ui, signed_in, submit

from mcpist.sieve import HIDDEN_TOOL_CALL, record_security_event
from mcpist.vault.cli import account_add
from mcpist.web.ui import watch_for
from mcpist.web.ui._notify import parse_settings
from mcpist.web.ui._store import list_audit
from mcpist.web.ui._tables import mail
from mcpist.web.ui.pages._accounts import vault_admin

pytestmark = pytest.mark.anyio

SMTP_USER = "mailer"
SMTP_PASSWORD = "smtp-secret-0451"


@dataclass
class Sink:
    port: int
    messages: list[Message] = field(default_factory=list)
    logins: list[tuple[str, str]] = field(default_factory=list)

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.content))
        return "250 OK"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword):
            self.logins.append((data.login.decode(), data.password.decode()))
            ok = (data.login.decode(), data.password.decode()) == (SMTP_USER, SMTP_PASSWORD)
            return AuthResult(success=ok)
        return AuthResult(success=False)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def sink() -> Iterator[Sink]:
    found = Sink(free_port())
    # plain AUTH is allowed here only because the sink is on loopback (MCPist refuses it elsewhere)
    controller = Controller(
        found, hostname="127.0.0.1", port=found.port, authenticator=found.authenticate, auth_require_tls=False
    )
    controller.start()
    try:
        yield found
    finally:
        controller.stop()


@pytest.fixture(scope="module")
async def ui(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Ui]:
    async with shared_ui(tmp_path_factory.mktemp("alerts")) as shared:
        yield shared


def settings_form(sink: Sink, **changes: str) -> dict[str, str]:
    form = {
        "host": "127.0.0.1",
        "port": str(sink.port),
        "security": "none",
        "username": SMTP_USER,
        "password": SMTP_PASSWORD,
        "sender": "mcpist@example.com",
        "recipients": "ops@example.com, admin@example.com",
        "alert_reauth": "on",
        "alert_denied": "on",
        "denied_threshold": "3",
        "denied_window_min": "5",
        "throttle_min": "60",
    }
    return {**form, **changes}


async def test_plain_users_cannot_see_or_change_the_settings(ui: Ui, sink: Sink) -> None:
    async with signed_in(ui, ALICE) as alice:
        assert (await alice.get("/settings")).status_code == 403
        refused = await submit(alice, "/tools", "/settings/mail", settings_form(sink))
        assert refused.status_code == 403
        assert (await submit(alice, "/tools", "/settings/mail/test", {})).status_code == 403


async def test_an_admin_sets_the_server_and_sends_a_test_message(
    ui: Ui, sink: Sink, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with signed_in(ui, ADMIN) as admin:
        # a password in clear to a server on another machine is refused
        clear = await submit(admin, "/settings", "/settings/mail", settings_form(sink, host="smtp.example.com"))
        assert clear.status_code == 400 and "only over TLS" in clear.text
        bad = await submit(admin, "/settings", "/settings/mail", settings_form(sink, port="70000"))
        assert bad.status_code == 400 and "port must be 1-65535" in bad.text
        saved = await submit(admin, "/settings", "/settings/mail", settings_form(sink))
        assert saved.status_code == 303, saved.text[:500]
        page = (await admin.get("/settings")).text
        assert SMTP_PASSWORD not in page and "stored: leave empty to keep it" in page
        # saved again without a password: the stored one is kept
        kept = await submit(admin, "/settings", "/settings/mail", settings_form(sink, password=""))
        assert kept.status_code == 303
        sent = await submit(admin, "/settings", "/settings/mail/test", {})
        assert sent.status_code == 303 and sent.headers["location"] == "/settings?done=sent"
    assert [m["Subject"] for m in sink.messages] == ["MCPist: test message"]
    assert sink.messages[0]["To"] == "ops@example.com, admin@example.com"
    assert sink.logins[-1] == (SMTP_USER, SMTP_PASSWORD)
    async with ui.rt.engine.connect() as conn:
        stored = repr((await conn.execute(sa.select(mail))).all())
    assert SMTP_PASSWORD not in stored and SMTP_PASSWORD not in caplog.text
    actions = [(e.action, e.detail) for e in await list_audit(ui.rt.engine, actor=ADMIN)]
    assert ("mail_test", "sent") in actions
    assert any(a == "mail_settings" and "password=replaced" in d for a, d in actions)
    assert all(SMTP_PASSWORD not in d for _, d in actions)


async def test_alerts_go_out_once_per_quiet_period(ui: Ui, sink: Sink) -> None:
    now = [time.time()]
    watch = watch_for(ui.rt, clock=lambda: now[0])
    await watch.store.save(parse_settings(settings_form(sink), password_kept=True), password=SMTP_PASSWORD)
    sink.messages.clear()
    assert await watch.check() == []  # nothing has happened yet
    for _ in range(3):
        await record_security_event(
            ui.rt.engine, user_id=None, token_id=None, module="demo", tool="boom", kind=HIDDEN_TOOL_CALL, via="call"
        )
    admin = vault_admin(ui.rt)
    assert admin is not None
    info = await account_add(admin, "remote", "KEY-1", name="work", user_email=ALICE)
    broker = admin.broker
    assert await broker.accounts.mark_reauth(info.id, info.version)
    now[0] = time.time()
    assert sorted(await watch.check()) == ["denied", "reauth"]
    subjects = sorted(str(m["Subject"]) for m in sink.messages)
    assert subjects == ["MCPist: 1 account(s) must be connected again", "MCPist: 3 refused tool calls in 5 minutes"]
    reauth = next(m for m in sink.messages if "account" in str(m["Subject"]))
    assert "remote:work" in reauth.get_payload()  # type: ignore[operator]
    # a second burst within the quiet period sends nothing
    for _ in range(3):
        await record_security_event(
            ui.rt.engine, user_id=None, token_id=None, module="demo", tool="boom", kind=HIDDEN_TOOL_CALL, via="call"
        )
    assert await watch.check() == []
    # after it, only what is new counts: the same broken account alerts no more
    now[0] += 61 * 60
    assert await watch.check() == []
    sent = [(e.action, e.target) for e in await list_audit(ui.rt.engine, action="alert_sent")]
    assert sorted(sent) == [("alert_sent", "denied"), ("alert_sent", "reauth")]
    await broker.accounts.remove("remote", "work", user_id=info.user_id)


async def test_the_settings_page_is_in_both_languages(ui: Ui) -> None:
    async with signed_in(ui, ADMIN, **{"Accept-Language": "ja"}) as admin:
        page = (await admin.get("/settings")).text
        assert "メール通知" in page and "テストメールを送信" in page
