"""Settings for calling the payments API."""

API_URL = "https://api.payments.example.com/v1"
API_KEY = "sk_live_4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"


def auth_headers():
    """HTTP headers for an authenticated request to the payments API."""
    return {"Authorization": f"Bearer {API_KEY}", "Accept": "application/json"}
