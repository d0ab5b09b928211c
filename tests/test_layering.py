"""The package's layers: imports point down the list, only the protocol layer imports the MCP SDK,
and the settings load no other layer. Read from the source (TYPE_CHECKING and function-level
imports included), so a stray import fails here before it slows a start or ties layers together.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "mcpist"

# low to high; a layer may import the ones before it, and peers in one group may import each other
LAYERS = [
    {"errors", "ttlcache"},
    {"config"},
    {"upstream"},
    {"storage"},
    {"modules"},
    {"vault", "sieve", "auth"},
    {"batch"},
    {"runtime"},
    {"protocol"},
    {"web"},
    {"cli"},
]
RANK = {name: rank for rank, group in enumerate(LAYERS) for name in group}
# older than this test: the vault names the Runtime it is handed in its type hints only
KNOWN_UPWARD = {
    ("vault/broker.py", "mcpist.runtime"),
    ("vault/cli.py", "mcpist.runtime"),
    ("vault/routes.py", "mcpist.runtime"),
}


def _imports(path: Path) -> Iterator[str]:
    """Absolute names of everything `path` imports, relative imports resolved."""
    package = list(path.relative_to(SRC.parent).parent.parts)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                yield ".".join([*base, *([node.module] if node.module else [])])
            else:
                yield node.module or ""


def _sources() -> Iterator[tuple[str, Path]]:
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), path


def test_only_the_protocol_layer_imports_the_sdk() -> None:
    found = [
        f"{name} imports {imported}"
        for name, path in _sources()
        if not name.startswith("protocol/")
        for imported in _imports(path)
        if imported.split(".")[0] in ("mcp", "mcp_types")
    ]
    assert found == []


def test_imports_point_down_the_layers() -> None:
    upward = []
    for name, path in _sources():
        layer = name.split("/")[0].removesuffix(".py")
        for imported in _imports(path):
            parts = imported.split(".")
            if parts[0] != "mcpist" or len(parts) < 2 or layer not in RANK or parts[1] not in RANK:
                continue
            if RANK[parts[1]] > RANK[layer] and (name, ".".join(parts[:2])) not in KNOWN_UPWARD:
                upward.append(f"{name} imports {imported}")
    assert upward == []


def test_the_settings_load_no_other_layer() -> None:
    code = "import sys, mcpist.config; print(' '.join(sorted(m for m in sys.modules if m.startswith('mcp'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == ["mcpist", "mcpist.config", "mcpist.config._auth", "mcpist.config._vault", "mcpist.errors"]
