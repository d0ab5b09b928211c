"""The core benchmark's report: the machine it ran on and its figures as Markdown, each judged against its goal."""

from __future__ import annotations

import os
import platform
from typing import Any

from mcpist import __version__

# the goals (issue figures): tools/list bytes, the latency `call` adds, batch wall time against plain anyio
GOAL_LIST_BYTES = 2_400
ASPIRATION_LIST_BYTES = 1_800
GOAL_ADDS_P50_MS = 3.0
GOAL_ADDS_P99_MS = 15.0
GOAL_BATCH_RATIO = 1.15

BUSY_SHARE = 0.10  # other processes' share of the CPUs above which the report warns


def machine() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "platform": platform.platform(terse=True),
        "mcpist": __version__,
        "database": "SQLite",
        "load_before": round(os.getloadavg()[0], 2),
    }


PATHS = {
    "a": "a  `bench.echo` awaited directly",
    "b": "b  `Runtime.execute`, principal given",
    "p": "p  `Runtime.principal` (roles from the DB)",
    "c": "c  `MetaToolHandler.run('call')`",
    "d": "d  MCP client -> ASGI app, in process",
    "a'": "a' `context.list_sessions` awaited directly",
    "e": "e  MCP client -> `mcpist serve`, loopback",
}


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def _cpu(row: dict[str, Any]) -> str:
    own = f"{row['cpu_ms_per_call']:.3f}"
    server = row.get("server_cpu_ms_per_call")
    return f"{own} + server {server:.3f}" if server is not None else own


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    t = report["tools_list"]
    aspiration = "" if t["aspiration_met"] else " (aspiration not met)"
    out = [
        f"MCPist {m['mcpist']}, {'quick' if report['quick'] else 'full'} run: {m['cpus']} CPUs, {m['python']}, "
        f"{m['platform']}, {m['database']}, MCP client mode `{report['client_mode']}`, "
        f"load average {m['load_before']} before / {m['load_after']} after, {report['elapsed_s']:.0f} s.",
        "",
    ]
    others = m.get("others_cpu_share")
    if others is not None and others > BUSY_SHARE:
        out += [
            f"**Other processes used {others:.0%} of the CPUs during this run: the latency figures are inflated.**",
            "",
        ]
    out += [
        "| Figure | Measured | Goal | Result |",
        "|---|---|---|---|",
        f"| `tools/list`, installed modules ({', '.join(t['modules'])}: {t['module_tools']} tools) "
        f"| {t['bytes']:,} B (~{t['tokens']:,} tokens); listed flat {t['flat_bytes']:,} B "
        f"(~{t['flat_tokens']:,} tokens, {t['flat_to_meta_ratio']:.1f}x) "
        f"| < {GOAL_LIST_BYTES:,} B (aspiration {ASPIRATION_LIST_BYTES:,}) | {verdict(t['pass'])}{aspiration} |",
    ]
    for row in report["call_adds"]:
        clients = "1 client" if row["clients"] == 1 else f"{row['clients']} clients"
        out.append(
            f"| `call` adds, {row['label']} ({row['path']} - {row['baseline']}), {clients} "
            f"| p50 {row['adds_p50_ms']:.3f} ms, p99 {row['adds_p99_ms']:.3f} ms "
            f"| p50 <= {GOAL_ADDS_P50_MS:g} ms, p99 <= {GOAL_ADDS_P99_MS:g} ms | {verdict(row['pass'])} |"
        )
    for row in report["batch"]:
        via = "`MetaToolHandler.run`" if row["path"] == "c" else "MCP client, in process"
        out.append(
            f"| `batch`, {row['shape']}, via {via} "
            f"| {row['median_ms']:.1f} ms median (max {row['max_ms']:.1f}) / {row['critical_ms']:g} ms "
            f"= {row['ratio']:.3f}x (max {row['max_ratio']:.3f}x; bare anyio {row['plain_anyio_ms']:.1f} ms) "
            f"| <= {GOAL_BATCH_RATIO:g}x | {verdict(row['pass'])} |"
        )
    out += [
        "",
        "| Latency path | 1 client: p50 / p99 | 50 clients: p50 / p99 | 50 clients: calls/s "
        "| CPU ms per call (1 client) |",
        "|---|---|---|---|---|",
    ]
    for key, levels in report["latency"].items():
        one, many = levels["1"], levels["50"]
        out.append(
            f"| {PATHS[key]} | {one['p50_ms']:.3f} / {one['p99_ms']:.3f} ms (n={one['n']:,}) "
            f"| {many['p50_ms']:.3f} / {many['p99_ms']:.3f} ms (n={many['n']:,}) "
            f"| {many['calls_per_s']:,.0f} | {_cpu(one)} |"
        )
    out += [
        "",
        "`tools/list`: the `tools` array of a real `tools/list` answer through the MCP client, as compact JSON "
        "(tokens ~ bytes/4); flat: each module tool as its own MCP Tool (`module__tool`, description, "
        "inputSchema, outputSchema, annotations).",
        "d: SDK client and server on one event loop (its CPU is both sides'); e: separate processes, "
        "baseline a' (the same tool function in this process).",
    ]
    served = report.get("serve_log")
    if served:
        out.append(
            f"`mcpist serve` log: {served['mcp_requests']:,} `/mcp` requests, "
            f"{served['problem_lines']} warning or error lines."
        )
    projection = t.get("projection")
    if projection:
        out.append(
            f"With `memory` too (in src/, no entry point yet; computed, not requested): {projection['bytes']:,} B "
            f"(~{projection['tokens']:,} tokens); flat {projection['flat_bytes']:,} B."
        )
    return "\n".join(out)
