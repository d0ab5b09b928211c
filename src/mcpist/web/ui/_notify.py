"""E-mail alerts for critical events (seed 001 §2.4.3): the SMTP settings an admin keeps in the UI (the
password sealed by the vault's envelope encryption, never shown again), sending, and `Watch`, the
background task that reads the database for events worth an alert:

- `reauth`: accounts whose service refused their refresh token (the vault marks them `reauth`), so
  every call with them fails until someone connects them again;
- `denied`: a burst of refused tool calls (security events) within a few minutes.

It only reads what the vault and the Tool Sieve already record, so neither changes for it. Each kind
alerts at most once per `throttle_min`, and only for something new since its last alert; the time of
the last alert is in the database, so replicas share it.
"""

from __future__ import annotations

import logging
import re
import smtplib
import ssl
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any, Literal

import anyio
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncEngine

from mcpist.auth.users import normalize_email
from mcpist.config import is_loopback
from mcpist.errors import InvalidArgument, Unavailable
from mcpist.runtime import Runtime
from mcpist.sieve import HIDDEN_TOOL_CALL, UNKNOWN_TOOL_CALL, count_security_events
from mcpist.vault.broker import TokenBroker
from mcpist.vault.crypto import Sealed
from mcpist.vault.keys import KeySource
from mcpist.vault.rotation import SealedRows
from mcpist.vault.store import AccountInfo, Sealer

from ._store import record
from ._tables import alerts, mail

logger = logging.getLogger("mcpist.web.alerts")

Security = Literal["starttls", "tls", "none"]
SECURITIES: tuple[Security, ...] = ("starttls", "tls", "none")
KINDS = ("reauth", "denied")
IDENTITY = b"web_mail:1"
"""What the sealed password is bound to: it opens only as this row's."""
SEALED_ROWS = SealedRows(mail, mail.c.id, lambda _row: IDENTITY)
"""The password for `mcpist vault rotate-key`/`prune-keys`: re-wrapped with the vault's records, and
its key never forgotten while it is in use."""
MAX_RECIPIENTS = 10
SEND_TIMEOUT_S = 15.0
_HOST_RE = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$|^\[[0-9A-Fa-f:.]+\]$")


@dataclass(frozen=True)
class MailSettings:
    host: str = ""
    port: int = 587
    security: Security = "starttls"
    username: str = ""
    has_password: bool = False
    sender: str = ""
    recipients: tuple[str, ...] = ()
    alert_reauth: bool = False
    alert_denied: bool = False
    denied_threshold: int = 10
    denied_window_min: int = 5
    throttle_min: int = 60
    updated_at: datetime | None = None

    @property
    def ready(self) -> bool:
        """Enough is set to send a message."""
        return bool(self.host and self.sender and self.recipients)


def _int(value: str, name: str, low: int, high: int) -> int:
    try:
        number = int(value)
    except ValueError:
        raise InvalidArgument(f"{name} must be a whole number", {"field": name}) from None
    if not low <= number <= high:
        raise InvalidArgument(f"{name} must be {low}-{high}", {"field": name})
    return number


def parse_settings(form: dict[str, str], *, password_kept: bool) -> MailSettings:
    """The settings a form sends, checked.

    Raises:
        InvalidArgument: a field is malformed; the message names it.
    """
    host = form.get("host", "").strip()
    if host and not _HOST_RE.fullmatch(host):
        raise InvalidArgument(f"{host!r} is not a host name or address", {"field": "host"})
    security = form.get("security", "starttls")
    if security not in SECURITIES:
        raise InvalidArgument("security must be starttls, tls or none", {"field": "security"})
    username = form.get("username", "").strip()
    if len(username) > 320:
        raise InvalidArgument("the user name is too long", {"field": "username"})
    if security == "none" and (username or password_kept) and host and not is_loopback(host):
        raise InvalidArgument(
            "a password is sent to a mail server only over TLS (STARTTLS or TLS), except on this machine",
            {"field": "security"},
        )
    sender = normalize_email(form["sender"]) if form.get("sender", "").strip() else ""
    recipients = tuple(dict.fromkeys(normalize_email(r) for r in re.split(r"[\s,;]+", form.get("recipients", "")) if r))
    if len(recipients) > MAX_RECIPIENTS:
        raise InvalidArgument(f"at most {MAX_RECIPIENTS} recipients", {"field": "recipients"})
    return MailSettings(
        host=host,
        port=_int(form.get("port", "587"), "port", 1, 65535),
        security=security,
        username=username,
        sender=sender,
        recipients=recipients,
        alert_reauth=form.get("alert_reauth") == "on",
        alert_denied=form.get("alert_denied") == "on",
        denied_threshold=_int(form.get("denied_threshold", "10"), "denied_threshold", 1, 10_000),
        denied_window_min=_int(form.get("denied_window_min", "5"), "denied_window_min", 1, 1440),
        throttle_min=_int(form.get("throttle_min", "60"), "throttle_min", 1, 10_080),
    )


