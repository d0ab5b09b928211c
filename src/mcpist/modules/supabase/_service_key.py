"""A client for one project's Storage API, authenticated with the project's service key.

The key is fetched through the Management API with the account's token, cached for a short while in the
module's state, and only ever sent to the project's storage origin. `ctx.http` cannot carry it: its auth
puts the account's token on every request and confines it to the Management API's origin. So a second
`ServiceClient` is built over the same transport with a credential source of its own.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from mcpist.modules import MCPistError, PermissionDenied
from mcpist.upstream import Credential, ServiceClient

from ._common import SERVICE, api
from ._keys import CacheKey
from ._module import Ctx

STORAGE = "supabase storage"


def storage_root(ctx: Ctx, ref: str) -> str:
    return ctx.settings.storage_base_url or f"https://{ref}.supabase.co/storage/v1"


def _pick(keys: list[dict[str, Any]]) -> str | None:
    """The legacy `service_role` JWT if the project still has one, else its first secret key."""
    for key in keys:
        if key.get("name") == "service_role" and key.get("type") in (None, "legacy"):
            value = key.get("api_key")
            if isinstance(value, str) and value:
                return value
    for key in keys:
        value = key.get("api_key")
        if key.get("type") == "secret" and isinstance(value, str) and value:
            return value
    return None


class ServiceKeySource:
    """The project's service key as a credential: `Authorization: Bearer` and `apikey`; a 401 fetches it anew."""

    def __init__(self, ctx: Ctx, ref: str) -> None:
        self._ctx = ctx
        self._ref = ref
        account = ctx.account
        self._cache_key: CacheKey = (
            ctx.caller.user_id,
            account.name if account else "",
            (account.shared_by_role or "") if account else "",
            ref,
        )

    def __repr__(self) -> str:
        return f"ServiceKeySource(project={self._ref!r})"

    async def _fetch(self) -> str:
        http = self._ctx.http
        body = await http.get_json(api(self._ref, "/api-keys"), params={"reveal": "true"})
        key = _pick(http.parse(list[dict[str, Any]], body))
        if key is None:
            raise PermissionDenied(
                f"{SERVICE}: project {self._ref} showed no service key to this account; Storage needs one "
                "(the token must be allowed to read API keys: secrets:read)",
                {"service": SERVICE, "project": self._ref},
            )
        return key

    async def _key(self) -> str:
        cache = self._ctx.state
        if cache is None:
            return await self._fetch()
        return await cache.get(self._cache_key, self._ctx.settings.service_key_ttl_s, self._fetch)

    async def current(self) -> Credential:
        key = await self._key()
        return Credential({"Authorization": f"Bearer {key}", "apikey": key}, key)

    async def refresh(self, stale: Credential) -> Credential | None:
        # the key may have been rotated since it was cached: fetch it once more
        if self._ctx.state is not None:
            self._ctx.state.drop(self._cache_key, stale.token)
        fresh = await self.current()
        return None if fresh.token == stale.token else fresh

    def forget(self) -> None:
        """Drop the cached key, so the next call fetches it again (Storage refused it)."""
        if self._ctx.state is not None:
            self._ctx.state.discard(self._cache_key)

    async def rejected(self) -> MCPistError:
        return PermissionDenied(
            f"{SERVICE}: project {self._ref}'s Storage API refused its service key",
            {"service": SERVICE, "project": self._ref},
        )


@asynccontextmanager
async def storage(ctx: Ctx, ref: str) -> AsyncIterator[ServiceClient]:
    """A client on the project's Storage API root, authenticated with its service key; closed on exit.

    A refusal (401 once refreshed, or 403) drops the cached key: it may have been rotated.
    """
    source = ServiceKeySource(ctx, ref)
    client = ctx.http.sibling(storage_root(ctx, ref), source, service=STORAGE)
    try:
        yield client
    except PermissionDenied:
        source.forget()
        raise
    finally:
        await client.aclose()
