"""The batch guide's examples name modules and tools that exist, with parameters their schemas take."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcpist.batch import GUIDE
from mcpist.modules.registry import Registry

DOCS = Path(__file__).resolve().parents[1] / "docs" / "batch.md"


def example_tasks(text: str) -> list[dict[str, object]]:
    blocks = re.findall(r"```jsonl\n(.*?)```", text, flags=re.S)
    assert blocks, "no ```jsonl example found"
    return [json.loads(line) for block in blocks for line in block.splitlines() if line.strip()]


@pytest.mark.parametrize("text", [GUIDE, DOCS.read_text(encoding="utf-8")], ids=["guide", "docs"])
def test_every_example_task_runs_a_real_tool_with_valid_params(text: str) -> None:
    registry = Registry.from_entry_points()
    for task in example_tasks(text):
        tool = registry.tool(str(task["module"]), str(task["tool"]))
        assert tool is not None, f"{task['module']}.{task['tool']} does not exist"
        params = dict(task.get("params", {}))  # type: ignore[call-overload]
        # a ${...} reference is resolved at run time: put a value of a plausible type in its place
        concrete = {k: ("x" if isinstance(v, str) and "${" in v else v) for k, v in params.items()}
        tool.schema.validate(concrete)
