"""A fake upstream API that refuses what the real one would refuse.

A contract test builds a :class:`FakeUpstream` from the vendor's API description (OpenAPI 3.x, or a Google
Discovery document), registers handlers for the documented operations the module calls, and hands
``fake.transport()`` to the module's httpx client. Every request is matched to a documented operation and checked
against it before any handler runs. A request that fails is answered with status 599 and recorded in
``fake.violations`` instead of raising, because an exception inside the transport would reach the module as a
transport error and be reported as "upstream unavailable", hiding the cause. Tests end with ``fake.assert_clean()``
or use the fake as a context manager.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar
from urllib.parse import unquote

import httpx

from mcpist.testing._discovery import DiscoveryDescription
from mcpist.testing._paths import PathIndex, argument_name

__all__ = ["VARIANT_ENV", "FakeUpstream", "RecordedRequest", "Violation"]

VARIANT_ENV = "MCPIST_FAKE_UPSTREAM_VARIANT"
"""`nulls`: every fake reply (2xx, JSON, OpenAPI) has each property its schema lets be null set to null,
after the reply was checked as written; `sparse`: also drops every property its schema does not mark
required. A module must give the same kind of answer or a clear error, never INTERNAL. For running a
module's contract tests against the least a vendor promises."""

Reply = httpx.Response | dict[str, Any] | list[Any] | tuple[int, Any] | tuple[int, Any, Mapping[str, str]]
Handler = Callable[..., Reply | Awaitable[Reply]]
_H = TypeVar("_H", bound=Handler)
ViolationKind = Literal["undocumented", "invalid request", "unhandled", "invalid response", "handler error"]


class _Description(Protocol):
    title: str
    default_base_url: str | None
    operations: dict[tuple[str, str], Mapping[str, Any]]

    def check_request(
        self,
        operation: tuple[str, str],
        *,
        path_params: Mapping[str, str],
        query: Sequence[tuple[str, str]],
        headers: Mapping[str, str],
        body: bytes,
        content_type: str,
        allow_unknown_query: bool,
    ) -> list[str]: ...

    def check_response(
        self, operation: tuple[str, str], *, status: int, content_type: str, content: bytes, strict: bool
    ) -> list[str]: ...


@dataclass(frozen=True)
class RecordedRequest:
    """One request the fake received; ``operation`` is the documented one it matched, like "GET /user/repos"."""

    method: str
    path: str
    params: dict[str, str | list[str]]
    json: Any
    content: bytes
    headers: httpx.Headers
    operation: str | None


@dataclass(frozen=True)
class Violation:
    """A request the real API would refuse, a missing fake, or a reply the description does not allow."""

    kind: ViolationKind
    request: str
    operation: str | None
    problems: tuple[str, ...] = ()

    def __str__(self) -> str:
        head = f"{self.kind}: {self.operation or self.request}"
        if self.operation is not None and self.kind != "unhandled":
            head += f" (sent {self.request})"
        return head + "".join(f"\n    {problem}" for problem in self.problems)


@dataclass(frozen=True)
class _Route:
    handler: Handler
    operation: tuple[str, str]
    arguments: tuple[tuple[str, str], ...]  # (spec name, keyword argument name)


@dataclass(frozen=True)
class _Accepted:
    route: _Route
    path_params: dict[str, str]
    sent: str  # "GET /v2/lists/7/tasks?state=open", for violations

    @property
    def operation(self) -> str:
        return f"{self.route.operation[0]} {self.route.operation[1]}"


