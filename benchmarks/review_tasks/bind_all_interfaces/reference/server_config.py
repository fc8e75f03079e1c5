"""Where the development server listens."""

import os


def server_address():
    """(host, port) for the dev server; HOST and PORT environment variables override them."""
    host = os.environ.get("HOST", "127.0.0.1")
    port = int(os.environ.get("PORT", "8000"))
    return host, port
