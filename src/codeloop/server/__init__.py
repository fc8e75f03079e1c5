"""`codeloop serve`: the HTTP API (FastAPI), its event streams (SSE) and the web UI.

Nothing is imported here: `from codeloop.server.app import create_app` loads FastAPI."""
