"""The package's import graph points down its layers and has no cycle.

Read statically, so imports under `if TYPE_CHECKING:` and inside functions count: they are the
same dependency, only deferred. A unit (see `RANKS`) imports itself and lower ranks; never a
higher rank, and a peer of its own rank only through `PEERS`. Each built-in module (a package
under mcpist/modules/) is a plugin: it imports only what a third-party module could
(`PLUGIN_API`), and nothing in the core imports it (the registry finds it through its entry
point). Only mcpist.protocol imports the MCP SDK.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "mcpist"

# low to high; "mcpist" is the package's __init__ (the version)
RANKS: dict[str, int] = {
    "mcpist": 0,
    "mcpist.errors": 0,
    "mcpist.ttlcache": 0,
    "mcpist.config": 1,
    "mcpist.observe": 1,  # metrics, request ids, logs, traces: counted from the upstream clients up
    "mcpist.upstream": 2,
    "mcpist.storage": 3,
    "mcpist.modules": 4,  # the module API and registry, not the built-in modules (plugins)
    "mcpist.vault": 5,
    "mcpist.sieve": 5,
    "mcpist.auth": 5,
    "mcpist.elicitations": 5,
    "mcpist.tasks": 5,
    "mcpist.cluster": 5,
    "mcpist.batch": 6,
    "mcpist.script": 6,
    "mcpist.quotas": 6,
    "mcpist.runtime": 7,
    "mcpist.protocol": 8,
    "mcpist.web": 9,
    "mcpist.launch": 10,
    "mcpist.cli": 10,
    "mcpist.testing": 10,
}

# (importer, imported) -> why, for the few imports between peers of one rank that are right
PEERS: dict[tuple[str, str], str] = {
    ("mcpist.observe", "mcpist.config"): "observation takes its settings section, as every layer does",
    ("mcpist.cli", "mcpist.launch"): "`serve` hands its processes (one, or several workers) to the launcher",
}

PLUGIN_API = frozenset(
    {"mcpist.modules", "mcpist.modules.api", "mcpist.errors", "mcpist.upstream", "mcpist.storage.types"}
)
SDK = ("mcp", "mcp_types")
SDK_UNIT = "mcpist.protocol"


@dataclass(frozen=True)
class Import:
    path: Path
    line: int
    importer: str
    target: str

    def where(self) -> str:
        return f"{self.path.relative_to(SRC.parents[1])}:{self.line}"


def module_name(path: Path, root: Path = SRC) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def plugins() -> frozenset[str]:
    return frozenset(f"mcpist.modules.{d.name}" for d in (SRC / "modules").iterdir() if (d / "__init__.py").is_file())


def all_modules(root: Path = SRC) -> set[str]:
    return {module_name(p, root) for p in root.rglob("*.py")}


def imports(root: Path = SRC) -> Iterator[Import]:
    """Every import statement under `root`, wherever it sits, with the module it loads."""
    known = all_modules(root)
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(path, node.lineno, name, alias.name)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                # `from mcpist import errors` loads mcpist.errors; `from x import a, b` is one import of x
                targets = {f"{source}.{a.name}" if f"{source}.{a.name}" in known else source: None for a in node.names}
                for target in targets:
                    yield Import(path, node.lineno, name, target)


def unit_of(module: str, plugin_units: frozenset[str]) -> str | None:
    """The ranked unit (or plugin) holding `module`; None outside mcpist."""
    if module != "mcpist" and not module.startswith("mcpist."):
        return None
    for plugin in plugin_units:
        if module == plugin or module.startswith(plugin + "."):
            return plugin
    parts = module.split(".")
    return ".".join(parts[:2])


def violations() -> tuple[list[str], list[str]]:
    """Every broken rule (file:line first), and every cycle between units."""
    plugin_units = plugins()
    out: list[str] = []
    edges: dict[str, dict[str, list[Import]]] = defaultdict(lambda: defaultdict(list))
    for imp in imports():
        src = unit_of(imp.importer, plugin_units)
        assert src is not None
        top = imp.target.split(".")[0]
        if top in SDK and src != SDK_UNIT:
            out.append(f"{imp.where()}: {imp.importer} imports the MCP SDK ({imp.target}); only {SDK_UNIT} may")
            continue
        dst = unit_of(imp.target, plugin_units)
        if dst is None or dst == src:
            continue
        edges[src][dst].append(imp)
        if src in plugin_units:
            if imp.target not in PLUGIN_API:
                allowed = ", ".join(sorted(PLUGIN_API))
                out.append(
                    f"{imp.where()}: built-in module {src} imports {imp.target}; a module may import only {allowed}"
                )
            continue
        if dst in plugin_units:
            out.append(f"{imp.where()}: {imp.importer} imports the built-in module {imp.target}; use the registry")
            continue
        for unit in (src, dst):
            if unit not in RANKS:
                out.append(f"{imp.where()}: {unit} has no rank; add it to RANKS in {Path(__file__).name}")
        if src not in RANKS or dst not in RANKS:
            continue
        if RANKS[dst] > RANKS[src]:
            out.append(f"{imp.where()}: {imp.importer} (rank {RANKS[src]}) imports {imp.target} (rank {RANKS[dst]})")
        elif RANKS[dst] == RANKS[src] and (src, dst) not in PEERS:
            out.append(f"{imp.where()}: {imp.importer} imports its peer {imp.target} (both rank {RANKS[src]})")
    return out, cycles(edges)


def cycles(edges: dict[str, dict[str, list[Import]]]) -> list[str]:
    """One line per strongly connected component of more than one unit, with the imports inside it."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(unit: str) -> None:
        index[unit] = low[unit] = len(index)
        stack.append(unit)
        on_stack.add(unit)
        for nxt in edges.get(unit, {}):
            if nxt not in index:
                visit(nxt)
                low[unit] = min(low[unit], low[nxt])
            elif nxt in on_stack:
                low[unit] = min(low[unit], index[nxt])
        if low[unit] == index[unit]:
            component: list[str] = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == unit:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for unit in sorted(edges):
        if unit not in index:
            visit(unit)
    out = []
    for component in found:
        inside = [
            f"    {imp.where()}: {src} -> {dst}"
            for src in component
            for dst in component
            for imp in edges.get(src, {}).get(dst, [])[:1]
        ]
        out.append(f"import cycle between {', '.join(component)}:\n" + "\n".join(inside))
    return out


