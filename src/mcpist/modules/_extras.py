"""What a module may offer besides tools: MCP prompts, MCP resources, and CLI commands."""

from __future__ import annotations

import argparse
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TextIO, runtime_checkable
from urllib.parse import unquote

from sqlalchemy.ext.asyncio import AsyncEngine

from ._context import SettingsT, ToolContext

# --- prompts -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptArgument:
    name: str
    description: str = ""
    required: bool = True


@dataclass(frozen=True)
class PromptInfo:
    """One MCP prompt a module offers (`prompts/list`)."""

    name: str
    description: str
    arguments: tuple[PromptArgument, ...] = ()


@dataclass(frozen=True)
class PromptMessage:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class PromptResult:
    """The expansion of a prompt (`prompts/get`)."""

    description: str
    messages: tuple[PromptMessage, ...]


class PromptProvider(Protocol):
    """Serves a module's MCP prompts for the calling user; `ctx.account` is always None here."""

    async def list_prompts(self, ctx: ToolContext[Any, Any]) -> list[PromptInfo]: ...

    async def get_prompt(self, ctx: ToolContext[Any, Any], name: str, arguments: dict[str, str]) -> PromptResult: ...


@runtime_checkable
class PromptCompleter(Protocol):
    """A prompt provider that also completes argument values (`completion/complete`)."""

    async def complete_argument(
        self, ctx: ToolContext[Any, Any], prompt: str, argument: str, value: str, context: Mapping[str, str]
    ) -> list[str]: ...


# --- resources -----------------------------------------------------------------------------------

URI_TEMPLATE_RE = re.compile(r"^[a-z][a-z0-9+.-]*://[^\s{}]*(\{[a-z_][a-z0-9_]*\}[^\s{}]*)*$")
_VAR_RE = re.compile(r"\{([a-z_][a-z0-9_]*)\}")

ResourceFn = Callable[..., Awaitable[str | bytes]]
CompleteFn = Callable[[ToolContext[Any, Any], str, Mapping[str, str]], Awaitable[list[str]]]
"""(ctx, the value typed so far, the other variables already known) -> candidate values."""


@dataclass(frozen=True)
class ResourceSpec:
    """One MCP resource (a template with `{variables}`, or a fixed URI) read by `fn(ctx, **variables)`.

    It is visible to a caller exactly when the module's tool named `tool` is: it reads the same data.
    """

    uri_template: str
    name: str
    description: str
    mime_type: str
    tool: str
    fn: ResourceFn
    complete: Mapping[str, CompleteFn] = field(default_factory=dict)

    @property
    def variables(self) -> tuple[str, ...]:
        return tuple(_VAR_RE.findall(self.uri_template))

    @property
    def is_template(self) -> bool:
        return bool(self.variables)

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables if `uri` is an instance of this template (each a non-empty path segment), else None."""
        pattern = "".join(
            f"(?P<{part[1:-1]}>[^/?#]+)" if _VAR_RE.fullmatch(part) else re.escape(part)
            for part in _split_parts(self.uri_template)
        )
        found = re.fullmatch(pattern, uri)
        if found is None:
            return None
        return {k: unquote(v) for k, v in found.groupdict().items()}


def _split_parts(template: str) -> list[str]:
    parts: list[str] = []
    last = 0
    for m in _VAR_RE.finditer(template):
        parts.append(template[last : m.start()])
        parts.append(m.group(0))
        last = m.end()
    parts.append(template[last:])
    return [p for p in parts if p]


# --- CLI commands --------------------------------------------------------------------------------


@dataclass
class CommandContext(Generic[SettingsT]):
    """What a module's CLI command receives: the database (migrated), its settings, the owner, the streams."""

    engine: AsyncEngine
    settings: SettingsT
    data_dir: Path
    logger: logging.Logger
    owner_id: str
    user_id: Callable[[str], Awaitable[str]]
    """The id of the user with this email. Raises NotFound."""
    stdin: TextIO
    stdout: TextIO
    stderr: TextIO


Arguments = Callable[[argparse.ArgumentParser], None]
CommandFn = Callable[[CommandContext[Any], argparse.Namespace], Awaitable[int | None]]


@dataclass(frozen=True)
class CommandSpec:
    """`mcpist MODULE NAME ...`: a maintenance command a module adds to the CLI."""

    name: str
    help: str
    arguments: Arguments | None
    fn: CommandFn


__all__ = [
    "Arguments",
    "CommandContext",
    "CommandFn",
    "CommandSpec",
    "CompleteFn",
    "PromptArgument",
    "PromptCompleter",
    "PromptInfo",
    "PromptMessage",
    "PromptProvider",
    "PromptResult",
    "ResourceFn",
    "ResourceSpec",
]
