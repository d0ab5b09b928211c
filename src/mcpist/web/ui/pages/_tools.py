"""`/tools`: every module and tool with the viewer's access and the state of their accounts (personal,
shared through a role, not connected; when each stops working). `?connect=SERVICE` opens the connect
panel: paste a key (type A) or go through the service's OAuth flow (type B, the vault's connect URL).
Tools the viewer may not use are collapsed and greyed, with "request access" (recorded for admins).
Admins switch a module off for everyone here (`mcpist.sieve.set_module_enabled`): the runtime then hides
its tools, resources and prompts from every caller on every path, whatever the roles allow."""

from __future__ import annotations

from dataclasses import dataclass, field

from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from mcpist.errors import MCPistError, NotFound, PermissionDenied
from mcpist.modules.api import AccountField, Caller, Module, OAuth2Auth, ToolSpec
from mcpist.sieve import Principal, set_module_enabled
from mcpist.vault.cli import account_add, account_remove
from mcpist.vault.store import DEFAULT_ACCOUNT

from .._app import Call, Ui
from .._i18n import N_
from .._store import ACCESS_REQUEST
from ._accounts import AccountView, accounts_of, broker_of, vault_admin

NOTICES = {
    "connected": N_("The account is connected. Its secret is stored encrypted and is never shown again."),
    "disconnected": N_("The account is removed."),
    "requested": N_("Your request is recorded; an admin will see it."),
    "module_off": N_("The module is switched off: nobody sees or runs its tools until it is switched on."),
    "module_on": N_("The module is switched on again: the roles decide who uses it."),
}


@dataclass
class ModuleView:
    module: Module
    allowed: list[ToolSpec] = field(default_factory=list)
    denied: list[ToolSpec] = field(default_factory=list)
    accounts: list[AccountView] = field(default_factory=list)
    app_ready: bool = True
    """A type B service has a registered OAuth app (else nobody can connect an account)."""
    switched_off: bool = False
    """An admin switched the module off for everyone."""

    @property
    def name(self) -> str:
        return self.module.name

    @property
    def kind(self) -> str:
        return self.module.auth.kind

    @property
    def state(self) -> str:
        """none (no account needed), personal, shared or missing."""
        if not self.module.needs_account:
            return "none"
        if any(a.owner == "personal" for a in self.accounts):
            return "personal"
        return "shared" if self.accounts else "missing"

    @property
    def read_only_possible(self) -> bool:
        auth = self.module.auth
        return not isinstance(auth, OAuth2Auth) or auth.read_only_scopes is not None

    @property
    def fields(self) -> list[AccountField]:
        return list(self.module.account_fields.values())


async def principal_of(call: Call) -> Principal:
    return await call.runtime.principal(Caller(user_id=call.viewer.id, email=call.viewer.email))


async def module_views(call: Call, principal: Principal) -> list[ModuleView]:
    runtime = call.runtime
    accounts = await accounts_of(runtime, call.viewer.id, principal.roles, call.fmt, call._)
    broker = broker_of(runtime)
    apps = {a.service for a in await broker.apps.list()} if broker is not None else set()
    off = await runtime.disabled_modules()
    out: list[ModuleView] = []
    for module in sorted(runtime.registry, key=lambda m: m.name):
        found = ModuleView(module, accounts=[a for a in accounts if a.info.service == module.name])
        found.switched_off = module.name in off
        for spec in sorted(module.tools.values(), key=lambda s: s.name):
            (found.allowed if principal.grants.allows(module.name, spec.name) else found.denied).append(spec)
        found.app_ready = not isinstance(module.auth, OAuth2Auth) or module.name in apps
        out.append(found)
    return out


