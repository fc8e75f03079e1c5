"""codeloop as an MCP server (`codeloop mcp` on stdio; `/api/mcp` in `codeloop serve`).

The tools are the HTTP API's jobs on the same `ServerState` (run store, live runs, model
gate, roots): their arguments are the API's `params`, their runs are the API's runs.
"""
