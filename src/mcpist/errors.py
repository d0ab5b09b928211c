"""The one exception tree of MCPist.

Every error a tool, a meta-tool or the server itself raises on purpose carries a
stable code, a message for people and structured data for programs::

    MCPistError(code, message, data)
    ├── InvalidArgument      INVALID_ARGUMENT   bad input; nothing ran
    ├── NotFound             NOT_FOUND          no such module, tool or record
    ├── Conflict             CONFLICT           stale version, duplicate name
    ├── PermissionDenied     PERMISSION_DENIED  known caller, not allowed
    ├── Unauthenticated      UNAUTHENTICATED    no usable credential
    │   └── ConnectRequired                     the user must connect an account (URL elicitation)
    ├── Unavailable          UNAVAILABLE        upstream or dependency down
    ├── DeadlineExceeded     DEADLINE_EXCEEDED  a timeout ran out
    ├── ResourceExhausted    RESOURCE_EXHAUSTED a limit (CPU, memory, calls, size) was reached
    ├── Internal             INTERNAL           a bug; carries a request id
    └── ConfigError          INVALID_ARGUMENT   a setting is missing or wrong; stops the start

Only the protocol and web layers turn these into responses (the CLI prints a ConfigError and exits 2).
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

__all__ = [
    "ErrorCode",
    "MCPistError",
    "InvalidArgument",
    "NotFound",
    "Conflict",
    "PermissionDenied",
    "Unauthenticated",
    "ConnectRequired",
    "Unavailable",
    "DeadlineExceeded",
    "ResourceExhausted",
    "Internal",
    "ConfigError",
]

ErrorCode = Literal[
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "CONFLICT",
    "PERMISSION_DENIED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "DEADLINE_EXCEEDED",
    "RESOURCE_EXHAUSTED",
    "INTERNAL",
]


class MCPistError(Exception):
    code: ClassVar[ErrorCode] = "INTERNAL"

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.data: dict[str, Any] = dict(data or {})

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "data": self.data}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, data={self.data!r})"


class InvalidArgument(MCPistError):
    code = "INVALID_ARGUMENT"


class NotFound(MCPistError):
    code = "NOT_FOUND"


class Conflict(MCPistError):
    code = "CONFLICT"


class Unauthenticated(MCPistError):
    code = "UNAUTHENTICATED"


class ConnectRequired(Unauthenticated):
    """An account is missing or needs re-authorisation; the user finishes at `connect_url`."""

    def __init__(self, message: str, *, service: str, connect_url: str, elicitation_id: str) -> None:
        super().__init__(message, {"service": service, "connect_url": connect_url, "elicitation_id": elicitation_id})
        self.service = service
        self.connect_url = connect_url
        self.elicitation_id = elicitation_id


class PermissionDenied(MCPistError):
    code = "PERMISSION_DENIED"


class Unavailable(MCPistError):
    code = "UNAVAILABLE"


class DeadlineExceeded(MCPistError):
    code = "DEADLINE_EXCEEDED"


class ResourceExhausted(MCPistError):
    code = "RESOURCE_EXHAUSTED"


class Internal(MCPistError):
    code = "INTERNAL"


ERRORS_BY_CODE: dict[str, type[MCPistError]] = {
    cls.code: cls
    for cls in (
        InvalidArgument,
        NotFound,
        Conflict,
        PermissionDenied,
        Unauthenticated,
        Unavailable,
        DeadlineExceeded,
        ResourceExhausted,
        Internal,
    )
}


class ConfigError(MCPistError):
    """A setting is missing or wrong; the message names it. Stops the start."""

    code = "INVALID_ARGUMENT"

    def __init__(self, message: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(message, data)
