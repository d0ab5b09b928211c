"""What an LLM reads about `run_script`: a one-line description and the guide (with this server's limits)."""

from __future__ import annotations

from mcpist.config import ScriptSettings

__all__ = ["DESCRIPTION", "GUIDE", "guide"]

DESCRIPTION = (
    "Run a Starlark script for loops and branches: def main() uses call(module, tool, params), "
    'returns the result. Guide: get_module_schema("script").'
)

GUIDE = """\
# run_script

`run_script({{"script": "<Starlark>", "args": {{...}}}})`. Starlark is a small Python: `def`, `if`,
`for`, comprehensions, `lambda`, `f"{{name}}"`; no `while`, classes, `try`, imports, files, network or
clock. Define `main()`; its JSON return value is the result. `args` is a read-only global
(copy with `dict(args)`). Tool calls run exactly as `call` runs them.

## Built-ins
- `call(module, tool, params={{}}, account=None)`: the tool's result. A tool error stops the script
  with the tool's code and message, plus the line and column.
- `try_call(...)`: `{{"ok": True, "value": ...}}` or `{{"ok": False, "error": {{"code", "message"}}}}`.
- `call_all([{{"module", "tool", "params", "account"}}, ...])`: run concurrently, results in order;
  fails like `call`. `try_call_all(...)`: try_call's answers instead.
- `json.encode(v)`, `json.decode(s)`, `fail("why")`, `sorted(xs, key=lambda x: x["n"], reverse=True)`,
  `len`, `min`, `max`, `any`, `all`, `zip`, `enumerate`, `range`, `map`, `filter`.
- Shaping (a key is a field name or a dotted path such as `"owner.id"`):
  `where(items, status="open")`, `sort_by(items, "due", desc=True)`, `pluck(items, "id", "title")`,
  `hash_join(left, right, "owner_id", "id")` (inner join, right side wins),
  `group_by(items, "status")`, `index_by(items, "id")`, `unique(values)`,
  `format_as(rows, "markdown")` (or `"json"`, `"csv"`, `"lines"`).

## Errors and limits
A syntax error is INVALID_ARGUMENT before anything runs; a failing script gives its line and column.
Limits here: {wall:g} s wall time, {cpu:g} s CPU, {memory} MiB memory, {calls} tool calls, a {output}-byte
result, calls nested {depth} deep, values nested {nesting} deep. Past one: RESOURCE_EXHAUSTED
(DEADLINE_EXCEEDED for wall time). Calls made before a failure are not undone.

## Example: loop and branch
```python
def main():
    hub = call("memory", "save", {{"namespace": "notes", "content": "Digest: " + args["topic"]}})
    found = call("memory", "search", {{"namespace": "notes", "query": args["topic"], "k": 20}})
    linked = []
    for item in found["items"]:
        if item["memo_id"] == hub["memo_id"] or item["score"] < args.get("min_score", 0.01):
            continue
        call("memory", "relation.save", {{"namespace": "notes", "source_memo_id": hub["memo_id"],
             "target_memo_id": item["memo_id"], "tag": "digest_of"}})
        linked.append(item["memo_id"])
    return {{"hub": hub["memo_id"], "linked": linked}}
```

## Example: concurrent calls, shaping, a call that may fail
```python
def main():
    spaces = ["work", "home"]
    found = call_all([{{"module": "memory", "tool": "search",
                        "params": {{"namespace": ns, "query": args["query"], "k": 5}}}} for ns in spaces])
    rows = [{{"space": ns, "id": it["memo_id"], "score": it["score"]}}
            for ns, res in zip(spaces, found) for it in res["items"]]
    session = try_call("context", "get_context", {{"session_id": args.get("session_id", "none")}})
    return {{"top": format_as(sort_by(rows, "score", desc=True)[:5], "markdown"),
            "context": session["value"] if session["ok"] else session["error"]["code"]}}
```
"""


def guide(settings: ScriptSettings) -> str:
    """The guide, naming `settings`' limits."""
    return GUIDE.format(
        wall=settings.wall_time_s,
        cpu=settings.cpu_time_s,
        memory=settings.memory_mb,
        calls=settings.max_tool_calls,
        output=settings.max_output_bytes,
        depth=settings.max_depth,
        nesting=settings.max_nesting,
    )
