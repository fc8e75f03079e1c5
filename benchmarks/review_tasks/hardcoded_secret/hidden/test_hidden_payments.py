import pytest

import payments


def test_key_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("PAYMENTS_API_KEY", "test-key-123")
    assert payments.auth_headers() == {"Authorization": "Bearer test-key-123",
                                       "Accept": "application/json"}
    monkeypatch.setenv("PAYMENTS_API_KEY", "rotated-456")
    assert payments.auth_headers()["Authorization"] == "Bearer rotated-456"


def test_missing_key_is_an_error(monkeypatch):
    monkeypatch.delenv("PAYMENTS_API_KEY", raising=False)
    with pytest.raises(RuntimeError):
        payments.auth_headers()


def test_url_unchanged():
    assert payments.API_URL == "https://api.payments.example.com/v1"
