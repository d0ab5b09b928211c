"""`/profile`: display name, language and time zone; API tokens (created and shown once, listed with
prefix, creation and last use, revoked). A user sees and revokes only their own tokens."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from starlette.responses import Response
from starlette.routing import Route

from mcpist.auth.tokens import TokenStore
from mcpist.errors import MCPistError, NotFound
from mcpist.sieve import prepare_token, roles_of, token_roles_by_token

from .._app import Call, Ui
from .._i18n import N_
from .._store import LANGUAGES, save_profile, set_language
from ._signin import safe_next

MAX_DISPLAY_NAME = 100
NOTICES = {
    "saved": N_("Your profile is saved."),
    "revoked": N_("The token is revoked."),
}


@cache
def time_zones() -> list[str]:
    return sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/")))


async def render(call: Call, *, status: int = 200, error: dict[str, str] | None = None, **extra: object) -> Response:
    viewer = call.viewer
    tokens = [t for t in await TokenStore(call.runtime.engine).list() if t.user_id == viewer.id]
    narrowed = await token_roles_by_token(call.runtime.engine)
    notice = NOTICES.get(call.query("done"))
    return call.render(
        "profile.html",
        status=status,
        error=error,
        notice=call._(notice) if notice else None,
        tokens=tokens,
        narrowed=narrowed,
        held=await roles_of(call.runtime.engine, viewer.email),
        languages=LANGUAGES,
        time_zones=time_zones(),
        **{"new_token": None, **extra},
    )


async def profile(call: Call) -> Response:
    return await render(call)


async def save(call: Call) -> Response:
    name = " ".join(call.field("display_name").split())
    language = call.field("language")
    zone = call.field("time_zone")
    if len(name) > MAX_DISPLAY_NAME:
        return await render(call, status=400, error={"summary": call._("The display name is too long."), "detail": ""})
    if language not in ("", *LANGUAGES) or (zone and zone not in time_zones()):
        return await render(call, status=400, error={"summary": call._("The input is not valid."), "detail": ""})
    await save_profile(
        call.runtime.engine, call.viewer.id, display_name=name, language=language or None, time_zone=zone or None
    )
    return call.redirect("profile", done="saved")


async def language(call: Call) -> Response:
    chosen = call.field("language")
    if chosen in LANGUAGES:
        await set_language(call.runtime.engine, call.viewer.id, chosen)
    return Response(status_code=303, headers={"Location": safe_next(call.field("next") or None)})


async def create_token(call: Call) -> Response:
    engine = call.runtime.engine
    name = call.field("name")
    try:
        new = await prepare_token(engine, email=call.viewer.email, roles=call.fields("role"))
        info, token = await TokenStore(engine).create(name, new.user_id, then=new.narrow)
    except MCPistError as exc:
        return await render(call, status=400, error=call.failure(exc), token_name=name)
    await call.record("token_create", info.name, ",".join(call.fields("role")))
    # shown in this response only: never in a URL, a log or the database
    return await render(call, status=201, new_token={"name": info.name, "value": token})


async def revoke_token(call: Call) -> Response:
    store = TokenStore(call.runtime.engine)
    name = call.field("name")
    found = await store.get(name)
    try:
        if found is None or found.user_id != call.viewer.id:
            raise NotFound(f"no active token named {name!r}", {"field": "name"})
        await store.revoke(name)
    except MCPistError as exc:
        return await render(call, status=404, error=call.failure(exc))
    await call.record("token_revoke", name)
    return call.redirect("profile", done="revoked")


def routes(ui: Ui) -> list[Route]:
    return [
        ui.route("/profile", profile, name="profile"),
        ui.route("/profile", save, name="profile_save", methods=("POST",)),
        ui.route("/profile/language", language, name="profile_language", methods=("POST",)),
        ui.route("/profile/tokens", create_token, name="token_create", methods=("POST",)),
        ui.route("/profile/tokens/revoke", revoke_token, name="token_revoke", methods=("POST",)),
    ]
