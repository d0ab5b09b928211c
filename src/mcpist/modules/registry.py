"""The module registry: modules keyed by name, found through entry points."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from mcpist.errors import ConfigError

from .api import Module, ToolSpec
from .schema import ToolSchema, build_schema

ENTRY_POINT_GROUP = "mcpist.modules"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RegisteredTool:
    module: Module
    spec: ToolSpec
    schema: ToolSchema

    @property
    def qualified_name(self) -> str:
        return f"{self.module.name}.{self.spec.name}"

    def definition(self) -> dict[str, Any]:
        """The compact tool definition `get_module_schema` returns."""
        spec = self.spec
        out: dict[str, Any] = {
            "name": spec.name,
            "description": spec.description,
            "inputSchema": self.schema.input_schema,
        }
        if self.schema.output_schema is not None:
            out["outputSchema"] = self.schema.output_schema
        annotations: dict[str, bool] = {"readOnlyHint": spec.read_only}
        if not spec.read_only:
            annotations["destructiveHint"] = spec.destructive
        annotations["idempotentHint"] = spec.idempotent
        annotations["openWorldHint"] = spec.open_world
        out["annotations"] = annotations
        return out


class Registry:
    """Modules by name; refuses duplicate or invalid names.

    Raises:
        ConfigError: two modules share a name, or a module's tools do not derive a schema.
    """

    def __init__(self, modules: Iterable[Module] = ()) -> None:
        self._modules: dict[str, Module] = {}
        self._tools: dict[tuple[str, str], RegisteredTool] = {}
        for module in modules:
            self.add(module)

    def add(self, module: Module) -> None:
        if not isinstance(module, Module):
            raise ConfigError(f"module entry {module!r} is not an mcpist Module")
        if module.name in self._modules:
            raise ConfigError(f"two modules are named {module.name!r}; module names must be unique")
        tools: dict[tuple[str, str], RegisteredTool] = {}
        for spec in module.tools.values():
            try:
                schema = build_schema(module.name, spec)
            except Exception as exc:
                raise ConfigError(f"module {module.name!r}, tool {spec.name!r}: {exc}") from exc
            tools[(module.name, spec.name)] = RegisteredTool(module, spec, schema)
        for resource in module.resources.values():
            if resource.tool not in module.tools:
                raise ConfigError(
                    f"module {module.name!r}: resource {resource.uri_template!r} follows unknown tool {resource.tool!r}"
                )
        # all or nothing: a module whose tools fail leaves no trace behind
        self._tools.update(tools)
        self._modules[module.name] = module

    @staticmethod
    def installed_names() -> list[str]:
        """The names of every installed module, read from entry points without importing any."""
        return sorted({ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})

    @classmethod
    def from_entry_points(cls, enabled: Iterable[str] | None = None, disabled: Iterable[str] = ()) -> Registry:
        """Load the enabled modules of the `mcpist.modules` group; a disabled one is never imported.

        Raises:
            ConfigError: two packages register one name, `enabled`/`disabled` names an unknown
                module, or an entry point fails to load, is not a Module or names another module.
        """
        found: dict[str, EntryPoint] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name in found:
                raise ConfigError(
                    f"two packages register a module named {ep.name!r}: "
                    f"{_origin(found[ep.name])} and {_origin(ep)}; uninstall one"
                )
            found[ep.name] = ep
        disabled = set(disabled)
        wanted = set(found) if enabled is None else set(enabled)
        unknown = (wanted | disabled) - set(found)
        if unknown:
            raise ConfigError(
                f"modules.enabled/disabled name unknown module(s) {sorted(unknown)}; installed: {sorted(found)}"
            )
        modules: list[Module] = []
        for name in sorted(wanted - disabled):
            ep = found[name]
            try:
                module = ep.load()
            except Exception as exc:
                raise ConfigError(
                    f"module entry point {ep.name!r} ({_origin(ep)}) failed to load: {type(exc).__name__}: {exc}; "
                    f"disable it with modules.disabled = [{ep.name!r}]"
                ) from exc
            if not isinstance(module, Module):
                raise ConfigError(f"module entry point {ep.name!r} ({_origin(ep)}) is not an mcpist Module")
            if module.name != ep.name:
                raise ConfigError(
                    f"module entry point {ep.name!r} ({_origin(ep)}) names a module called {module.name!r}; "
                    "the entry point's name must be the module's name"
                )
            modules.append(module)
        return cls(modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __contains__(self, name: object) -> bool:
        return name in self._modules

    def __len__(self) -> int:
        return len(self._modules)

    def names(self) -> list[str]:
        return sorted(self._modules)

    def module(self, name: str) -> Module | None:
        return self._modules.get(name)

    def tool(self, module: str, tool: str) -> RegisteredTool | None:
        return self._tools.get((module, tool))

    def tools(self, module: str | None = None) -> list[RegisteredTool]:
        return [t for (m, _), t in self._tools.items() if module is None or m == module]


def _origin(ep: EntryPoint) -> str:
    dist = ep.dist
    where = f"{dist.name} {dist.version}: " if dist is not None else ""
    return f"{where}{ep.value}"
