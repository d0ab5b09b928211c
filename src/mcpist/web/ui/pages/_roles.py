"""`/roles` (admins): the list; a panel per role (`?id=`, `&tab=permissions`) to edit its allow and deny
patterns with a live preview of the tools they let through (the Tool Sieve itself); per service
(`&service=`) the role's shared accounts (paste a key, or the OAuth flow) and the service's OAuth app."""

from __future__ import annotations

from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from mcpist.errors import InvalidArgument, MCPistError, NotFound
from mcpist.modules.api import ApiKeyAuth, Module, OAuth2Auth
from mcpist.modules.registry import Registry
from mcpist.sieve import Role, Rule, check_patterns, create_role, delete_role, list_roles, update_role
from mcpist.vault.cli import account_add, account_remove, app_register, app_remove
from mcpist.vault.store import DEFAULT_ACCOUNT, AuthMethod

from .._app import Call, Handler, Ui
from .._i18n import N_
from ._accounts import broker_of, vault_admin, view

NOTICES = {
    "created": N_("The role is created."),
    "saved": N_("The change is saved."),
    "deleted": N_("The role is deleted; its holders lost it."),
    "connected": N_("The account is connected. Its secret is stored encrypted and is never shown again."),
    "removed": N_("The account is removed."),
    "app_saved": N_("The OAuth app is saved. Its client secret is stored encrypted and is never shown again."),
    "app_removed": N_("The OAuth app is removed."),
}
TABS = ("details", "permissions")


def lines(text: str) -> list[str]:
    return [p for p in text.replace(",", "\n").split() if p]


def unloaded(registry: Registry) -> set[str]:
    return set(Registry.installed_names()) - set(registry.names())


def preview(call: Call, allow: list[str], deny: list[str]) -> dict[str, object]:
    """The tools a role with these patterns makes visible, per module, or the first bad pattern."""
    registry = call.runtime.registry
    try:
        allowed = check_patterns(allow, registry, unloaded(registry))
        denied = check_patterns(deny, registry, unloaded(registry))
    except InvalidArgument as exc:
        return {"error": call.failure(exc), "modules": [], "count": 0, "total": len(list(registry.tools()))}
    rules = [Rule("preview", "allow", p) for p in allowed] + [Rule("preview", "deny", p) for p in denied]
    grants = call.runtime.sieve.grants(rules)
    modules = [
        (m.name, sorted(t for t in m.tools if grants.allows(m.name, t))) for m in sorted(registry, key=lambda m: m.name)
    ]
    return {
        "error": None,
        "modules": [(name, tools) for name, tools in modules if tools],
        "count": len(grants.tools),
        "total": len(list(registry.tools())),
    }


def services(registry: Registry) -> list[Module]:
    return sorted((m for m in registry if m.needs_account), key=lambda m: m.name)


async def render(call: Call, *, status: int = 200, error: dict[str, str] | None = None, **extra: object) -> Response:
    runtime = call.runtime
    roles = await list_roles(runtime.engine)
    selected = next((r for r in roles if r.id == call.query("id")), None)
    tab = call.query("tab")
    context: dict[str, object] = {
        "roles": roles,
        "selected": selected,
        "tab": tab if tab in TABS else "details",
        "services": services(runtime.registry),
        "service": None,
        "preview": None,
        "default_account": DEFAULT_ACCOUNT,
        "vault": broker_of(runtime) is not None,
    }
    broker = broker_of(runtime)
    if selected is not None:
        context["preview"] = preview(call, list(selected.allow), list(selected.deny))
        if broker is not None:
            shared = await broker.accounts.find(roles=[selected.name])
            context["shared_counts"] = {
                m.name: sum(a.service == m.name for a in shared) for m in services(runtime.registry)
            }
            module = runtime.registry.module(call.query("service"))
            if module is not None and module.needs_account:
                context["service"] = module
                context["shared"] = [view(a, call.fmt, call._) for a in shared if a.service == module.name]
                context["app"] = await broker.apps.get(module.name)
                context["callback_url"] = broker.connector.callback_url(module.name)
                context["is_oauth"] = isinstance(module.auth, OAuth2Auth)
                context["is_key"] = isinstance(module.auth, ApiKeyAuth)
    notice = NOTICES.get(call.query("done"))
    context.update(extra)
    return call.render("roles.html", status=status, error=error, notice=call._(notice) if notice else None, **context)


async def roles(call: Call) -> Response:
    return await render(call)


async def _role(call: Call) -> Role:
    """Raises: NotFound: no role has the submitted name."""
    found = next((r for r in await list_roles(call.runtime.engine) if r.name == call.field("role")), None)
    if found is None:
        raise NotFound(f"no role named {call.field('role')!r}", {"field": "role"})
    return found


