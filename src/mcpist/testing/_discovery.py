"""Request and response checks for a Google API Discovery document (the format Google publishes instead of OpenAPI).

Only what the document states is checked: the method's parameters (location, type, format, enum, pattern, range,
repetition, required), the JSON body against the method's ``request`` schema (types of the properties present,
properties the schema does not name, and the fields ``annotations.required`` lists for that method), and the
handler's JSON reply against the method's ``response`` schema. Media upload paths and batch requests are not served.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["DiscoveryDescription"]

_HTTP_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_INTEGER = re.compile(r"[+-]?\d+")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
# RFC 3339; the offset is optional because Google accepts a local time when a timeZone field accompanies it
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|z|[+-]\d{2}:\d{2})?")
_RANGES = {"int32": (-(2**31), 2**31 - 1), "uint32": (0, 2**32 - 1), "int64": (-(2**63), 2**63 - 1)}
_RANGES["uint64"] = (0, 2**64 - 1)


class DiscoveryDescription:
    """One Discovery document, indexed by ``(HTTP method, "/" + method path)``."""

    def __init__(self, doc: Mapping[str, Any]) -> None:
        self._doc = doc
        self._schemas: Mapping[str, Any] = doc.get("schemas", {})
        self._global_params: Mapping[str, Any] = doc.get("parameters", {})
        self.title = str(doc.get("title") or doc.get("name") or "Discovery document")
        self.default_base_url: str | None = doc.get("baseUrl") or (
            str(doc.get("rootUrl", "")) + str(doc.get("servicePath", ""))
        )
        self.operations: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._collect(doc.get("resources", {}))
        if "methods" in doc:  # top-level methods exist in a few APIs
            self._collect({"": {"methods": doc["methods"]}})

    def _collect(self, resources: Mapping[str, Any]) -> None:
        for resource in resources.values():
            for method in resource.get("methods", {}).values():
                http_method = str(method.get("httpMethod", "")).upper()
                if http_method in _HTTP_METHODS and "path" in method:
                    self.operations[(http_method, "/" + str(method["path"]).lstrip("/"))] = method
            self._collect(resource.get("resources", {}))

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
        method = self.operations[operation]
        params: Mapping[str, Any] = method.get("parameters", {})
        problems: list[str] = []
        given: dict[str, list[str]] = {}
        for name, value in query:
            given.setdefault(name, []).append(value)
        for name, spec in params.items():
            if spec.get("location") == "path":
                if name in path_params:
                    _check_param(f"path parameter '{name}'", path_params[name], spec, problems)
                continue
            values = given.get(name, [])
            if not values and spec.get("required"):
                problems.append(f"missing required query parameter '{name}'")
            if len(values) > 1 and not spec.get("repeated"):
                problems.append(f"query parameter '{name}' is given {len(values)} times but is not repeatable")
            for value in values:
                _check_param(f"query parameter '{name}'", value, spec, problems)
        for name, values in given.items():
            if name in params:
                continue
            if name in self._global_params:
                for value in values:
                    _check_param(f"query parameter '{name}'", value, self._global_params[name], problems)
            elif not allow_unknown_query:
                problems.append(f"unknown query parameter '{name}' (documented: {', '.join(sorted(params)) or 'none'})")
        problems.extend(self._check_body(method, body, content_type))
        return problems

    def _check_body(self, method: Mapping[str, Any], body: bytes, content_type: str) -> list[str]:
        schema = method.get("request")
        if schema is None:
            return ["body: the method documents no request body"] if body else []
        if not body:
            return [f"body: missing; the method expects a {schema.get('$ref', 'JSON')} body"]
        if "json" not in content_type:
            return [f"body: content type {content_type or 'none'!r} is not JSON"]
        try:
            value = json.loads(body)
        except ValueError as exc:
            return [f"body: not valid JSON ({exc})"]
        problems: list[str] = []
        self._check_value(value, schema, "body", str(method.get("id", "")), problems)
        return problems

    def check_response(
        self, operation: tuple[str, str], *, status: int, content_type: str, content: bytes, strict: bool
    ) -> list[str]:
        """Check a 2xx JSON reply against the method's response schema; other statuses are not described."""
        schema = self.operations[operation].get("response")
        if schema is None or not 200 <= status < 300:
            return []
        if "json" not in content_type:
            return [f"response: content type {content_type or 'none'!r} is not JSON"]
        try:
            value = json.loads(content)
        except ValueError as exc:
            return [f"response: not valid JSON ({exc})"]
        problems: list[str] = []
        self._check_value(value, schema, "response", "", problems)
        return problems

    def _resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        seen = 0
        while "$ref" in schema and seen < 64:
            resolved: Mapping[str, Any] = self._schemas.get(str(schema["$ref"]), {})
            schema, seen = resolved, seen + 1
        return schema

    def _check_value(
        self, value: Any, schema: Mapping[str, Any], where: str, method_id: str, problems: list[str]
    ) -> None:
        schema = self._resolve(schema)
        kind = schema.get("type")
        if value is None or kind in (None, "any"):
            return  # proto3 JSON reads null as "unset" for every field
        if kind == "object":
            if not isinstance(value, dict):
                problems.append(f"{where}: expected an object, got {_json_type(value)}")
                return
            self._check_object(value, schema, where, method_id, problems)
        elif kind == "array":
            if not isinstance(value, list):
                problems.append(f"{where}: expected an array, got {_json_type(value)}")
                return
            for index, item in enumerate(value):
                self._check_value(item, schema.get("items", {}), f"{where}[{index}]", method_id, problems)
        else:
            _check_scalar(value, schema, where, problems)

    def _check_object(
        self, value: dict[str, Any], schema: Mapping[str, Any], where: str, method_id: str, problems: list[str]
    ) -> None:
        properties: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties")
        for key, item in value.items():
            if key in properties:
                self._check_value(item, properties[key], f"{where}.{key}", method_id, problems)
            elif isinstance(extra, Mapping):
                self._check_value(item, extra, f"{where}.{key}", method_id, problems)
            elif properties:
                # Google's front end refuses unknown field names ("Invalid JSON payload received. Unknown name")
                problems.append(f"{where}: unknown property '{key}'")
        for key, prop in properties.items():
            required_for = prop.get("annotations", {}).get("required", [])
            if key not in value and (method_id in required_for or prop.get("required") is True):
                problems.append(f"{where}: missing required property '{key}'")


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object" if isinstance(value, dict) else type(value).__name__


