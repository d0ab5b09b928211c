"""A bounded, seeded fuzz of the meta-tools and module inputs through the in-process MCP client.

Every answer must be a result or a refusal with a stable code, never INTERNAL; nothing may log a
traceback; the server must still answer afterwards. `MCPIST_FUZZ_SEED` and `MCPIST_FUZZ_CASES`
replay or widen a run.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from demo_module import demo
from mcpist.modules.memory import module as memory
from mcpist.testing import in_process_client, running

pytestmark = pytest.mark.anyio

SEED = int(os.environ.get("MCPIST_FUZZ_SEED", "20261125"))
CASES = int(os.environ.get("MCPIST_FUZZ_CASES", "3000"))

MEMORY_TOOLS = ["save", "search", "delete", "relation.save", "relation.delete", "relation.list", "relation.graph"]
DEMO_TOOLS = ["echo", "add", "items", "fail"]  # not `boom` (an INTERNAL on purpose) nor `wait` (slow on purpose)
STRINGS = [
    "",
    " ",
    "x",
    "n",
    "default",
    "日本語のメモ",
    "a\x00b",
    "\ud7ff\ue000",
    "💥" * 10,
    "x" * 2001,
    "x" * 70_000,
    "${",
    "${a.b}",
    "$${x}",
    "../../etc/passwd",
    "' OR 1=1 --",
    '"; DROP TABLE memory_entries; --',
    "00000000-0000-0000-0000-000000000000",
    "not-a-uuid",
    "\\u0000",
    "%s%s%n",
]
EDGES: list[Any] = [2**63, -(2**63) - 1, 2**64 + 1, 2**63 - 1, -(2**63), 1e308, -1e-320, "a\x00b", "", [], {}]
NUMBERS: list[Any] = [
    0,
    -1,
    1,
    3,
    99,
    100,
    101,
    2**31,
    2**63 - 1,
    2**63,
    -(2**63) - 1,
    10**30,
    0.5,
    -0.0,
    1e308,
    1e-308,
]


class Fuzzer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.ids: list[str] = ["00000000-0000-0000-0000-000000000000"]

    def scalar(self) -> Any:
        pick = self.rng.random()
        if pick < 0.45:
            return self.rng.choice(STRINGS + self.ids)
        if pick < 0.8:
            return self.rng.choice(NUMBERS)
        return self.rng.choice([None, True, False])

    def edge(self) -> Any:
        """A JSON value at the edge of what a database stores or compares."""
        return self.rng.choice([*EDGES, self.scalar(), [self.scalar()], {"k": self.scalar()}])

    def value(self, depth: int = 0) -> Any:
        pick = self.rng.random()
        if depth > 3 or pick < 0.6:
            return self.scalar()
        if pick < 0.8:
            return [self.value(depth + 1) for _ in range(self.rng.randint(0, 4))]
        return {self.key(): self.value(depth + 1) for _ in range(self.rng.randint(0, 4))}

    def key(self) -> str:
        return self.rng.choice(["a", "n", "k", "tags", "", "x\x00y", "$.a", 'q"uote', "日本", "a" * 300])

    def deep(self) -> Any:
        value: Any = 1
        for _ in range(self.rng.randint(20, 120)):
            value = [value] if self.rng.random() < 0.5 else {"d": value}
        return value

    def memory_params(self, tool: str) -> dict[str, Any]:
        valid: dict[str, dict[str, Any]] = {
            "save": {"namespace": "n", "content": "a memo about tea", "metadata": {"k": 1}},
            "search": {"namespace": "n", "query": "tea", "metadata_filter": {"k": 1}},
            "delete": {"namespace": "n", "memo_id": self.rng.choice(self.ids)},
            "relation.save": {
                "source_memo_id": self.rng.choice(self.ids),
                "target_memo_id": self.rng.choice(self.ids),
                "tag": "rel",
            },
            "relation.delete": {
                "source_memo_id": self.rng.choice(self.ids),
                "target_memo_id": self.rng.choice(self.ids),
                "tag": "rel",
            },
            "relation.list": {"namespace": "n"},
            "relation.graph": {"start_memo_id": self.rng.choice(self.ids), "max_depth": 3},
        }
        fields = {
            "save": ["namespace", "content", "metadata", "memo_id", "title", "version", "metadata_mode"],
            "search": [
                "namespace",
                "query",
                "metadata_filter",
                "metadata_match",
                "k",
                "minimum_similarity",
                "pivot_memo_id",
                "distance_metric",
                "exclude_pivot",
                "mode",
            ],
        }
        params = dict(valid.get(tool, {}))
        if tool == "search" and self.rng.random() < 0.5:
            del params["query"]  # a metadata-only search
        for _ in range(self.rng.choice([0, 1, 1, 1, 2, 3])):
            name = self.rng.choice([*fields.get(tool, list(params) or ["x"]), "unknown_field"])
            roll = self.rng.random()
            if roll < 0.15 and params:
                params.pop(self.rng.choice(list(params)))
            elif roll < 0.25:
                params[name] = self.deep()
            elif name in ("metadata", "metadata_filter") and roll < 0.8:
                params[name] = {self.key(): self.edge() for _ in range(self.rng.randint(1, 3))}
            else:
                params[name] = self.value()
        return params

    def call_args(self) -> dict[str, Any]:
        roll = self.rng.random()
        if roll < 0.55:
            tool = self.rng.choice(MEMORY_TOOLS)
            args: dict[str, Any] = {"module": "memory", "tool_name": tool, "params": self.memory_params(tool)}
        elif roll < 0.75:
            tool = self.rng.choice(DEMO_TOOLS)
            args = {
                "module": "demo",
                "tool_name": tool,
                "params": {self.key(): self.value(), "text": self.scalar(), "a": self.scalar()},
            }
        else:
            args = {"module": self.scalar(), "tool_name": self.scalar(), "params": self.value()}
        if self.rng.random() < 0.1:
            args[self.rng.choice(["account", "extra", "params"])] = self.value()
        return args

    def batch_args(self) -> dict[str, Any]:
        lines = []
        for n in range(self.rng.randint(1, 5)):
            roll = self.rng.random()
            if roll < 0.1:
                lines.append(self.rng.choice(["{", "[]", "null", "{}", "not json", json.dumps(self.value())]))
                continue
            call = self.call_args()
            task: dict[str, Any] = {
                "id": f"t{n}",
                "module": call["module"],
                "tool": call["tool_name"],
                "params": call["params"],
            }
            if n and self.rng.random() < 0.5:
                task["after"] = [f"t{self.rng.randrange(n + 1)}"]
                expression = self.rng.choice(
                    [
                        "t0",
                        "t0.memo_id",
                        "t0 | [@, @] | [@, @]",
                        "join('', [t0.memo_id, t0.memo_id])",
                        "t0.items[0]",
                        "`1`",
                        "unknown(t0)",
                        "t0[",
                        "length(t0)",
                    ]
                )
                task["params"] = {
                    **(task["params"] if isinstance(task["params"], dict) else {}),
                    "query": f"${{{expression}}}",
                }
            if self.rng.random() < 0.3:
                task[self.rng.choice(["output", "account", "after", "id", "extra"])] = self.value()
            lines.append(json.dumps(task))
        return {"tasks": "\n".join(lines)} if self.rng.random() < 0.95 else {"tasks": self.value()}

    def case(self) -> tuple[str, dict[str, Any]]:
        roll = self.rng.random()
        if roll < 0.6:
            return "call", self.call_args()
        if roll < 0.85:
            return "batch", self.batch_args()
        if roll < 0.97:
            return "get_module_schema", {"module": self.scalar(), "tools": self.value()}
        return self.rng.choice(["nope", "call", ""]), {self.key(): self.value()}


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def test_fuzzed_meta_tool_and_module_inputs_never_give_internal(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    fuzz = Fuzzer(rng)
    records = Records()
    logging.getLogger().addHandler(records)
    started = time.monotonic()
    outcomes: dict[str, int] = {}
    try:
        async with running([memory, demo], tmp_path) as rt, in_process_client(rt) as mcp:
            for number in range(CASES):
                name, args = fuzz.case()
                try:
                    answer = await mcp.call_tool(name, args)
                except MCPError as exc:
                    assert exc.error.code != types.INTERNAL_ERROR, (number, name, args, exc.error)
                    outcomes["protocol error"] = outcomes.get("protocol error", 0) + 1
                    continue
                body = answer.structured_content or {}
                code = body.get("code") if answer.is_error else "ok"
                assert code != "INTERNAL", (SEED, number, name, args, body)
                outcomes[str(code)] = outcomes.get(str(code), 0) + 1
                if not answer.is_error and name == "call" and isinstance(body.get("memo_id"), str):
                    fuzz.ids.append(body["memo_id"])
            # still alive and right
            saved = await mcp.call_tool(
                "call",
                {"module": "memory", "tool_name": "save", "params": {"namespace": "after", "content": "still here"}},
            )
            assert not saved.is_error, saved
            found = await mcp.call_tool(
                "call",
                {"module": "memory", "tool_name": "search", "params": {"namespace": "after", "query": "still here"}},
            )
            assert [i["memo_id"] for i in found.structured_content["items"]] == [saved.structured_content["memo_id"]]
    finally:
        logging.getLogger().removeHandler(records)
    tracebacks = [r for r in records.records if r.exc_info or "Traceback" in r.getMessage()]
    assert not tracebacks, [(r.name, r.getMessage()) for r in tracebacks[:5]]
    errors = [r for r in records.records if r.levelno >= logging.ERROR]
    assert not errors, [(r.name, r.getMessage()) for r in errors[:5]]
    # the run exercised successes and refusals alike, within its time
    assert outcomes.get("ok", 0) > CASES // 20 and outcomes.get("INVALID_ARGUMENT", 0) > CASES // 10, outcomes
    assert time.monotonic() - started < 120
