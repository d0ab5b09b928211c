"""SQLite's in-memory index: the HNSW graph agrees with exact search and follows later changes."""

from __future__ import annotations

import math
import random
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest

from conftest import Memory, start_memory
from mcpist.modules.memory.keyword_index import K1, B, KeywordPartition

pytestmark = pytest.mark.anyio

TOPICS = ["dentist", "flight", "recipe", "invoice", "garden", "piano", "server", "tax"]


@pytest.fixture
async def graph_memory(sqlite_url: str, tmp_path: Path) -> AsyncIterator[Memory]:
    async for m in start_memory(sqlite_url, tmp_path, hnsw_threshold=40):
        yield m


async def test_graph_is_built_and_matches_exact_search(graph_memory: Memory) -> None:
    index = graph_memory.state.index
    assert index is not None
    ids = []
    for i in range(60):
        text = f"{TOPICS[i % len(TOPICS)]} note {i}: {TOPICS[(i * 3) % len(TOPICS)]} and {i * 7 % 13}"
        ids.append((await graph_memory.call("save", namespace="n", content=text))["memo_id"])
    await index.sync()
    with anyio.fail_after(30):
        await index.wait_idle()
    assert index.has_graph("u1", "n")
    query = await graph_memory.state.embedder.embed_query("piano lesson")
    approx = await index.nearest("u1", "n", query, 10)
    exact = await index.nearest("u1", "n", query, 10, exact=True)
    # an approximate graph, built by several threads, may swap near-equal neighbours or miss one:
    # the best hit is as close as the exact best, and nine of the ten are the exact ten
    assert approx[0].distance == pytest.approx(exact[0].distance, abs=1e-5)
    assert len({h.pk for h in approx} & {h.pk for h in exact}) >= 9

    # changes after the build reach the graph
    await graph_memory.call("save", namespace="n", memo_id=ids[0], content="Kubernetes pods keep restarting")
    found = await graph_memory.call("search", namespace="n", query="kubernetes pod crash", mode="semantic", k=1)
    assert found["items"][0]["memo_id"] == ids[0]
    await graph_memory.call("delete", namespace="n", memo_id=ids[0])
    found = await graph_memory.call("search", namespace="n", query="kubernetes pod crash", mode="semantic", k=5)
    assert ids[0] not in [i["memo_id"] for i in found["items"]]
    # a selective filter still finds its rows through the graph
    await graph_memory.call("save", namespace="n", content="piano tuning", metadata={"rare": True})
    found = await graph_memory.call(
        "search", namespace="n", query="dentist", mode="semantic", metadata_filter={"rare": True}, minimum_similarity=-1
    )
    assert [i["content"] for i in found["items"]] == ["piano tuning"]


def test_keyword_partition_scores_like_bm25_and_survives_compaction() -> None:
    rng = random.Random(3)
    vocab = [f"w{i}" for i in range(30)]
    docs = {pk: [rng.choice(vocab) for _ in range(rng.randint(1, 12))] for pk in range(1, 3001)}
    part = KeywordPartition()
    for pk, terms in docs.items():
        part.put(pk, terms)
    for pk in range(1, 2501):  # most of them change or go: compaction happens along the way
        if pk % 2:
            part.drop(pk)
            del docs[pk]
        else:
            docs[pk] = [rng.choice(vocab) for _ in range(3)]
            part.put(pk, docs[pk])
    assert len(part) == len(docs)

    query = ["w1", "w2", "w2", "nope"]
    n = len(docs)
    avgdl = sum(len(t) for t in docs.values()) / n
    expected: dict[int, float] = {}
    for term in dict.fromkeys(query):
        holders = [pk for pk, t in docs.items() if term in t]
        idf = math.log(1 + (n - len(holders) + 0.5) / (len(holders) + 0.5))
        for pk in holders:
            tf = docs[pk].count(term)
            dl = len(docs[pk])
            expected[pk] = expected.get(pk, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * dl / avgdl))
    best = sorted(expected, key=lambda pk: (-expected[pk], pk))[:20]
    hits = part.search(query, 20)
    assert [h.pk for h in hits] == best
    assert [h.score for h in hits] == pytest.approx([expected[pk] for pk in best], rel=1e-4)
    assert all(h.coverage in (1 / 3, 2 / 3) for h in hits)
    assert part.search(query, 5, exclude=frozenset({best[0]}))[0].pk == best[1]
