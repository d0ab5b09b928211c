"""Request and response checks for an OpenAPI 3.x description, done by openapi-core.

The fake matches the request to an operation itself (it needs the match for routing and for naming the closest
documented paths), so openapi-core is handed the operation through a path finder that looks it up by its template
instead of searching the servers and paths again. Security requirements are not checked: tests send no credentials.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from jsonschema_path import SchemaPath
from openapi_core.datatypes import RequestParameters
from openapi_core.templating.datatypes import TemplateResult
from openapi_core.templating.paths.datatypes import PathOperationServer
from openapi_core.templating.paths.finders import BasePathFinder
from openapi_core.validation.request import validators as request_validators
from openapi_core.validation.request.exceptions import (
    MissingRequiredParameter,
    MissingRequiredRequestBody,
    ParameterValidationError,
)
from openapi_core.validation.response import validators as response_validators
from openapi_core.validation.response.exceptions import ResponseValidationError
from werkzeug.datastructures import Headers, ImmutableMultiDict

__all__ = ["OpenApiDescription"]

_HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
# openapi-core joins this host with the path template; the finder below strips it off again
_HOST = "http://fake-upstream.invalid"


class _OperationByTemplate(BasePathFinder):
    def find(self, method: str, name: str) -> PathOperationServer:
        template = name.removeprefix(_HOST)
        path = self.spec / "paths" / template
        return PathOperationServer(path, path / method, None, TemplateResult(template, {}), TemplateResult("", {}))


@dataclass
class _Request:
    """What openapi-core reads from a request (its ``Request`` and ``SupportsPathPattern`` protocols)."""

    method: str
    path_pattern: str
    parameters: RequestParameters
    body: bytes | None
    content_type: str
    host_url: str = _HOST

    @property
    def path(self) -> str:
        return self.path_pattern


@dataclass
class _Response:
    status_code: int
    content_type: str
    data: bytes | None
    headers: Headers = field(default_factory=Headers)


class OpenApiDescription:
    """One OpenAPI 3.0, 3.1 or 3.2 description, indexed by ``(HTTP method, path template)``."""

    def __init__(self, spec: Mapping[str, Any]) -> None:
        version = str(spec.get("openapi", ""))
        prefix = {"3.0": "V30", "3.1": "V31", "3.2": "V32"}.get(version[:3])
        if prefix is None:
            raise ValueError(f"unsupported OpenAPI version {version!r} (3.0, 3.1 and 3.2 are)")
        self._raw = _nullable_means_or_null(spec) if prefix == "V30" else spec
        self._prefix = prefix
        self.title = str(spec.get("info", {}).get("title") or "OpenAPI description")
        self.default_base_url = _server_url(spec)
        self.operations: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._query: dict[tuple[str, str], frozenset[str] | None] = {}
        for template, item in self._raw.get("paths", {}).items():
            item = self._resolve(item)
            for method in _HTTP_METHODS:
                if method in item:
                    key = (method.upper(), template)
                    self.operations[key] = item[method]
                    self._query[key] = self._query_names(item, item[method])
        schema_path = SchemaPath.from_dict(self._raw)
        self._params = getattr(request_validators, f"{prefix}RequestParametersValidator")(
            schema_path, path_finder_cls=_OperationByTemplate
        )
        self._body = getattr(request_validators, f"{prefix}RequestBodyValidator")(
            schema_path, path_finder_cls=_OperationByTemplate
        )

    def _resolve(self, node: Any) -> Any:
        for _ in range(64):
            if not (isinstance(node, Mapping) and isinstance(node.get("$ref"), str)):
                return node
            target: Any = self._raw
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target.get(part.replace("~1", "/").replace("~0", "~"), {})
            node = target
        return node

    def _query_names(self, item: Mapping[str, Any], operation: Mapping[str, Any]) -> frozenset[str] | None:
        """The documented query parameter names, or None when any name is allowed (a free-form object)."""
        names: set[str] = set()
        for param in [*item.get("parameters", []), *operation.get("parameters", [])]:
            param = self._resolve(param)
            if param.get("in") != "query":
                continue
            names.add(str(param.get("name")))
            schema = self._resolve(param.get("schema", {}))
            style = param.get("style", "form")
            if style == "deepObject" or (
                style == "form" and param.get("explode", True) and schema.get("type") == "object"
            ):
                return None
        return frozenset(names)

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
    ) -> list[str]:
        method, template = operation
        request = _Request(
            method=method.lower(),
            path_pattern=template,
            parameters=RequestParameters(
                query=ImmutableMultiDict(list(query)), header=Headers(list(headers.items())), path=dict(path_params)
            ),
            body=body or None,
            content_type=content_type,
        )
        problems: list[str] = []
        allowed = self._query[operation]
        if allowed is not None and not allow_unknown_query:
            for name in dict.fromkeys(name for name, _ in query):
                if name not in allowed:
                    documented = ", ".join(sorted(allowed)) or "none"
                    problems.append(f"unknown query parameter '{name}' (documented: {documented})")
        with warnings.catch_warnings():
            # a deprecated parameter still works upstream; openapi-core's DeprecationWarning is not a refusal
            warnings.simplefilter("ignore", DeprecationWarning)
            errors = [*self._params.iter_errors(request), *self._body.iter_errors(request)]
        for error in errors:
            problems.extend(_describe(error))
        if body and "requestBody" not in self.operations[operation]:
            problems.append("body: the operation documents no request body")
        return problems

    def check_response(
        self, operation: tuple[str, str], *, status: int, content_type: str, content: bytes, strict: bool
    ) -> list[str]:
        """Check the reply body against the documented response for its status.

        A 2xx status other than the documented ones is a problem (a fake answering 200 where the API answers 201
        misleads the module); other undocumented statuses are not, since any API can answer 429 or 503 whatever
        its description lists, and some descriptions document no success status at all.
        """
        responses: Mapping[str, Any] = self.operations[operation].get("responses", {})
        keys = {str(key).upper() for key in responses}
        if not keys & {str(status), f"{status // 100}XX", "DEFAULT"}:
            if 200 <= status < 300 and any(key.startswith("2") for key in keys):
                return [f"response: status {status} is not documented (documented: {', '.join(sorted(keys))})"]
            return []
        validator = self._strict_responses if strict else self._lenient_responses
        request = _Request(operation[0].lower(), operation[1], RequestParameters(), None, "")
        reply = _Response(status, content_type, content or None)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return [problem for error in validator.iter_errors(request, reply) for problem in _describe(error)]

    def nulled(self, operation: tuple[str, str], status: int, value: Any, *, sparse: bool = False) -> Any:
        """`value` (a reply body) with every property the documented response lets be null set to null and,
        `sparse`, every property it does not require left out: what a module must survive, since the vendor
        promises no more (see `FakeUpstream`'s variants). Properties the schema does not name stay."""
        responses: Mapping[str, Any] = self.operations[operation].get("responses", {})
        response = responses.get(str(status)) or responses.get(f"{status // 100}XX") or responses.get("default")
        content = self._resolve(response or {}).get("content", {})
        media = next((m for k, m in content.items() if "json" in k), None)
        if media is None or "schema" not in media:
            return value
        return self._nulled(value, media["schema"], 0, sparse)

    def _nulled(self, value: Any, schema: Any, depth: int, sparse: bool = False) -> Any:
        if depth > 32:
            return value
        if isinstance(value, list):
            items = self._gather(schema, "items")
            return [self._nulled(item, items[0], depth + 1, sparse) if items else item for item in value]
        if not isinstance(value, dict):
            return value
        properties: dict[str, list[Any]] = {}
        for found in self._gather(schema, "properties"):
            for name, sub in found.items():
                properties.setdefault(name, []).append(sub)
        required = {name for found in self._gather(schema, "required") for name in found}
        out: dict[str, Any] = {}
        for name, item in value.items():
            subs = properties.get(name)
            if not subs:
                out[name] = item
            elif sparse and name not in required:
                continue
            elif any(self._allows_null(sub, 0) for sub in subs):
                out[name] = None
            else:
                out[name] = self._nulled(item, subs[0], depth + 1, sparse)
        return out

    def _gather(self, schema: Any, key: str) -> list[Any]:
        """`schema[key]` of the schema and of each of its allOf/anyOf/oneOf branches (resolved)."""
        schema = self._resolve(schema)
        if not isinstance(schema, Mapping):
            return []
        found = [schema[key]] if key in schema else []
        for combiner in ("allOf", "anyOf", "oneOf"):
            for branch in schema.get(combiner, []):
                found += self._gather(branch, key)
        return found

    def _allows_null(self, schema: Any, depth: int) -> bool:
        schema = self._resolve(schema)
        if not isinstance(schema, Mapping) or depth > 16:
            return False
        kind = schema.get("type")
        if schema.get("nullable") is True or kind == "null" or (isinstance(kind, list) and "null" in kind):
            return True
        return any(self._allows_null(b, depth + 1) for c in ("anyOf", "oneOf") for b in schema.get(c, []))

    @cached_property
    def _strict_responses(self) -> Any:
        return getattr(response_validators, f"{self._prefix}ResponseDataValidator")(
            SchemaPath.from_dict(self._raw), path_finder_cls=_OperationByTemplate
        )

    @cached_property
    def _lenient_responses(self) -> Any:
        # canned replies hold the fields a test needs, not the dozens a schema marks required; oneOf turns into
        # anyOf and discriminators go because without `required` a partial object often fits several branches
        return getattr(response_validators, f"{self._prefix}ResponseDataValidator")(
            SchemaPath.from_dict(_lenient(self._raw)), path_finder_cls=_OperationByTemplate
        )


def _nullable_means_or_null(node: Any) -> Any:
    """Read OAS 3.0 ``nullable: true`` without a sibling ``type`` as "or null".

    By the letter of OAS 3.0.3 it has no effect there, but vendors write it to mean exactly that: GitHub documents
    ``"milestone": null`` as the way to remove a milestone with such a schema.
    """
    if isinstance(node, list):
        return [_nullable_means_or_null(value) for value in node]
    if not isinstance(node, Mapping):
        return node
    fixed = {
        key: value if key in ("example", "examples") else _nullable_means_or_null(value) for key, value in node.items()
    }
    if fixed.get("nullable") is True and "type" not in fixed:
        rest = {key: value for key, value in fixed.items() if key != "nullable"}
        return {"anyOf": [rest, {"type": "string", "nullable": True, "enum": [None]}]}
    return fixed


def _lenient(node: Any) -> Any:
    if isinstance(node, Mapping):
        return {
            ("anyOf" if key == "oneOf" else key): _lenient(value)
            for key, value in node.items()
            if not (key == "required" and isinstance(value, list))
            and not (key == "discriminator" and isinstance(value, Mapping) and "propertyName" in value)
        }
    if isinstance(node, list):
        return [_lenient(value) for value in node]
    return node


def _server_url(spec: Mapping[str, Any]) -> str | None:
    servers = spec.get("servers") or []
    if not servers:
        return None
    url = str(servers[0].get("url", ""))
    for name, variable in servers[0].get("variables", {}).items():
        url = url.replace("{" + name + "}", str(variable.get("default", "")))
    return url if url.startswith(("http://", "https://")) else None


def _describe(error: Exception) -> Iterator[str]:
    if isinstance(error, MissingRequiredParameter):
        yield f"missing required {error.location} parameter '{error.name}'"
        return
    if isinstance(error, MissingRequiredRequestBody):
        yield "body: missing; the operation requires one"
        return
    if isinstance(error, ParameterValidationError):
        where = f"{error.location} parameter '{error.name}'"
    elif isinstance(error, ResponseValidationError):
        where = "response"
    else:
        where = "body"
    cause = error.__cause__
    # jsonschema ships no type information, so its errors are read as Any
    schema_errors: list[Any] = list(getattr(cause, "schema_errors", []))
    if not schema_errors:
        yield f"{where}: {cause or error}" if cause is not None else str(error)
        return
    for schema_error in schema_errors:
        path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in schema_error.absolute_path)
        yield f"{where}{path}: {_message(schema_error)}"


def _message(error: Any) -> str:
    closest = error
    while closest.context:  # anyOf/oneOf: follow the branch with the fewest errors, through nested ones too
        branches: dict[object, list[Any]] = {}
        for sub_error in closest.context:
            branches.setdefault(sub_error.schema_path[0] if sub_error.schema_path else None, []).append(sub_error)
        closest = min(branches.values(), key=len)[0]
    if closest is error:
        return _shorten(str(error.message))
    return f"{_shorten(str(error.message))} (closest branch: {_shorten(str(closest.message))})"


def _shorten(message: str, limit: int = 240) -> str:
    # jsonschema quotes whole schemas in some messages ("is valid under each of {...}")
    first_line = message.splitlines()[0] if message else message
    return first_line if len(first_line) <= limit else first_line[: limit - 1] + "…"
