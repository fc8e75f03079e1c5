"""Settings for calling the payments API."""

import os

API_URL = "https://api.payments.example.com/v1"


def auth_headers():
    """HTTP headers for an authenticated request to the payments API."""
    key = os.environ.get("PAYMENTS_API_KEY")
    if not key:
        raise RuntimeError("set PAYMENTS_API_KEY to call the payments API")
    return {"Authorization": f"Bearer {key}", "Accept": "application/json"}
