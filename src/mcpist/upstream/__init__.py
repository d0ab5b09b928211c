"""HTTP to upstream services, done once: credentials, retries, error mapping and pagination.

Service modules call their APIs through a `ServiceClient` (`ctx.http`) and never write status mapping, retries or
pagination by hand. This package imports only the standard library, httpx, anyio, pydantic and `mcpist.errors`.
"""

from ._auth import AccountAuth, Credential, CredentialSource, basic, bearer, header
from ._client import ServiceClient
from ._errors import raise_for_status, read_bounded, redact, vendor_message
from ._pages import (
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
from ._retry import RETRY_EXTENSION, Borrowed, RetryTransport
from ._text import Clipped, MaxChars, Offset, clip

__all__ = [
    "RETRY_EXTENSION",
    "AccountAuth",
    "Clipped",
    "Credential",
    "CredentialSource",
    "Cursor",
    "Limit",
    "MaxChars",
    "Offset",
    "Page",
    "Borrowed",
    "RetryTransport",
    "ServiceClient",
    "basic",
    "bearer",
    "body_cursor",
    "clip",
    "collect",
    "decode_cursor",
    "encode_cursor",
    "header",
    "link_next",
    "odata_next",
    "offset_next",
    "page_token",
    "raise_for_status",
    "read_bounded",
    "redact",
    "vendor_message",
]
