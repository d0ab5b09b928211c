"""Checks a module's tests share: is each published definition usable by an LLM, and does every tool have a
contract test that really called it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, TypeVar

from mcpist.modules.api import ToolSpec
from mcpist.modules.registry import RegisteredTool

F = TypeVar("F", bound=Callable[..., Any])

_COVERS_RE = re.compile(r"@covers\(([^)]*)\)")
_NAME_RE = re.compile(r"""["']([a-z][a-z0-9_]*)["']""")


def definition_size(tool: RegisteredTool) -> int:
    """Bytes of the tool's definition as `get_module_schema` sends it."""
    return len(json.dumps(tool.definition(), ensure_ascii=False, separators=(",", ":")).encode())


def schema_problems(schema: Any, where: str = "") -> list[str]:
    """What makes a published schema hard for an LLM to read or not self-contained: references, titles,
    discriminators, a required name that is not a property, a property without a type."""
    problems: list[str] = []
    if not isinstance(schema, dict):
        return problems
    for key in ("$ref", "$defs", "definitions", "title", "discriminator"):
        if key in schema:
            problems.append(f"{where or '(root)'}: has {key!r}")
    props = schema.get("properties")
    if isinstance(props, dict):
        for name in schema.get("required", []):
            if name not in props:
                problems.append(f"{where or '(root)'}: required {name!r} is not a property")
        for name, sub in props.items():
            path = f"{where}.{name}" if where else name
            if not isinstance(sub, dict) or not any(k in sub for k in ("type", "anyOf", "oneOf")):
                problems.append(f"{path}: has no type or anyOf")
            problems += schema_problems(sub, path)
    for key in ("items", "additionalProperties"):
        problems += schema_problems(schema.get(key), f"{where}[]" if key == "items" else f"{where}{{}}")
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            problems += schema_problems(sub, f"{where}<{key}{i}>")
    return problems


def definition_problems(tool: RegisteredTool, *, max_description: int = 120, max_bytes: int = 4096) -> list[str]:
    """What keeps a published definition from being one an LLM can use: a description that is not one
    sentence of at most `max_description` characters, an input schema that takes unknown properties, schema
    problems, an output schema that is not an object, a reference, or more than `max_bytes` bytes."""
    definition = tool.definition()
    text = tool.spec.description
    problems: list[str] = []
    if not (text[:1].isupper() and text.endswith(".") and len(text) <= max_description):
        problems.append(f"description {text!r}: one sentence, capitalised, at most {max_description} characters")
    if definition["inputSchema"].get("additionalProperties") is not False:
        problems.append("inputSchema: additionalProperties is not false")
    problems += [f"inputSchema {p}" for p in schema_problems(definition["inputSchema"])]
    output = definition.get("outputSchema") or {}
    if output.get("type") != "object":
        problems.append("outputSchema: not an object")
    problems += [f"outputSchema {p}" for p in schema_problems(output)]
    if "$ref" in json.dumps(definition):
        problems.append("has a $ref")
    if (size := definition_size(tool)) > max_bytes:
        problems.append(f"{size} bytes, over {max_bytes}")
    return problems


def kind_of(spec: ToolSpec) -> str:
    """`R` (read-only), `W` (writes), `D` (destructive), with `i` after a write that is idempotent."""
    if spec.read_only:
        return "R"
    base = "D" if spec.destructive else "W"
    return base + ("i" if spec.idempotent else "")


def covers(*tools: str) -> Callable[[F], F]:
    """Mark a contract test as exercising these tools (see `assert_covered` and `covered_in`)."""

    def mark(test: F) -> F:
        test.covers = tools  # type: ignore[attr-defined]
        return test

    return mark


def assert_covered(test: Callable[..., Any], called: Collection[str]) -> None:
    """After a test: it called every tool its `@covers` names.

    Raises:
        AssertionError: it declared a tool it never called.
    """
    declared = set(getattr(test, "covers", ()))
    missing = sorted(declared - set(called))
    assert not missing, f"the test covers {missing} without calling them"


def covered_in(test_files: Iterable[Path]) -> set[str]:
    """Every tool name an `@covers(...)` in these files names."""
    covered: set[str] = set()
    for path in test_files:
        for names in _COVERS_RE.findall(path.read_text(encoding="utf-8")):
            covered.update(_NAME_RE.findall(names))
    return covered
