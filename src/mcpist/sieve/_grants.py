"""Roles' rules -> the immutable set of tools one request may see and run."""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from mcpist.errors import InvalidArgument
from mcpist.modules.api import Caller
from mcpist.modules.registry import Registry

from ._patterns import parse_pattern

logger = logging.getLogger("mcpist.sieve")

Effect = Literal["allow", "deny"]
ToolKey = tuple[str, str]

_CACHE_LIMIT = 4096


class Rule(NamedTuple):
    """One stored permission: `role_id` allows or denies the tools `pattern` names."""

    role_id: str
    effect: str
    pattern: str


@dataclass(frozen=True)
class Grants:
    """The (module, tool) pairs a caller may see and run."""

    tools: frozenset[ToolKey] = frozenset()
    modules: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "modules", frozenset(module for module, _ in self.tools))

    def allows(self, module: str, tool: str) -> bool:
        return (module, tool) in self.tools

    def without(self, modules: Collection[str]) -> Grants:
        """These grants minus every tool of `modules` (switched off by an admin)."""
        if not modules or self.modules.isdisjoint(modules):
            return self
        return Grants(frozenset(t for t in self.tools if t[0] not in modules))


@dataclass(frozen=True)
class Principal:
    """A caller with the permissions resolved for this request (server-side; modules never see it)."""

    caller: Caller
    grants: Grants
    roles: tuple[str, ...] = ()
    """The names of the roles in force for this request."""


class Sieve:
    """Evaluates roles' rules against one registry (a snapshot: modules do not change while serving).

    Within one role a deny beats an allow; across roles, permissions add up, so granting a
    role never takes away what another role gives. A pattern naming a module or tool that is
    not installed matches nothing.
    """

    def __init__(self, registry: Registry) -> None:
        self._tools = [(t.module.name, t.spec) for t in registry.tools()]
        self._matched: dict[str, frozenset[ToolKey]] = {}

    def matches(self, pattern: str) -> frozenset[ToolKey]:
        found = self._matched.get(pattern)
        if found is not None:
            return found
        try:
            parsed = parse_pattern(pattern)
        except InvalidArgument:
            # rows are validated when written; one edited by hand must not widen or break access
            logger.warning("ignoring unparsable stored permission %r", pattern)
            found = frozenset()
        else:
            found = frozenset(
                (module, spec.name)
                for module, spec in self._tools
                if (parsed.module is None or parsed.module == module) and parsed.matches(spec)
            )
        if len(self._matched) >= _CACHE_LIMIT:
            self._matched.clear()
        self._matched[pattern] = found
        return found

    def grants(self, rules: Iterable[Rule]) -> Grants:
        allowed: dict[str, set[ToolKey]] = {}
        denied: dict[str, set[ToolKey]] = {}
        for rule in rules:
            target = allowed if rule.effect == "allow" else denied if rule.effect == "deny" else None
            if target is None:
                logger.warning("ignoring stored permission with unknown effect %r", rule.effect)
                continue
            target.setdefault(rule.role_id, set()).update(self.matches(rule.pattern))
        tools: set[ToolKey] = set()
        for role_id, allow in allowed.items():
            tools |= allow - denied.get(role_id, set())
        return Grants(frozenset(tools))
