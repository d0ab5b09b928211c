"""How Notion's failures reach the caller: one refresh on a 401, retries on a 429, and Notion's own messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from fake_notion import error
from notion_seed import Call, Seed

from mcpist.modules import Conflict, InvalidArgument, NotFound, Unauthenticated, Unavailable
from mcpist.modules.notion import module
from mcpist.testing import FakeCredentials, FakeUpstream, RecordedSleep, tool_context

pytestmark = pytest.mark.anyio
MISSING = "0123456789abcdef0123456789abcdef"


def in_front(api: FakeUpstream, answer: Callable[[httpx.Request], httpx.Response | None]) -> httpx.MockTransport:
    """A transport where `answer` may reply first; what it lets through reaches the checked fake."""
    inner = api.transport()

    async def handle(request: httpx.Request) -> httpx.Response:
        reply = answer(request)
        return reply if reply is not None else await inner.handle_async_request(request)

    return httpx.MockTransport(handle)


async def test_a_401_is_refreshed_once_and_the_call_goes_on(call: Call, api: FakeUpstream, seeded: Seed) -> None:
    def expired(request: httpx.Request) -> httpx.Response | None:
        if request.headers["authorization"] == "Bearer old":
            return httpx.Response(401, json=error(401, "unauthorized", "API token is invalid.")[1])
        return None

    credentials = FakeCredentials("old", "new")
    ctx = tool_context(module, transport=in_front(api, expired), credentials=credentials)
    page = await call(ctx, "get_page", page_id=seeded.notes, content=False)
    assert page["title"] == "会議メモ" and credentials.refreshes == 1
    assert [r.headers["authorization"] for r in api.requests] == ["Bearer new"]


async def test_a_refused_secret_is_unauthenticated(call: Call, api: FakeUpstream, seeded: Seed) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(401, json=error(401, "unauthorized", "API token is invalid.")[1])

    ctx = tool_context(module, transport=in_front(api, refuse), credentials=FakeCredentials("revoked"))
    with pytest.raises(Unauthenticated):
        await call(ctx, "search", query="x")


@pytest.mark.parametrize(("tool", "params"), [("get_page", {"content": False}), ("search", {})])
async def test_a_429_is_retried_after_retry_after(
    call: Call, api: FakeUpstream, seeded: Seed, tool: str, params: dict[str, Any]
) -> None:
    limited = [httpx.Response(429, headers={"Retry-After": "2"}, json=error(429, "rate_limited", "Slow down.")[1])]

    def first_limited(request: httpx.Request) -> httpx.Response | None:
        return limited.pop() if limited else None

    sleep = RecordedSleep()
    ctx = tool_context(module, transport=in_front(api, first_limited), credentials=FakeCredentials("t"), sleep=sleep)
    if tool == "get_page":
        params = {**params, "page_id": seeded.notes}
    await call(ctx, tool, **params)
    assert sleep.waits == [2.0]  # search is a POST, but a read: retried as well


async def test_a_429_that_persists_is_unavailable_with_the_wait(call: Call, api: FakeUpstream, seeded: Seed) -> None:
    def always(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "5"}, json=error(429, "rate_limited", "Slow down.")[1])

    sleep = RecordedSleep()
    ctx = tool_context(module, transport=in_front(api, always), credentials=FakeCredentials("t"), sleep=sleep)
    with pytest.raises(Unavailable) as caught:
        await call(ctx, "list_users")
    assert caught.value.data["retry_after_s"] == 5 and len(sleep.waits) == 2


async def test_object_not_found_is_not_found_with_notions_message(ctx: Any, call: Call) -> None:
    with pytest.raises(
        NotFound, match=r"Could not find page with ID: 01234567-89ab-cdef-0123-456789abcdef\. Make sure"
    ):
        await call(ctx, "get_page", page_id=MISSING)


async def test_validation_error_is_invalid_argument_with_notions_message(call: Call, api: FakeUpstream) -> None:
    def refuse(request: httpx.Request) -> httpx.Response | None:
        body = error(400, "validation_error", "body failed validation: body.filter.or should be defined.")[1]
        return httpx.Response(400, json=body) if request.method == "POST" else None

    ctx = tool_context(module, transport=in_front(api, refuse), credentials=FakeCredentials("t"))
    with pytest.raises(
        InvalidArgument, match=r"notion: body failed validation: body\.filter\.or should be defined\."
    ) as caught:
        await call(ctx, "query_data_source", data_source_id=MISSING, filter={"or": None})
    assert caught.value.data == {"service": "notion", "status": 400}


async def test_conflict_error_is_conflict(call: Call, api: FakeUpstream, seeded: Seed) -> None:
    def conflict(request: httpx.Request) -> httpx.Response | None:
        body = error(409, "conflict_error", "Conflict occurred while saving. Please try again.")[1]
        return httpx.Response(409, json=body) if request.method == "PATCH" else None

    ctx = tool_context(module, transport=in_front(api, conflict), credentials=FakeCredentials("t"))
    with pytest.raises(Conflict, match=r"notion: Conflict occurred while saving\. Please try again\."):
        await call(ctx, "update_page_properties", page_id=seeded.rows[0], properties={"Done": True})


async def test_an_error_after_part_of_the_content_was_written_says_so(
    call: Call, api: FakeUpstream, seeded: Seed
) -> None:
    appends = []

    def second_append_fails(request: httpx.Request) -> httpx.Response | None:
        if request.method == "PATCH":
            appends.append(request)
            if len(appends) == 2:
                return httpx.Response(409, json=error(409, "conflict_error", "Conflict occurred while saving.")[1])
        return None

    ctx = tool_context(module, transport=in_front(api, second_append_fails), credentials=FakeCredentials("t"))
    markdown = "\n\n".join(f"p{i}" for i in range(150))
    with pytest.raises(
        Conflict, match=r"\(the page was created \(https://www.notion.so/\w+\) with 100 blocks\)"
    ) as caught:
        await call(ctx, "create_page", parent_page_id=seeded.home, title="大きなページ", content=markdown)
    assert caught.value.data["partial"] is True


async def test_an_answer_of_the_wrong_shape_is_unavailable(call: Call) -> None:
    def odd(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"object": "list", "items": []})

    ctx = tool_context(module, transport=httpx.MockTransport(odd), credentials=FakeCredentials("t"))
    with pytest.raises(Unavailable, match="notion answered an unexpected shape: results"):
        await call(ctx, "list_users")


async def test_an_id_that_is_not_one_is_refused_before_any_request(ctx: Any, call: Call, api: FakeUpstream) -> None:
    with pytest.raises(InvalidArgument, match="page_id is not a Notion id or URL"):
        await call(ctx, "get_page", page_id="https://www.notion.so/../../v1/users?x=1" + "a" * 20)
    assert api.requests == []
