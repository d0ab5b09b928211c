"""Evaluate module `context` on labelled dialog files, through its tools (in process, SQLite).

    .venv/bin/python benchmarks/context_eval.py tests/context/dialogs.json tests/context/dialogs_held_out.json
    .venv/bin/python benchmarks/context_eval.py FILE.json --classifier rules   # the old cue rules, for comparison
    .venv/bin/python benchmarks/context_eval.py FILE.json -v                   # list every miss

A dialog file is a list of {"id", "turns": [{"user", "intent": [labels], "goal"?: phrase, "sets"?:
{attribute: phrase}}]}. Setting an attribute again replaces the earlier phrase. Printed per file:
- intent: first label among the gold labels, and label set equal to the gold set (per turn);
- goal kept: dialogs whose final prompt's Mission holds every goal phrase;
- prompt right: dialogs whose final Mission + Constraints hold the goal, every active phrase and no
  replaced one (Recent Conversation quotes messages verbatim by design, so it is not searched);
- add_turn latency p50/p95 (tool call: validation, embedding, classification, SQLite write);
- the bytes the module ships for it (weights and training data).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from mcpist.modules import Caller, ModuleResources, ToolContext
from mcpist.modules.context import ContextSettings, ContextState, module
from mcpist.modules.context._synth import sections
from mcpist.modules.context._text import detect_language
from mcpist.modules.registry import Registry
from mcpist.storage.engine import create_engine
from mcpist.storage.migrate import upgrade
from mcpist.upstream import ServiceClient

DATA = Path(__file__).resolve().parents[1] / "src" / "mcpist" / "modules" / "context" / "data"
Call = Callable[..., Awaitable[Any]]


@dataclass
class Score:
    turns: int = 0
    first: int = 0
    exact: int = 0
    dialogs: int = 0
    goal_kept: int = 0
    prompt_right: int = 0
    by_language: dict[str, list[int]] = field(default_factory=dict)  # language -> [turns, first, exact]
    latencies_ms: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    def line(self) -> str:
        def pct(a: int, b: int) -> str:
            return f"{a}/{b} = {a / b:.1%}" if b else "-"

        langs = ", ".join(f"{k} {v[1] / v[0]:.1%}" for k, v in sorted(self.by_language.items()) if v[0])
        return (
            f"  intent first label {pct(self.first, self.turns)} ({langs}); exact set {pct(self.exact, self.turns)}\n"
            f"  goal kept {pct(self.goal_kept, self.dialogs)} of dialogs; "
            f"final prompt right (goal + every active + no replaced) {pct(self.prompt_right, self.dialogs)}"
        )


def expected(dialog: dict[str, Any]) -> tuple[list[str], dict[str, str], set[str]]:
    """Goal phrases, the active phrase per attribute and the replaced phrases after the last turn."""
    goals: list[str] = []
    active: dict[str, str] = {}
    replaced: set[str] = set()
    for turn in dialog["turns"]:
        if "goal" in turn:
            goals.append(turn["goal"])
        for key, phrase in turn.get("sets", {}).items():
            if key in active:
                replaced.add(active[key])
            active[key] = phrase
    return goals, active, replaced - set(active.values())


async def play(ctx: Any, call: Call, dialogs: list[dict[str, Any]], score: Score | None = None) -> Score:
    """Play every dialog through the tools (one session each) and score it."""
    score = score or Score()
    for dialog in dialogs:
        sid = (await call(ctx, "start_session"))["session_id"]
        reply = "(回答)" if detect_language(dialog["turns"][0]["user"]) == "ja" else "(answer)"
        prompt = ""
        for turn in dialog["turns"]:
            started = time.perf_counter()
            result = await call(ctx, "add_turn", session_id=sid, message=turn["user"])
            score.latencies_ms.append((time.perf_counter() - started) * 1000)
            await call(ctx, "record_response", session_id=sid, text=reply)
            got, gold = result["classification"]["intent"], turn["intent"]
            lang = score.by_language.setdefault(detect_language(turn["user"]), [0, 0, 0])
            first, exact = got[0] in gold, set(got) == set(gold)
            score.turns += 1
            score.first += first
            score.exact += exact
            lang[0] += 1
            lang[1] += first
            lang[2] += exact
            if not exact:
                score.misses.append(f"{dialog['id']}: {turn['user']!r} gold {gold} got {got}")
            prompt = result["prompt"]
        parts = sections(prompt)
        stated = parts.get("Mission", "") + parts.get("Constraints", "")
        goals, active, replaced = expected(dialog)
        lost_goal = [g for g in goals if g not in parts.get("Mission", "")]
        missing = [p for p in active.values() if p not in stated]
        stale = [p for p in replaced if p in stated]
        score.dialogs += 1
        score.goal_kept += not lost_goal
        score.prompt_right += not (lost_goal or missing or stale)
        for kind, phrases in (("goal lost", lost_goal), ("active missing", missing), ("replaced still stated", stale)):
            score.misses += [f"{dialog['id']}: {kind}: {p!r}" for p in phrases]
    return score


def shipped_bytes() -> dict[str, int]:
    return {path.name: path.stat().st_size for path in sorted(DATA.iterdir()) if path.is_file()}


def _no_network(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"unexpected HTTP request to {request.url}")


async def run(files: list[Path], classifier: str, verbose: bool) -> dict[str, Any]:
    registry = Registry([module])

    async def call(ctx: Any, tool: str, **params: Any) -> Any:
        registered = registry.tool("context", tool)
        assert registered is not None
        return registered.schema.dump_output(await registered.spec.fn(ctx, **registered.schema.validate(params)))

    settings = ContextSettings.model_validate({"classifier": classifier})
    out: dict[str, Any] = {"classifier": classifier, "files": {}}
    with tempfile.TemporaryDirectory() as tmp:
        engine = create_engine(f"sqlite+aiosqlite:///{Path(tmp) / 'eval.db'}")
        assert module.migrations is not None and module.lifespan is not None
        await upgrade(engine, [module.migrations])
        resources = ModuleResources(engine, settings, Path(tmp), logging.getLogger("context_eval"))
        async with module.lifespan(resources) as state:
            assert isinstance(state, ContextState)
            http = ServiceClient("context", "", transport=httpx.MockTransport(_no_network), tries=1)
            ctx = ToolContext(
                http=http,
                settings=settings,
                account=None,
                logger=logging.getLogger("context_eval"),
                caller=Caller("eval"),
                state=state,
                engine=engine,
            )
            total = Score()
            for path in files:
                dialogs = json.loads(path.read_text(encoding="utf-8"))
                score = await play(ctx, call, dialogs)
                total.latencies_ms += score.latencies_ms
                print(f"{path} ({len(dialogs)} dialogs, {score.turns} turns), classifier {classifier}:")
                print(score.line())
                if verbose:
                    print("\n".join(f"    {m}" for m in score.misses))
                out["files"][str(path)] = {
                    "turns": score.turns,
                    "first_label": score.first / score.turns,
                    "exact_set": score.exact / score.turns,
                    "dialogs": score.dialogs,
                    "goal_kept": score.goal_kept / score.dialogs,
                    "prompt_right": score.prompt_right / score.dialogs,
                }
            await http.aclose()
        await engine.dispose()
    lat = sorted(total.latencies_ms)
    p50, p95 = statistics.median(lat), lat[min(len(lat) - 1, int(0.95 * len(lat)))]
    size = shipped_bytes()
    print(f"add_turn latency over {len(lat)} turns: p50 {p50:.1f} ms, p95 {p95:.1f} ms (embedding included)")
    print(f"shipped: {sum(size.values()):,} bytes ({', '.join(f'{k} {v:,}' for k, v in size.items())})")
    out.update(latency_ms={"p50": p50, "p95": p95}, shipped_bytes=size)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--classifier", choices=["model", "rules"], default="model")
    parser.add_argument("-v", "--verbose", action="store_true", help="list every mislabelled turn and prompt miss")
    parser.add_argument("--json", action="store_true", help="also print the figures as JSON")
    args = parser.parse_args()
    out = asyncio.run(run(args.files, args.classifier, args.verbose))
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
