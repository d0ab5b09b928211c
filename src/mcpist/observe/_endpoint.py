"""`GET /metrics`: the registry in the Prometheus text format, for the bearer of `metrics_token`."""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from . import metrics
from ._merge import merge_scrapes

__all__ = ["metrics_route"]

PATH = "/metrics"


Peers = Callable[[str, str], Awaitable[list[tuple[str, str]]]]
"""Given the scrape's Authorization and Host headers: (node id, text) of the other workers of this machine."""
FORWARDED = "x-mcpist-forwarded"
"""Set on a scrape one worker makes of another: answer with this process's own figures only."""


def metrics_route(
    token: str | None, *, enabled: bool = True, node: str | None = None, peers: Peers | None = None
) -> Route:
    """The route; it answers 404 while `token` is None or metrics are off, 401 to a wrong or missing bearer.

    As one of several workers (`node`, `peers`), a scrape answers for all the workers of this
    machine, each sample labelled with its worker's node id.
    """
    expected = f"Bearer {token}".encode() if token else None

    async def endpoint(request: Request) -> Response:
        if expected is None or not enabled:
            return PlainTextResponse("Not Found", status_code=404)
        sent = request.headers.get("authorization", "").encode("latin-1")
        # compared in constant time, whole header against whole header
        if not hmac.compare_digest(sent, expected):
            return PlainTextResponse(
                "a bearer token is required (observe.metrics_token)",
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
            )
        body = metrics.render()
        if node is not None and peers is not None and FORWARDED not in request.headers:
            others = await peers(request.headers["authorization"], request.headers.get("host", ""))
            body = merge_scrapes([(node, body.decode()), *others])
        return Response(body, media_type=metrics.CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})

    return Route(PATH, endpoint, methods=["GET"], name="metrics")
