"""The agent's MCP client: tools of MCP servers the user named in their own config.

Not to be confused with `codeloop.mcp` (codeloop as an MCP server). Servers come only from
the user's config file (`[mcp_servers.NAME]`, settings.py), never from a project file or a
workspace; the hub (hub.py) starts them once per agent run and stops them at its end; their
tools join the agent's own as `server.tool` (tools.py), their results are untrusted text,
capped (results.py) and redacted like every other tool's output.
"""
