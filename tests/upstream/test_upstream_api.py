"""The package's public names are pinned, and it imports nothing of MCPist but the error tree."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import mcpist.upstream

PACKAGE = Path(mcpist.upstream.__file__).parent
ALLOWED = {"httpx", "anyio", "pydantic", "mcpist.errors", "mcpist.observe"}


def test_public_api() -> None:
    assert sorted(mcpist.upstream.__all__) == [
        "AccountAuth",
        "Borrowed",
        "Clipped",
        "Credential",
        "CredentialSource",
        "Cursor",
        "Limit",
        "MaxChars",
        "Offset",
        "Page",
        "RETRY_EXTENSION",
        "RetryTransport",
        "ServiceClient",
        "basic",
        "bearer",
        "body_cursor",
        "clip",
        "collect",
        "decode_cursor",
        "encode_cursor",
        "header",
        "link_next",
        "odata_next",
        "offset_next",
        "page_token",
        "raise_for_status",
        "read_bounded",
        "redact",
        "vendor_message",
    ]
    for name in mcpist.upstream.__all__:
        assert getattr(mcpist.upstream, name) is not None


def test_imports_stay_in_their_layer() -> None:
    for path in PACKAGE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                allowed = top in sys.stdlib_module_names or top in ALLOWED or name in ALLOWED
                assert allowed, f"{path.name} imports {name}"
