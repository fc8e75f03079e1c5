"""Where the development server listens."""

import os


def server_address():
    """(host, port) for the dev server; the PORT environment variable sets the port."""
    host = "0.0.0.0"
    port = int(os.environ.get("PORT", "8000"))
    return host, port
