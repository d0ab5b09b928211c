"""The module's declaration: names, annotations, schemas, summary."""

from __future__ import annotations

from conftest import REGISTRY
from mcpist.modules.memory import module


def test_tools_and_annotations() -> None:
    defs = {t.spec.name: t.definition() for t in REGISTRY.tools("memory")}
    assert set(defs) == {
        "save",
        "search",
        "delete",
        "relation.save",
        "relation.delete",
        "relation.list",
        "relation.graph",
    }
    read_only = {name for name, d in defs.items() if d["annotations"]["readOnlyHint"]}
    assert read_only == {"search", "relation.list", "relation.graph"}
    destructive = {name for name, d in defs.items() if d["annotations"].get("destructiveHint")}
    assert destructive == {"delete", "relation.delete"}
    assert defs["relation.save"]["annotations"]["idempotentHint"]
    assert not defs["save"]["annotations"]["idempotentHint"]
    assert all("outputSchema" in d for d in defs.values())
    search = defs["search"]["inputSchema"]
    assert search["required"] == ["namespace"]
    assert set(search["properties"]) >= {
        "query",
        "metadata_filter",
        "k",
        "minimum_similarity",
        "pivot_memo_id",
        "distance_metric",
        "exclude_pivot",
        "mode",
    }
    assert defs["relation.graph"]["inputSchema"]["properties"]["max_depth"]["maximum"] == 10


def test_summary_is_short_and_migrations_ship() -> None:
    assert len(module.summary) <= 60
    assert module.migrations is not None and any(module.migrations.glob("memory_0001_*.py"))
    assert module.docs
