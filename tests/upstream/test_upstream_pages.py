"""Cursors and next-page conventions: every style round-trips, nothing is skipped, garbage is refused."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Any

import httpx
import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError
from upstream_fakes import BASE, FakeAccount, make_client

from mcpist.errors import InvalidArgument
from mcpist.upstream import (
    Cursor,
    Limit,
    Page,
    body_cursor,
    collect,
    decode_cursor,
    encode_cursor,
    link_next,
    odata_next,
    offset_next,
    page_token,
)


def with_link(*values: str, url: str = f"{BASE}/items?page=1") -> httpx.Response:
    return httpx.Response(200, headers=[("Link", value) for value in values], request=httpx.Request("GET", url))


def round_trip(state: Any) -> Any:
    return decode_cursor(encode_cursor({"p": state}), service="example")["p"]


def test_a_cursor_round_trips_and_is_url_safe() -> None:
    state = {"p": "https://api.example/items?page=2&per_page=100", "k": 3, "ü": None}
    cursor = encode_cursor(state)
    assert set(cursor) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert decode_cursor(cursor, service="example") == state


@pytest.mark.parametrize(
    "cursor",
    [
        "",
        "!!!",
        "abc",
        base64.urlsafe_b64encode(b"not json").decode(),
        base64.urlsafe_b64encode(b'{"v": 99, "s": {}}').decode(),
        base64.urlsafe_b64encode(b'{"v": 1, "s": []}').decode(),
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
        "A" * 4000,
    ],
)
def test_a_garbage_cursor_is_invalid_argument(cursor: str) -> None:
    with pytest.raises(InvalidArgument) as caught:
        decode_cursor(cursor, service="example")
    assert caught.value.data == {"service": "example", "field": "cursor"}
    assert caught.value.code == "INVALID_ARGUMENT"


def test_an_oversized_state_cannot_become_a_cursor() -> None:
    with pytest.raises(ValueError, match="limit is 2048"):
        encode_cursor({"p": "x" * 2000})


def test_limit_and_cursor_bounds() -> None:
    limit = TypeAdapter(Limit)
    assert limit.validate_python(100) == 100
    for bad in (0, 101):
        with pytest.raises(ValidationError):
            limit.validate_python(bad)
    cursor = TypeAdapter(Cursor)
    assert cursor.validate_python(None) is None
    with pytest.raises(ValidationError):
        cursor.validate_python("A" * 2049)


def test_page_serialises() -> None:
    class Item(BaseModel):
        id: int

    page = Page[Item](items=[Item(id=1)], next_cursor="abc")
    assert page.model_dump() == {"items": [{"id": 1}], "next_cursor": "abc"}


@pytest.mark.parametrize(
    ("links", "expected"),
    [
        (['<https://api.example/items?page=2>; rel="next", <https://api.example/items?page=9>; rel="last"'], "page=2"),
        (['<https://api.example/items?page=9>; rel="last", <https://api.example/items?page=2>; rel=next'], "page=2"),
        (
            ['<https://api.example/items?page=1>; rel="prev"', '<https://api.example/items?page=3>; rel="next"'],
            "page=3",
        ),
        (['<https://api.example/items?page=4>; title="a, b; c"; rel="next last"'], "page=4"),
        (['<https://api.example/items?ids=1,2&page=5>; REL="Next"'], "page=5"),
        (['<https://api.example/items?page=1>; rel="prev"'], None),
        (["garbage"], None),
        ([], None),
    ],
)
def test_link_next(links: list[str], expected: str | None) -> None:
    found = link_next(with_link(*links))
    if expected is None:
        assert found is None
    else:
        assert found is not None and found.endswith(expected)
        assert round_trip(found) == found


def test_link_next_resolves_a_relative_url() -> None:
    assert link_next(with_link('</items?page=2>; rel="next"')) == f"{BASE}/items?page=2"


def test_body_cursor_notion() -> None:
    assert body_cursor({"has_more": True, "next_cursor": "c-2", "results": []}) == "c-2"
    assert body_cursor({"has_more": False, "next_cursor": None}) is None
    assert body_cursor({"has_more": False, "next_cursor": "stale"}) is None
    assert body_cursor([]) is None
    assert round_trip("c-2") == "c-2"


def test_body_cursor_dotted_without_a_flag() -> None:
    body = {"response_metadata": {"next_cursor": "dXNlcjpV"}}
    assert body_cursor(body, "response_metadata.next_cursor", has_more_key=None) == "dXNlcjpV"
    assert body_cursor({"response_metadata": {"next_cursor": ""}}, "response_metadata.next_cursor", None) is None


@pytest.mark.parametrize(
    ("start_at", "max_results", "total", "got", "is_last", "expected"),
    [
        (0, 50, 120, 50, None, 50),
        (100, 50, 120, 20, None, None),
        (50, 50, 100, 50, None, None),
        (0, 50, None, 50, None, 50),
        (0, 50, None, 30, None, None),
        (0, 50, None, 50, True, None),
        (0, 50, 500, 50, False, 50),
        (0, 50, 500, 0, None, None),
    ],
)
def test_offset_next_jira(
    start_at: int, max_results: int, total: int | None, got: int, is_last: bool | None, expected: int | None
) -> None:
    found = offset_next(start_at, max_results, total, got, is_last=is_last)
    assert found == expected
    assert round_trip(found) == found


def test_page_token_google() -> None:
    assert page_token({"items": [], "nextPageToken": "tok-2"}) == "tok-2"
    assert page_token({"items": []}) is None
    assert page_token({"nextSyncToken": "s"}, key="nextSyncToken") == "s"
    assert round_trip("tok-2") == "tok-2"


def test_odata_next_graph() -> None:
    url = "https://graph.example/v1.0/me/todo/lists?$skiptoken=abc"
    assert odata_next({"value": [], "@odata.nextLink": url}) == url
    assert odata_next({"value": []}) is None
    assert odata_next(None) is None
    assert round_trip(url) == url


class Pages:
    """An upstream of `count` numbered items served `size` per page, with an int offset as the page state."""

    def __init__(self, count: int, size: int) -> None:
        self.count = count
        self.size = size
        self.fetched: list[int | None] = []

    async def fetch(self, state: int | None) -> tuple[Sequence[int], int | None]:
        self.fetched.append(state)
        start = state or 0
        items = list(range(start, min(start + self.size, self.count)))
        return items, offset_next(start, self.size, self.count, len(items))


@pytest.mark.anyio
async def test_collect_loses_nothing_inside_a_page() -> None:
    pages = Pages(count=11, size=3)
    seen: list[int] = []
    cursor: str | None = None
    for _ in range(10):
        page = await collect(pages.fetch, 4, cursor=cursor, service="example", state_type=int)
        seen.extend(page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == list(range(11))


@pytest.mark.anyio
async def test_collect_stops_at_limit_and_at_the_end() -> None:
    pages = Pages(count=6, size=3)
    first = await collect(pages.fetch, 6, cursor=None, service="example", state_type=int)
    assert first.items == list(range(6))
    assert first.next_cursor is None
    pages = Pages(count=9, size=3)
    first = await collect(pages.fetch, 6, cursor=None, service="example", state_type=int)
    assert first.items == list(range(6))
    assert first.next_cursor is not None
    assert pages.fetched == [None, 3]
    rest = await collect(pages.fetch, 6, cursor=first.next_cursor, service="example", state_type=int)
    assert rest.items == [6, 7, 8]
    assert rest.next_cursor is None


@pytest.mark.anyio
async def test_collect_fetches_a_bounded_number_of_pages() -> None:
    async def empty_pages(state: int | None) -> tuple[Sequence[int], int | None]:
        return [], (state or 0) + 1

    page = await collect(empty_pages, 10, cursor=None, service="example", state_type=int, max_pages=5)
    assert page.items == []
    assert decode_cursor(page.next_cursor or "", service="example") == {"p": 5, "k": 0}


@pytest.mark.anyio
@pytest.mark.parametrize("saved", [{"p": "not-an-int", "k": 0}, {"p": 3, "k": -1}, {"p": 3, "k": "2"}])
async def test_collect_refuses_a_cursor_with_the_wrong_state(saved: dict[str, Any]) -> None:
    pages = Pages(count=9, size=3)
    with pytest.raises(InvalidArgument) as caught:
        await collect(pages.fetch, 5, cursor=encode_cursor(saved), service="example", state_type=int)
    assert caught.value.data["field"] == "cursor"
    assert pages.fetched == []


@pytest.mark.anyio
async def test_collect_over_link_headers_through_the_client() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        headers = {"Link": f'<{BASE}/items?page={page + 1}>; rel="next"'} if page < 3 else {}
        return httpx.Response(200, json=[{"n": page * 10 + i} for i in range(2)], headers=headers)

    client, transport = make_client(handler, account=FakeAccount())

    async def fetch(url: str | None) -> tuple[Sequence[int], str | None]:
        response = await client.request("GET", url or "/items")
        return [item["n"] for item in response.json()], link_next(response)

    numbers: list[int] = []
    cursor: str | None = None
    async with client:
        while True:
            page = await collect(fetch, 3, cursor=cursor, service="example")
            numbers.extend(page.items)
            cursor = page.next_cursor
            if cursor is None:
                break
    assert numbers == [10, 11, 20, 21, 30, 31]
    assert all(r.headers["Authorization"] == "Bearer tok-secret-1" for r in transport.seen)