async def create(call: Call) -> Response:
    runtime = call.runtime
    name = call.field("name")
    try:
        role = await create_role(
            runtime.engine,
            name,
            lines(call.field("allow")),
            lines(call.field("deny")),
            call.field("description"),
            registry=runtime.registry,
            unloaded=unloaded(runtime.registry),
        )
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc), new_role=name)
    await call.record("role_create", role.name, f"allow={' '.join(role.allow)} deny={' '.join(role.deny)}")
    return call.redirect("roles", id=role.id, tab="permissions", done="created")


async def update(call: Call) -> Response:
    runtime = call.runtime
    allow, deny = lines(call.field("allow")), lines(call.field("deny"))
    try:
        role = await _role(call)
        await update_role(
            runtime.engine,
            role.name,
            allow,
            deny,
            call.field("description"),
            registry=runtime.registry,
            unloaded=unloaded(runtime.registry),
        )
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    runtime.forget_access()
    await call.record("role_update", role.name, f"allow={' '.join(allow)} deny={' '.join(deny)}")
    return call.redirect("roles", id=role.id, tab="permissions", done="saved")


async def remove(call: Call) -> Response:
    try:
        role = await _role(call)
        await delete_role(call.runtime.engine, role.name)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    call.runtime.forget_access()
    await call.record("role_delete", role.name)
    return call.redirect("roles", done="deleted")


async def live_preview(call: Call) -> Response:
    result = preview(call, lines(call.field("allow")), lines(call.field("deny")))
    if call.request.headers.get("x-ui-fragment") == "1":
        return call.render("roles_preview.html", preview=result)
    draft = {"allow": lines(call.field("allow")), "deny": lines(call.field("deny"))}
    return await render(call, preview_only=result, draft=draft)


async def shared_account(call: Call) -> Response:
    admin = vault_admin(call.runtime)
    service, name = call.field("service"), call.field("name") or DEFAULT_ACCOUNT
    read_only = call.field("read_only") == "on"
    try:
        role = await _role(call)
        module = call.runtime.registry.module(service)
        if admin is None or module is None:
            raise NotFound(f"no service {service!r}", {"service": service})
        if isinstance(module.auth, OAuth2Auth) and not call.field("secret"):
            url = await admin.broker.connector.begin(call.viewer.id, service, name, role=role.name, read_only=read_only)
            await call.record("account_connect_start", f"{service}:{name}", f"role={role.name}")
            return RedirectResponse(url, status_code=303)
        fields = {f.name: call.field(f"field_{f.name}") for f in module.account_fields.values()}
        info = await account_add(
            admin,
            service,
            call.field("secret"),
            name=name,
            role=role.name,
            fields={k: v for k, v in fields.items() if v},
            read_only=read_only,
        )
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    await call.record("account_add", info.label, f"role={role.name}")
    return call.redirect("roles", id=role.id, service=service, done="connected")


async def remove_shared_account(call: Call) -> Response:
    admin = vault_admin(call.runtime)
    service, name = call.field("service"), call.field("name")
    try:
        role = await _role(call)
        if admin is None:
            raise NotFound(f"no service {service!r}", {"service": service})
        await account_remove(admin, service, name=name, role=role.name)
    except MCPistError as exc:
        return await render(call, status=404, error=call.failure(exc))
    await call.record("account_remove", f"{service}:{name}", f"role={role.name}")
    return call.redirect("roles", id=role.id, service=service, done="removed")


async def oauth_app(call: Call) -> Response:
    admin = vault_admin(call.runtime)
    service = call.field("service")
    method: AuthMethod = "client_secret_basic" if call.field("basic_auth") == "on" else "client_secret_post"
    try:
        if admin is None:
            raise NotFound(f"no service {service!r}", {"service": service})
        if call.field("remove") == "1":
            await app_remove(admin, service)
        else:
            await app_register(admin, service, call.field("client_id"), call.field("client_secret"), auth_method=method)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc))
    removed = call.field("remove") == "1"
    await call.record("oauth_app_remove" if removed else "oauth_app_register", service, "" if removed else method)
    back = call.field("back_id")
    return call.redirect("roles", id=back, service=service, done="app_removed" if removed else "app_saved")


def routes(ui: Ui) -> list[Route]:
    def admin(path: str, handler: Handler, name: str, *methods: str) -> Route:
        return ui.route(path, handler, name=name, methods=methods or ("POST",), admin=True)

    return [
        admin("/roles", roles, "roles", "GET"),
        admin("/roles/create", create, "roles_create"),
        admin("/roles/update", update, "roles_update"),
        admin("/roles/delete", remove, "roles_delete"),
        admin("/roles/preview", live_preview, "roles_preview"),
        admin("/roles/account", shared_account, "roles_account"),
        admin("/roles/account/remove", remove_shared_account, "roles_account_remove"),
        admin("/roles/app", oauth_app, "roles_app"),
    ]
