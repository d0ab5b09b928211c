"""`/settings` (admins): e-mail alerts for critical events (seed 001 §2.4.3): the SMTP server (host,
port, STARTTLS or TLS, user, a write-only password), sender and recipients, which events alert, and a
button that sends a test message. Saving and testing are recorded in the audit log (never the password)."""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mcpist.errors import MCPistError

from .._app import Call, Handler, Ui
from .._i18n import N_
from .._notify import SECURITIES, MailStore, parse_settings, send_mail

NOTICES = {
    "saved": N_("The mail settings are saved. The password is stored encrypted and is never shown again."),
    "sent": N_("A test message was sent. Check the recipients' inboxes."),
}
FIELDS = (
    "host",
    "port",
    "security",
    "username",
    "sender",
    "recipients",
    "alert_reauth",
    "alert_denied",
    "denied_threshold",
    "denied_window_min",
    "throttle_min",
)


async def render(call: Call, *, status: int = 200, error: dict[str, str] | None = None) -> Response:
    notice = NOTICES.get(call.query("done"))
    return call.render(
        "settings.html",
        status=status,
        error=error,
        notice=call._(notice) if notice else None,
        mail=await MailStore.of(call.runtime).get(),
        securities=SECURITIES,
    )


async def settings(call: Call) -> Response:
    return await render(call)


async def save_mail(call: Call) -> Response:
    store = MailStore.of(call.runtime)
    current = await store.get()
    password = call.form.get("password") if call.form is not None else None
    new_password = password if isinstance(password, str) and password else None
    clear = call.field("clear_password") == "on"
    try:
        parsed = parse_settings(
            {name: call.field(name) for name in FIELDS},
            password_kept=new_password is not None or (current.has_password and not clear),
        )
        await store.save(parsed, password=new_password, clear_password=clear)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    detail = f"{parsed.host}:{parsed.port} {parsed.security} alerts=" + ",".join(
        kind for kind, on in (("reauth", parsed.alert_reauth), ("denied", parsed.alert_denied)) if on
    )
    if new_password is not None or clear:
        detail += " password=" + ("replaced" if new_password is not None else "cleared")
    await call.record("mail_settings", parsed.host, detail)
    return call.redirect("settings", done="saved")


async def test_mail(call: Call) -> Response:
    store = MailStore.of(call.runtime)
    try:
        await send_mail(
            store,
            "MCPist: test message",
            f"This is a test message from MCPist, sent by {call.viewer.email} from the Settings page.\n"
            "Alerts for critical events will come the same way.\n",
        )
    except MCPistError as exc:
        await call.record("mail_test", "", f"failed: {exc.code}")
        return await render(call, status=502 if exc.code == "UNAVAILABLE" else 400, error=call.failure(exc))
    await call.record("mail_test", ",".join((await store.get()).recipients), "sent")
    return call.redirect("settings", done="sent")


def routes(ui: Ui) -> list[Route]:
    def admin(path: str, handler: Handler, name: str, *methods: str) -> Route:
        return ui.route(path, handler, name=name, methods=methods or ("POST",), admin=True)

    return [
        admin("/settings", settings, "settings", "GET"),
        admin("/settings/mail", save_mail, "settings_mail"),
        admin("/settings/mail/test", test_mail, "settings_mail_test"),
    ]
