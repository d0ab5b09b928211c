"""The public surface of mcpist.batch, and the texts that describe it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import pytest

import mcpist.batch
from mcpist.batch import DESCRIPTION, GUIDE, Task, parse_batch, run_batch
from mcpist.batch._expr import compile_expression
from mcpist.batch._functions import BatchFunctions
from mcpist.batch._template import _closing_brace

ADDED_FUNCTIONS = {"hash_join", "pluck", "sort_by_desc", "format_as", "unique", "group_by", "index_by"}
DOC = (Path(__file__).parent.parent / "docs" / "batch.md").read_text(encoding="utf-8")


def test_public_api() -> None:
    assert mcpist.batch.__all__ == [
        "DESCRIPTION",
        "GUIDE",
        "BatchLimits",
        "BatchResult",
        "Precheck",
        "Task",
        "TaskRunner",
        "parse_batch",
        "run_batch",
    ]
    for name in mcpist.batch.__all__:
        assert getattr(mcpist.batch, name) is not None


def test_texts_fit_their_budgets() -> None:
    assert len(DESCRIPTION) <= 330
    assert "\n" not in DESCRIPTION
    assert len(GUIDE) <= 3000


def test_the_added_functions_are_registered_and_documented() -> None:
    assert ADDED_FUNCTIONS.issubset(BatchFunctions.FUNCTION_TABLE)
    for name in ADDED_FUNCTIONS:
        assert f"{name}(" in GUIDE, name
        assert f"{name}(" in DOC, name


def references(text: str) -> list[str]:
    """Every `${...}` body in a text, as the batch parser would cut it."""
    found = []
    # Skips `$${` escapes and a bare `${` quoted in prose (`${` and `}`).
    for match in re.finditer(r"(?<!\$)\$\{(?!`)", text):
        end = _closing_brace(text, match.end())
        body = text[match.end() : end]
        if end > 0 and body not in ("...", "…") and "\n" not in body:
            found.append(body.replace('\\"', '"'))
    return found


@pytest.mark.parametrize("text", [DOC, GUIDE], ids=["docs/batch.md", "GUIDE"])
def test_every_example_expression_compiles(text: str) -> None:
    bodies = references(text)
    assert len(bodies) >= 15
    for body in bodies:
        compile_expression(body, 500)


def example_batches(text: str) -> list[str]:
    return re.findall(r"```jsonl\n(.*?)```", text, flags=re.DOTALL)


@pytest.mark.anyio
@pytest.mark.parametrize("text", [DOC, GUIDE], ids=["docs/batch.md", "GUIDE"])
async def test_example_batches_run(text: str) -> None:
    batches = example_batches(text)
    assert batches

    async def runner(task: Task, params: dict[str, Any]) -> Any:
        # Enough of a world (memory search results and the like) for every example to resolve.
        item = {
            "id": "p1",
            "memo_id": "m1",
            "title": "会議メモ",
            "score": 0.9,
            "owner": "u1",
            "status": "open",
            "due": 2,
        }
        return {
            "results": [item, {**item, "id": "p2", "status": "done", "due": 1}],
            "users": [{"id": "u1", "name": "Aiko"}],
            "items": [item],
            "echo": params,
        }

    for batch in batches:
        parse_batch(batch)
        with anyio.fail_after(5):
            result = await run_batch(batch, runner)
        assert not result.failed and not result.skipped, json.dumps(result.to_dict(), ensure_ascii=False)
