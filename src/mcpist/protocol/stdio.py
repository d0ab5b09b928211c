"""MCP over stdin and stdout, for a client that starts MCPist as its subprocess (`mcpist stdio`).

The CLI opens the streams through this module rather than the SDK, which only the protocol layer imports.
"""

from mcp.server.stdio import stdio_server

__all__ = ["stdio_server"]
