"""Messages between the server and a sandbox process: 4-byte big-endian length, then compact UTF-8 JSON.

Standard library only: the sandbox process imports this too.
"""

from __future__ import annotations

import json
import struct
from typing import Any

__all__ = ["HEADER", "decode", "encode"]

HEADER = struct.Struct(">I")


def encode(message: dict[str, Any]) -> bytes:
    """One framed message.

    Raises:
        ValueError: a value is not JSON (a non-finite number, a circular reference).
        TypeError: a value is not JSON-serialisable.
    """
    body = json.dumps(message, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> dict[str, Any]:
    """A message's body (without its header) as an object.

    Raises:
        ValueError: not a JSON object.
    """
    value = json.loads(body)
    if not isinstance(value, dict):
        raise ValueError("a message must be a JSON object")
    return value