def _check_scalar(value: Any, schema: Mapping[str, Any], where: str, problems: list[str]) -> None:
    kind = schema.get("type")
    if kind == "boolean":
        if not isinstance(value, bool):
            problems.append(f"{where}: expected a boolean, got {_json_type(value)}")
        return
    if kind in ("integer", "number") or schema.get("format") in _RANGES:
        # proto3 JSON accepts integers (of any width) as numbers or as decimal strings
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            problems.append(f"{where}: expected a {kind}, got {_json_type(value)}")
            return
        _check_param(where, str(value) if not isinstance(value, str) else value, schema, problems)
        return
    if not isinstance(value, str):
        problems.append(f"{where}: expected a string, got {_json_type(value)}")
        return
    _check_param(where, value, schema, problems, offset_required=False)


def _check_param(
    where: str, value: str, spec: Mapping[str, Any], problems: list[str], *, offset_required: bool = True
) -> None:
    kind, fmt = spec.get("type"), spec.get("format")
    if kind == "boolean":
        if value not in ("true", "false"):
            problems.append(f"{where}: {value!r} is not 'true' or 'false'")
            return
    elif kind == "integer" or fmt in _RANGES:
        if not _INTEGER.fullmatch(value):
            problems.append(f"{where}: {value!r} is not an integer")
            return
        _check_range(where, int(value), spec, problems)
    elif kind == "number":
        try:
            _check_range(where, float(value), spec, problems)
        except ValueError:
            problems.append(f"{where}: {value!r} is not a number")
            return
    elif fmt == "date-time":
        match = _DATE_TIME.fullmatch(value)
        if match is None or (offset_required and match.group(2) is None):
            need = "an RFC 3339 timestamp with a time zone offset" if offset_required else "an RFC 3339 timestamp"
            problems.append(f"{where}: {value!r} is not {need}")
            return
    elif fmt == "date" and not _DATE.fullmatch(value):
        problems.append(f"{where}: {value!r} is not a date (YYYY-MM-DD)")
        return
    enum = spec.get("enum")
    if enum is not None and value not in [str(item) for item in enum]:
        problems.append(f"{where}: {value!r} is not one of {enum}")
    pattern = spec.get("pattern")
    if pattern is not None and re.search(str(pattern), value) is None:
        problems.append(f"{where}: {value!r} does not match {pattern!r}")


def _check_range(where: str, number: float, spec: Mapping[str, Any], problems: list[str]) -> None:
    low: float | None
    high: float | None
    low, high = _RANGES.get(str(spec.get("format")), (None, None))
    if "minimum" in spec:  # Discovery writes bounds as strings
        low = float(spec["minimum"])
    if "maximum" in spec:
        high = float(spec["maximum"])
    if low is not None and number < low:
        problems.append(f"{where}: {number} is below the minimum {spec.get('minimum', low)}")
    if high is not None and number > high:
        problems.append(f"{where}: {number} is above the maximum {spec.get('maximum', high)}")
