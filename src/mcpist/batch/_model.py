"""The data a batch is made of: its bounds, its tasks and the callables it is given."""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, fields
from typing import Any

__all__ = ["DEFAULT_LIMITS", "BatchLimits", "Precheck", "Task", "TaskRunner"]


@dataclass(frozen=True)
class BatchLimits:
    """Bounds of one batch. Sizes are bytes of compact UTF-8 JSON.

    `max_expression_cost` bounds the work of evaluating one task's `${...}`
    expressions, in units of about one byte or one node touched; without it a
    short expression that repeats its input (`a | [@, @] | [@, @] | ...`)
    grows exponentially.

    `max_output_bytes` bounds the whole answer as it is sent, `answer_copies` times
    (MCP carries a tool result both as text and as structured content): the answer
    itself is kept to `max_output_bytes // answer_copies`, outputs past it omitted.

    Raises:
        ValueError: a field is not a positive number.
    """

    max_tasks: int = 100
    max_concurrency: int = 32
    task_timeout_s: float = 60.0
    max_expression_length: int = 500
    max_result_bytes: int = 1024 * 1024
    max_output_bytes: int = 4 * 1024 * 1024
    max_expression_cost: int = 16 * 1024 * 1024
    answer_copies: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if not number or not math.isfinite(value) or value <= 0:
                raise ValueError(f"BatchLimits.{f.name} must be a positive number, not {value!r}")
            if f.name != "task_timeout_s" and not isinstance(value, int):
                raise ValueError(f"BatchLimits.{f.name} must be an integer, not {value!r}")


DEFAULT_LIMITS = BatchLimits()


@dataclass(frozen=True)
class Task:
    """One line of a batch, validated. `params` is as written, `${...}` unresolved."""

    id: str
    module: str
    tool: str
    params: dict[str, Any]
    after: tuple[str, ...]
    output: bool
    account: str | None
    line: int


TaskRunner = Callable[[Task, dict[str, Any]], Awaitable[Any]]
"""Runs one task with its resolved params and returns a JSON-able result.

Raises an `mcpist.errors.MCPistError` subclass for an expected failure.
"""

Precheck = Callable[[Task], None]
"""Called for every task before anything runs; raises `MCPistError` to refuse the whole batch."""