class MailStore:
    """The one row of mail settings; the password goes in sealed and comes out only to send."""

    def __init__(self, engine: AsyncEngine, sealer: Sealer) -> None:
        self._engine = engine
        self._sealer = sealer

    @classmethod
    def of(cls, runtime: Runtime) -> MailStore:
        return cls(runtime.engine, Sealer(KeySource(runtime.settings.vault, runtime.settings.data_dir)))

    async def get(self) -> MailSettings:
        async with self._engine.connect() as conn:
            row = (await conn.execute(sa.select(mail).where(mail.c.id == 1))).first()
        if row is None:
            return MailSettings()
        return MailSettings(
            host=row.host,
            port=row.port,
            security=row.security,
            username=row.username,
            has_password=row.ciphertext is not None,
            sender=row.sender,
            recipients=tuple(r for r in row.recipients.split(",") if r),
            alert_reauth=row.alert_reauth,
            alert_denied=row.alert_denied,
            denied_threshold=row.denied_threshold,
            denied_window_min=row.denied_window_min,
            throttle_min=row.throttle_min,
            updated_at=row.updated_at,
        )

    async def password(self) -> str | None:
        async with self._engine.connect() as conn:
            row = (await conn.execute(sa.select(mail).where(mail.c.id == 1))).first()
        if row is None or row.ciphertext is None:
            return None
        sealed = Sealed(kek_id=row.kek_id, wrapped_key=bytes(row.wrapped_key), ciphertext=bytes(row.ciphertext))
        return self._sealer.open(IDENTITY, sealed)["password"]

    async def save(self, settings: MailSettings, *, password: str | None, clear_password: bool = False) -> None:
        """Store the settings; `password` replaces the stored one, None keeps it (unless `clear_password`)."""
        values: dict[str, Any] = {
            "host": settings.host,
            "port": settings.port,
            "security": settings.security,
            "username": settings.username,
            "sender": settings.sender,
            "recipients": ",".join(settings.recipients),
            "alert_reauth": settings.alert_reauth,
            "alert_denied": settings.alert_denied,
            "denied_threshold": settings.denied_threshold,
            "denied_window_min": settings.denied_window_min,
            "throttle_min": settings.throttle_min,
            "updated_at": datetime.now(UTC),
        }
        if password:
            sealed = self._sealer.seal(IDENTITY, {"password": password})
            values |= {"kek_id": sealed.kek_id, "wrapped_key": sealed.wrapped_key, "ciphertext": sealed.ciphertext}
        elif clear_password:
            values |= {"kek_id": None, "wrapped_key": None, "ciphertext": None}
        async with self._engine.begin() as conn:
            if (await conn.execute(mail.update().where(mail.c.id == 1).values(**values))).rowcount == 0:
                await conn.execute(mail.insert().values(id=1, **values))


def _send_now(settings: MailSettings, password: str | None, message: EmailMessage) -> None:
    context = ssl.create_default_context()
    client: smtplib.SMTP
    if settings.security == "tls":
        client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=SEND_TIMEOUT_S, context=context)
    else:
        client = smtplib.SMTP(settings.host, settings.port, timeout=SEND_TIMEOUT_S)
    with client:
        if settings.security == "starttls":
            client.starttls(context=context)
        if settings.username:
            client.login(settings.username, password or "")
        client.send_message(message)


async def send_mail(store: MailStore, subject: str, body: str, settings: MailSettings | None = None) -> None:
    """Send one message to the configured recipients.

    Raises:
        InvalidArgument: the host, sender or recipients are not set.
        Unavailable: the mail server could not be reached or refused the message (its reply, never
            the password, is in the message).
    """
    settings = settings or await store.get()
    if not settings.ready:
        raise InvalidArgument("set the mail server, the sender and a recipient first", {"field": "host"})
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = settings.sender
    message["To"] = ", ".join(settings.recipients)
    message.set_content(body)
    password = await store.password()
    try:
        await anyio.to_thread.run_sync(_send_now, settings, password, message)
    except (OSError, smtplib.SMTPException) as exc:
        logger.warning("mail to %s via %s:%s failed: %s", settings.recipients, settings.host, settings.port, exc)
        reason = f"{type(exc).__name__}: {exc}"[:300]
        where = f"{settings.host}:{settings.port}"
        raise Unavailable(f"the mail server {where} did not take the message ({reason})") from None


