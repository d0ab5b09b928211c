"""Retrieval quality of the default model on the bilingual test set (Japanese, English, cross-language)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from conftest import Memory

pytestmark = pytest.mark.anyio

DATA = json.loads((Path(__file__).parent / "data" / "retrieval_set.json").read_text(encoding="utf-8"))

# Measured with use-multilingual-v3 (see docs/memory.md); asserted a little below so that
# harmless float noise passes and a real regression does not.
FLOOR = {"semantic": 0.97, "hybrid": 0.96, "keyword": 0.5}


def test_the_set_is_big_enough_and_bilingual() -> None:
    kinds = defaultdict(int)
    for q in DATA["queries"]:
        kinds[q["kind"]] += 1
        assert all(r in DATA["documents"] for r in q["relevant"])
    assert sum(kinds.values()) >= 40 and set(kinds) == {"ja-ja", "en-en", "ja-en", "en-ja"}


async def _mrr(memory: Memory, mode: str, ids: dict[str, str]) -> dict[str, float]:
    per: dict[str, list[float]] = defaultdict(list)
    for q in DATA["queries"]:
        extra: dict[str, Any] = {} if mode == "keyword" else {"minimum_similarity": -1}
        found = await memory.call("search", namespace="eval", query=q["query"], mode=mode, k=10, **extra)
        rr = 0.0
        for rank, item in enumerate(found["items"], start=1):
            if ids[item["memo_id"]] in q["relevant"]:
                rr = 1.0 / rank
                break
        per[q["kind"]].append(rr)
        per["all"].append(rr)
    return {kind: sum(v) / len(v) for kind, v in per.items()}


async def test_mrr_at_10(memory: Memory) -> None:
    ids: dict[str, str] = {}
    for key, text in DATA["documents"].items():
        ids[(await memory.call("save", namespace="eval", content=text))["memo_id"]] = key
    scores = {mode: await _mrr(memory, mode, ids) for mode in FLOOR}
    print(json.dumps(scores, indent=1))
    for mode, floor in FLOOR.items():
        assert scores[mode]["all"] >= floor, (mode, scores[mode])