class FakeUpstream:
    """Serves registered handlers for the documented operations of one API and checks every exchange.

    ``base_url`` is where the module sends requests (its path is a prefix, such as ``/v1.0``); it defaults to the
    description's first server (OpenAPI) or ``rootUrl + servicePath`` (Discovery). ``validate_responses`` checks
    each handler reply against the documented response: True checks the types of the fields present, "strict"
    also requires every field the schema marks required, False checks nothing. ``slash_params`` names path
    parameters whose values may hold unencoded slashes (GitHub's ``{path}`` in ``/contents/{path}``).
    Unknown query parameters are refused unless ``allow_unknown_query``, or the operation has a free-form one.

    Raises ValueError if the description is neither OpenAPI 3.x nor a Discovery document, or no base URL is
    given and the description has no absolute server URL; ImportError for OpenAPI without openapi-core installed
    (the ``testing`` extra).
    """

    def __init__(
        self,
        spec: Mapping[str, Any],
        *,
        base_url: str | None = None,
        validate_responses: bool | Literal["strict"] = True,
        slash_params: Collection[str] = (),
        allow_unknown_query: bool = False,
    ) -> None:
        self._init(_describe(spec), base_url, validate_responses, slash_params, allow_unknown_query)

    @classmethod
    def from_file(
        cls,
        path: str | os.PathLike[str],
        *,
        base_url: str | None = None,
        validate_responses: bool | Literal["strict"] = True,
        slash_params: Collection[str] = (),
        allow_unknown_query: bool = False,
    ) -> FakeUpstream:
        """Build a fake from a JSON description; each file is parsed and compiled once per process.

        Raises OSError if the file cannot be read, ValueError as the constructor does or if it is not JSON.
        """
        resolved = Path(path).resolve()
        stat = resolved.stat()
        fake = cls.__new__(cls)
        description = _load(str(resolved), stat.st_mtime_ns, stat.st_size)
        fake._init(description, base_url, validate_responses, slash_params, allow_unknown_query)
        return fake

    def _init(
        self,
        description: _Description,
        base_url: str | None,
        validate_responses: bool | Literal["strict"],
        slash_params: Collection[str],
        allow_unknown_query: bool,
    ) -> None:
        base = base_url or description.default_base_url
        if not base:
            raise ValueError(f"{description.title}: no absolute server URL in the description; pass base_url")
        self._api = description
        self._base = httpx.URL(base)
        self._prefix = self._base.raw_path.decode("ascii").split("?")[0].rstrip("/")
        self._validate_responses = validate_responses
        self._paths = PathIndex(description.operations, slash_params)
        self._allow_unknown_query = allow_unknown_query
        self._routes: dict[tuple[str, str], _Route] = {}
        self.requests: list[RecordedRequest] = []
        self.violations: list[Violation] = []

    @property
    def operations(self) -> list[str]:
        """Every documented operation, as "METHOD /path/{template}"."""
        return [f"{method} {template}" for method, template in self._api.operations]

    def route(self, method: str, path: str) -> Callable[[_H], _H]:
        """Register the decorated handler for a documented operation; the handler is returned unchanged.

        The handler is called as ``handler(request, **path_params)`` and may be async; a parameter name that is
        not an identifier has its other characters replaced by "_" (``todoTaskList-id`` -> ``todoTaskList_id``)
        and ``{*}`` arrives as ``wildcard``. It returns an ``httpx.Response``, a dict or list (sent as 200 JSON),
        ``(status, body)`` or ``(status, body, headers)``.

        Raises ValueError if the description has no such operation (naming the closest documented ones), if the
        operation already has a handler, or if the handler does not accept the operation's path parameters.
        """
        operation = (method.upper(), path if path.startswith("/") else "/" + path)
        if operation not in self._api.operations:
            raise ValueError(
                f"{self._api.title} documents no {operation[0]} {operation[1]}; {self._paths.closest(*operation)}"
            )
        if operation in self._routes:
            raise ValueError(f"{operation[0]} {operation[1]} already has a handler")
        arguments = tuple((name, argument_name(name)) for name in self._paths.names(operation[1]))

        def register(handler: _H) -> _H:
            try:
                inspect.signature(handler).bind(None, **{argument: "" for _, argument in arguments})
            except TypeError as exc:
                wanted = ", ".join(argument for _, argument in arguments) or "no path parameters"
                raise ValueError(f"handler for {operation[0]} {operation[1]} must take (request, {wanted})") from exc
            self._routes[operation] = _Route(handler, operation, arguments)
            return handler

        return register

    def transport(self) -> httpx.MockTransport:
        """A transport serving this fake to ``httpx.Client`` and ``httpx.AsyncClient`` alike."""
        return _Transport(self)

    def assert_clean(self) -> None:
        """Raises AssertionError listing every violation seen so far."""
        if self.violations:
            listed = "\n".join(f"  - {violation}" for violation in self.violations)
            raise AssertionError(f"{len(self.violations)} violation(s) of {self._api.title}:\n{listed}")

    def __enter__(self) -> FakeUpstream:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if exc_type is None:
            self.assert_clean()

    def _refuse(self, violation: Violation, status: int = 599) -> httpx.Response:
        self.violations.append(violation)
        return httpx.Response(status, json={"fake_upstream": str(violation), "problems": list(violation.problems)})

    def _accept(self, request: httpx.Request) -> _Accepted | httpx.Response:
        """Match the request to a documented operation and check it, recording both the request and any refusal."""
        method, url = request.method, request.url
        sent = f"{method} {url.raw_path.decode('ascii')}"
        relative = self._relative(url)
        matched = self._paths.match(method, relative) if relative is not None else None
        operation = f"{matched[0][0]} {matched[0][1]}" if matched else None
        self.requests.append(_record(request, unquote(relative or url.path), operation))
        if relative is None:
            return self._refuse(Violation("undocumented", sent, None, (f"not under base_url {self._base}",)))
        if matched is None:
            return self._refuse(Violation("undocumented", sent, None, (self._paths.explain_miss(method, relative),)))
        key, path_params = matched
        problems = self._api.check_request(
            key,
            path_params=path_params,
            query=url.params.multi_items(),
            headers=request.headers,
            body=request.content,
            content_type=request.headers.get("content-type", "").lower(),
            allow_unknown_query=self._allow_unknown_query,
        )
        if problems:
            return self._refuse(Violation("invalid request", sent, operation, tuple(problems)))
        route = self._routes.get(key)
        if route is None:
            return self._refuse(Violation("unhandled", sent, operation), status=404)
        return _Accepted(route, path_params, sent)

    def _relative(self, url: httpx.URL) -> str | None:
        """The raw path below the base URL's path, or None for a request sent elsewhere."""
        if (url.scheme, url.host, url.port) != (self._base.scheme, self._base.host, self._base.port):
            return None
        raw_path = url.raw_path.decode("ascii").split("?")[0]
        if not raw_path.startswith(self._prefix):
            return None
        rest = raw_path[len(self._prefix) :]
        if rest and not rest.startswith("/"):
            return None  # "/v2x/..." is not under "/v2"
        return rest or "/"

    def _finish(self, accepted: _Accepted, reply: object) -> httpx.Response:
        try:
            response = _to_response(reply)
        except _BadReply as exc:
            return self._failed(accepted, exc)
        if self._validate_responses is False or accepted.route.operation[0] == "HEAD":
            return response  # a HEAD reply has no body to check
        try:
            content = response.content
        except httpx.ResponseNotRead:
            return response  # a streamed reply is passed on unchecked
        problems = self._api.check_response(
            accepted.route.operation,
            status=response.status_code,
            content_type=response.headers.get("content-type", "").lower(),
            content=content,
            strict=self._validate_responses == "strict",
        )
        if problems:
            self.violations.append(Violation("invalid response", accepted.sent, accepted.operation, tuple(problems)))
        if os.environ.get(VARIANT_ENV) in ("nulls", "sparse") and 200 <= response.status_code < 300:
            return self._nulls(accepted, response, content)
        return response

    def _nulls(self, accepted: _Accepted, response: httpx.Response, content: bytes) -> httpx.Response:
        """The reply with every property the description lets be null set to null (and, `sparse`, only the
        required ones kept)."""
        nulled = getattr(self._api, "nulled", None)
        if nulled is None or "json" not in response.headers.get("content-type", ""):
            return response
        try:
            body = json.loads(content)
        except ValueError:
            return response
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        return httpx.Response(
            response.status_code,
            json=nulled(
                accepted.route.operation, response.status_code, body, sparse=os.environ.get(VARIANT_ENV) == "sparse"
            ),
            headers=headers,
        )

    def _failed(self, accepted: _Accepted, exc: Exception) -> httpx.Response:
        problem = str(exc) if isinstance(exc, _BadReply) else f"{type(exc).__name__}: {exc}"
        return self._refuse(Violation("handler error", accepted.sent, accepted.operation, (problem,)))

    def _call(self, accepted: _Accepted, request: httpx.Request) -> object:
        kwargs = {argument: accepted.path_params[name] for name, argument in accepted.route.arguments}
        return accepted.route.handler(request, **kwargs)

    def _handle(self, request: httpx.Request) -> httpx.Response:
        accepted = self._accept(request)
        if isinstance(accepted, httpx.Response):
            return accepted
        try:
            reply = self._call(accepted, request)
        except httpx.TransportError:
            raise  # a handler simulating a network failure means it
        except Exception as exc:
            return self._failed(accepted, exc)
        if inspect.isawaitable(reply):
            if inspect.iscoroutine(reply):
                reply.close()
            return self._failed(accepted, _BadReply("async handler used with a sync httpx.Client"))
        return self._finish(accepted, reply)

    async def _handle_async(self, request: httpx.Request) -> httpx.Response:
        accepted = self._accept(request)
        if isinstance(accepted, httpx.Response):
            return accepted
        try:
            reply = self._call(accepted, request)
            if inspect.isawaitable(reply):
                reply = await reply
        except httpx.TransportError:
            raise
        except Exception as exc:
            return self._failed(accepted, exc)
        return self._finish(accepted, reply)


