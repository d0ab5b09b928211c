"""`ServiceClient`: what a tool gets as `ctx.http` to call its service's API with the user's account."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Mapping, Sequence
from contextlib import asynccontextmanager
from types import TracebackType
from typing import Any, Self, TypeVar

import anyio
import httpx
from pydantic import TypeAdapter, ValidationError

from mcpist.errors import DeadlineExceeded, InvalidArgument, MCPistError, Unavailable
from mcpist.observe import ObservedTransport

from ._auth import AccountAuth, CredentialSource, check_origin, origin_of
from ._errors import raise_for_status, read_bounded, redact
from ._retry import RETRY_EXTENSION, RetryTransport

__all__ = ["ServiceClient"]

T = TypeVar("T")


class ServiceClient:
    """An HTTP client bound to one service and one account.

    It has its own cookie jar, ignores proxy and netrc settings from the environment, and does not follow
    redirects unless asked. Requests go only to `base_url`'s origin and `extra_origins`; credentials come from
    `credentials` through `AccountAuth`, retries from `RetryTransport`. `transport` is shared with other clients:
    `aclose()` leaves it open.

    Raises:
        ValueError: `tries` is below 1.
    """

    def __init__(
        self,
        service: str,
        base_url: str,
        *,
        transport: httpx.AsyncBaseTransport,
        credentials: CredentialSource | None = None,
        headers: Mapping[str, str] | None = None,
        user_agent: str = "mcpist",
        timeout_s: float = 30.0,
        deadline_s: float = 60.0,
        extra_origins: Sequence[str] = (),
        tries: int = 3,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        clock: Callable[[], float] = time.monotonic,
        follow_redirects: bool = False,
    ) -> None:
        self.service = service
        self.base_url = base_url
        self._credentials = credentials
        self._timeout_s = timeout_s
        self._deadline_s = deadline_s
        origins = tuple(o for o in (base_url, *extra_origins) if o)
        self._allowed = frozenset(origin_of(origin) for origin in origins)
        self._auth = AccountAuth(service, credentials, origins) if credentials is not None else None
        # observed inside the retries: each attempt's status and time counts (a 429, a 401 before a refresh)
        observed = ObservedTransport(transport, service)
        self._retrying = RetryTransport(observed, tries=tries, deadline_s=deadline_s, sleep=sleep, clock=clock)
        self._user_agent = user_agent
        self._sibling_args: dict[str, Any] = {
            "transport": transport,
            "user_agent": user_agent,
            "timeout_s": timeout_s,
            "deadline_s": deadline_s,
            "tries": tries,
            "sleep": sleep,
            "clock": clock,
        }
        self._http = httpx.AsyncClient(
            base_url=base_url,
            transport=self._retrying,
            auth=self._auth,
            headers={"User-Agent": user_agent, "Accept": "application/json", **(headers or {})},
            timeout=timeout_s,
            follow_redirects=follow_redirects,
            trust_env=False,
            # runs for every request of a redirect chain too, which the auth flow does not see
            event_hooks={"request": [self._refuse_other_origins]},
        )

    def __repr__(self) -> str:
        return f"ServiceClient(service={self.service!r}, base_url={self.base_url!r})"

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close this client; the shared transport stays open."""
        await self._http.aclose()

    def sibling(
        self,
        base_url: str,
        credentials: CredentialSource | None,
        *,
        service: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> ServiceClient:
        """A client on another API root with another credential (a project's own key, say), over the same
        shared connection pool with the same timeouts and retries. It never carries this client's credential;
        the caller closes it."""
        return ServiceClient(
            service or self.service, base_url, credentials=credentials, headers=headers, **self._sibling_args
        )

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        content: bytes | str | None = None,
        data: Mapping[str, Any] | None = None,
        files: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> httpx.Response:
        """Send a request and return the read response if it is 2xx or its status is in `ok`.

        `url` is a path under `base_url` or an absolute URL on an allowed origin. `retry` True lets an idempotent
        non-GET request be retried; False turns retries off.

        Raises:
            MCPistError: the mapped upstream status (see `raise_for_status`); for a 401 that survived a
                refresh, the credential source's `rejected()` error.
            Unavailable: the service cannot be reached, or the URL is on another origin.
            DeadlineExceeded: the service did not answer in time.
        """
        response = await self._send(
            method, url, params, json, content, data, files, headers, timeout_s, retry, stream=False
        )
        await self._check(response, ok)
        return response

    async def download(self, url: str, *, max_bytes: int, timeout_s: float | None = None) -> tuple[bytes, bool]:
        """GET a signed download URL the service handed out (e.g. a `Location` to blob storage) WITHOUT the
        account's credential or cookies: at most `max_bytes` (bytes, truncated). Only https URLs.

        Raises:
            InvalidArgument: the URL is not https.
            MCPistError: the download's status, mapped as for `request`.
            Unavailable, DeadlineExceeded: as `request`.
        """
        target = httpx.URL(url)
        if target.scheme != "https":
            raise InvalidArgument(
                f"{self.service} handed out a download URL that is not https", {"service": self.service}
            )
        async with httpx.AsyncClient(
            transport=self._retrying,
            headers={"User-Agent": self._user_agent},
            timeout=self._timeout_s if timeout_s is None else timeout_s,
            trust_env=False,
        ) as plain:
            try:
                async with plain.stream("GET", target) as response:
                    if not 200 <= response.status_code < 300:
                        await raise_for_status(response, self.service)
                    return await read_bounded(response, max_bytes)
            except httpx.RequestError as exc:
                raise self._transport_error(exc, timeout_s) from exc

    @asynccontextmanager
    async def stream(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        content: bytes | str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> AsyncIterator[httpx.Response]:
        """Like `request`, but the body is left unread for `read_bounded` or `aiter_bytes`; closed on exit.

        Raises:
            MCPistError: as `request`; a broken or stalled body read inside the block is mapped the same way.
        """
        response = await self._send(method, url, params, json, content, None, None, headers, timeout_s, retry, True)
        try:
            await self._check(response, ok)
            yield response
        except httpx.RequestError as exc:
            raise self._transport_error(exc, timeout_s) from exc
        finally:
            await response.aclose()

    async def get_json(
        self,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> Any:
        """The parsed JSON body of a GET (None when empty).

        Raises:
            MCPistError: as `request`.
            Unavailable: the body is not JSON.
        """
        response = await self.request(
            "GET", url, params=params, headers=headers, timeout_s=timeout_s, ok=ok, retry=retry
        )
        return self._json(response)

    async def post_json(
        self,
        url: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> Any:
        """The parsed JSON body answering a POST of `json` (None when empty).

        Raises:
            MCPistError: as `request`.
            Unavailable: the body is not JSON.
        """
        return await self._with_body("POST", url, json, params, headers, timeout_s, ok, retry)

    async def put_json(
        self,
        url: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> Any:
        """As `post_json`, with PUT; pass `retry=True` when the PUT is idempotent.

        Raises:
            MCPistError: as `request`.
            Unavailable: the body is not JSON.
        """
        return await self._with_body("PUT", url, json, params, headers, timeout_s, ok, retry)

    async def patch_json(
        self,
        url: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> Any:
        """As `post_json`, with PATCH.

        Raises:
            MCPistError: as `request`.
            Unavailable: the body is not JSON.
        """
        return await self._with_body("PATCH", url, json, params, headers, timeout_s, ok, retry)

    async def delete_json(
        self,
        url: str,
        json: Any = None,
        *,
        params: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
        timeout_s: float | None = None,
        ok: Collection[int] = (),
        retry: bool | None = None,
    ) -> Any:
        """As `post_json`, with DELETE (a body only when `json` is given); pass `retry=True` when idempotent.

        Raises:
            MCPistError: as `request`.
            Unavailable: the body is not JSON.
        """
        return await self._with_body("DELETE", url, json, params, headers, timeout_s, ok, retry)

    async def _with_body(
        self,
        method: str,
        url: str,
        json: Any,
        params: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        timeout_s: float | None,
        ok: Collection[int],
        retry: bool | None,
    ) -> Any:
        response = await self.request(
            method, url, json=json, params=params, headers=headers, timeout_s=timeout_s, ok=ok, retry=retry
        )
        return self._json(response)

    def parse(self, model: type[T], body: Any) -> T:
        """`body` validated as `model` (a pydantic model, dataclass, TypedDict or other type pydantic knows).

        Raises:
            Unavailable: the body does not have the shape the tool expects.
        """
        try:
            return TypeAdapter(model).validate_python(body)
        except ValidationError as exc:
            # not chained: a ValidationError's text quotes the upstream's data
            raise self._shape_error(exc.errors(include_input=False, include_url=False), ()) from None

    def parse_list(self, model: type[T], body: Any) -> list[T]:
        """Each element of the list `body` validated as `model`.

        Raises:
            Unavailable: `body` is not a list, or an element does not have the expected shape.
        """
        if not isinstance(body, list):
            raise self._shape_error([{"loc": (), "msg": "expected a list"}], ())
        adapter = TypeAdapter(model)
        parsed: list[T] = []
        problems: list[Any] = []
        first_at: tuple[int, ...] = ()
        for index, item in enumerate(body):
            try:
                parsed.append(adapter.validate_python(item))
            except ValidationError as exc:
                if not problems:
                    first_at = (index,)
                problems.extend(exc.errors(include_input=False, include_url=False))
        if problems:
            raise self._shape_error(problems, first_at)
        return parsed

    def _shape_error(self, problems: Sequence[Any], prefix: tuple[int, ...]) -> Unavailable:
        first = problems[0]
        where = ".".join(str(part) for part in (*prefix, *first["loc"])) or "the body"
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        # locations can be the upstream's own dict keys, and a few pydantic messages quote a tag from the body
        detail = redact(f"{where}: {first['msg']}", self._secrets())[:200]
        return Unavailable(
            f"{self.service} answered an unexpected shape: {detail}{more}",
            {"service": self.service, "problems": len(problems)},
        )

    async def _send(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json: Any,
        content: bytes | str | None,
        data: Mapping[str, Any] | None,
        files: Mapping[str, Any] | None,
        headers: Mapping[str, str] | None,
        timeout_s: float | None,
        retry: bool | None,
        stream: bool,
    ) -> httpx.Response:
        request = self._http.build_request(
            method,
            url,
            params=params,
            json=json,
            content=content,
            data=data,
            files=files,
            headers=headers,
            timeout=self._timeout_s if timeout_s is None else timeout_s,
            extensions={} if retry is None else {RETRY_EXTENSION: retry},
        )
        try:
            with anyio.fail_after(self._deadline_s):
                return await self._http.send(request, stream=stream)
        except TimeoutError as exc:
            raise DeadlineExceeded(
                f"{self.service} did not answer within {self._deadline_s:g} s", {"service": self.service}
            ) from exc
        except httpx.RequestError as exc:
            raise self._transport_error(exc, timeout_s) from exc

    def _transport_error(self, exc: httpx.RequestError, timeout_s: float | None) -> MCPistError:
        # only the exception's type: its text can quote the URL. A connect timeout never reached the
        # service (unavailable); a read, write or pool timeout is a service too slow to answer
        if isinstance(exc, httpx.TimeoutException) and not isinstance(exc, httpx.ConnectTimeout):
            timeout = self._timeout_s if timeout_s is None else timeout_s
            return DeadlineExceeded(f"{self.service} did not answer within {timeout:g} s", {"service": self.service})
        return Unavailable(f"{self.service} cannot be reached: {type(exc).__name__}", {"service": self.service})

    async def _check(self, response: httpx.Response, ok: Collection[int]) -> None:
        status = response.status_code
        if 200 <= status < 300 or status in ok:
            return
        if status == 401 and self._credentials is not None:
            await response.aclose()
            raise await self._credentials.rejected()
        await raise_for_status(response, self.service, secrets=self._secrets())

    def json(self, response: httpx.Response) -> Any:
        """The JSON body of a response `request()` returned (None when empty), for when headers matter too.

        Raises:
            Unavailable: the body is not JSON.
        """
        return self._json(response)

    def _json(self, response: httpx.Response) -> Any:
        if response.status_code == 204 or not response.content.strip():
            return None
        try:
            return response.json()
        except ValueError:
            raise Unavailable(
                f"{self.service} answered with something other than JSON",
                {"service": self.service, "status": response.status_code},
            ) from None

    def _secrets(self) -> list[str]:
        return self._auth._secrets() if self._auth is not None else []

    async def _refuse_other_origins(self, request: httpx.Request) -> None:
        # a client with neither an API root nor a credential (a module calling URLs its user configured,
        # such as an LLM endpoint) has nothing to confine; with a credential, AccountAuth confines it anyway
        if self._allowed or self._credentials is not None:
            check_origin(request.url, self._allowed, self.service)
