"""save / delete: versions, merge, ownership, errors, audit."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa

from conftest import Memory
from mcpist.modules import Conflict, InvalidArgument, NotFound
from mcpist.modules.memory.memos import merge_patch
from mcpist.modules.memory.tables import audit_logs, entries

pytestmark = pytest.mark.anyio


async def test_create_then_update_bumps_version_and_merges_metadata(memory: Memory) -> None:
    first = await memory.call(
        "save",
        namespace="work",
        content="歯医者の予約は火曜日",
        metadata={"tags": ["health"], "where": {"city": "Tokyo"}},
    )
    assert first["created"] and first["version"] == 1 and first["namespace"] == "work"
    assert first["created_at"] == first["updated_at"]
    second = await memory.call(
        "save",
        namespace="work",
        memo_id=first["memo_id"],
        content="歯医者の予約は水曜日",
        metadata={"where": {"clinic": "駅前"}, "tags": None, "done": False},
        title="歯医者",
        version=1,
    )
    assert not second["created"] and second["version"] == 2
    assert second["metadata"] == {"where": {"city": "Tokyo", "clinic": "駅前"}, "done": False}
    assert second["title"] == "歯医者" and second["created_at"] == first["created_at"]
    assert second["updated_at"] >= first["updated_at"]
    third = await memory.call(
        "save",
        namespace="work",
        memo_id=first["memo_id"],
        content="歯医者の予約は水曜日",
        metadata={"x": 1},
        title="歯医者",
        metadata_mode="replace",
    )
    assert third["metadata"] == {"x": 1} and third["version"] == 3


async def test_saving_the_same_again_is_not_a_new_version(memory: Memory) -> None:
    first = await memory.call("save", namespace="n", content="same", metadata={"a": 1})
    again = await memory.call("save", namespace="n", memo_id=first["memo_id"], content="same", metadata={"a": 1})
    assert again["version"] == 1


async def test_stale_version_is_conflict_and_changes_nothing(memory: Memory) -> None:
    first = await memory.call("save", namespace="n", content="one")
    await memory.call("save", namespace="n", memo_id=first["memo_id"], content="two", version=1)
    with pytest.raises(Conflict) as err:
        await memory.call("save", namespace="n", memo_id=first["memo_id"], content="three", version=1)
    assert err.value.data["current_version"] == 2
    with pytest.raises(Conflict):
        await memory.call("delete", namespace="n", memo_id=first["memo_id"], version=1)
    found = await memory.call("search", namespace="n")
    assert [i["content"] for i in found["items"]] == ["two"]


async def test_memo_id_given_creates_with_that_id_but_version_needs_an_existing_memo(memory: Memory) -> None:
    mid = str(uuid.uuid4())
    made = await memory.call("save", namespace="n", memo_id=mid.upper(), content="with my id")
    assert made["memo_id"] == mid and made["created"]
    with pytest.raises(NotFound):
        await memory.call("save", namespace="n", memo_id=str(uuid.uuid4()), content="x", version=1)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"namespace": "n", "content": "   "}, "content"),
        ({"namespace": "n", "content": "x", "memo_id": "not-a-uuid"}, "memo_id"),
        ({"namespace": "   ", "content": "x"}, "namespace"),
        ({"namespace": "n", "content": "x", "version": 0}, "version"),
        ({"namespace": "n", "content": "x", "metadata": "text"}, "metadata"),
        ({"namespace": "n", "content": "x", "metadata": {"big": "y" * 20_000}}, "metadata"),
        ({"namespace": "n", "content": "x", "unknown": 1}, "unknown"),
    ],
)
async def test_invalid_save_arguments_name_the_field(memory: Memory, params: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        await memory.call("save", **params)
    assert field in err.value.message


async def test_other_users_never_see_or_touch_a_memo(memory: Memory) -> None:
    mine = await memory.call("save", namespace="n", content="my secret plan")
    mid = mine["memo_id"]
    assert (await memory.call("search", namespace="n", query="secret plan", user="u2"))["items"] == []
    with pytest.raises(NotFound):
        await memory.call("delete", namespace="n", memo_id=mid, user="u2")
    with pytest.raises(NotFound):
        await memory.call("search", namespace="n", pivot_memo_id=mid, user="u2")
    # the same id saved by another user is that user's own memo, not an update of mine
    theirs = await memory.call("save", namespace="n", memo_id=mid, content="theirs", user="u2")
    assert theirs["created"]
    found = await memory.call("search", namespace="n", query="secret plan")
    assert [i["content"] for i in found["items"]] == ["my secret plan"]


async def test_namespaces_are_separate(memory: Memory) -> None:
    await memory.call("save", namespace="a", content="Kubernetes pods keep restarting")
    assert (await memory.call("search", namespace="b", query="Kubernetes"))["items"] == []


async def test_delete_then_not_found(memory: Memory) -> None:
    made = await memory.call("save", namespace="n", content="to delete")
    gone = await memory.call("delete", namespace="n", memo_id=made["memo_id"], version=1)
    assert gone == {
        "deleted": True,
        "memo_id": made["memo_id"],
        "namespace": "n",
        "version": 1,
        "relations_removed": 0,
    }
    with pytest.raises(NotFound):
        await memory.call("delete", namespace="n", memo_id=made["memo_id"])
    assert (await memory.call("search", namespace="n", query="to delete"))["items"] == []


async def test_near_duplicate_warns_and_never_merges(memory: Memory) -> None:
    first = await memory.call("save", namespace="n", content="Flight to Berlin departs Friday at 9:40 from Terminal 2.")
    assert first["warnings"] == []
    twin = await memory.call("save", namespace="n", content="Flight to Berlin departs Friday at 9:40 from Terminal 2!")
    assert twin["memo_id"] != first["memo_id"]
    assert [w["memo_id"] for w in twin["warnings"]] == [first["memo_id"]]
    assert twin["warnings"][0]["code"] == "near_duplicate"
    other = await memory.call("save", namespace="n", content="味噌汁の作り方は、だしを取り、豆腐とわかめを入れる。")
    assert other["warnings"] == []


async def test_audit_records_operation_diff_and_who(memory: Memory) -> None:
    made = await memory.call("save", namespace="n", content="v1", metadata={"a": 1})
    await memory.call("save", namespace="n", memo_id=made["memo_id"], content="v2", metadata={"a": 2})
    await memory.call("delete", namespace="n", memo_id=made["memo_id"])
    async with memory.state.engine.connect() as conn:
        rows = (await conn.execute(sa.select(audit_logs).order_by(audit_logs.c.id))).all()
        left = (await conn.execute(sa.select(sa.func.count()).select_from(entries))).scalar_one()
    assert left == 0
    assert [r.operation for r in rows] == ["create", "update", "delete"]
    assert all(r.actor_user_id == "u1" and r.actor_token_id == "tok-u1" and r.target == made["memo_id"] for r in rows)
    assert rows[1].diff["metadata"] == {"old": {"a": 1}, "new": {"a": 2}}
    assert rows[1].diff["content"]["old_chars"] == 2


def test_merge_patch_follows_rfc_7386() -> None:
    assert merge_patch({"a": "b", "c": {"d": "e", "f": "g"}}, {"a": "z", "c": {"f": None}}) == {
        "a": "z",
        "c": {"d": "e"},
    }
    assert merge_patch({"a": [1, 2]}, {"a": [3]}) == {"a": [3]}
    assert merge_patch({"a": {"b": 1}}, {"a": "x"}) == {"a": "x"}