async def render(call: Call, *, status: int = 200, error: dict[str, str] | None = None) -> Response:
    principal = await principal_of(call)
    views = await module_views(call, principal)
    connect = next((v for v in views if v.name == call.query("connect") and v.module.needs_account), None)
    notice = NOTICES.get(call.query("done"))
    return call.render(
        "tools.html",
        status=status,
        error=error,
        notice=call._(notice) if notice else None,
        usable=[v for v in views if v.allowed],
        unusable=[v for v in views if not v.allowed and not v.switched_off],
        switched_off=[v for v in views if v.switched_off],
        connect=connect if connect is not None and connect.allowed else None,
        default_account=DEFAULT_ACCOUNT,
        vault=broker_of(call.runtime) is not None,
    )


async def tools(call: Call) -> Response:
    return await render(call)


async def _usable_module(call: Call, service: str) -> Module:
    """Raises: NotFound: no such module. PermissionDenied: the viewer may use none of its tools."""
    module = call.runtime.registry.module(service)
    if module is None or not module.needs_account:
        raise NotFound(f"no service {service!r}", {"service": service})
    if service not in (await principal_of(call)).grants.modules:
        raise PermissionDenied(f"you may not use {service}", {"service": service})
    return module


async def connect(call: Call) -> Response:
    service = call.field("service")
    name = call.field("name") or DEFAULT_ACCOUNT
    read_only = call.field("read_only") == "on"
    admin = vault_admin(call.runtime)
    try:
        module = await _usable_module(call, service)
        if admin is None:
            raise NotFound("accounts are not kept on this server", {"service": service})
        if isinstance(module.auth, OAuth2Auth):
            url = await admin.broker.connector.begin(call.viewer.id, service, name, read_only=read_only)
            await call.record("account_connect_start", f"{service}:{name}")
            return RedirectResponse(url, status_code=303)
        fields = {f.name: call.field(f"field_{f.name}") for f in module.account_fields.values()}
        fields = {k: v for k, v in fields.items() if v}
        info = await account_add(
            admin,
            service,
            call.field("secret"),
            name=name,
            user_email=call.viewer.email,
            fields=fields,
            read_only=read_only,
        )
    except MCPistError as exc:
        status = 403 if isinstance(exc, PermissionDenied) else 400
        return await render(call, status=status, error=call.failure(exc))
    await call.record("account_add", info.label)
    return call.redirect("tools", done="connected")


async def disconnect(call: Call) -> Response:
    service, name = call.field("service"), call.field("name")
    admin = vault_admin(call.runtime)
    try:
        if admin is None:
            raise NotFound("accounts are not kept on this server", {"service": service})
        await account_remove(admin, service, name=name, user_email=call.viewer.email)
    except MCPistError as exc:
        return await render(call, status=404, error=call.failure(exc))
    await call.record("account_remove", f"{service}:{name}")
    return call.redirect("tools", done="disconnected")


async def request_access(call: Call) -> Response:
    module = call.runtime.registry.module(call.field("module"))
    tool = call.field("tool")
    if module is None or (tool and tool not in module.tools):
        return await render(call, status=404, error={"summary": call._("It no longer exists."), "detail": ""})
    await call.record(ACCESS_REQUEST, f"{module.name}.{tool or '*'}", " ".join(call.field("reason").split())[:500])
    return call.redirect("tools", done="requested")


async def switch_module(call: Call) -> Response:
    """Admins: switch a module on or off for everyone."""
    name, on = call.field("module"), call.field("enabled") == "on"
    try:
        changed = await set_module_enabled(call.runtime.engine, name, on, registry=call.runtime.registry)
    except MCPistError as exc:
        return await render(call, status=404, error=call.failure(exc))
    call.runtime.forget_access()
    if changed:
        await call.record("module_enable" if on else "module_disable", name)
    return call.redirect("tools", done="module_on" if on else "module_off")


def routes(ui: Ui) -> list[Route]:
    return [
        ui.route("/tools", tools, name="tools"),
        ui.route("/tools/connect", connect, name="tools_connect", methods=("POST",)),
        ui.route("/tools/disconnect", disconnect, name="tools_disconnect", methods=("POST",)),
        ui.route("/tools/request", request_access, name="tools_request", methods=("POST",)),
        ui.route("/tools/module", switch_module, name="tools_module", methods=("POST",), admin=True),
    ]
