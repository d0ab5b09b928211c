"""JSONL text -> validated tasks. Everything that can be refused is refused here, before anything runs."""

from __future__ import annotations

import contextlib
import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, NoReturn

from mcpist.errors import InvalidArgument

from ._model import DEFAULT_LIMITS, BatchLimits, Task
from ._template import CompiledParams, ParamError, compile_params

__all__ = ["PlannedTask", "parse_batch", "plan_batch"]

ID_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
FIELDS = ("id", "module", "tool", "params", "after", "output", "account")


@dataclass(frozen=True)
class PlannedTask:
    task: Task
    params: CompiledParams


def parse_batch(text: str, limits: BatchLimits = DEFAULT_LIMITS) -> list[Task]:
    """Parse and validate a batch; tasks come back in line order.

    Raises:
        InvalidArgument: the batch is empty or too long, or a line is invalid; the
            message and `data` name the line and field.
    """
    return [planned.task for planned in plan_batch(text, limits)]


def plan_batch(text: str, limits: BatchLimits) -> list[PlannedTask]:
    """`parse_batch`, keeping the compiled params. Raises what `parse_batch` raises."""
    lines = [(n, line) for n, line in enumerate(text.split("\n"), start=1) if line.strip()]
    if not lines:
        raise InvalidArgument("the batch is empty: give one JSON task per line", {"field": "tasks"})
    if len(lines) > limits.max_tasks:
        raise InvalidArgument(
            f"the batch has {len(lines)} tasks; the limit is {limits.max_tasks}",
            {"field": "tasks", "tasks": len(lines), "limit": limits.max_tasks},
        )
    planned: list[PlannedTask] = []
    first_line: dict[str, int] = {}
    for n, line in lines:
        item = _parse_line(n, line, limits)
        if item.task.id in first_line:
            _refuse(n, "id", f"duplicate id {item.task.id!r} (first on line {first_line[item.task.id]})")
        first_line[item.task.id] = n
        planned.append(item)
    _check_graph([p.task for p in planned])
    return planned


def _refuse(line: int, field: str | None, message: str, **data: Any) -> NoReturn:
    where = f"line {line}: {field}: " if field else f"line {line}: "
    details = {"line": line, "field": field, **data}
    raise InvalidArgument(where + message, {k: v for k, v in details.items() if v is not None})


class _DuplicateKey(ValueError):
    pass


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _DuplicateKey(key)
        result[key] = value
    return result


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _load(n: int, line: str) -> dict[str, Any]:
    try:
        value = json.loads(line, object_pairs_hook=_object_without_duplicates, parse_constant=_no_constants)
    except _DuplicateKey as exc:
        _refuse(n, None, f"invalid JSON: duplicate key {exc.args[0]!r}")
    except json.JSONDecodeError as exc:
        _refuse(n, None, f"invalid JSON: {exc.msg} at column {exc.colno}")
    except ValueError as exc:
        _refuse(n, None, f"invalid JSON: {exc}")
    except RecursionError:
        _refuse(n, None, "invalid JSON: nested too deeply")
    if not isinstance(value, dict):
        _refuse(n, None, "a task must be a JSON object")
    return value


def _string(n: int, raw: dict[str, Any], field: str, task: str | None) -> str:
    value = raw.get(field)
    extra = {"task": task} if task else {}
    if value is None:
        _refuse(n, field, "missing", **extra)
    if not isinstance(value, str) or not value:
        _refuse(n, field, "must be a non-empty string", **extra)
    return value


def _parse_line(n: int, line: str, limits: BatchLimits) -> PlannedTask:
    raw = _load(n, line)
    unknown = [key for key in raw if key not in FIELDS]
    if unknown:
        _refuse(n, unknown[0], f"unknown field; a task has {', '.join(FIELDS)}")
    task_id = _string(n, raw, "id", None)
    if not ID_RE.fullmatch(task_id):
        _refuse(
            n, "id", f"{task_id!r} is not a valid id: use letters, digits and _ (max 64), not starting with a digit"
        )
    module = _string(n, raw, "module", task_id)
    tool = _string(n, raw, "tool", task_id)

    params = raw.get("params")
    if isinstance(params, str):  # an object encoded twice is the object it holds, as `call` reads it
        with contextlib.suppress(ValueError):
            params = json.loads(params) if params.strip() else None
    if params is None:
        params = {}
    elif not isinstance(params, dict):
        _refuse(n, "params", "must be an object", task=task_id)

    after = raw.get("after")
    if after is None:
        after = []
    elif isinstance(after, str):
        after = [after]
    if not isinstance(after, list) or not all(isinstance(a, str) for a in after):
        _refuse(n, "after", "must be a task id or a list of task ids", task=task_id)

    output = raw.get("output")
    if output is None:
        output = False
    elif not isinstance(output, bool):
        _refuse(n, "output", "must be true or false", task=task_id)

    account = raw.get("account")
    if account is not None and (not isinstance(account, str) or not account):
        _refuse(n, "account", "must be a non-empty string", task=task_id)

    deps = tuple(dict.fromkeys(after))
    try:
        compiled, expressions = compile_params(params, limits.max_expression_length)
    except ParamError as exc:
        _refuse(n, exc.field, exc.message, task=task_id, expression=exc.expression)
    for path, expression in expressions:
        outside = sorted(expression.refs - set(deps))
        if outside:
            _refuse(
                n,
                path,
                f"${{{expression.source}}} reads task {outside[0]!r}, which is not in this task's after",
                task=task_id,
                expression=expression.source,
            )
    task = Task(task_id, module, tool, params, deps, output, account, n)
    return PlannedTask(task, compiled)


def _check_graph(tasks: list[Task]) -> None:
    ids = {t.id for t in tasks}
    for t in tasks:
        for dep in t.after:
            if dep not in ids:
                close = difflib.get_close_matches(dep, ids, n=1)
                hint = f"; did you mean {close[0]!r}?" if close else ""
                _refuse(t.line, "after", f"unknown task id {dep!r}{hint}", task=t.id)
    cycle = _find_cycle(tasks)
    if cycle:
        line = next(t.line for t in tasks if t.id == cycle[0])
        _refuse(line, "after", f"dependency cycle {' -> '.join(cycle)}", task=cycle[0], cycle=cycle)


def _find_cycle(tasks: list[Task]) -> list[str] | None:
    """The first cycle of `after` edges in line order, as [a, b, ..., a], or None."""
    after = {t.id: t.after for t in tasks}
    done: set[str] = set()
    for root in after:
        if root in done:
            continue
        path = [root]
        on_path = {root}
        stack = [iter(after[root])]
        while stack:
            dep = next(stack[-1], None)
            if dep is None:
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                stack.pop()
                continue
            if dep in on_path:
                return [*path[path.index(dep) :], dep]
            if dep not in done:
                path.append(dep)
                on_path.add(dep)
                stack.append(iter(after[dep]))
    return None
