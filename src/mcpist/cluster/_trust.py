"""Who the client is when another node passed its request on.

The node that took the client's connection knows its address and scheme (after `trusted_proxies`);
the holder of the session only sees that node. So the passing node says them in `X-Mcpist-Client`
(`<address> <scheme>`) and signs that with a key every node of this MCPist holds: an HMAC key derived
from the vault's master key (replicas share it already, to read the same secrets). The holder believes
the header only when the signature is right, under its active key or one it still accepts after a
rotation, and removes both headers before anything else reads the request: a client that sends them
itself changes nothing. What it changes: the client address and scheme the holder's app and access log
see (uvicorn's access log reads the same scope), not the passing node's.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import logging
import time
from collections.abc import Callable, Sequence

from starlette.types import ASGIApp, Receive, Scope, Send

from ._routing import FORWARDED_HEADER

logger = logging.getLogger("mcpist.cluster")

__all__ = ["CLIENT_HEADER", "PROOF_HEADER", "ForwardedClient", "Signer"]

CLIENT_HEADER = b"x-mcpist-client"
PROOF_HEADER = b"x-mcpist-proof"
_OWN = frozenset({CLIENT_HEADER, PROOF_HEADER})
_PURPOSE = b"mcpist cluster: the client of a forwarded request"
_SCHEMES = frozenset({"http", "https"})
_WARN_EVERY_S = 60.0  # a client sending the headers on every request must not flood the log

Keys = Callable[[], Sequence[bytes]]
"""The vault keys, the active one first (read again when the key files change)."""


class Signer:
    def __init__(self, keys: Keys) -> None:
        self._keys = keys
        self._derived: dict[bytes, bytes] = {}

    def _mac(self, key: bytes, node: str, value: str) -> str:
        derived = self._derived.get(key)
        if derived is None:
            derived = self._derived[key] = hmac.new(key, _PURPOSE, hashlib.sha256).digest()
        return hmac.new(derived, f"{node}\n{value}".encode(), hashlib.sha256).hexdigest()

    def headers(self, node: str, scope: Scope) -> list[tuple[bytes, bytes]]:
        """The headers saying who the client of `scope` is, signed by `node` (the node passing it on)."""
        client = scope.get("client")
        value = f"{client[0] if client else '-'} {scope.get('scheme', 'http')}"
        proof = self._mac(self._keys()[0], node, value)
        return [(CLIENT_HEADER, value.encode("latin-1")), (PROOF_HEADER, proof.encode())]

    def verify(self, node: str, value: str, proof: str) -> bool:
        return any(hmac.compare_digest(self._mac(key, node, value), proof) for key in self._keys())


def _parse(value: str) -> tuple[str | None, str] | None:
    """(address or None when the passing node had none, scheme), or None when malformed."""
    address, _, scheme = value.partition(" ")
    if scheme not in _SCHEMES:
        return None
    if address == "-":
        return None, scheme
    try:
        return str(ipaddress.ip_address(address)), scheme
    except ValueError:
        return None


class ForwardedClient:
    """ASGI middleware: the client and scheme a node signed for, in place (the access log reads the same
    scope), and the signing headers gone. Costs one scan of the headers on every other request."""

    def __init__(self, app: ASGIApp, signer: Signer) -> None:
        self.app = app
        self.signer = signer
        self._warned = -_WARN_EVERY_S

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and any(name in _OWN for name, _ in scope["headers"]):
            self._believe(scope)
        await self.app(scope, receive, send)

    def _believe(self, scope: Scope) -> None:
        headers = scope["headers"]
        said = {name: value.decode("latin-1") for name, value in headers if name in _OWN or name == FORWARDED_HEADER}
        scope["headers"] = [(name, value) for name, value in headers if name not in _OWN]
        node, value, proof = said.get(FORWARDED_HEADER), said.get(CLIENT_HEADER), said.get(PROOF_HEADER)
        parsed = _parse(value) if value is not None else None
        if node is None or parsed is None or proof is None or not self.signer.verify(node, value or "", proof):
            now = time.monotonic()
            if now - self._warned >= _WARN_EVERY_S:
                self._warned = now
                logger.warning(
                    "a request claimed its client without a node's valid signature: not believed "
                    "(a client sending X-Mcpist-Client, or replicas without the same vault key); "
                    "said at most once a minute"
                )
            return
        address, scheme = parsed
        scope["client"] = (address, 0) if address is not None else None
        scope["scheme"] = scheme
