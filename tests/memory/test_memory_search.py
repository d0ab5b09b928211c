"""search: semantic, keyword (Japanese and English), hybrid, metadata filters, pivot, metrics, errors."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import Memory
from mcpist.modules import InvalidArgument, NotFound

pytestmark = pytest.mark.anyio

MEMOS = [
    ("プロジェクトAの提出期限は3月末。延長は認められない。", {"lang": "ja", "tags": ["work", "deadline"], "prio": 1}),
    ("国家公務員試験の願書を出す。", {"lang": "ja", "tags": ["exam"], "prio": 2}),
    ("味噌汁の作り方は、だしを取り、豆腐とわかめを入れる。", {"lang": "ja", "tags": ["cooking"], "prio": 3}),
    (
        "Kubernetes pods keep restarting because the memory limit is too low.",
        {"lang": "en", "tags": ["work"], "prio": 1},
    ),
    ("Grandma's apple pie: tart apples, cold butter, bake for 50 minutes.", {"lang": "en", "tags": ["cooking"]}),
    ("The quarterly report is due on April 15.", {"lang": "en", "tags": ["work", "deadline"], "prio": 2.0}),
]


async def _seed(memory: Memory, ns: str = "n") -> list[str]:
    ids = []
    for content, meta in MEMOS:
        ids.append((await memory.call("save", namespace=ns, content=content, metadata=meta))["memo_id"])
    return ids


def _contents(result: dict[str, Any]) -> list[str]:
    return [item["content"] for item in result["items"]]


async def test_keyword_finds_two_character_japanese_words_inside_compounds(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", query="期限", mode="keyword")
    assert [i["memo_id"] for i in found["items"]] == [ids[0]]
    assert found["mode"] == "keyword" and found["items"][0]["score"] > 0
    assert found["items"][0]["matched"] == ["keyword"]
    found = await memory.call("search", namespace="n", query="公務員", mode="keyword")
    assert [i["memo_id"] for i in found["items"]] == [ids[1]]


async def test_keyword_english_is_stemmed_and_case_folded(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", query="POD restarts", mode="keyword")
    assert [i["memo_id"] for i in found["items"]] == [ids[3]]
    assert (await memory.call("search", namespace="n", query="zzzqqq", mode="keyword"))["items"] == []


async def test_semantic_crosses_languages(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", query="how to make miso soup", mode="semantic", k=1)
    assert found["items"][0]["memo_id"] == ids[2]
    item = found["items"][0]
    assert item["matched"] == ["semantic"] and item["score"] == pytest.approx(item["similarity"], abs=1e-4)
    found = await memory.call("search", namespace="n", query="アップルパイの焼き方", mode="semantic", k=1)
    assert found["items"][0]["memo_id"] == ids[4]


async def test_hybrid_is_the_default_and_fuses_both_halves(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", query="提出期限")
    assert found["mode"] == "hybrid"
    top = found["items"][0]
    assert top["memo_id"] == ids[0] and sorted(top["matched"]) == ["keyword", "semantic"]
    scores = [i["score"] for i in found["items"]]
    assert scores == sorted(scores, reverse=True)
    assert top["score"] > 1 / 61  # in both lists, so more than one reciprocal rank


async def test_minimum_similarity_cuts_semantic_results(memory: Memory) -> None:
    await _seed(memory)
    everything = await memory.call("search", namespace="n", query="deadline", mode="semantic", minimum_similarity=-1)
    assert len(everything["items"]) == len(MEMOS)
    sims = [i["similarity"] for i in everything["items"]]
    assert sims == sorted(sims, reverse=True)
    cut = (sims[1] + sims[2]) / 2
    some = await memory.call("search", namespace="n", query="deadline", mode="semantic", minimum_similarity=cut)
    assert len(some["items"]) == 2 and some["minimum_similarity"] == cut
    default = await memory.call("search", namespace="n", query="deadline", mode="semantic")
    assert default["minimum_similarity"] == memory.state.embedder.minimum_similarity


async def test_metadata_only_search_filters_by_containment_newest_first(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", metadata_filter={"tags": ["deadline"]})
    assert found["mode"] == "metadata"
    assert [i["memo_id"] for i in found["items"]] == [ids[5], ids[0]]
    assert found["items"][0]["matched"] == ["metadata"]
    found = await memory.call("search", namespace="n", metadata_filter={"lang": "en", "tags": ["work"]})
    assert {i["memo_id"] for i in found["items"]} == {ids[3], ids[5]}
    # 2 and 2.0 are the same JSON number; true is not 1
    found = await memory.call("search", namespace="n", metadata_filter={"prio": 2})
    assert {i["memo_id"] for i in found["items"]} == {ids[1], ids[5]}
    await memory.call("save", namespace="n", content="flag", metadata={"prio": True})
    found = await memory.call("search", namespace="n", metadata_filter={"prio": 1})
    assert {i["memo_id"] for i in found["items"]} == {ids[0], ids[3]}
    everything = await memory.call("search", namespace="n", k=100)
    assert len(everything["items"]) == len(MEMOS) + 1


async def test_exact_match_needs_equal_values(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", metadata_filter={"tags": ["work"]}, metadata_match="exact")
    assert [i["memo_id"] for i in found["items"]] == [ids[3]]
    found = await memory.call("search", namespace="n", metadata_filter={"tags": ["work"]})
    assert len(found["items"]) == 3


async def test_mixed_search_applies_the_filter_to_ranked_results(memory: Memory) -> None:
    ids = await _seed(memory)
    for mode in ("semantic", "keyword", "hybrid"):
        extra = {} if mode == "keyword" else {"minimum_similarity": -1}
        found = await memory.call(
            "search", namespace="n", query="quarterly report 期限", metadata_filter={"lang": "en"}, mode=mode, **extra
        )
        assert found["items"], mode
        assert all(i["metadata"]["lang"] == "en" for i in found["items"]), mode
        assert found["items"][0]["memo_id"] == ids[5], mode


async def test_pivot_search_excludes_the_pivot_unless_asked(memory: Memory) -> None:
    ids = await _seed(memory)
    found = await memory.call("search", namespace="n", pivot_memo_id=ids[5], minimum_similarity=-1)
    assert found["mode"] == "semantic"
    assert ids[5] not in [i["memo_id"] for i in found["items"]]
    assert len(found["items"]) == len(MEMOS) - 1
    found = await memory.call("search", namespace="n", pivot_memo_id=ids[5], exclude_pivot=False, k=1)
    assert found["items"][0]["memo_id"] == ids[5]
    assert found["items"][0]["similarity"] == pytest.approx(1.0, abs=1e-4)
    with pytest.raises(NotFound):
        await memory.call("search", namespace="n", pivot_memo_id="00000000-0000-0000-0000-000000000000")


async def test_l2_ranks_like_cosine_for_unit_vectors_and_reports_distance(memory: Memory) -> None:
    await _seed(memory)
    cos = await memory.call("search", namespace="n", query="cooking recipe", mode="semantic", minimum_similarity=-1)
    l2 = await memory.call("search", namespace="n", query="cooking recipe", mode="semantic", distance_metric="l2")
    assert [i["memo_id"] for i in l2["items"]] == [i["memo_id"] for i in cos["items"]]
    for item in l2["items"]:
        assert item["distance"] == pytest.approx((2 - 2 * item["similarity"]) ** 0.5, abs=1e-3)
        assert item["score"] == pytest.approx(1 / (1 + item["distance"]), abs=1e-3)
    assert "minimum_similarity" not in l2  # none applied (None is left out of the output)


@pytest.mark.parametrize(
    "params",
    [
        {"query": "x", "pivot_memo_id": "00000000-0000-0000-0000-000000000000"},
        {"query": "x", "distance_metric": "l2", "minimum_similarity": 0.5},
        {"query": "x", "mode": "keyword", "minimum_similarity": 0.5},
        {"mode": "semantic"},
        {"pivot_memo_id": "00000000-0000-0000-0000-000000000000", "mode": "keyword"},
        {"query": "  "},
        {"query": "x", "k": 0},
        {"query": "x", "k": 101},
        {"query": "x", "distance_metric": "dot"},
        {"pivot_memo_id": "nope"},
    ],
)
async def test_invalid_search_arguments(memory: Memory, params: dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        await memory.call("search", namespace="n", **params)


async def test_k_limits_and_updates_are_searchable(memory: Memory) -> None:
    ids = await _seed(memory)
    assert len((await memory.call("search", namespace="n", query="work", k=2))["items"]) <= 2
    await memory.call("save", namespace="n", memo_id=ids[2], content="Snow tires before the first frost")
    found = await memory.call("search", namespace="n", query="味噌汁", mode="keyword")
    assert found["items"] == []
    found = await memory.call("search", namespace="n", query="winter tyres", mode="semantic", k=1)
    assert found["items"][0]["memo_id"] == ids[2]
