"""Upstream statuses map to MCPist errors once, with the vendor's message and never a secret."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from upstream_fakes import BASE, FakeAccount, make_client

from mcpist.errors import (
    Conflict,
    InvalidArgument,
    MCPistError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)
from mcpist.upstream import raise_for_status, redact, vendor_message

REQUEST = httpx.Request("GET", f"{BASE}/things?q=1")


def answer(status: int, body: Any = None, *, text: str | None = None, **headers: str) -> httpx.Response:
    if text is not None:
        return httpx.Response(status, text=text, headers=headers, request=REQUEST)
    return httpx.Response(status, json=body, headers=headers, request=REQUEST)


async def mapped(response: httpx.Response) -> MCPistError:
    with pytest.raises(MCPistError) as caught:
        await raise_for_status(response, "example")
    return caught.value


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, InvalidArgument),
        (422, InvalidArgument),
        (401, Unauthenticated),
        (403, PermissionDenied),
        (404, NotFound),
        (410, NotFound),
        (409, Conflict),
        (412, Conflict),
        (429, Unavailable),
        (405, InvalidArgument),
        (418, InvalidArgument),
        (500, Unavailable),
        (502, Unavailable),
        (503, Unavailable),
        (504, Unavailable),
        (302, Unavailable),
    ],
)
async def test_each_status_maps_to_one_error(status: int, error: type[MCPistError]) -> None:
    raised = await mapped(answer(status, {"message": "the vendor says why"}))
    assert type(raised) is error
    assert raised.data["service"] == "example"
    assert raised.data["status"] == status
    if status != 302:
        assert "the vendor says why" in raised.message


@pytest.mark.anyio
@pytest.mark.parametrize("status", [200, 201, 204, 299])
async def test_success_does_not_raise(status: int) -> None:
    await raise_for_status(answer(status), "example")


@pytest.mark.anyio
async def test_bad_request_message_names_the_service() -> None:
    raised = await mapped(answer(422, {"message": "Validation Failed"}))
    assert raised.message == "example: Validation Failed"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "headers",
    [
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "999999999999"},
        {"retry-after": "60"},
    ],
)
async def test_rate_limit_403_is_unavailable_with_a_wait(headers: dict[str, str]) -> None:
    raised = await mapped(answer(403, {"message": "API rate limit exceeded"}, **headers))
    assert isinstance(raised, Unavailable)
    assert raised.data["retry_after_s"] > 0


@pytest.mark.anyio
async def test_secondary_rate_limit_403_is_unavailable_by_its_message() -> None:
    raised = await mapped(answer(403, {"message": "You have exceeded a secondary rate limit."}))
    assert isinstance(raised, Unavailable)
    assert "retry_after_s" not in raised.data


@pytest.mark.anyio
async def test_429_carries_retry_after() -> None:
    raised = await mapped(answer(429, {}, **{"retry-after": "7"}))
    assert isinstance(raised, Unavailable)
    assert raised.data["retry_after_s"] == 7


@pytest.mark.anyio
async def test_503_carries_retry_after_when_given() -> None:
    raised = await mapped(answer(503, text="", **{"retry-after": "3"}))
    assert raised.data["retry_after_s"] == 3


@pytest.mark.anyio
@pytest.mark.parametrize("name", ["x-github-request-id", "x-request-id", "request-id", "x-ms-request-id"])
async def test_request_id_is_kept(name: str) -> None:
    raised = await mapped(answer(500, {}, **{name: "ABC-123"}))
    assert raised.data["request_id"] == "ABC-123"


@pytest.mark.anyio
async def test_data_never_holds_header_values_that_could_be_credentials() -> None:
    request = httpx.Request("GET", f"{BASE}/x", headers={"Authorization": "Bearer sekrit-token"})
    response = httpx.Response(
        500, json={"message": "boom"}, headers={"set-cookie": "sid=cookie-value"}, request=request
    )
    raised = await mapped(response)
    assert set(raised.data) == {"service", "status"}
    assert "sekrit" not in repr(raised) and "cookie-value" not in repr(raised)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"message": "Bad credentials"}, "Bad credentials"),  # GitHub, Notion
        ({"error": "invalid_grant"}, "invalid_grant"),
        (
            {"error": {"message": "Access token is empty.", "code": "InvalidAuthenticationToken"}},
            "Access token is empty.",
        ),
        ({"error": "invalid_request", "error_description": "Missing code"}, "Missing code; invalid_request"),
        ({"errors": ["first", "second"]}, "first; second"),
        ({"errors": [{"message": "Field 'x' is missing"}]}, "Field 'x' is missing"),
        (
            {
                "message": "Validation Failed",
                "errors": [{"resource": "Issue", "field": "title", "code": "missing_field"}],
            },
            "Validation Failed; Issue title missing_field",
        ),
        ({"errorMessages": ["Issue does not exist"], "errors": {}}, "Issue does not exist"),  # Jira
        ({"errorMessages": [], "errors": {"summary": "Summary is required."}}, "summary: Summary is required."),
        (
            {"object": "error", "status": 400, "code": "validation_error", "message": "body.parent is undefined"},
            "body.parent is undefined",
        ),  # Notion
        (
            {"error": {"code": 400, "message": "Invalid value", "errors": [{"message": "Invalid value"}]}},
            "Invalid value",
        ),  # Google, deduplicated
        (
            {"error": {"code": 403, "message": "Forbidden", "errors": [{"message": "Insufficient Permission"}]}},
            "Forbidden; Insufficient Permission",
        ),
        ({"msg": "Invalid login credentials"}, "Invalid login credentials"),  # Supabase auth
        ({"message": "JWT expired", "code": "PGRST301"}, "JWT expired"),  # Supabase PostgREST
        ({"unrelated": True}, None),
        ([{"message": "in a list"}], "in a list"),
    ],
)
def test_vendor_message_shapes(body: Any, expected: str | None) -> None:
    assert vendor_message(answer(400, body)) == expected


def test_vendor_message_falls_back_to_short_text_collapsed() -> None:
    assert vendor_message(answer(400, text="  Bad\n\n   thing\t here ")) == "Bad thing here"


def test_vendor_message_skips_html_and_long_text() -> None:
    html = answer(502, text="<html><body>Bad gateway</body></html>", **{"content-type": "text/html"})
    assert vendor_message(html) is None
    assert vendor_message(answer(500, text="x " * 5000)) is None


def test_vendor_message_is_bounded() -> None:
    message = vendor_message(answer(400, {"message": "word " * 200}))
    assert message is not None
    assert len(message) <= 300
    assert message.endswith("…")


def test_vendor_message_redacts_before_cutting() -> None:
    secret = "s3cr3t-token-value"
    body = {"message": "x" * 290 + " " + secret}
    message = vendor_message(answer(400, body), secrets=[secret])
    assert message is not None
    assert "s3cr3t" not in message


def test_redact_replaces_plain_and_url_encoded_secrets() -> None:
    secret = "abc/def+ghi="
    text = f"token {secret} or abc%2Fdef%2Bghi%3D"
    assert redact(text, [secret]) == "token [redacted] or [redacted]"


def test_redact_ignores_empty_and_tiny_secrets() -> None:
    assert redact("a b c", ["", "a"]) == "a b c"


@pytest.mark.anyio
async def test_client_redacts_a_secret_echoed_by_the_upstream() -> None:
    account = FakeAccount()

    def handler(request: httpx.Request) -> httpx.Response:
        token = request.headers["Authorization"].removeprefix("Bearer ")
        return httpx.Response(400, json={"message": f"token {token} is not valid for this repository"})

    client, _ = make_client(handler, account=account)
    async with client:
        with pytest.raises(InvalidArgument) as caught:
            await client.get_json("/repos/x")
    assert account.token not in caught.value.message
    assert account.token not in repr(caught.value)
    assert "[redacted]" in caught.value.message


@pytest.mark.anyio
async def test_streamed_error_body_is_read_for_the_message() -> None:
    client, _ = make_client(lambda request: httpx.Response(404, json={"message": "No such file"}))
    async with client:
        with pytest.raises(NotFound, match="No such file"):
            async with client.stream("GET", "/files/1"):
                pass  # pragma: no cover
