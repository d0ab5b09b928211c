"""The module registry: modules keyed by name, found through entry points."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from importlib.metadata import entry_points
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
        for spec in module.tools.values():
            try:
                schema = build_schema(module.name, spec)
            except Exception as exc:
                raise ConfigError(f"module {module.name!r}, tool {spec.name!r}: {exc}") from exc
            self._tools[(module.name, spec.name)] = RegisteredTool(module, spec, schema)
        self._modules[module.name] = module

    @classmethod
    def from_entry_points(cls, enabled: Iterable[str] | None = None, disabled: Iterable[str] = ()) -> Registry:
        """Load every module of the `mcpist.modules` group, then keep the enabled ones.

        Raises:
            ConfigError: an entry point fails to load, its name differs from the module's,
                names repeat, or `enabled`/`disabled` names an unknown module.
        """
        found: dict[str, Module] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            try:
                module = ep.load()
            except Exception as exc:
                raise ConfigError(f"module entry point {ep.name!r} ({ep.value}) failed to load: {exc}") from exc
            if not isinstance(module, Module):
                raise ConfigError(f"module entry point {ep.name!r} ({ep.value}) is not an mcpist Module")
            if module.name != ep.name:
                raise ConfigError(f"module entry point {ep.name!r} names a module called {module.name!r}")
            if ep.name in found:
                raise ConfigError(f"two packages register a module named {ep.name!r}")
            found[ep.name] = module
        wanted = set(found) if enabled is None else set(enabled)
        unknown = (wanted | set(disabled)) - set(found)
        if unknown:
            raise ConfigError(
                f"modules.enabled/disabled name unknown module(s) {sorted(unknown)}; installed: {sorted(found)}"
            )
        return cls(found[name] for name in sorted(wanted - set(disabled)))

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
