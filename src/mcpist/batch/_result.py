"""What a batch answers: the outputs asked for, every failure, and what was skipped because of it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from mcpist.errors import MCPistError

__all__ = ["BatchResult", "answer_bytes", "omitted_entry"]


def omitted_entry(size: int, max_output_bytes: int) -> dict[str, Any]:
    reason = f"succeeded, but the outputs returned already fill the {max_output_bytes}-byte limit"
    return {"bytes": size, "reason": reason}


def answer_bytes(value: Any) -> int:
    """Bytes of `value` as compact UTF-8 JSON, as the answer is sent."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


@dataclass(frozen=True)
class BatchResult:
    """The outcome of one batch; all mappings are in line order.

    `skipped` maps a task to the dependency that blocked it (the first of its
    `after` that failed or was itself skipped). `omitted` maps an `output: true`
    task that succeeded to its result size, when returning it would have passed
    `max_output_bytes`.
    """

    tasks: int
    results: dict[str, Any] = field(default_factory=dict)
    failed: dict[str, MCPistError] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    omitted: dict[str, int] = field(default_factory=dict)
    max_output_bytes: int = 0

    @property
    def succeeded(self) -> int:
        return self.tasks - len(self.failed) - len(self.skipped)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able; `failed`, `skipped` and `omitted` appear only when not empty."""
        answer: dict[str, Any] = {"results": self.results}
        if self.failed:
            answer["failed"] = {task: error.to_dict() for task, error in self.failed.items()}
        if self.skipped:
            answer["skipped"] = {
                task: {
                    "blocked_by": blocker,
                    "reason": "dependency failed" if blocker in self.failed else "dependency skipped",
                }
                for task, blocker in self.skipped.items()
            }
        if self.omitted:
            limit = self.max_output_bytes
            answer["omitted"] = {task: omitted_entry(size, limit) for task, size in self.omitted.items()}
        answer["summary"] = {
            "tasks": self.tasks,
            "succeeded": self.succeeded,
            "failed": len(self.failed),
            "skipped": len(self.skipped),
        }
        return answer
