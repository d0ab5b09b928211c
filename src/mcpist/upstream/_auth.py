"""Account credentials as an `httpx.Auth`: the tool code never touches a secret."""

from __future__ import annotations

import base64
from collections import deque
from collections.abc import AsyncGenerator, Generator, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Protocol

import httpx

from mcpist.errors import MCPistError, Unavailable

__all__ = ["AccountAuth", "Credential", "CredentialSource", "basic", "bearer", "check_origin", "header", "origin_of"]

Origin = tuple[str, str, int]

_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Credential:
    """The headers one account puts on each request, and an opaque identity of this version of them.

    `token` lets a refresh tell a stale credential from one another request already refreshed.
    """

    headers: Mapping[str, str] = field(repr=False)
    token: str = field(repr=False)

    def __post_init__(self) -> None:
        # a caller keeping the dict it passed must not be able to change a credential in flight
        object.__setattr__(self, "headers", MappingProxyType(dict(self.headers)))

    def __repr__(self) -> str:
        return f"Credential(header_names={sorted(self.headers)!r})"

    __str__ = __repr__


class CredentialSource(Protocol):
    """Where an `AccountAuth` gets the account's credential (the token broker, in the server)."""

    async def current(self) -> Credential:
        """The credential to send now."""
        ...

    async def refresh(self, stale: Credential) -> Credential | None:
        """A fresh credential after the upstream refused `stale`, or None when the account cannot refresh."""
        ...

    async def rejected(self) -> MCPistError:
        """The error to raise when the upstream still refuses the credential after a refresh."""
        ...


def bearer(token: str) -> Credential:
    return Credential({"Authorization": f"Bearer {token}"}, token)


def basic(user: str, password: str) -> Credential:
    blob = base64.b64encode(f"{user}:{password}".encode()).decode("ascii")
    return Credential({"Authorization": f"Basic {blob}"}, password)


def header(name: str, value: str) -> Credential:
    return Credential({name: value}, value)


def origin_of(url: httpx.URL | str) -> Origin:
    """(scheme, host, port) with the default port filled in, so `https://h` and `https://h:443` match."""
    url = httpx.URL(url)
    scheme = url.scheme.lower()
    return scheme, url.host.lower(), url.port or _DEFAULT_PORTS.get(scheme, 0)


def check_origin(url: httpx.URL, allowed: frozenset[Origin], service: str) -> None:
    """Refuse a URL outside the service's API roots.

    Raises:
        Unavailable: the URL's origin is not one of `allowed`.
    """
    if origin_of(url) not in allowed:
        raise Unavailable(
            f"{service} pointed to another host ({url.host}); the request was not sent",
            {"service": service, "host": url.host},
        )


class AccountAuth(httpx.Auth):
    """Puts the account's headers on requests to the service's own origins; on a 401, refreshes once and resends.

    Async only: `sync_auth_flow` raises RuntimeError. A request to any other origin raises Unavailable before it
    is sent, with or without credentials, so a pagination link or redirect cannot carry them elsewhere.
    """

    # the body must be replayable for the resend after a refresh
    requires_request_body = True

    def __init__(self, service: str, source: CredentialSource, allowed_origins: Iterable[str]) -> None:
        self._service = service
        self._source = source
        self._allowed = frozenset(origin_of(o) for o in allowed_origins)
        # the few credential versions this client has sent, so error messages can be scrubbed of them
        self._recent: deque[Credential] = deque(maxlen=4)

    def __repr__(self) -> str:
        return f"AccountAuth(service={self._service!r})"

    def sync_auth_flow(self, request: httpx.Request) -> Generator[httpx.Request, httpx.Response, None]:
        raise RuntimeError("AccountAuth works with httpx.AsyncClient only")

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        check_origin(request.url, self._allowed, self._service)
        await request.aread()
        credential = await self._source.current()
        self._apply(request, credential, None)
        response = yield request
        if response.status_code != 401:
            return
        fresh = await self._source.refresh(credential)
        if fresh is None:
            return
        self._apply(request, fresh, credential)
        yield request

    def _apply(self, request: httpx.Request, credential: Credential, stale: Credential | None) -> None:
        if stale is not None:
            for name in stale.headers:
                request.headers.pop(name, None)
        request.headers.update(credential.headers)
        if credential not in self._recent:
            self._recent.append(credential)

    def _secrets(self) -> list[str]:
        """Strings an upstream might echo back that must not reach a message."""
        found: list[str] = []
        for credential in self._recent:
            found.append(credential.token)
            for value in credential.headers.values():
                found.append(value)
                found.append(value.rsplit(" ", 1)[-1])
        return found
