"""The public module API. A module package imports from here and nowhere else in MCPist."""

from mcpist.errors import (
    Conflict,
    DeadlineExceeded,
    Internal,
    InvalidArgument,
    MCPistError,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    Unavailable,
)

from .api import (
    Account,
    ApiKeyAuth,
    AuthSpec,
    Caller,
    Module,
    ModuleResources,
    NoAuth,
    OAuth2Auth,
    Sampler,
    ToolContext,
    ToolSpec,
)

__all__ = [
    "Account",
    "ApiKeyAuth",
    "AuthSpec",
    "Caller",
    "Conflict",
    "DeadlineExceeded",
    "Internal",
    "InvalidArgument",
    "MCPistError",
    "Module",
    "ModuleResources",
    "NoAuth",
    "NotFound",
    "OAuth2Auth",
    "PermissionDenied",
    "Sampler",
    "ToolContext",
    "ToolSpec",
    "Unauthenticated",
    "Unavailable",
]