class _BadReply(TypeError):
    """A handler broke the fake's contract; reported as a violation, not raised into the module."""


class _Transport(httpx.MockTransport):
    def __init__(self, fake: FakeUpstream) -> None:
        super().__init__(fake._handle)
        self._fake = fake

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        return await self._fake._handle_async(request)


def _describe(spec: Mapping[str, Any]) -> _Description:
    if "openapi" in spec:
        try:  # imported here so that the rest of mcpist.testing works without the optional dependency
            from mcpist.testing._openapi import OpenApiDescription
        except ImportError as exc:
            raise ImportError("checking against OpenAPI needs openapi-core: pip install 'mcpist[testing]'") from exc
        return OpenApiDescription(spec)
    if "discoveryVersion" in spec or ("resources" in spec and "rootUrl" in spec):
        return DiscoveryDescription(spec)
    if "swagger" in spec:
        raise ValueError("Swagger 2.0 is not supported; convert the description to OpenAPI 3")
    raise ValueError("not an OpenAPI 3.x description nor a Google Discovery document")


@functools.lru_cache(maxsize=32)
def _load(path: str, mtime_ns: int, size: int) -> _Description:
    """Parse and compile a description once; the modification time and size in the key catch an edited file."""
    with open(path, encoding="utf-8") as file:
        try:
            spec = json.load(file)
        except ValueError as exc:
            raise ValueError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(spec, dict):
        raise ValueError(f"{path}: not a JSON object")
    return _describe(spec)


