"""MCPist: a self-hosted MCP server for Personal Context Management."""

__version__ = "0.1.0"
