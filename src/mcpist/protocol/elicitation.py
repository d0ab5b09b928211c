"""URL elicitation: asking the user to connect an account in the browser.

On 2025-11-25 a tool call that needs a connection fails with JSON-RPC error -32042
carrying the URL, and `notifications/elicitation/complete` follows once the user
finishes. On 2026-07-28 the call returns an `InputRequiredResult` holding the same
URL elicitation; the client retries the call after the user finishes.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcpist.elicitations import PendingElicitations
from mcpist.errors import ConnectRequired


def _params(error: ConnectRequired) -> types.ElicitRequestURLParams:
    return types.ElicitRequestURLParams(
        message=error.message, url=error.connect_url, elicitation_id=error.elicitation_id
    )


def connect_required(
    ctx: ServerRequestContext[Any, Any], error: ConnectRequired, pending: PendingElicitations
) -> types.InputRequiredResult:
    """The 2026-07-28 answer; raises the 2025-11-25 one (-32042).

    Raises:
        UrlElicitationRequiredError: on handshake-era protocol revisions.
    """
    if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
        params = types.ElicitRequestURLParams(message=error.message, url=error.connect_url)
        return types.InputRequiredResult(
            input_requests={"connect": types.ElicitRequest(params=params)},
            request_state=error.elicitation_id,
        )
    pending.add(error.elicitation_id, ctx.session)
    raise UrlElicitationRequiredError([_params(error)])
