"""Through a real MCP client over HTTP: `/metrics` behind its token, what tool calls count, the audit
rows they leave (never their arguments), and the request id a response, an error and a log line share."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2
import pytest
import sqlalchemy as sa
from observe_support import METRICS_TOKEN, http_mcp, sample, structured

from mcpist.modules.api import Caller
from mcpist.observe import JsonFormatter, RequestIdFilter, tool_calls
from mcpist.runtime import Runtime
from support import runtime

pytestmark = pytest.mark.anyio

SECRET_ARGUMENT = "argument-value-7f3a9c-never-stored"


async def audit_rows(rt: Runtime) -> list[dict[str, Any]]:
    assert rt.observer.audit is not None
    await rt.observer.audit.flush()
    async with rt.engine.connect() as conn:
        rows = (await conn.execute(sa.select(tool_calls).order_by(tool_calls.c.id))).mappings().all()
    return [dict(r) for r in rows]


async def test_metrics_need_the_token_and_count_real_calls(tmp_path: Path) -> None:
    hostile = "x" * 40 + "-not-a-label"
    before_ok = sample("mcpist_tool_calls_total", module="demo", tool="echo", outcome="ok")
    before_conflict = sample("mcpist_tool_calls_total", module="demo", tool="fail", outcome="CONFLICT")
    before_unknown = sample("mcpist_tool_calls_total", module="unknown", tool="unknown", outcome="NOT_FOUND")
    before_seconds = sample("mcpist_tool_call_seconds_count", module="demo")
    before_db = sample("mcpist_db_seconds_count", operation="select")
    async with (
        runtime(tmp_path, observe={"metrics_token": METRICS_TOKEN}) as rt,
        http_mcp(rt) as (client, base),
        httpx2.AsyncClient(base_url=base, timeout=30) as web,
    ):
        echoed = await client.call_tool("call", {"module": "demo", "tool_name": "echo", "params": {"text": "hi"}})
        assert not echoed.is_error
        failed = await client.call_tool("call", {"module": "demo", "tool_name": "fail", "params": {}})
        assert structured(failed)["code"] == "CONFLICT"
        missing = await client.call_tool("call", {"module": hostile, "tool_name": hostile, "params": {}})
        assert structured(missing)["code"] == "NOT_FOUND"

        assert (await web.get("/metrics")).status_code == 401
        wrong = await web.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}x"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"].startswith("Bearer")
        assert (await web.get("/metrics", headers={"Authorization": METRICS_TOKEN})).status_code == 401
        page = await web.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/plain")
    text = page.text
    assert hostile not in text  # a caller's name never becomes a label
    assert f'mcpist_build_info{{version="{rt.version}"}} 1.0' in text
    assert sample("mcpist_tool_calls_total", module="demo", tool="echo", outcome="ok") == before_ok + 1
    assert sample("mcpist_tool_calls_total", module="demo", tool="fail", outcome="CONFLICT") == before_conflict + 1
    unknown = sample("mcpist_tool_calls_total", module="unknown", tool="unknown", outcome="NOT_FOUND")
    assert unknown == before_unknown + 1
    assert sample("mcpist_tool_call_seconds_count", module="demo") == before_seconds + 2
    assert sample("mcpist_db_seconds_count", operation="select") > before_db
    for family in ("mcpist_sessions_open", "mcpist_quota_refusals_total", "mcpist_embedding_seconds"):
        assert f"# TYPE {family.removesuffix('_total')}" in text, family


async def test_metrics_answer_404_without_a_token_or_when_off(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_mcp(rt) as (_client, base), httpx2.AsyncClient(base_url=base) as web:
        assert (await web.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})).status_code == 404
    off = tmp_path / "off"
    async with (
        runtime(off, observe={"metrics": False, "metrics_token": METRICS_TOKEN}) as rt,
        http_mcp(rt) as (client, base),
        httpx2.AsyncClient(base_url=base) as web,
    ):
        before = sample("mcpist_tool_calls_total", module="demo", tool="add", outcome="ok")
        await client.call_tool("call", {"module": "demo", "tool_name": "add", "params": {"a": 1}})
        assert (await web.get("/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"})).status_code == 404
        assert sample("mcpist_tool_calls_total", module="demo", tool="add", outcome="ok") == before
    # the next runtime's settings apply again
    async with runtime(tmp_path / "on") as rt:
        await rt.execute(Caller(user_id=rt.owner.id, email=rt.owner.email), "demo", "add", {"a": 1})
    assert sample("mcpist_tool_calls_total", module="demo", tool="add", outcome="ok") == before + 1


async def test_audit_rows_name_the_call_never_its_arguments(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_mcp(rt, **{"X-Request-Id": "req-audit-1"}) as (client, _base):
        echo = {"module": "demo", "tool_name": "echo", "params": {"text": SECRET_ARGUMENT}}
        ok = await client.call_tool("call", echo)
        assert structured(ok)["text"] == SECRET_ARGUMENT
        refused = await client.call_tool(
            "call", {"module": "demo", "tool_name": "missing", "params": {"text": SECRET_ARGUMENT}}
        )
        assert structured(refused)["code"] == "NOT_FOUND"
        batch = "\n".join(
            json.dumps({"id": f"t{n}", "module": "demo", "tool": "add", "params": {"a": n}}) for n in range(2)
        )
        assert not (await client.call_tool("batch", {"tasks": batch})).is_error
        rows = await audit_rows(rt)
        async with rt.engine.connect() as conn:
            dumped = [str(tuple(r)) for r in (await conn.execute(sa.text("SELECT * FROM tool_calls"))).all()]
    assert SECRET_ARGUMENT not in "".join(dumped)
    seen = [(r["module"], r["tool"], r["via"], r["outcome"]) for r in rows]
    assert seen == [
        ("demo", "echo", "call", "ok"),
        ("demo", "missing", "call", "NOT_FOUND"),
        ("demo", "add", "batch", "ok"),
        ("demo", "add", "batch", "ok"),
    ]
    assert {r["user_id"] for r in rows} == {rt.owner.id}
    assert all(r["token_id"] for r in rows)
    assert {r["request_id"] for r in rows[:2]} == {"req-audit-1"}
    assert all(isinstance(r["duration_ms"], int) and r["duration_ms"] >= 0 for r in rows)
    assert rows[0]["at"].tzinfo is not None


async def test_a_resource_read_is_audited_as_its_tool(tmp_path: Path) -> None:
    async with runtime(tmp_path) as rt, http_mcp(rt) as (client, _base):
        read = await client.read_resource(f"demo://echo/{SECRET_ARGUMENT}")
        assert SECRET_ARGUMENT in str(read)
        with pytest.raises(Exception, match="unknown resource"):
            await client.read_resource("demo://nothing")
        rows = await audit_rows(rt)
    assert [(r["module"], r["tool"], r["via"], r["outcome"]) for r in rows] == [("demo", "echo", "resource", "ok")]
    assert SECRET_ARGUMENT not in str(rows)


@contextmanager
def json_lines(logger: str) -> Iterator[io.StringIO]:
    """What `logger` logs, as `[observe] log_format = "json"` writes it."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    log = logging.getLogger(logger)
    log.addHandler(handler)
    try:
        yield out
    finally:
        log.removeHandler(handler)


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
async def test_an_internal_error_carries_the_request_id_of_its_response_and_log(tmp_path: Path, mode: str) -> None:
    with json_lines("mcpist") as out:
        async with runtime(tmp_path) as rt, http_mcp(rt, mode, **{"X-Request-Id": "req-boom-42"}) as (client, base):
            result = await client.call_tool("call", {"module": "demo", "tool_name": "boom", "params": {}})
            rows = await audit_rows(rt)
            async with httpx2.AsyncClient(base_url=base) as web:
                echoed = await web.get("/health", headers={"X-Request-Id": "abc.DEF_1-2"})
                replaced = await web.get("/health", headers={"X-Request-Id": "bad id<script>"})
                made = await web.get("/health")
    body = structured(result)
    assert body["code"] == "INTERNAL" and body["data"]["request_id"] == "req-boom-42"
    assert "req-boom-42" in body["message"]
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    logged = [line for line in lines if "failed unexpectedly" in line["message"]]
    assert len(logged) == 1, lines
    assert logged[0]["request_id"] == "req-boom-42" and logged[0]["level"] == "ERROR"
    assert logged[0]["logger"] == "mcpist" and "RuntimeError" in logged[0]["exc_info"]
    assert rows[-1]["outcome"] == "INTERNAL" and rows[-1]["request_id"] == "req-boom-42"
    assert echoed.headers["x-request-id"] == "abc.DEF_1-2"
    assert len(replaced.headers["x-request-id"]) == 16 and "script" not in replaced.headers["x-request-id"]
    assert len(made.headers["x-request-id"]) == 16 and made.headers["x-request-id"] != replaced.headers["x-request-id"]
