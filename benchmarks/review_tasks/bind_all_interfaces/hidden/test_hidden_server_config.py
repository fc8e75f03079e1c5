from server_config import server_address


def test_local_by_default(monkeypatch):
    monkeypatch.delenv("HOST", raising=False)
    monkeypatch.delenv("PORT", raising=False)
    assert server_address() == ("127.0.0.1", 8000)


def test_environment_overrides(monkeypatch):
    monkeypatch.setenv("HOST", "10.0.0.5")
    monkeypatch.setenv("PORT", "9001")
    assert server_address() == ("10.0.0.5", 9001)