def _record(request: httpx.Request, path: str, operation: str | None) -> RecordedRequest:
    params: dict[str, str | list[str]] = {}
    for name, value in request.url.params.multi_items():
        previous = params.get(name)
        params[name] = value if previous is None else [*([previous] if isinstance(previous, str) else previous), value]
    body: Any = None
    if request.content and "json" in request.headers.get("content-type", ""):
        try:
            body = json.loads(request.content)
        except ValueError:
            body = None
    return RecordedRequest(request.method, path, params, body, request.content, request.headers, operation)


def _to_response(reply: object) -> httpx.Response:
    if isinstance(reply, httpx.Response):
        return reply
    if isinstance(reply, dict | list):
        return httpx.Response(200, json=reply)
    if isinstance(reply, tuple) and len(reply) in (2, 3) and isinstance(reply[0], int):
        status, body = reply[0], reply[1]
        headers: Mapping[str, str] = reply[2] if len(reply) == 3 else {}
        if body is None:
            return httpx.Response(status, headers=headers)
        if isinstance(body, bytes):
            return httpx.Response(status, content=body, headers=headers)
        if isinstance(body, str):
            return httpx.Response(status, text=body, headers=headers)
        return httpx.Response(status, json=body, headers=headers)
    raise _BadReply(
        f"handler returned {type(reply).__name__}; return an httpx.Response, a dict or list, "
        "(status, body) or (status, body, headers)"
    )
