"""`${...}` expressions: JMESPath compiled and checked up front, evaluated under a budget.

An expression is evaluated against an object holding the outputs of the task's
`after` dependencies by id, so its first field names a task:
`search.results[0].id`, `sort_by(search.results, &title)`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import jmespath
from jmespath.exceptions import IncompleteExpressionError, JMESPathError, LexerError, ParseError
from jmespath.visitor import Options, TreeInterpreter

from ._format import FORMATS
from ._functions import BatchFunctions
from ._size import Budget, OverBudget, json_floor

if TYPE_CHECKING:
    from jmespath.visitor import _TreeNode

__all__ = ["EvaluationError", "Expression", "ExpressionError", "compile_expression"]

_MAX_MESSAGE = 300


class ExpressionError(ValueError):
    """An expression is refused before anything runs; the message says why."""


class EvaluationError(ValueError):
    """An expression failed on the data it got; the message says why."""


@dataclass(frozen=True)
class Expression:
    source: str
    tree: _TreeNode
    refs: frozenset[str]
    """Task ids the expression reads."""

    def evaluate(self, outputs: dict[str, Any], max_cost: int) -> Any:
        """Evaluate against `outputs` (task id -> output).

        Raises:
            EvaluationError: JMESPath refused the data, or the work passed `max_cost`.
        """
        interpreter = _Interpreter(Budget(max_cost))
        try:
            return interpreter.visit(self.tree, outputs)
        except OverBudget:
            raise EvaluationError(
                f"evaluation passed its cost limit of {max_cost} (the expression repeats or joins too much data)"
            ) from None
        except JMESPathError as exc:
            raise EvaluationError(_shorten(str(exc))) from None


def compile_expression(source: str, max_length: int) -> Expression:
    """Parse and check one expression (the text between `${` and `}`).

    Raises:
        ExpressionError: empty, too long, bad syntax, unknown function or wrong arity.
    """
    if not source.strip():
        raise ExpressionError("empty ${}")
    if len(source) > max_length:
        raise ExpressionError(f"expression is {len(source)} characters; the limit is {max_length}")
    try:
        with warnings.catch_warnings():
            # JMESPath still accepts `text` as a string literal, with a warning; refuse it instead.
            warnings.simplefilter("error", PendingDeprecationWarning)
            tree = jmespath.compile(source).parsed
    except PendingDeprecationWarning:
        raise ExpressionError("backtick literals must be JSON; write 'text' or `\"text\"`") from None
    except JMESPathError as exc:
        raise ExpressionError(f"JMESPath syntax error: {_describe(exc)}") from None
    _check_functions(tree)
    return Expression(source, tree, frozenset(_root_fields(tree, at_root=True)))


def _describe(exc: JMESPathError) -> str:
    if isinstance(exc, IncompleteExpressionError):
        return "incomplete expression"
    if isinstance(exc, LexerError):
        return f"{exc.message} at column {exc.lexer_position}"
    if isinstance(exc, ParseError):
        return f"unexpected {exc.token_value!r} at column {exc.lex_position}"
    return _shorten(str(exc))


def _shorten(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _MAX_MESSAGE else text[: _MAX_MESSAGE - 1] + "…"


def _children(node: _TreeNode) -> list[_TreeNode]:
    # A slice's children are plain numbers, not nodes.
    return [] if node["type"] == "slice" else node["children"]


def _check_functions(tree: _TreeNode) -> None:
    table = BatchFunctions.FUNCTION_TABLE
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(_children(node))
        if node["type"] != "function_expression":
            continue
        name, args = node["value"], node["children"]
        if name not in table:
            raise ExpressionError(f"unknown function {name}()")
        sig = table[name]["signature"]
        low = len(sig)
        high = BatchFunctions.MAX_ARGS.get(name, None if sig and sig[-1].get("variadic") else low)
        if len(args) < low or (high is not None and len(args) > high):
            expected = f"{low}" if high == low else f"{low} to {high}" if high else f"at least {low}"
            raise ExpressionError(f"{name}() takes {expected} arguments, got {len(args)}")
        if name == "format_as" and args[1]["type"] == "literal" and args[1]["value"] not in FORMATS:
            raise ExpressionError(f"format_as(): unknown format {args[1]['value']!r}; use one of {', '.join(FORMATS)}")


def _root_fields(node: _TreeNode, at_root: bool) -> set[str]:
    """Field names read from the evaluation root, i.e. the task ids an expression refers to."""
    kind = node["type"]
    children = _children(node)
    if kind == "field":
        return {node["value"]} if at_root else set()
    if kind in ("subexpression", "index_expression", "pipe", "projection", "value_projection", "filter_projection"):
        # Only the leftmost part sees the root; the rest sees what it produced.
        found = _root_fields(children[0], at_root)
        for child in children[1:]:
            found |= _root_fields(child, at_root=False)
        return found
    if kind == "expref":
        return _root_fields(children[0], at_root=False)
    found = set()
    for child in children:
        found |= _root_fields(child, at_root)
    return found


class _Interpreter(TreeInterpreter):
    """JMESPath's interpreter, charging each step to a budget."""

    def __init__(self, budget: Budget) -> None:
        super().__init__(Options(custom_functions=BatchFunctions(budget)))
        self._budget = budget

    def visit(self, node: _TreeNode, *args: Any, **kwargs: Any) -> Any:
        self._budget.charge(1)
        return super().visit(node, *args, **kwargs)

    def visit_flatten(self, node: _TreeNode, value: Any) -> Any:
        base = self.visit(node["children"][0], value)
        if not isinstance(base, list):
            return None
        # Charged before building: flattening a list that holds itself twice doubles it.
        self._budget.charge(sum(len(item) if isinstance(item, list) else 1 for item in base))
        merged: list[Any] = []
        for item in base:
            if isinstance(item, list):
                merged.extend(item)
            else:
                merged.append(item)
        return merged

    def visit_slice(self, node: _TreeNode, value: Any) -> Any:
        result = super().visit_slice(node, value)
        if isinstance(result, list):
            self._budget.charge(len(result))
        return result

    def visit_comparator(self, node: _TreeNode, value: Any) -> Any:
        if node["value"] not in ("eq", "ne"):
            return super().visit_comparator(node, value)
        left = self.visit(node["children"][0], value)
        right = self.visit(node["children"][1], value)
        # Deep equality walks both sides; bound it like any other traversal.
        self._budget.charge(min(json_floor(left, self._budget.left), json_floor(right, self._budget.left)))
        equal = self.COMPARATOR_FUNC["eq"](left, right)
        return equal if node["value"] == "eq" else not equal
