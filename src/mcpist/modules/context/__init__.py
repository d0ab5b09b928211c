"""Module `context`: conversation sessions that keep their goal and constraints (seed 004, CC-MCP)."""

from . import _tools  # noqa: F401  (registers the tools on `module`)
from ._module import ContextState, module
from ._prompts import SessionPrompts
from ._settings import ContextSettings, EndpointSettings

module.prompts = SessionPrompts()

__all__ = ["ContextSettings", "ContextState", "EndpointSettings", "module"]
