"""A separate process that saves memos and increments a shared counter memo (for the concurrency tests)."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import anyio

from conftest import start_memory
from mcpist.modules import Conflict


async def main(url: str, worker: int, saves: int, increments: int, counter_id: str) -> None:
    conflicts = 0
    with tempfile.TemporaryDirectory() as tmp:
        async for memory in start_memory(url, Path(tmp)):
            for i in range(saves):
                await memory.call(
                    "save", namespace="load", content=f"worker {worker} memo {i}", metadata={"w": worker, "i": i}
                )
            for _ in range(increments):
                while True:
                    found = await memory.call("search", namespace="load", metadata_filter={"kind": "counter"})
                    current = found["items"][0]
                    try:
                        await memory.call(
                            "save",
                            namespace="load",
                            memo_id=counter_id,
                            content=current["content"],
                            metadata={"n": current["metadata"]["n"] + 1},
                            version=current["version"],
                        )
                        break
                    except Conflict:
                        conflicts += 1
    print(json.dumps({"worker": worker, "conflicts": conflicts}))


if __name__ == "__main__":
    url, worker, saves, increments, counter = sys.argv[1:6]
    anyio.run(main, url, int(worker), int(saves), int(increments), counter)
