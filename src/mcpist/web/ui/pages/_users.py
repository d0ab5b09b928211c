"""`/users` (admins): the list, and a panel per user (`?id=`, `&tab=roles`): make admin, disable or
enable, set a password, assign roles; adding users. Every action is recorded in the audit log.

Disabling marks the user disabled in the core (`mcpist.auth.users.set_disabled`: no sign-in, and their
OAuth access tokens and API tokens are refused from the next request on), takes every role from them
and revokes their API tokens; enabling gives the roles back (the tokens stay revoked).
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from mcpist.auth.users import add_user, list_users, set_password, set_system_role
from mcpist.errors import Conflict, InvalidArgument, MCPistError, NotFound
from mcpist.sieve import grant_role, list_roles, revoke_role, roles_of
from mcpist.storage.users import User, get_owner, get_user

from .._app import Call, Handler, Ui
from .._i18n import N_
from .._store import disable_user, enable_user

NOTICES = {
    "added": N_("The user is added."),
    "saved": N_("The change is saved."),
    "disabled": N_("The user is disabled: their roles and API tokens are taken away."),
    "enabled": N_("The user is enabled again, with the roles they held."),
}
TABS = ("details", "roles")


async def render(call: Call, *, status: int = 200, error: dict[str, str] | None = None, **extra: object) -> Response:
    engine = call.runtime.engine
    records = await list_users(engine)
    roles = await list_roles(engine)
    held = {r.email: [role.name for role in roles if r.email in role.users] for r in records}
    selected = next((r for r in records if r.id == call.query("id")), None)
    owner = await get_owner(engine)
    tab = call.query("tab")
    notice = NOTICES.get(call.query("done"))
    return call.render(
        "users.html",
        status=status,
        error=error,
        notice=call._(notice) if notice else None,
        users=records,
        held=held,
        roles=roles,
        selected=selected,
        tab=tab if tab in TABS else "details",
        owner_id=owner.id if owner is not None else None,
        **extra,
    )


async def users(call: Call) -> Response:
    return await render(call)


async def _target(call: Call) -> User:
    """Raises: NotFound: no such user."""
    user = await get_user(call.runtime.engine, call.field("id"))
    if user is None:
        raise NotFound("no such user", {"field": "id"})
    return user


def _not_self(call: Call, user: User, what: str) -> None:
    """Raises: Conflict: an admin acting on themselves where that could lock everyone out."""
    if user.id == call.viewer.id:
        raise Conflict(f"you cannot {what} yourself", {"field": "id"})


async def add(call: Call) -> Response:
    engine = call.runtime.engine
    email = call.field("email")
    password = call.field("password") or None
    admin = call.field("admin") == "on"
    try:
        user = await add_user(engine, email, "admin" if admin else "user", password)
        for role in call.fields("role"):
            await grant_role(engine, user.email, role)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc), new_email=email)
    call.runtime.forget_access()
    await call.record("user_add", user.email, f"admin={admin} roles={','.join(call.fields('role'))}")
    return call.redirect("users", id=user.id, done="added")


async def system_role(call: Call) -> Response:
    make = "admin" if call.field("admin") == "on" else "user"
    try:
        user = await _target(call)
        _not_self(call, user, "change the admin rights of")
        await set_system_role(call.runtime.engine, user.id, make)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    await call.record("user_system_role", user.email, make)
    return call.redirect("users", id=user.id, done="saved")


async def disable(call: Call) -> Response:
    engine = call.runtime.engine
    try:
        user = await _target(call)
        _not_self(call, user, "disable")
        held = await disable_user(engine, user.id, user.email)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    call.runtime.forget_access()
    await call.record("user_disable", user.email, f"roles={','.join(held)}")
    return call.redirect("users", id=user.id, done="disabled")


async def enable(call: Call) -> Response:
    engine = call.runtime.engine
    try:
        user = await _target(call)
        given = await enable_user(engine, user.id, user.email)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    call.runtime.forget_access()
    await call.record("user_enable", user.email, f"roles={','.join(given)}")
    return call.redirect("users", id=user.id, done="enabled")


async def password(call: Call) -> Response:
    try:
        user = await _target(call)
        value = call.field("password")
        if not value:
            raise InvalidArgument("a password is needed", {"field": "password"})
        await set_password(call.runtime.engine, user.email, value)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    await call.record("user_password", user.email)
    return call.redirect("users", id=user.id, done="saved")


async def assign_roles(call: Call) -> Response:
    engine = call.runtime.engine
    wanted = set(call.fields("role"))
    try:
        user = await _target(call)
        if user.disabled:
            raise Conflict("enable the user before giving roles", {"field": "role"})
        current = set(await roles_of(engine, user.email))
        for role in sorted(wanted - current):
            await grant_role(engine, user.email, role)
        for role in sorted(current - wanted):
            await revoke_role(engine, user.email, role)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    call.runtime.forget_access()
    await call.record(
        "user_roles", user.email, f"+{','.join(sorted(wanted - current))} -{','.join(sorted(current - wanted))}"
    )
    return call.redirect("users", id=user.id, tab="roles", done="saved")


def routes(ui: Ui) -> list[Route]:
    def admin(path: str, handler: Handler, name: str, *methods: str) -> Route:
        return ui.route(path, handler, name=name, methods=methods or ("POST",), admin=True)

    return [
        admin("/users", users, "users", "GET"),
        admin("/users/add", add, "users_add"),
        admin("/users/admin", system_role, "users_admin"),
        admin("/users/disable", disable, "users_disable"),
        admin("/users/enable", enable, "users_enable"),
        admin("/users/password", password, "users_password"),
        admin("/users/roles", assign_roles, "users_roles"),
    ]
