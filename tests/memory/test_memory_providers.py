"""The OpenAI-compatible provider against a fake endpoint (httpx.MockTransport), and the module running on it."""

from __future__ import annotations

import hashlib
import io
import json
import logging
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import sqlalchemy as sa

from conftest import Memory
from mcpist.modules import InvalidArgument, Unavailable
from mcpist.modules.memory import MemorySettings, admin
from mcpist.modules.memory.analyzer import Analyzer
from mcpist.modules.memory.embeddings import OpenAIEmbedder
from mcpist.modules.memory.settings import OpenAIEmbeddings
from mcpist.modules.memory.store import MemoryState
from mcpist.modules.memory.tables import entries
from mcpist.modules.memory.vector_index import SqliteVectorIndex

pytestmark = pytest.mark.anyio
DIM = 16


def fake_vector(text: str) -> list[float]:
    vec = np.zeros(DIM)
    for word in text.lower().split():
        vec[int(hashlib.sha256(word.encode()).hexdigest(), 16) % DIM] += 1.0
    return [float(x) for x in vec]


def endpoint(requests: list[dict[str, Any]], status: int = 200) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        assert request.url.path == "/v1/embeddings"
        assert request.headers["authorization"] == "Bearer sk-test"
        body = json.loads(request.content)
        requests.append(body)
        if status != 200:
            return httpx.Response(status, json={"error": {"message": "nope"}})
        data = [{"object": "embedding", "index": i, "embedding": fake_vector(t)} for i, t in enumerate(body["input"])]
        return httpx.Response(200, json={"object": "list", "data": list(reversed(data)), "model": body["model"]})

    return httpx.MockTransport(handle)


CFG = OpenAIEmbeddings(base_url="http://embed.test/v1/", model="fake-embed", api_key="sk-test", batch_size=2)


async def test_requests_batches_orders_and_learns_dimension() -> None:
    requests: list[dict[str, Any]] = []
    async with httpx.AsyncClient(transport=endpoint(requests)) as client:
        embedder = OpenAIEmbedder(CFG, client, "sk-test")
        await embedder.probe()
        assert embedder.dim == DIM and embedder.model == "openai:fake-embed"
        rows = await embedder.embed_documents(["a b", "c", "d e f"])
        assert rows.shape == (3, DIM)
        assert rows[2].tolist() == fake_vector("d e f")
        assert [len(r["input"]) for r in requests] == [1, 2, 1]
        assert requests[1] == {"model": "fake-embed", "input": ["a b", "c"], "encoding_format": "float"}


@pytest.mark.parametrize("status", [401, 500, 503])
async def test_endpoint_errors_are_unavailable(status: int) -> None:
    async with httpx.AsyncClient(transport=endpoint([], status)) as client:
        embedder = OpenAIEmbedder(CFG, client, "sk-test")
        with pytest.raises(Unavailable) as err:
            await embedder.embed_query("x")
        assert err.value.data == {"status": status}


async def test_unreachable_endpoint_is_unavailable_and_save_writes_nothing(memory: Memory) -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(down)) as client:
        memory.state.embedder = OpenAIEmbedder(CFG.model_copy(update={"dimensions": DIM}), client, "sk-test")
        with pytest.raises(Unavailable):
            await memory.call("save", namespace="n", content="never stored")
    async with memory.state.engine.connect() as conn:
        assert (await conn.execute(sa.select(sa.func.count()).select_from(entries))).scalar_one() == 0


@pytest.fixture
async def fake_client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=endpoint([])) as client:
        yield client


