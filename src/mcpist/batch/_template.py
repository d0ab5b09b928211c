"""Params with `${...}` references: compiled once when parsed, resolved when the task starts.

A string that is exactly one `${expr}` becomes the expression's value, of any
JSON type; `${expr}` inside a longer string is interpolated (strings as they
are, other values as compact JSON); `$${` stands for a literal `${`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ._expr import EvaluationError, Expression, ExpressionError, compile_expression
from ._size import Budget, OverBudget, json_floor

__all__ = ["CompiledParams", "ParamError", "Template", "compile_params", "field_path", "resolve_params"]

MAX_DEPTH = 64


class ParamError(ValueError):
    """A param cannot be compiled or resolved. `field` is its path, e.g. `params.filter[0]`."""

    def __init__(self, field: str, message: str, expression: str | None = None) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
        self.expression = expression


@dataclass(frozen=True)
class Template:
    pieces: tuple[str | Expression, ...]

    @property
    def whole(self) -> bool:
        return len(self.pieces) == 1 and isinstance(self.pieces[0], Expression)


CompiledParams = Any
"""The params' JSON with each string holding `${` replaced by a `Template`."""


def field_path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    if key.isidentifier():
        return f"{parent}.{key}"
    return f"{parent}[{json.dumps(key, ensure_ascii=False)}]"


def compile_params(
    params: dict[str, Any], max_expression_length: int
) -> tuple[CompiledParams, list[tuple[str, Expression]]]:
    """Compile every string of `params`; also return each expression found with its path.

    Raises:
        ParamError: a `${` is unterminated or its expression is refused, or params nest too deep.
    """
    found: list[tuple[str, Expression]] = []

    def walk(value: Any, path: str, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ParamError(path, f"params nest deeper than {MAX_DEPTH} levels")
        if isinstance(value, dict):
            return {k: walk(v, field_path(path, k), depth + 1) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, field_path(path, i), depth + 1) for i, v in enumerate(value)]
        if isinstance(value, str) and "${" in value:
            template = _compile_string(value, path, max_expression_length)
            found.extend((path, p) for p in template.pieces if isinstance(p, Expression))
            return template if any(isinstance(p, Expression) for p in template.pieces) else template.pieces[0]
        return value

    return walk(params, "params", 0), found


def _compile_string(text: str, path: str, max_length: int) -> Template:
    pieces: list[str | Expression] = []
    literal: list[str] = []
    i = 0
    while (dollar := text.find("$", i)) >= 0:
        literal.append(text[i:dollar])
        if text.startswith("$${", dollar):
            literal.append("${")
            i = dollar + 3
        elif text.startswith("${", dollar):
            end = _closing_brace(text, dollar + 2)
            if end < 0:
                raise ParamError(path, "unterminated ${: no matching }", text[dollar + 2 : dollar + 2 + max_length])
            source = text[dollar + 2 : end]
            try:
                expression = compile_expression(source, max_length)
            except ExpressionError as exc:
                raise ParamError(path, str(exc), source[:max_length]) from None
            if prefix := "".join(literal):
                pieces.append(prefix)
            literal = []
            pieces.append(expression)
            i = end + 1
        else:
            literal.append("$")
            i = dollar + 1
    literal.append(text[i:])
    if "".join(literal) or not pieces:
        pieces.append("".join(literal))
    return Template(tuple(pieces))


def _closing_brace(text: str, start: int) -> int:
    """Index of the `}` closing a `${` whose body starts at `start`, or -1.

    Braces inside JMESPath's quotes ('raw', "identifier", `literal`) do not count;
    JMESPath's own rule applies there: a backslash escapes the next character.
    """
    depth = 0
    quote = ""
    i = start
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in "'\"`":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return i
            depth -= 1
        i += 1
    return -1


def resolve_params(compiled: CompiledParams, outputs: dict[str, Any], max_bytes: int, max_cost: int) -> Any:
    """The params with every `Template` replaced by its value.

    `outputs` maps the task's dependencies to their outputs. What the
    expressions insert may add up to `max_bytes`; each evaluation may cost `max_cost`.

    Raises:
        ParamError: an expression fails, yields null or a non-finite number, or the params grow past `max_bytes`.
    """
    size = Budget(max_bytes)

    def walk(value: Any, path: str) -> Any:
        if isinstance(value, dict):
            return {k: walk(v, field_path(path, k)) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v, field_path(path, i)) for i, v in enumerate(value)]
        if isinstance(value, Template):
            return _render(value, path)
        return value

    def _render(template: Template, path: str) -> Any:
        if template.whole:
            expression = template.pieces[0]
            assert isinstance(expression, Expression)
            value = _evaluate(expression, path)
            _encode(value, expression, path)
            return value
        parts: list[str] = []
        for piece in template.pieces:
            if isinstance(piece, str):
                parts.append(piece)
                continue
            value = _evaluate(piece, path)
            if isinstance(value, str):
                _charge(len(value), piece, path)
                parts.append(value)
            else:
                parts.append(_encode(value, piece, path))
        return "".join(parts)

    def _evaluate(expression: Expression, path: str) -> Any:
        try:
            value = expression.evaluate(outputs, max_cost)
        except EvaluationError as exc:
            raise ParamError(path, f"${{{expression.source}}}: {exc}", expression.source) from None
        if value is None:
            raise ParamError(
                path,
                f"${{{expression.source}}} yielded null (a missing field or index?); "
                "give a default with || if that is expected",
                expression.source,
            )
        return value

    def _encode(value: Any, expression: Expression, path: str) -> str:
        # Measured before encoding: a value may repeat itself far beyond what encoding can afford.
        _charge(json_floor(value, max(size.left, 0)), expression, path)
        try:
            return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except ValueError:
            raise ParamError(path, f"${{{expression.source}}} yielded a non-finite number", expression.source) from None

    def _charge(units: int, expression: Expression, path: str) -> None:
        try:
            size.charge(units)
        except OverBudget:
            raise ParamError(
                path, f"params grow past {max_bytes} bytes once ${{...}} are resolved", expression.source
            ) from None

    return walk(compiled, "params")
