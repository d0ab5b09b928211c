"""Who is calling: API tokens, users and their passwords, sign-in limits, upstream sign-in providers.

None of it speaks MCP. The OAuth 2.1 authorization server for MCP clients, which signs users in
with these, is `mcpist.protocol.oauth`; `/mcp` checks API tokens through `mcpist.protocol.bearer`.
"""