async def test_reembed_after_a_model_switch_then_search(memory: Memory, fake_client: httpx.AsyncClient) -> None:
    texts = ["apple pie recipe", "snow tires november", "piano recital tuesday"]
    for t in texts:
        await memory.call("save", namespace="n", content=t)
    new = OpenAIEmbedder(CFG.model_copy(update={"dimensions": DIM}), fake_client, "sk-test")
    seen: list[tuple[int, int]] = []
    engine = memory.state.engine
    done = await admin.reembed(
        engine, memory.settings, embedder=new, batch_size=2, progress=lambda d, t: seen.append((d, t))
    )
    assert done == 3 and seen[0] == (0, 3) and seen[-1] == (3, 3)
    assert await admin.reembed(engine, memory.settings, embedder=new) == 0
    async with engine.connect() as conn:
        rows = (
            await conn.execute(sa.select(entries.c.embedding_model, entries.c.embedding_dim, entries.c.version))
        ).all()
    assert {(r.embedding_model, r.embedding_dim, r.version) for r in rows} == {("openai:fake-embed", DIM, 1)}
    # the module started on the new model finds memos by the new vectors
    index = None
    if engine.dialect.name == "sqlite":
        index = SqliteVectorIndex(
            engine, model=new.model, dim=DIM, hnsw_threshold=10_000, ef_search=64, logger=logging.getLogger("t")
        )
    memory.state = MemoryState(engine, MemorySettings(), new, Analyzer(), index)
    if index is None:
        from mcpist.modules.memory.tools import ensure_pg_index

        await ensure_pg_index(memory.state)
    found = await memory.call("search", namespace="n", query="piano recital tuesday", mode="semantic", k=1)
    assert found["items"][0]["content"] == "piano recital tuesday"
    assert found["embedding_model"] == "openai:fake-embed"


async def test_export_import_round_trip(memory: Memory, tmp_path: Path) -> None:
    a = await memory.call("save", namespace="src", content="提出期限は3月末", title="期限", metadata={"k": [1, 2]})
    b = await memory.call("save", namespace="src", content="Flight to Berlin on Friday")
    await memory.call(
        "relation.save",
        namespace="src",
        source_memo_id=a["memo_id"],
        target_memo_id=b["memo_id"],
        tag="before",
        weight=0.25,
        reason="travel after the deadline",
    )
    out = io.StringIO()
    engine = memory.state.engine
    n = await admin.export_namespace(
        engine, memory.settings, owner_id="u1", namespace="src", out=out, include_embeddings=True
    )
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    assert n == 2 and [x["type"] for x in lines] == ["header", "memo", "memo", "relation"]
    assert lines[0]["embedding_model"] == memory.state.embedder.model
    report = await admin.import_namespace(
        engine,
        memory.settings,
        owner_id="u2",
        namespace="copy",
        src=io.StringIO(out.getvalue()),
        embedder=memory.state.embedder,
    )
    assert (report.created, report.updated, report.relations) == (2, 0, 1)
    found = await memory.call("search", namespace="copy", query="期限", mode="keyword", user="u2")
    assert [i["memo_id"] for i in found["items"]] == [a["memo_id"]]
    assert found["items"][0]["metadata"] == {"k": [1, 2]} and found["items"][0]["title"] == "期限"
    g = await memory.call("relation.graph", namespace="copy", start_memo_id=a["memo_id"], user="u2")
    assert g["edges"][0]["reason"] == "travel after the deadline" and g["edges"][0]["weight"] == 0.25
    again = await admin.import_namespace(
        engine,
        memory.settings,
        owner_id="u2",
        namespace="copy",
        src=io.StringIO(out.getvalue()),
        embedder=memory.state.embedder,
    )
    assert (again.created, again.updated) == (0, 2)
    assert (await memory.call("search", namespace="src", user="u2"))["items"] == []


@pytest.mark.parametrize(
    "text",
    [
        "not json\n",
        '{"type": "memo", "content": ""}\n',
        '{"type": "something"}\n',
        '{"type": "relation", "source_memo_id": "00000000-0000-0000-0000-000000000001", '
        '"target_memo_id": "00000000-0000-0000-0000-000000000002", "tag": "t"}\n',
    ],
)
async def test_import_rejects_bad_lines(memory: Memory, text: str) -> None:
    with pytest.raises(InvalidArgument) as err:
        await admin.import_namespace(
            memory.state.engine,
            memory.settings,
            owner_id="u1",
            namespace="x",
            src=io.StringIO(text),
            embedder=memory.state.embedder,
        )
    assert "line 1" in err.value.message
