"""A small GitHub behind `FakeUpstream`: repository octo/hello with files, history, issues, PRs and CI runs.

Every handler answers what GitHub would for the documented operation; the fake checks each request and each
answer against `tests/vendor_specs/github.json`. Writes (blobs, trees, commits, refs) change the world, so a
test can follow the git data API's sequence.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from github_code_routes import install_code
from github_fake import API, FEATURE_SHA, FULL, MAIN_SHA, sha_of
from github_work_routes import LOG_HOST, LOG_URL, install_work

from mcpist.testing import FakeUpstream

__all__ = ["BIG_TEXT", "HUGE_CSV", "LOG_HOST", "LOG_URL", "SCRIPT", "World", "fake_upstream", "install"]

SPEC = Path(__file__).resolve().parents[1] / "vendor_specs" / "github.json"
BIG_TEXT = "".join(f"line {i:05d} of the big file\n" for i in range(3000))  # 84,000 characters
HUGE_CSV = b"id,value\n" + b"".join(b"%d,%d\n" % (i, i * i) for i in range(120_000))
SCRIPT = "#!/bin/sh\necho deploy\n"


def fake_upstream(base_url: str = API) -> FakeUpstream:
    return FakeUpstream.from_file(SPEC, base_url=base_url, slash_params={"path"})


class World:
    """The state the handlers serve and change."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {
            "README.md": b"# hello\n\nA greeting.\n",
            "src/app.py": b"print('hello')\n",
            "scripts/deploy.sh": SCRIPT.encode(),
            "big.txt": BIG_TEXT.encode(),
            "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "data/huge.csv": HUGE_CSV,
        }
        self.modes = {"scripts/deploy.sh": "100755"}
        self.heads = {"main": MAIN_SHA, "feature/x": FEATURE_SHA}
        self.blobs: dict[str, str] = {}  # sha -> content, as written
        self.trees: dict[str, list[dict[str, Any]]] = {}
        self.commits: dict[str, dict[str, Any]] = {}
        self.refs_created: list[dict[str, Any]] = []
        self.moved_meanwhile = False
        self.log = "".join(f"2026-03-01T12:00:{i % 60:02d}.0000000Z \x1b[32mstep {i}\x1b[0m\n" for i in range(2000))

    def tree_entries(self) -> list[dict[str, Any]]:
        entries: list[dict[str, Any]] = [
            {"path": "src", "mode": "040000", "type": "tree", "sha": sha_of("src")},
            {"path": "scripts", "mode": "040000", "type": "tree", "sha": sha_of("scripts")},
            {"path": "data", "mode": "040000", "type": "tree", "sha": sha_of("data")},
            {"path": "docs", "mode": "040000", "type": "tree", "sha": sha_of("docs")},
        ]
        entries += [{"path": f"docs/page-{i:03d}.md", "mode": "100644", "type": "blob", "size": 10} for i in range(250)]
        for path, data in self.files.items():
            mode = self.modes.get(path, "100644")
            entries.append({"path": path, "mode": mode, "type": "blob", "sha": sha_of(data), "size": len(data)})
        for entry in entries:
            entry.setdefault("sha", sha_of(entry["path"]))
            entry["url"] = f"{API}/repos/{FULL}/git/blobs/{entry['sha']}"
        return sorted(entries, key=lambda e: e["path"])


def install(fake: FakeUpstream, world: World) -> None:
    """Register a handler for every operation the module uses."""
    install_code(fake, world)
    install_work(fake, world)
