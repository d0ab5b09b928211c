"""JMESPath functions added for batch: joins, picking, descending sorts, grouping, formatting.

All are deterministic: they reshape data and never judge it. Key arguments take
either an expression reference (`&owner.id`) or a field name (`'id'`).
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

from jmespath.exceptions import JMESPathError
from jmespath.functions import Functions, signature
from jmespath.visitor import _Expression

from ._format import FormatError, format_as
from ._size import Budget, json_floor

__all__ = ["BatchFunctions", "FunctionError"]


class FunctionError(JMESPathError):
    """A function got data it cannot handle; the message names the function."""


def _jtype(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


class BatchFunctions(Functions):
    """JMESPath's built-in functions plus batch's, charging their inputs to a `Budget`."""

    # JMESPath signatures cannot say "3 or 4 arguments"; the upper bounds live here.
    MAX_ARGS: ClassVar[dict[str, int]] = {"hash_join": 4}

    def __init__(self, budget: Budget) -> None:
        self._budget = budget

    def call_function(self, function_name: str, resolved_args: Any) -> Any:
        args = list(resolved_args)
        if len(args) > self.MAX_ARGS.get(function_name, len(args)):
            raise FunctionError(f"{function_name}() takes at most {self.MAX_ARGS[function_name]} arguments")
        for arg in args:
            if not isinstance(arg, _Expression):
                self._budget.charge_value(arg)
        return super().call_function(function_name, args)

    def _key(self, key: str | _Expression, item: Any) -> Any:
        if isinstance(key, str):
            return item.get(key) if isinstance(item, dict) else None
        node: Any = key.expression
        return key.visit(node, item)

    def _sorted(self, name: str, array: list[Any], key: str | _Expression, descending: bool) -> list[Any]:
        keys = [self._key(key, item) for item in array]
        kinds = {_jtype(k) for k in keys}
        if len(kinds) > 1 or not kinds <= {"number", "string"}:
            raise FunctionError(
                f"{name}(): sort keys must be all numbers or all strings, got {', '.join(sorted(kinds))}; "
                "filter out nulls first, e.g. items[?due != null]"
            )
        # sorted() stays stable with reverse=True: equal keys keep their input order.
        order = sorted(range(len(array)), key=keys.__getitem__, reverse=descending)
        return [array[i] for i in order]

    @signature({"types": ["array"]}, {"types": ["expref", "string"]})
    def _func_sort_by(self, array: list[Any], key: str | _Expression) -> list[Any]:
        return self._sorted("sort_by", array, key, descending=False)

    @signature({"types": ["array"]}, {"types": ["expref", "string"]})
    def _func_sort_by_desc(self, array: list[Any], key: str | _Expression) -> list[Any]:
        return self._sorted("sort_by_desc", array, key, descending=True)

    @signature({"types": ["array", "object"]}, {"types": ["string"], "variadic": True})
    def _func_pluck(self, value: list[Any] | dict[str, Any], *names: str) -> Any:
        if isinstance(value, dict):
            return {name: value.get(name) for name in names}
        for i, item in enumerate(value):
            if not isinstance(item, dict):
                raise FunctionError(f"pluck(): element {i} is {_jtype(item)}, not an object")
        return [{name: item.get(name) for name in names} for item in value]

    @signature({"types": ["array"]}, {"types": ["array"]}, {"types": ["expref", "string"], "variadic": True})
    def _func_hash_join(
        self, left: list[Any], right: list[Any], left_key: str | _Expression, *rest: str | _Expression
    ) -> list[dict[str, Any]]:
        right_key = rest[0] if rest else left_key
        if not isinstance(right_key, str | _Expression):
            raise FunctionError("hash_join(): the fourth argument must be a field name or &expression")
        index: dict[tuple[str, Any], list[tuple[dict[str, Any], int]]] = {}
        for i, item in enumerate(right):
            k = self._join_key(self._key(right_key, self._object(item, i, "right")))
            if k is not None:
                index.setdefault(k, []).append((item, json_floor(item, self._budget.units)))
        joined: list[dict[str, Any]] = []
        for i, item in enumerate(left):
            k = self._join_key(self._key(left_key, self._object(item, i, "left")))
            matches = index.get(k, []) if k is not None else []
            size = json_floor(item, self._budget.units) if matches else 0
            for match, match_size in matches:
                # Charged per pair: one key shared by many rows on both sides multiplies the output.
                self._budget.charge(size + match_size)
                joined.append({**item, **match})
        return joined

    @staticmethod
    def _object(item: Any, i: int, side: str) -> dict[str, Any]:
        if not isinstance(item, dict):
            raise FunctionError(f"hash_join(): {side} element {i} is {_jtype(item)}, not an object")
        return item

    @staticmethod
    def _join_key(key: Any) -> tuple[str, Any] | None:
        kind = _jtype(key)
        if kind == "null":
            return None  # as in SQL, a missing key matches nothing
        if kind in ("array", "object"):
            raise FunctionError(f"hash_join(): join keys must be strings, numbers or booleans, got {kind}")
        return kind, key

    def _group_key(self, name: str, key: str | _Expression, item: Any, i: int) -> str:
        value = self._key(key, item)
        kind = _jtype(value)
        if kind == "string":
            return str(value)
        if kind in ("number", "boolean"):
            return json.dumps(value)
        raise FunctionError(
            f"{name}(): the key of element {i} is {kind}; keys must be strings, numbers or booleans "
            "(give a default: &(owner || 'none'))"
        )

    @signature({"types": ["array"]}, {"types": ["expref", "string"]})
    def _func_group_by(self, array: list[Any], key: str | _Expression) -> dict[str, list[Any]]:
        groups: dict[str, list[Any]] = {}
        for i, item in enumerate(array):
            groups.setdefault(self._group_key("group_by", key, item, i), []).append(item)
        return groups

    @signature({"types": ["array"]}, {"types": ["expref", "string"]})
    def _func_index_by(self, array: list[Any], key: str | _Expression) -> dict[str, Any]:
        return {self._group_key("index_by", key, item, i): item for i, item in enumerate(array)}

    @signature({"types": ["array"]})
    def _func_unique(self, array: list[Any]) -> list[Any]:
        seen: set[str] = set()
        kept: list[Any] = []
        for item in array:
            text = json.dumps(item, sort_keys=True, separators=(",", ":"))
            if text not in seen:
                seen.add(text)
                kept.append(item)
        return kept

    @signature({"types": []}, {"types": ["string"]})
    def _func_format_as(self, value: Any, fmt: str) -> str:
        try:
            return format_as(value, fmt)
        except FormatError as exc:
            raise FunctionError(str(exc)) from None
