"""Permission patterns: which tools one `allow` or `deny` entry of a role names.

*                    every tool of every module
MODULE.*             every tool of one module
MODULE.TOOL          one tool (a tool name may itself contain dots: memory.relation.graph)
MODULE.@read         the module's tools annotated readOnlyHint
MODULE.@destructive  the module's tools annotated destructiveHint
*.@read, *.@destructive   the same presets across every module
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from mcpist.errors import InvalidArgument
from mcpist.modules.api import NAME_RE, TOOL_NAME_RE, ToolSpec
from mcpist.modules.registry import Registry

ANY = "*"
PRESETS: dict[str, Callable[[ToolSpec], bool]] = {
    "@read": lambda spec: spec.read_only,
    "@destructive": lambda spec: spec.destructive,
}
MAX_PATTERN = 200
SYNTAX = "use MODULE.TOOL, MODULE.*, MODULE.@read, MODULE.@destructive, *.@read, *.@destructive or *"


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern; `module` None means every module, `tool` None every tool (or `preset`'s)."""

    module: str | None
    tool: str | None
    preset: str | None

    def __str__(self) -> str:
        module = self.module or ANY
        if self.module is None and self.tool is None and self.preset is None:
            return ANY
        return f"{module}.{self.preset or self.tool or ANY}"

    def matches(self, spec: ToolSpec) -> bool:
        """Whether this pattern names `spec`, a tool of a module the pattern already matched."""
        if self.tool is not None:
            return spec.name == self.tool
        if self.preset is not None:
            return PRESETS[self.preset](spec)
        return True


def _invalid(text: str, why: str) -> InvalidArgument:
    return InvalidArgument(f"invalid permission {text!r}: {why}; {SYNTAX}", {"field": "permission", "value": text})


def parse_pattern(text: str) -> Pattern:
    """Parse one pattern (surrounding spaces ignored; `*.*` means `*`).

    Raises:
        InvalidArgument: the text does not follow the syntax; the message quotes it.
    """
    stripped = text.strip()
    if len(stripped) > MAX_PATTERN:
        raise _invalid(stripped[:40] + "...", f"longer than {MAX_PATTERN} characters")
    if stripped in (ANY, "*.*"):
        return Pattern(None, None, None)
    module, dot, rest = stripped.partition(".")
    if not dot or not rest:
        raise _invalid(stripped, "name a module and a tool, separated by a dot")
    if module != ANY and not NAME_RE.fullmatch(module):
        raise _invalid(stripped, f"{module!r} is not a module name")
    scope = None if module == ANY else module
    if rest == ANY:
        return Pattern(scope, None, None)
    if rest.startswith("@"):
        if rest not in PRESETS:
            raise _invalid(stripped, f"unknown preset {rest!r} (presets: {', '.join(PRESETS)})")
        return Pattern(scope, None, rest)
    if scope is None:
        raise _invalid(stripped, "a tool name needs its module")
    if not TOOL_NAME_RE.fullmatch(rest):
        raise _invalid(stripped, f"{rest!r} is not a tool name")
    return Pattern(scope, rest, None)


def check_installed(pattern: Pattern, registry: Registry, unloaded: Collection[str] = ()) -> None:
    """Refuse a pattern naming a module or tool `registry` lacks (a typo in a deny would allow).

    `unloaded` names installed modules that are disabled, so never imported: a pattern may name them,
    but their tool names cannot be checked.

    Raises:
        InvalidArgument: the module or tool is unknown; the message names it and what exists.
    """
    if pattern.module is None:
        return
    module = registry.module(pattern.module)
    if module is None and pattern.module in unloaded:
        return
    if module is None:
        names = ", ".join(sorted({*registry.names(), *unloaded})) or "(none)"
        raise InvalidArgument(
            f"permission {str(pattern)!r} names unknown module {pattern.module!r}; installed: {names}",
            {"field": "permission", "value": str(pattern), "module": pattern.module},
        )
    if pattern.tool is not None and pattern.tool not in module.tools:
        tools = ", ".join(sorted(module.tools)) or "(none)"
        raise InvalidArgument(
            f"permission {str(pattern)!r} names unknown tool {pattern.tool!r} of module {module.name!r}; "
            f"its tools: {tools}",
            {"field": "permission", "value": str(pattern), "module": module.name, "tool": pattern.tool},
        )