def test_every_top_level_name_has_a_rank() -> None:
    units = {unit_of(m, plugins()) or m for m in all_modules()} - plugins()
    assert units <= set(RANKS), f"unranked: {sorted(units - set(RANKS))}"


def test_imports_point_down_the_layers_without_cycles() -> None:
    broken, loops = violations()
    assert not broken + loops, "\n" + "\n".join(broken + loops)


def test_the_checker_sees_deferred_and_relative_imports(tmp_path: Path) -> None:
    # the rules are only as good as the parser: the cases a scan of top-level imports misses
    root = tmp_path / "mcpist"
    (root / "sieve").mkdir(parents=True)
    for name in ("__init__.py", "errors.py", "ttlcache.py", "sieve/__init__.py", "sieve/_tables.py"):
        (root / name).write_text("")
    (root / "sieve" / "_tokens.py").write_text(
        """from typing import TYPE_CHECKING

from mcpist import errors
from . import _tables
from .. import ttlcache

if TYPE_CHECKING:
    from mcpist.runtime import Runtime


def later() -> None:
    import mcpist.web.app
"""
    )
    found = {(imp.line, imp.target) for imp in imports(root) if imp.importer == "mcpist.sieve._tokens"}
    assert found == {
        (1, "typing"),
        (3, "mcpist.errors"),
        (4, "mcpist.sieve._tables"),
        (5, "mcpist.ttlcache"),
        (8, "mcpist.runtime"),
        (12, "mcpist.web.app"),
    }


def test_the_settings_load_no_other_layer() -> None:
    code = "import sys, mcpist.config; print(' '.join(sorted(m for m in sys.modules if m.startswith('mcp'))))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert loaded == [
        "mcpist",
        "mcpist.config",
        "mcpist.config._auth",
        "mcpist.config._cluster",
        "mcpist.config._limits",
        "mcpist.config._observe",
        "mcpist.config._tasks",
        "mcpist.config._vault",
        "mcpist.config._web",
        "mcpist.errors",
    ]