@dataclass
class Alert:
    kind: str
    subject: str
    body: str


@dataclass
class Watch:
    """Looks for events worth an alert and sends them; `check()` once, `running()` every `interval_s`."""

    runtime: Runtime
    store: MailStore
    interval_s: float = 60.0
    clock: Callable[[], float] = time.time
    accounts: Callable[[], Any] | None = field(default=None)
    """Lists the vault's accounts (the token broker's store); None when the server keeps none."""

    def _now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), UTC)

    async def _last_sent(self) -> dict[str, datetime]:
        async with self.runtime.engine.connect() as conn:
            return {r.kind: r.sent_at for r in (await conn.execute(sa.select(alerts))).all()}

    async def _mark_sent(self, kind: str, at: datetime) -> None:
        async with self.runtime.engine.begin() as conn:
            if (await conn.execute(alerts.update().where(alerts.c.kind == kind).values(sent_at=at))).rowcount == 0:
                await conn.execute(alerts.insert().values(kind=kind, sent_at=at))

    async def _reauth(self, since: datetime | None) -> Alert | None:
        if self.accounts is None:
            return None
        found: list[AccountInfo] = [a for a in await self.accounts() if a.status == "reauth"]
        fresh = [a for a in found if since is None or a.updated_at > since]
        if not fresh:
            return None
        lines = "\n".join(f"- {a.label}" for a in found)
        return Alert(
            "reauth",
            f"MCPist: {len(found)} account(s) must be connected again",
            "The service refused the refresh token of these accounts, so every call with them fails until "
            f"their owner connects them again (on the Tools page):\n{lines}\n",
        )

    async def _denied(self, settings: MailSettings, now: datetime, since: datetime | None) -> Alert | None:
        start = now - timedelta(minutes=settings.denied_window_min)
        if since is not None and since > start:
            start = since
        count = await count_security_events(self.runtime.engine, start, kinds=(HIDDEN_TOOL_CALL, UNKNOWN_TOOL_CALL))
        if count < settings.denied_threshold:
            return None
        return Alert(
            "denied",
            f"MCPist: {count} refused tool calls in {settings.denied_window_min} minutes",
            f"{count} calls to tools the caller may not use (or that do not exist) were refused since "
            f"{start.isoformat(timespec='seconds')}. See the security events on the Logs page.\n",
        )

    async def check(self) -> list[str]:
        """Send the alerts that are due; returns their kinds. A failure to send is logged, and retried
        at the next check."""
        settings = await self.store.get()
        if not settings.ready or not (settings.alert_reauth or settings.alert_denied):
            return []
        now = self._now()
        last = await self._last_sent()
        throttle = timedelta(minutes=settings.throttle_min)
        due: list[Alert] = []
        for kind in KINDS:
            sent = last.get(kind)
            if sent is not None and now - sent < throttle:
                continue
            if kind == "reauth" and settings.alert_reauth:
                found = await self._reauth(sent)
            elif kind == "denied" and settings.alert_denied:
                found = await self._denied(settings, now, sent)
            else:
                found = None
            if found is not None:
                due.append(found)
        sent_kinds: list[str] = []
        for alert in due:
            try:
                await send_mail(self.store, alert.subject, alert.body, settings)
            except (InvalidArgument, Unavailable):
                continue
            await self._mark_sent(alert.kind, now)
            await record(self.runtime.engine, None, "mcpist", "alert_sent", alert.kind, alert.subject)
            sent_kinds.append(alert.kind)
        return sent_kinds

    @asynccontextmanager
    async def running(self) -> AsyncIterator[Watch]:
        async def loop() -> None:
            while True:
                await anyio.sleep(self.interval_s)
                try:
                    await self.check()
                except Exception:
                    logger.exception("checking for alerts failed")

        async with anyio.create_task_group() as tg:
            tg.start_soon(loop)
            try:
                yield self
            finally:
                tg.cancel_scope.cancel()


def watch_for(runtime: Runtime, **options: Any) -> Watch:
    """The alert watch of a runtime (the vault's accounts, when it keeps them)."""
    accounts = runtime.accounts.accounts.find if isinstance(runtime.accounts, TokenBroker) else None
    return Watch(runtime, MailStore.of(runtime), accounts=accounts, **options)


__all__ = ["MailSettings", "MailStore", "Watch", "parse_settings", "send_mail", "watch_for"]
